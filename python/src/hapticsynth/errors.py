"""The library's statuses as exceptions: one class per HS_ERR_* status, each carrying the
library's message (hs_last_error) and status."""
from __future__ import annotations

from ._native import lib


class HapticsynthError(Exception):
    """A call into libhapticsynth failed. ``status`` is the library's (negative) status,
    ``status_name`` its name ("HS_ERR_PARSE"), ``message`` its one line naming what and where."""

    status: int = 0

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    @property
    def status_name(self) -> str:
        return lib.hs_status_name(self.status).decode()


class InvalidArgumentError(HapticsynthError, ValueError):
    """A value out of its domain, a string that is not UTF-8 (HS_ERR_INVALID_ARGUMENT)."""
    status = -1


class InvalidHandleError(HapticsynthError):
    """An engine, pattern or player already closed or freed (HS_ERR_INVALID_HANDLE)."""
    status = -2


class ParseError(HapticsynthError, ValueError):
    """A pattern, profile or channel layout that cannot be read (HS_ERR_PARSE)."""
    status = -3


class FileError(HapticsynthError):
    """A file that cannot be read or written (HS_ERR_IO)."""
    status = -4


class DeviceError(HapticsynthError):
    """An output device that cannot be opened (HS_ERR_DEVICE)."""
    status = -5


class NotRunningError(HapticsynthError):
    """The engine cannot play now: reconnecting, given up, or closed (HS_ERR_NOT_RUNNING)."""
    status = -6


class UnsupportedError(HapticsynthError):
    """Not supported: a sound the converter does not take, rendering a live engine (HS_ERR_UNSUPPORTED)."""
    status = -7


class LimitError(HapticsynthError):
    """A limit: voices, the command queue, handles, a length (HS_ERR_LIMIT)."""
    status = -8


class NotFoundError(HapticsynthError, LookupError):
    """No library pattern, cue or sound effect of that name (HS_ERR_NOT_FOUND)."""
    status = -9


class BusyError(HapticsynthError):
    """Another thread pulls this engine at the same moment (HS_ERR_BUSY)."""
    status = -10


class InternalError(HapticsynthError):
    """A fault inside the library: a bug (HS_ERR_INTERNAL)."""
    status = -99


_BY_STATUS: dict[int, type[HapticsynthError]] = {
    cls.status: cls for cls in (InvalidArgumentError, InvalidHandleError, ParseError, FileError, DeviceError,
                                NotRunningError, UnsupportedError, LimitError, NotFoundError, BusyError, InternalError)
}


def check(status: int) -> int:
    """Raises the exception of a failed call (read on the calling thread, right after it);
    returns a success status as is."""
    if status >= 0:
        return status
    message = (lib.hs_last_error() or b"").decode("utf-8", "replace")
    cls = _BY_STATUS.get(status, HapticsynthError)
    return _raise(cls(message or lib.hs_status_name(status).decode(), status))


def _raise(error: HapticsynthError) -> int:
    raise error
