"""Engines (live on ALSA, or offline ones you pull samples from) and looping players."""
from __future__ import annotations

import ctypes
import weakref
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from . import _log, _native
from ._native import lib, text
from .errors import InvalidArgumentError, check
from .pattern import Pattern, PathLike, _whole, as_pattern

_STATES = {0: "running", 1: "reconnecting", 2: "unavailable"}
_open_engines: "weakref.WeakSet[Engine]" = weakref.WeakSet()


def _time(at: float | None) -> float:
    """A time on the engine's clock; None: as soon as possible (0)."""
    return 0.0 if at is None else float(at)


@dataclass(frozen=True)
class EngineStatus:
    """What an engine reports (hs_engine_status). ``state``: "running", "reconnecting" or
    "unavailable"; ``audio_state`` likewise for two-device mode's audio device (None in one stream)."""
    state: str
    offline: bool
    sample_rate: int
    channels: int
    period_frames: int
    realtime: bool
    engine_generation: int
    audio_state: str | None
    now: float
    output_latency: float
    frames_rendered: int
    active_voices: int
    xruns: int
    stalls: int
    reconnections: int
    dropped_onsets: int
    late_commands: int
    voices_started: int
    starts_failed: int
    unknown_names: int
    calls_while_unavailable: int
    transients_cut: int
    #: 1: every haptic channel is carried on a channel of its own; 0: one is dropped or mixed; -1: unknown.
    haptic_carried: int


_SOURCES = {0: "silence", 1: "haptic", 2: "left", 3: "right"}
_FATES = {0: "carried", 1: "dropped", 2: "mixed", 3: "unknown"}


@dataclass(frozen=True)
class ChannelInfo:
    """One output channel (``hs_channel_info``): what it carries and whether the device keeps it."""
    #: "haptic", "left", "right" (the sound effects') or "silence".
    source: str
    gain: float
    #: The position the device gives it ("FL", "LFE", "AUX0"...; "" when it does not say, and offline).
    position: str
    #: A haptic channel's actuator profile; "" for the others.
    profile: str
    #: "carried" (a channel of its own), "dropped" (the server drops it), "mixed" (into the speakers)
    #: or "unknown" (the device cannot say).
    fate: str
    #: Why, when not carried.
    reason: str


