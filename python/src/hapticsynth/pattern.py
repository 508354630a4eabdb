"""Patterns (AHAP, .haptic, or made from a sound) and rendering them offline."""
from __future__ import annotations

import ctypes
import os
import tempfile
from pathlib import Path
from typing import Union

import numpy as np

from . import _native
from ._native import lib, text
from .errors import InvalidArgumentError, check

PathLike = Union[str, "os.PathLike[str]"]


class Pattern(_native.Owned):
    """A haptic pattern loaded into the library (an ``hs_pattern``).

    Made by :meth:`load`, :meth:`from_json` or :meth:`from_sound`; freed when garbage
    collected, or at once by :meth:`close` (or a ``with`` block). Engines and players that
    were given it keep what they need."""

    _free = "hs_pattern_free"

    def __init__(self, _handle: ctypes.c_void_p, source: str | None = None) -> None:
        self._handle = _handle
        #: The file it was loaded or converted from (None: from memory).
        self.source = source

    # --- making one -------------------------------------------------------------------
    @classmethod
    def load(cls, path: PathLike) -> "Pattern":
        """Loads an AHAP (.ahap, read leniently as Core Haptics reads it) or Meta/Lofelt
        .haptic file (read as the AHAP it converts to)."""
        out = _native.handle()
        check(lib.hs_pattern_load_file(ctypes.byref(out), text(path, "path")))
        return cls(out, os.fspath(path))

    @classmethod
    def from_json(cls, json_text: str | bytes) -> "Pattern":
        """A pattern from AHAP or .haptic JSON text."""
        data = json_text.encode("utf-8") if isinstance(json_text, str) else bytes(json_text)
        out = _native.handle()
        check(lib.hs_pattern_load_json(ctypes.byref(out), data, len(data)))
        return cls(out)

    @classmethod
    def from_sound(cls, path: PathLike, sensitivity: float = 50, min_gap_ms: float = 50, ducking: float = 50,
                   breakpoints_per_second: float = 40, gain_db: float = 0, normalize: float | None = None,
                   channel: int | None = None, from_seconds: float = 0, to_seconds: float | None = None,
                   gate_dbfs: float = -60) -> "Pattern":
        """Turns a sound file (WAV, FLAC, AIFF, Ogg...) into a pattern as ``hapticsynth convert``
        does with the same options, in its units:

        - ``sensitivity``: how readily hits become transients, 0–100 % (``--sensitivity``);
        - ``min_gap_ms``: the shortest time between two transients, 10–10000 ms (``--min-gap``);
        - ``ducking``: how much the continuous layer gives way under a transient, 0–100 % (``--ducking``);
        - ``breakpoints_per_second``: at most this many curve points per second, 2–1000;
        - ``gain_db``: gain before the analysis, -60–60 dB (``--gain``); or
        - ``normalize``: the peak normalised to this dBFS (-60–0) instead (``--normalize``);
        - ``channel``: the channel to analyse, 1, 2, ...; None: the mean of all (``--channel mix``);
        - ``from_seconds``, ``to_seconds``: the part to convert (``--from``, ``--to``; None: to the end);
        - ``gate_dbfs``: the noise gate, -120–0 dBFS: quieter sound counts as silence (``--gate``).

        The pattern's text (:meth:`to_ahap`) is the one ``convert`` writes with the same options,
        its ``Metadata`` included (the ``Description`` is the ``convert`` command that makes it)."""
        options = _native.ConvertOptions()
        check(lib.hs_convert_options_init(ctypes.byref(options)))
        options.sensitivity = sensitivity
        options.min_gap_ms = min_gap_ms
        options.ducking = ducking
        options.breakpoints_per_second = breakpoints_per_second
        options.gain_db = gain_db
        if normalize is not None:
            options.normalize = 1
            options.normalize_dbfs = normalize
        options.channel = 0 if channel is None else _whole(channel, "channel")
        options.from_seconds = from_seconds
        options.to_seconds = 0 if to_seconds is None else to_seconds
        options.gate_dbfs = gate_dbfs
        out = _native.handle()
        check(lib.hs_pattern_from_sound_file(ctypes.byref(out), text(path, "path"), ctypes.byref(options)))
        return cls(out, os.fspath(path))

    # --- what it holds -----------------------------------------------------------------
    @property
    def duration(self) -> float:
        """Seconds, to its last event's end."""
        seconds = ctypes.c_double()
        check(lib.hs_pattern_duration(self._handle, ctypes.byref(seconds)))
        return seconds.value

    @property
    def event_count(self) -> int:
        count = ctypes.c_int()
        check(lib.hs_pattern_event_count(self._handle, ctypes.byref(count)))
        return count.value

    @property
    def warnings(self) -> list[str]:
        """What the lenient reader fixed (unknown keys, clamped values...), a line each."""
        count = ctypes.c_int()
        check(lib.hs_pattern_warning_count(self._handle, ctypes.byref(count)))
        lines = []
        for index in range(count.value):
            line = ctypes.c_char_p()
            check(lib.hs_pattern_warning(self._handle, index, ctypes.byref(line)))
            lines.append((line.value or b"").decode("utf-8", "replace"))
        return lines

    def to_ahap(self) -> str:
        """The pattern as canonical AHAP JSON (what ``convert`` writes for a .ahap)."""
        return self._json(_native.HS_FORMAT_AHAP)

    def to_haptic(self) -> str:
        """The pattern as Meta/Lofelt .haptic JSON (as ``convert -o x.haptic`` converts it)."""
        return self._json(_native.HS_FORMAT_HAPTIC)

    def _json(self, format: int) -> str:
        return _native.read_text(lambda buffer, capacity, length: lib.hs_pattern_to_json(self._handle, format, buffer, capacity, length))

    def save(self, path: PathLike) -> None:
        """Writes the pattern to ``path``: .haptic as .haptic JSON, anything else (.ahap,
        .json) as AHAP. Written to a temporary file beside it and renamed when complete;
        never over the file the pattern was read from."""
        target = Path(path)
        if self.source is not None and target.exists() and os.path.samefile(target, self.source):
            raise FileExistsError(f"{target}: is the file this pattern was read from; save to another path")
        content = self.to_haptic() if target.suffix.lower() == ".haptic" else self.to_ahap()
        descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(content)
                if not content.endswith("\n"):
                    file.write("\n")
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise

    # --- lifetime ----------------------------------------------------------------------
    def close(self) -> None:
        """Frees the pattern now (players made from it keep playing)."""
        _native.Owned.close(self)

    def __repr__(self) -> str:
        where = f" from {self.source!r}" if self.source else ""
        return f"<hapticsynth.Pattern{where}: {self.event_count} events, {self.duration:.3f} s>" if self._handle else "<hapticsynth.Pattern (freed)>"


