"""The version, devices, and the library's log messages through Python's logging."""
from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

import hapticsynth
from conftest import REPO


def test_version_is_the_library_and_the_package_version() -> None:
    header = (REPO / "Sources/CHapticSynth/include/hapticsynth.h").read_text()
    parts = [re.search(rf"#define HS_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    assert hapticsynth.__version__ == ".".join(parts)
    pyproject = (REPO / "python/pyproject.toml").read_text()
    assert f'version = "{hapticsynth.__version__}"' in pyproject


def test_devices_lists_default() -> None:
    listed = hapticsynth.devices()
    names = [d.name for d in listed]
    assert "default" in names, names
    for device in listed:
        assert device.opens_now == (device.error is None)
        assert device.channels is None or device.channels[0] <= device.channels[1]


def test_log_messages_reach_logging(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="hapticsynth")
    with pytest.raises(hapticsynth.DeviceError):
        hapticsynth.Engine(device="hw:98,0")
    records = [r for r in caplog.records if r.name == "hapticsynth"]
    assert records, "the engine's open and its failure logged nothing"
    assert any("hw:98,0" in r.getMessage() for r in records), [r.getMessage() for r in records]