class Engine(_native.Owned):
    """A live engine on an ALSA device (an ``hs_engine``); a context manager that closes it.

    ``device``: the ALSA PCM ("default", "hw:1,0", a PulseAudio or JACK PCM); with
    ``haptic_device`` (two-device mode) the haptic goes to ``haptic_device`` and the sound
    effects to ``device``, each on its own clock. ``layout``: the haptic output's channel map,
    as ``--layout`` reads it ("L,R,H", "0,0,H,H*0.5", "FL,FR,LFE=H", "dualsense"...; None:
    chosen from the device as ``hapticsynth play`` chooses it, "H" in two-device mode).
    ``profile``: a built-in actuator name or a profile JSON path. Times (``at``) are seconds on
    CLOCK_MONOTONIC (:meth:`now`); None plays as soon as possible.

    The library's log lines (the layout chosen, a haptic channel the device drops...) go to the
    ``logging`` logger "hapticsynth", from the level it has when the engine opens."""

    _free = "hs_engine_close"

    def __init__(self, device: str = "default", layout: str | None = None, profile: str = "bass-shaker",
                 haptic_device: str | None = None, *, rate: int = 48000, period_frames: int = 0, buffer_periods: int = 0,
                 haptics_folder: PathLike | None = None, assets_folder: PathLike | None = None,
                 realtime_priority: int = 0, lock_memory: bool = False) -> None:
        options = _native.EngineOptions()
        check(lib.hs_engine_options_init(ctypes.byref(options)))
        options.device = text(haptic_device if haptic_device is not None else device, "device")
        options.audio_device = text(device if haptic_device is not None else None, "device")
        options.layout = text(layout, "layout")
        options.profile = text(profile, "profile")
        options.sample_rate = _whole(rate, "rate")
        options.period_frames = _whole(period_frames, "period_frames")
        options.buffer_periods = _whole(buffer_periods, "buffer_periods")
        options.haptics_folder = text(haptics_folder, "haptics_folder")
        options.assets_folder = text(assets_folder, "assets_folder")
        options.realtime_priority = _whole(realtime_priority, "realtime_priority")
        options.lock_memory = 1 if lock_memory else 0
        self._open(options)

    def _open(self, options: _native.EngineOptions) -> None:
        self._handle = _native.handle()
        _log.connect()
        check(lib.hs_engine_open_with(ctypes.byref(self._handle), ctypes.byref(options)))
        _open_engines.add(self)

    @classmethod
    def offline(cls, channels: int = 1, layout: str | None = None, profile: str = "bass-shaker",
                rate: int = 48000) -> "OfflineEngine":
        """An engine you pull samples from (:meth:`OfflineEngine.render`): nothing plays by
        itself; its clock is the frames pulled (time 0 is the first pulled frame). A pattern
        played before the first pull renders bit for bit what :func:`hapticsynth.render` gives
        with the same layout, profile and rate. ``layout`` None: "H" for 1 channel, "L,R,H" for 3."""
        return OfflineEngine(channels=channels, layout=layout, profile=profile, rate=rate)

    # --- playing -------------------------------------------------------------------------
    def play(self, pattern: Pattern | PathLike, at: float | None = None) -> None:
        """Plays a pattern (or a pattern file) once at ``at``."""
        pattern = as_pattern(pattern)
        check(lib.hs_engine_play(self._handle, pattern._handle, _time(at)))

    def play_named(self, name: str, at: float | None = None) -> None:
        """Plays the library pattern ``name`` of the haptics folder."""
        check(lib.hs_engine_play_named(self._handle, text(name, "name"), _time(at)))

    def play_cue(self, name: str, at: float | None = None) -> None:
        """Fires the cue ``name`` of the assets folder's cue sheet: its sound and haptic together."""
        check(lib.hs_engine_play_cue(self._handle, text(name, "name"), _time(at)))

    def play_sound(self, name: str, at: float | None = None) -> None:
        """Plays the sound effect ``name`` (assets sfx/NAME.wav)."""
        check(lib.hs_engine_play_sound(self._handle, text(name, "name"), _time(at)))

    def transient(self, intensity: float, sharpness: float, at: float | None = None) -> None:
        """One transient: intensity and sharpness 0…1 (clamped; NaN refused)."""
        check(lib.hs_engine_transient(self._handle, intensity, sharpness, _time(at)))

    def prepare(self, pattern: Pattern) -> None:
        """Compiles ``pattern`` for this engine now, so that its first play does no such work."""
        check(lib.hs_engine_prepare(self._handle, pattern._handle))

    def player(self, pattern: Pattern | PathLike | str, *, named: bool = False) -> "Player":
        """A looping player of ``pattern`` (not started); ``named=True``: of the library pattern of that name."""
        out = _native.handle()
        if named:
            check(lib.hs_player_create_named(ctypes.byref(out), self._handle, text(str(pattern), "name")))
        else:
            check(lib.hs_player_create(ctypes.byref(out), self._handle, as_pattern(pattern)._handle))
        return Player(out, self)

    def stop(self, at: float | None = None) -> None:
        """Stops everything this engine started (a short fade); the engine keeps running."""
        check(lib.hs_engine_stop(self._handle, _time(at)))

    def reload_library(self) -> None:
        """Reads the haptics folder and the cue sheet again."""
        check(lib.hs_engine_reload_library(self._handle))

    # --- clock and status --------------------------------------------------------------------
    def now(self) -> float:
        """The engine's clock (seconds: CLOCK_MONOTONIC live, frames pulled offline)."""
        now = ctypes.c_double()
        check(lib.hs_engine_now(self._handle, ctypes.byref(now)))
        return now.value

    def status(self) -> EngineStatus:
        raw = _native.EngineStatusStruct()
        raw.struct_size = ctypes.sizeof(raw)
        check(lib.hs_engine_get_status(self._handle, ctypes.byref(raw)))
        values = {name: getattr(raw, name) for name, _ in raw._fields_ if name != "struct_size"}
        values["state"] = _STATES.get(raw.state, str(raw.state))
        values["audio_state"] = None if raw.audio_state < 0 else _STATES.get(raw.audio_state, str(raw.audio_state))
        for flag in ("offline", "realtime"):
            values[flag] = bool(values[flag])
        return EngineStatus(**values)

    def channel_info(self) -> list[ChannelInfo]:
        """Each output channel of the haptic output, as its device was last opened."""
        infos = []
        for index in range(self.status().channels):
            raw = _native.ChannelInfoStruct()
            raw.struct_size = ctypes.sizeof(raw)
            check(lib.hs_engine_channel_info(self._handle, index, ctypes.byref(raw)))
            infos.append(ChannelInfo(
                source=_SOURCES.get(raw.source, str(raw.source)), gain=raw.gain,
                position=raw.position.decode("utf-8", "replace"), profile=raw.profile.decode("utf-8", "replace"),
                fate=_FATES.get(raw.fate, str(raw.fate)), reason=raw.reason.decode("utf-8", "replace")))
        return infos

    # --- lifetime ------------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return not self._handle

    def close(self) -> None:
        """Stops everything (a short fade), closes the device and ends the engine."""
        _native.Owned.close(self)


