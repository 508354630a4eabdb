"""Failures come back as HapticsynthError subclasses with the library's message and status."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

import hapticsynth
from conftest import HAPTICS, SOUNDS


def test_truncated_json_is_a_parse_error_with_the_library_message() -> None:
    with pytest.raises(hapticsynth.ParseError) as caught:
        hapticsynth.Pattern.from_json('{"Pattern": [')
    error = caught.value
    assert error.status == -3 and error.status_name == "HS_ERR_PARSE"
    assert error.message.startswith("hs_pattern_load_json: json:"), error.message
    assert isinstance(error, hapticsynth.HapticsynthError) and isinstance(error, ValueError)


def test_missing_file_is_a_file_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.ahap"
    with pytest.raises(hapticsynth.FileError) as caught:
        hapticsynth.Pattern.load(missing)
    assert caught.value.status == -4 and str(missing) in caught.value.message


def test_sound_that_is_no_sound_is_a_file_error(tmp_path: Path) -> None:
    fake = tmp_path / "fake.wav"
    fake.write_text("not a sound")
    with pytest.raises(hapticsynth.FileError, match="hs_pattern_from_sound_file"):
        hapticsynth.Pattern.from_sound(fake)


@pytest.mark.parametrize("options,needle", [
    (dict(sensitivity=150), "options->sensitivity 150.0 is outside"),
    (dict(min_gap_ms=math.nan), "options->min_gap_ms nan"),
    (dict(gain_db=1e308), "options->gain_db"),
    (dict(normalize=-3, gain_db=2), "give one of them"),
    (dict(from_seconds=0.5, to_seconds=0.2), "options->to_seconds 0.2 is not after"),
])
def test_bad_convert_options_are_invalid_arguments(options: dict, needle: str) -> None:
    with pytest.raises(hapticsynth.InvalidArgumentError) as caught:
        hapticsynth.Pattern.from_sound(SOUNDS[0], **options)
    assert needle in caught.value.message and caught.value.status == -1


def test_bad_layout_and_profile_are_parse_errors() -> None:
    pattern = hapticsynth.Pattern.load(HAPTICS[0])
    with pytest.raises(hapticsynth.ParseError, match="options->layout"):
        hapticsynth.render(pattern, layout="H,Q")
    with pytest.raises(hapticsynth.ParseError):
        hapticsynth.render(pattern, profile="no-such-actuator")
    with pytest.raises(hapticsynth.InvalidArgumentError, match="sample_rate"):
        hapticsynth.render(pattern, rate=7)


def test_freed_pattern_and_closed_engine_are_invalid_handles() -> None:
    pattern = hapticsynth.Pattern.load(HAPTICS[0])
    engine = hapticsynth.Engine.offline()
    pattern.close()
    with pytest.raises(hapticsynth.InvalidHandleError, match="pattern is NULL"):
        engine.play(pattern)
    engine.close()
    with pytest.raises(hapticsynth.InvalidHandleError):
        engine.transient(1, 0.5)
    with pytest.raises(hapticsynth.InvalidArgumentError, match="NaN"):
        hapticsynth.Engine.offline().transient(math.nan, 0.5)


def test_unopenable_device_is_a_device_error() -> None:
    with pytest.raises(hapticsynth.DeviceError) as caught:
        hapticsynth.Engine(device="hw:99,0")
    assert caught.value.status == -5 and "hw:99,0" in caught.value.message


def test_offline_channels_that_do_not_match_the_layout() -> None:
    with pytest.raises(ValueError, match="give a layout"):
        hapticsynth.Engine.offline(channels=2)
    with pytest.raises(ValueError, match="has 2 channels, not 3"):
        hapticsynth.Engine.offline(channels=3, layout="H,H")


@pytest.mark.parametrize("rate", [2**32 + 48000, 1e308, math.inf, -2**40])
def test_numbers_too_large_for_c_are_refused_not_wrapped(rate: float) -> None:
    pattern = hapticsynth.Pattern.load(HAPTICS[0])
    with pytest.raises(hapticsynth.InvalidArgumentError, match="rate"):
        hapticsynth.render(pattern, rate=rate)
    with pytest.raises(hapticsynth.InvalidArgumentError, match="rate"):
        hapticsynth.Engine.offline(rate=rate)
    with hapticsynth.Engine.offline() as engine, pytest.raises(hapticsynth.InvalidArgumentError, match="frames"):
        engine.render(-1 if rate < 0 else 2**32 + 16)
