"""Pattern.from_sound equals `hapticsynth convert` with the same options: the same JSON text,
its Metadata included (the command that makes it again); the .haptic text likewise."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import hapticsynth
from conftest import HAPTICS, SOUNDS, run_cli

CASES = [
    ({}, []),
    (dict(sensitivity=80, min_gap_ms=120, ducking=20, breakpoints_per_second=25, gain_db=-6),
     ["--sensitivity", "80", "--min-gap", "120", "--ducking", "20", "--breakpoints-per-second", "25", "--gain", "-6"]),
    # (the shortest bundled sound, the click, lasts 12 ms)
    (dict(sensitivity=35, normalize=-3, from_seconds=0.002, to_seconds=0.01),
     ["--sensitivity", "35", "--normalize", "-3", "--from", "0.002", "--to", "0.01"]),
    (dict(gate_dbfs=-30, channel=1), ["--gate", "-30", "--channel", "1"]),
]


@pytest.mark.parametrize("sound", SOUNDS, ids=lambda p: p.name)
@pytest.mark.parametrize("options,arguments", CASES, ids=["defaults", "tuned", "normalized-part", "gated-channel"])
def test_from_sound_equals_convert(sound: Path, options: dict, arguments: list[str], tmp_path: Path) -> None:
    out = tmp_path / "cli.ahap"
    run_cli("convert", str(sound), "-o", str(out), *arguments)
    expected = out.read_text()
    pattern = hapticsynth.Pattern.from_sound(sound, **options)
    got = pattern.to_ahap()
    metadata = json.loads(got)["Metadata"]
    assert metadata["Source"] == sound.name and metadata["Description"].startswith("hapticsynth convert ")
    assert got.strip() == expected.strip()
    assert pattern.event_count > 0 and pattern.duration > 0


@pytest.mark.parametrize("path", HAPTICS, ids=lambda p: p.name)
def test_to_haptic_equals_convert(path: Path, tmp_path: Path) -> None:
    """A pattern as .haptic: the text `convert PATTERN.ahap -o x.haptic` writes."""
    out = tmp_path / "cli.haptic"
    run_cli("convert", str(path), "-o", str(out))
    got = hapticsynth.Pattern.load(path).to_haptic()
    assert got.strip() == out.read_text().strip()
    assert json.loads(got)["signals"]["continuous"]["envelopes"]["amplitude"]


def test_save_round_trips_and_spares_the_source(tmp_path: Path) -> None:
    source = tmp_path / "p.ahap"
    hapticsynth.Pattern.from_sound(SOUNDS[0]).save(source)
    loaded = hapticsynth.Pattern.load(source)
    assert loaded.to_ahap().strip() == source.read_text().strip()
    before = source.read_bytes()
    with pytest.raises(FileExistsError):
        loaded.save(source)
    assert source.read_bytes() == before
    loaded.save(tmp_path / "p.haptic")
    assert json.loads((tmp_path / "p.haptic").read_text())["version"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [], "no temporary file left"
