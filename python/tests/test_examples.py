"""The examples in examples/python run and do what they say (play_live.py: in the rig tests)."""
from __future__ import annotations

import subprocess
import sys
import wave
from pathlib import Path

import numpy as np

import hapticsynth
from conftest import REPO

EXAMPLES = REPO / "examples" / "python"


def run_example(name: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EXAMPLES / name), *arguments], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


def test_render_wav_writes_the_render_as_16_bits(tmp_path: Path) -> None:
    out = tmp_path / "heartbeat.wav"
    run = run_example("render_wav.py", "Haptics/heartbeat.ahap", str(out), "--layout", "L,R,H", "--rate", "44100")
    assert run.returncode == 0, run.stderr
    with wave.open(str(out)) as written:
        assert (written.getnchannels(), written.getframerate(), written.getsampwidth()) == (3, 44100, 2)
        pcm = np.frombuffer(written.readframes(written.getnframes()), dtype="<i2").reshape(-1, 3)
    drive = hapticsynth.render(REPO / "Haptics/heartbeat.ahap", rate=44100, layout="L,R,H")
    assert pcm.shape == drive.shape
    assert np.abs(pcm / 32768 - drive).max() <= 1 / 32768


def test_render_wav_reports_a_bad_pattern(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ahap"
    bad.write_text('{"Pattern": [')
    run = run_example("render_wav.py", str(bad), str(tmp_path / "out.wav"))
    assert run.returncode == 1 and "HS_ERR_PARSE" in run.stderr and not (tmp_path / "out.wav").exists()


def test_offline_pull_matches_render() -> None:
    run = run_example("offline_pull.py")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "bit for bit: True" in run.stdout