class OfflineEngine(Engine):
    """An engine you pull samples from (``Engine.offline``)."""

    def __init__(self, channels: int = 1, layout: str | None = None, profile: str = "bass-shaker", rate: int = 48000) -> None:
        options = _native.EngineOptions()
        check(lib.hs_engine_options_init(ctypes.byref(options)))
        options.offline = 1
        options.sample_rate = _whole(rate, "rate")
        channels = _whole(channels, "channels")
        options.layout = text(layout if layout is not None else {1: "H", 3: "L,R,H"}.get(channels), "layout")
        options.profile = text(profile, "profile")
        if options.layout is None:
            raise ValueError(f"channels {channels}: give a layout for a count other than 1 or 3")
        self._open(options)
        self.channels = self.status().channels
        if self.channels != channels:
            self.close()
            raise ValueError(f"layout {layout!r} has {self.channels} channels, not {channels}")

    def render(self, frames: int, out: np.ndarray | None = None) -> np.ndarray:
        """Pulls the next ``frames`` frames (a float32 array frames × channels, or into ``out``,
        a C-contiguous float32 array of that shape) and moves the engine's clock on by them."""
        frames = _whole(frames, "frames")
        if frames < 0:
            raise InvalidArgumentError(f"frames {frames} is negative", -1)
        if out is None:
            out = np.empty((frames, self.channels), dtype=np.float32)
        elif out.dtype != np.float32 or out.shape != (frames, self.channels) or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape ({frames}, {self.channels})")
        check(lib.hs_engine_render(self._handle, out.ctypes.data_as(_native.c_float_p), frames))
        return out


class Player(_native.Owned):
    """A pattern looping on an engine, with live intensity and sharpness controls (an ``hs_player``)."""

    _free = "hs_player_free"

    _PARAMETERS = {"intensity": _native.HS_PARAM_INTENSITY, "sharpness": _native.HS_PARAM_SHARPNESS}

    def __init__(self, _handle: ctypes.c_void_p, engine: Engine) -> None:
        self._handle = _handle
        self.engine = engine

    def start(self, at: float | None = None) -> None:
        """Starts looping from the pattern's beginning (a player already looping restarts)."""
        check(lib.hs_player_start(self._handle, _time(at)))

    def stop(self, at: float | None = None) -> None:
        """Stops the loop (a short fade)."""
        check(lib.hs_player_stop(self._handle, _time(at)))

    def set_intensity(self, intensity: float) -> None:
        """The intensity control, 0…1, at once (kept for the next start)."""
        check(lib.hs_player_set_intensity(self._handle, intensity))

    def set_sharpness(self, sharpness: float) -> None:
        """The sharpness control, -1…1, at once (kept for the next start)."""
        check(lib.hs_player_set_sharpness(self._handle, sharpness))

    def schedule_curve(self, parameter: str, points: Iterable[tuple[float, float]], at: float | None = None) -> None:
        """Sends a curve of ``parameter`` ("intensity" or "sharpness") to the playing loop from
        ``at``: ``points`` are (seconds after ``at``, value); the value jumps to the first point
        and moves linearly between them (1–256 points)."""
        if parameter not in self._PARAMETERS:
            raise ValueError(f"parameter {parameter!r}: expected 'intensity' or 'sharpness'")
        pairs: Sequence[tuple[float, float]] = list(points)
        times = (ctypes.c_double * max(1, len(pairs)))(*[t for t, _ in pairs])
        values = (ctypes.c_float * max(1, len(pairs)))(*[v for _, v in pairs])
        check(lib.hs_player_schedule_curve(self._handle, self._PARAMETERS[parameter], times, values, len(pairs), _time(at)))

    @property
    def is_playing(self) -> bool:
        return check(lib.hs_player_is_playing(self._handle)) == 1

    def close(self) -> None:
        """Stops the player (a short fade) and frees it."""
        _native.Owned.close(self)


def close_all() -> None:
    """Closes the engines still open (at exit: before the interpreter goes away)."""
    for engine in list(_open_engines):
        engine.close()