def _whole(value: int, what: str) -> int:
    """A whole number that fits the C int it is passed as (ctypes would wrap a larger one
    round, silently, into some other valid value)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or value != value:
        raise TypeError(f"{what} must be a whole number, not {value!r}")
    if value in (float("inf"), float("-inf")) or int(value) != value or not -2**31 <= int(value) < 2**31:
        raise InvalidArgumentError(f"{what} {value!r} is not a whole number within a C int", -1)
    return int(value)


def as_pattern(pattern: "Pattern | PathLike") -> Pattern:
    """A Pattern as is; a path loaded."""
    return pattern if isinstance(pattern, Pattern) else Pattern.load(pattern)


def render(pattern: Pattern | PathLike, rate: int = 48000, profile: str = "bass-shaker", layout: str | None = None,
           tail: float = 0.0, exact_length: bool = False, assets_folder: PathLike | None = None) -> np.ndarray:
    """Renders ``pattern`` (a Pattern or a pattern file's path) offline, as ``hapticsynth
    render --bits 32f`` does with the same options: a float32 array of frames × channels.

    ``layout``: the channel map (None: "H", or "L,R,H" when the pattern has audio events);
    ``profile``: a built-in actuator ("bass-shaker", "voice-coil", "lra") or a profile JSON
    path; ``tail``: seconds after the end; ``exact_length``: end at the duration plus the tail
    (faded) instead of rendering on until silent; ``assets_folder``: searched for the sounds
    of AudioCustom events."""
    pattern = as_pattern(pattern)
    options = _native.RenderOptions()
    check(lib.hs_render_options_init(ctypes.byref(options)))
    options.sample_rate = _whole(rate, "rate")
    options.profile = text(profile, "profile")
    options.layout = text(layout, "layout")
    options.tail_seconds = tail
    options.exact_length = 1 if exact_length else 0
    options.bits = 32
    options.assets_folder = text(assets_folder, "assets_folder")
    frames = ctypes.c_size_t()
    channels = ctypes.c_int()
    check(lib.hs_pattern_render(pattern._handle, ctypes.byref(options), None, 0, ctypes.byref(frames), ctypes.byref(channels)))
    samples = np.zeros((frames.value, channels.value), dtype=np.float32)
    written = ctypes.c_size_t()
    check(lib.hs_pattern_render(pattern._handle, ctypes.byref(options), samples.ctypes.data_as(_native.c_float_p),
                                frames.value, ctypes.byref(written), None))
    return samples
