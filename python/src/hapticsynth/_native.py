"""libhapticsynth through ctypes: finding the library, its structs and prototypes (hapticsynth.h).

The library is looked for in this order: the copy bundled in a platform wheel (``_lib/`` beside
this file, with its private Swift runtime in ``_lib/hapticsynth/``), the path in the environment
variable ``HAPTICSYNTH_LIBRARY``, then the system's ``libhapticsynth.so.0`` (ctypes.util's
find_library, then the loader's own search path).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import Any, Callable

SONAME = "libhapticsynth.so.0"
BUNDLED = Path(__file__).resolve().parent / "_lib" / SONAME


def _candidates() -> list[tuple[str, str]]:
    """(where it came from, what to pass to CDLL), in the order they are tried."""
    found: list[tuple[str, str]] = []
    if BUNDLED.is_file():
        found.append(("the wheel's bundled copy", str(BUNDLED)))
    env = os.environ.get("HAPTICSYNTH_LIBRARY")
    if env:
        found.append(("HAPTICSYNTH_LIBRARY", env))
    system = ctypes.util.find_library("hapticsynth")
    if system:
        found.append(("the system (find_library)", system))
    found.append(("the loader's search path", SONAME))
    return found


def _load() -> tuple[ctypes.CDLL, str]:
    failures = []
    for origin, name in _candidates():
        try:
            return ctypes.CDLL(name), f"{name} ({origin})"
        except OSError as error:
            failures.append(f"{origin}: {error}")
            if origin == "HAPTICSYNTH_LIBRARY":
                # A path the user named and that does not load is an error, not a reason to
                # quietly take another copy.
                break
    raise ImportError("hapticsynth: cannot load libhapticsynth: " + "; ".join(failures)
                      + " (install the wheel made by `make wheel`, `make install` the library, or set HAPTICSYNTH_LIBRARY)")


lib, LOADED_FROM = _load()

handle = ctypes.c_void_p
c_int_p = ctypes.POINTER(ctypes.c_int)
c_double_p = ctypes.POINTER(ctypes.c_double)
c_size_p = ctypes.POINTER(ctypes.c_size_t)
c_float_p = ctypes.POINTER(ctypes.c_float)


class EngineOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("device", ctypes.c_char_p),
        ("audio_device", ctypes.c_char_p),
        ("layout", ctypes.c_char_p),
        ("profile", ctypes.c_char_p),
        ("sample_rate", ctypes.c_int),
        ("period_frames", ctypes.c_int),
        ("buffer_periods", ctypes.c_int),
        ("haptics_folder", ctypes.c_char_p),
        ("assets_folder", ctypes.c_char_p),
        ("realtime_priority", ctypes.c_int),
        ("lock_memory", ctypes.c_int),
        ("offline", ctypes.c_int),
    ]


class EngineStatusStruct(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t)] + [
        (name, ctypes.c_int) for name in
        ("state", "offline", "sample_rate", "channels", "period_frames", "realtime", "engine_generation", "audio_state")
    ] + [("now", ctypes.c_double), ("output_latency", ctypes.c_double)] + [
        (name, ctypes.c_int64) for name in
        ("frames_rendered", "active_voices", "xruns", "stalls", "reconnections", "dropped_onsets", "late_commands",
         "voices_started", "starts_failed", "unknown_names", "calls_while_unavailable", "transients_cut")
    ] + [("haptic_carried", ctypes.c_int)]


class ConvertOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("sensitivity", ctypes.c_double),
        ("min_gap_ms", ctypes.c_double),
        ("ducking", ctypes.c_double),
        ("breakpoints_per_second", ctypes.c_double),
        ("gain_db", ctypes.c_double),
        ("normalize", ctypes.c_int),
        ("normalize_dbfs", ctypes.c_double),
        ("channel", ctypes.c_int),
        ("from_seconds", ctypes.c_double),
        ("to_seconds", ctypes.c_double),
        ("gate_dbfs", ctypes.c_double),
    ]


class ChannelInfoStruct(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("source", ctypes.c_int),
        ("gain", ctypes.c_float),
        ("position", ctypes.c_char * 16),
        ("profile", ctypes.c_char * 64),
        ("fate", ctypes.c_int),
        ("reason", ctypes.c_char * 256),
    ]


class RenderOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("sample_rate", ctypes.c_int),
        ("layout", ctypes.c_char_p),
        ("profile", ctypes.c_char_p),
        ("tail_seconds", ctypes.c_double),
        ("exact_length", ctypes.c_int),
        ("bits", ctypes.c_int),
        ("assets_folder", ctypes.c_char_p),
    ]


LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)

_PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "hs_version": (ctypes.c_char_p, []),
    "hs_last_error": (ctypes.c_char_p, []),
    "hs_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "hs_monotonic_now": (ctypes.c_double, []),
    "hs_set_log_callback": (ctypes.c_int, [LOG_CALLBACK, ctypes.c_void_p, ctypes.c_int]),
    "hs_devices_json": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, c_size_p]),
    "hs_engine_options_init": (ctypes.c_int, [ctypes.POINTER(EngineOptions)]),
    "hs_engine_open_with": (ctypes.c_int, [ctypes.POINTER(handle), ctypes.POINTER(EngineOptions)]),
    "hs_engine_open_offline": (ctypes.c_int, [ctypes.POINTER(handle), ctypes.c_double, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p]),
    "hs_engine_render": (ctypes.c_int, [handle, c_float_p, ctypes.c_int]),
    "hs_engine_close": (None, [handle]),
    "hs_engine_now": (ctypes.c_int, [handle, c_double_p]),
    "hs_engine_get_status": (ctypes.c_int, [handle, ctypes.POINTER(EngineStatusStruct)]),
    "hs_engine_channel_info": (ctypes.c_int, [handle, ctypes.c_int, ctypes.POINTER(ChannelInfoStruct)]),
    "hs_engine_reload_library": (ctypes.c_int, [handle]),
    "hs_engine_prepare": (ctypes.c_int, [handle, handle]),
    "hs_engine_play": (ctypes.c_int, [handle, handle, ctypes.c_double]),
    "hs_engine_play_named": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.c_double]),
    "hs_engine_play_cue": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.c_double]),
    "hs_engine_play_sound": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.c_double]),
    "hs_engine_transient": (ctypes.c_int, [handle, ctypes.c_float, ctypes.c_float, ctypes.c_double]),
    "hs_engine_stop": (ctypes.c_int, [handle, ctypes.c_double]),
    "hs_pattern_load_file": (ctypes.c_int, [ctypes.POINTER(handle), ctypes.c_char_p]),
    "hs_pattern_load_json": (ctypes.c_int, [ctypes.POINTER(handle), ctypes.c_char_p, ctypes.c_size_t]),
    "hs_convert_options_init": (ctypes.c_int, [ctypes.POINTER(ConvertOptions)]),
    "hs_pattern_from_sound_file": (ctypes.c_int, [ctypes.POINTER(handle), ctypes.c_char_p, ctypes.POINTER(ConvertOptions)]),
    "hs_pattern_free": (None, [handle]),
    "hs_pattern_duration": (ctypes.c_int, [handle, c_double_p]),
    "hs_pattern_event_count": (ctypes.c_int, [handle, c_int_p]),
    "hs_pattern_warning_count": (ctypes.c_int, [handle, c_int_p]),
    "hs_pattern_warning": (ctypes.c_int, [handle, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]),
    "hs_pattern_to_json": (ctypes.c_int, [handle, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, c_size_p]),
    "hs_player_create": (ctypes.c_int, [ctypes.POINTER(handle), handle, handle]),
    "hs_player_create_named": (ctypes.c_int, [ctypes.POINTER(handle), handle, ctypes.c_char_p]),
    "hs_player_start": (ctypes.c_int, [handle, ctypes.c_double]),
    "hs_player_stop": (ctypes.c_int, [handle, ctypes.c_double]),
    "hs_player_set_intensity": (ctypes.c_int, [handle, ctypes.c_float]),
    "hs_player_set_sharpness": (ctypes.c_int, [handle, ctypes.c_float]),
    "hs_player_schedule_curve": (ctypes.c_int, [handle, ctypes.c_int, c_double_p, c_float_p, ctypes.c_int, ctypes.c_double]),
    "hs_player_is_playing": (ctypes.c_int, [handle]),
    "hs_player_free": (None, [handle]),
    "hs_render_options_init": (ctypes.c_int, [ctypes.POINTER(RenderOptions)]),
    "hs_pattern_render": (ctypes.c_int, [handle, ctypes.POINTER(RenderOptions), c_float_p, ctypes.c_size_t, c_size_p, c_int_p]),
}

for _name, (_result, _arguments) in _PROTOTYPES.items():
    try:
        _function = getattr(lib, _name)
    except AttributeError:
        raise ImportError(f"hapticsynth: {LOADED_FROM} has no {_name}: a libhapticsynth older than this package") from None
    _function.restype = _result
    _function.argtypes = _arguments

HS_FORMAT_AHAP = 0
HS_FORMAT_HAPTIC = 1
HS_PARAM_INTENSITY = 0
HS_PARAM_SHARPNESS = 1


def text(value: str | os.PathLike[str] | None, what: str) -> bytes | None:
    """A string argument as the library takes it (UTF-8), None as NULL."""
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, not {type(value).__name__}")
    return value.encode("utf-8", "surrogateescape")


def read_text(call: Callable[[Any, int, Any], int]) -> str:
    """A text the library writes into a buffer (hs_pattern_to_json, hs_devices_json): asked
    for its length, then read; asked again if it grew in between."""
    from .errors import check

    length = ctypes.c_size_t()
    check(call(None, 0, ctypes.byref(length)))
    for _ in range(4):
        buffer = ctypes.create_string_buffer(length.value + 1 + 4096)
        status = call(buffer, len(buffer), ctypes.byref(length))
        if status == 0:
            return buffer.raw[:length.value].decode("utf-8")
        if status != -8:  # HS_ERR_LIMIT: it grew; ask again with its new length
            check(status)
    check(status)
    raise AssertionError("unreachable")


class Owned:
    """A library handle this object owns (``_handle``), freed by the library function named
    ``_free``: at ``close()``, at the end of a ``with`` block, or when collected. The handle is
    cleared before it is freed, so a second close (or one from ``__del__``) does nothing."""

    _free = ""

    def close(self) -> None:
        owned = getattr(self, "_handle", None)
        if owned:
            self._handle = handle()
            getattr(lib, self._free)(owned)

    def __enter__(self):  # -> Self (typing.Self needs Python 3.11)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass
