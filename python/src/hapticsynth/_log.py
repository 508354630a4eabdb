"""The library's log lines (hs_set_log_callback) to Python's ``logging``, logger "hapticsynth"."""
from __future__ import annotations

import logging

from ._native import LOG_CALLBACK, lib

# HS_LOG_DEBUG, HS_LOG_INFO, HS_LOG_WARNING, HS_LOG_ERROR as logging levels.
_TO_PYTHON = [logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR]
LOGGER = logging.getLogger("hapticsynth")
# A library's loggers print nothing unless the program configures logging (no "last resort"
# output of the library's warnings on stderr).
LOGGER.addHandler(logging.NullHandler())


def _relay(user: object, level: int, message: bytes | None) -> None:
    try:
        LOGGER.log(_TO_PYTHON[level] if 0 <= level < len(_TO_PYTHON) else logging.ERROR,
                   "%s", (message or b"").decode("utf-8", "replace"))
    except Exception:  # never an exception into the library's thread
        pass


# Kept for the life of the process: the library may call it from its threads at any time.
_CALLBACK = LOG_CALLBACK(_relay)


def library_level() -> int:
    """The HS_LOG_* level matching the "hapticsynth" logger's effective level."""
    effective = LOGGER.getEffectiveLevel()
    for index, python_level in enumerate(_TO_PYTHON):
        if effective <= python_level:
            return index
    return len(_TO_PYTHON) - 1


def connect() -> None:
    """Sends the library's lines to logging from the "hapticsynth" logger's level now (set
    before an engine opens, to hear what the open says)."""
    lib.hs_set_log_callback(_CALLBACK, None, library_level())


def disconnect() -> None:
    lib.hs_set_log_callback(LOG_CALLBACK(), None, 0)
