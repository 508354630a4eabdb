"""render() equals `hapticsynth render --bits 32f` bit for bit; an offline engine pulled from
equals both."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hapticsynth
from conftest import HAPTICS, read_float_wav, run_cli


@pytest.mark.parametrize("path", HAPTICS, ids=lambda p: p.name)
def test_render_equals_the_cli_bit_for_bit(path: Path, tmp_path: Path) -> None:
    assert HAPTICS, "no bundled patterns found"
    wav = tmp_path / "cli.wav"
    run_cli("render", str(path), "-o", str(wav), "--bits", "32f")
    expected = read_float_wav(wav)
    got = hapticsynth.render(hapticsynth.Pattern.load(path))
    assert got.dtype == np.float32 and got.shape == expected.shape
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), f"{path.name}: samples differ"
    assert np.abs(got).max() > 0.01, "a pattern that renders silence proves nothing"


@pytest.mark.parametrize("options", [
    dict(rate=44100, profile="voice-coil", layout="L,R,H"),
    dict(rate=96000, profile="lra", layout="0,H*0.5", tail=0.25, exact_length=True),
], ids=["44k-voice-coil-LRH", "96k-lra-gain-tail-exact"])
def test_render_options_equal_the_cli(options: dict, tmp_path: Path) -> None:
    path = Path(HAPTICS[0]).parent / "heartbeat.ahap"
    wav = tmp_path / "cli.wav"
    arguments = ["render", str(path), "-o", str(wav), "--bits", "32f", "--rate", str(options["rate"]),
                 "--profile", options["profile"], "--layout", options["layout"]]
    if "tail" in options:
        arguments += ["--tail", str(options["tail"])]
    if options.get("exact_length"):
        arguments += ["--exact-length"]
    run_cli(*arguments)
    expected = read_float_wav(wav)
    got = hapticsynth.render(path, **options)
    assert got.shape == expected.shape
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize("block", [1024, 333])
def test_offline_engine_pulls_what_render_gives(block: int) -> None:
    pattern = hapticsynth.Pattern.load(Path(HAPTICS[0]).parent / "heartbeat.ahap")
    expected = hapticsynth.render(pattern, layout="H")
    with hapticsynth.Engine.offline(channels=1) as engine:
        engine.play(pattern, at=0)
        pulled = np.concatenate([engine.render(block) for _ in range(-(-len(expected) // block))])
        assert engine.now() == pytest.approx(len(pulled) / 48000)
        status = engine.status()
    assert status.offline and status.channels == 1 and status.frames_rendered == len(pulled) and status.haptic_carried == 1
    assert np.array_equal(pulled[:len(expected)].view(np.uint32), expected.view(np.uint32))
    assert np.abs(pulled[len(expected):]).max(initial=0) < 1e-3


def test_channel_info_names_each_channel_of_the_layout() -> None:
    with hapticsynth.Engine.offline(channels=3, layout="FL,FR,LFE=H:voice-coil*0.5") as engine:
        channels = engine.channel_info()
    assert [c.source for c in channels] == ["left", "right", "haptic"]
    assert [c.profile for c in channels] == ["", "", "voice-coil"]
    assert channels[2].gain == pytest.approx(0.5) and channels[0].gain == 1
    assert all(c.fate == "carried" and c.reason == "" for c in channels), channels


def test_offline_transient_and_player_controls() -> None:
    loop = hapticsynth.Pattern.from_json(
        '{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5,'
        ' "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}')
    with hapticsynth.Engine.offline(channels=3, profile="voice-coil") as engine:
        assert engine.channels == 3
        with engine.player(loop) as player:
            player.start(at=0)
            loud = engine.render(24000)
            assert player.is_playing
            player.set_intensity(0.1)
            engine.render(4800)  # the control's change settles
            quiet = engine.render(24000)
            player.schedule_curve("intensity", [(0, 0.1), (0.2, 1.0)], at=engine.now())
            engine.render(9600)
            back = engine.render(24000)
            player.stop()
            engine.render(9600)
            assert not player.is_playing
        engine.transient(1.0, 0.5, at=engine.now() + 0.05)
        tap = engine.render(9600)
    haptic = 2  # L,R,H
    assert np.abs(quiet[:, haptic]).max() < 0.3 * np.abs(loud[:, haptic]).max()
    assert np.abs(back[:, haptic]).max() > 0.8 * np.abs(loud[:, haptic]).max()
    assert np.abs(tap[:2400, haptic]).max() < 1e-3 < np.abs(tap[2400:, haptic]).max()
