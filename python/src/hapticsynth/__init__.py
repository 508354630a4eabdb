"""hapticsynth: the audio-haptic synthesizer of libhapticsynth, from Python.

Render AHAP patterns to actuator drive (:func:`render`), turn sounds into patterns
(:meth:`Pattern.from_sound`), play them live through ALSA (:class:`Engine`) or pull their
samples from an offline engine (:meth:`Engine.offline`). Errors are :class:`HapticsynthError`
subclasses carrying the library's message and status."""
from __future__ import annotations

import atexit
import json
from dataclasses import dataclass

from . import _log, _native
from ._native import lib
from .engine import ChannelInfo, Engine, EngineStatus, OfflineEngine, Player, close_all
from .errors import (BusyError, DeviceError, FileError, HapticsynthError, InternalError, InvalidArgumentError,
                     InvalidHandleError, LimitError, NotFoundError, NotRunningError, ParseError, UnsupportedError)
from .pattern import Pattern, render

#: The library's version (hs_version), "MAJOR.MINOR.PATCH".
__version__: str = lib.hs_version().decode()

#: Where the library was loaded from.
library_path: str = _native.LOADED_FROM


def monotonic_now() -> float:
    """Seconds on CLOCK_MONOTONIC: the clock of live engines."""
    return float(lib.hs_monotonic_now())


@dataclass(frozen=True)
class Device:
    """An ALSA playback device as ``hapticsynth devices`` lists it."""
    name: str
    description: str | None
    opens_now: bool
    error: str | None
    channels: tuple[int, int] | None
    rates: tuple[int, int] | None


def devices() -> list[Device]:
    """The ALSA playback devices (each probed briefly); ``default`` is always among them."""
    listing = json.loads(_native.read_text(lib.hs_devices_json))
    return [Device(name=d["name"], description=d["description"], opens_now=d["opens_now"], error=d["error"],
                   channels=tuple(d["channels"]) if d["channels"] else None,
                   rates=tuple(d["rates"]) if d["rates"] else None) for d in listing]


@atexit.register
def _shutdown() -> None:
    # Before the interpreter goes: no engine thread may call into Python after it.
    close_all()
    _log.disconnect()


__all__ = [
    "BusyError", "ChannelInfo", "Device", "DeviceError", "Engine", "EngineStatus", "FileError", "HapticsynthError", "InternalError",
    "InvalidArgumentError", "InvalidHandleError", "LimitError", "NotFoundError", "NotRunningError", "OfflineEngine",
    "ParseError", "Pattern", "Player", "UnsupportedError", "__version__", "devices", "library_path", "monotonic_now", "render",
]
