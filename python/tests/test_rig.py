"""Live play through the PulseAudio rig (scripts/rig.sh): a pattern and a transient played by
an Engine reach the mono sink, whose monitor is recorded with parec."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import hapticsynth
from conftest import REPO

pytestmark = [pytest.mark.rig, pytest.mark.skipif("HAPTICSYNTH_RIG_DIR" not in os.environ, reason="needs scripts/rig.sh")]
RATE = 48000


class Recorder:
    """The mono sink's monitor as 16-bit samples, read by a thread while the test plays."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["parec", f"--server={os.environ['HAPTICSYNTH_RIG_SERVER']}", "--device=hs_sink_mono.monitor",
             "--format=s16le", "--channels=1", f"--rate={RATE}", "--raw", "--latency-msec=20"],
            stdout=subprocess.PIPE)
        self.data = bytearray()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := self.process.stdout.read1(65536):
            with self.lock:
                self.data += chunk

    def samples(self) -> np.ndarray:
        with self.lock:
            return np.frombuffer(bytes(self.data[: len(self.data) // 2 * 2]), dtype="<i2").astype(np.float32) / 32768

    def wait(self, condition, bound: float, what: str) -> np.ndarray:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + bound
        while time.monotonic() < deadline:
            recorded = self.samples()
            if condition(recorded):
                return recorded
            time.sleep(0.02)
        pytest.fail(f"within {bound} s the recording never showed {what}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def best_fit(recorded: np.ndarray, reference: np.ndarray, guess: int, radius: int = 64) -> tuple[int, float]:
    """The lag where the reference fits the recording best (least squares), and its residual / energy."""
    best = (guess, float("inf"))
    energy = float(np.sum(reference.astype(np.float64) ** 2))
    for lag in range(max(0, guess - radius), guess + radius + 1):
        window = recorded[lag: lag + len(reference)]
        if len(window) < len(reference):
            break
        residual = float(np.sum((window.astype(np.float64) - reference) ** 2))
        if residual < best[1]:
            best = (lag, residual)
    return best[0], best[1] / energy


def test_engine_plays_a_pattern_and_a_transient_into_the_sink() -> None:
    pattern = hapticsynth.Pattern.load(REPO / "Haptics" / "heartbeat.ahap")
    reference = np.round(hapticsynth.render(pattern, layout="H")[:, 0] * 32767) / 32768
    threshold = 3 / 32768
    recorder = Recorder()
    try:
        recorder.wait(lambda r: len(r) > RATE // 10, 20, "the monitor's first 0.1 s")  # recording for real
        start = len(recorder.samples())
        with hapticsynth.Engine(device=os.environ["HAPTICSYNTH_RIG_OUT_MONO"], layout="H") as engine:
            assert engine.status().state == "running"
            (channel,) = engine.channel_info()
            assert channel.source == "haptic" and channel.fate in ("carried", "unknown"), channel
            engine.play(pattern, at=engine.now() + 0.1)
            tap_at = engine.now() + 0.1 + pattern.duration + 0.6
            engine.transient(1.0, 0.5, at=tap_at)
            # Until the transient has sounded and 0.5 s of silence followed it.
            def done(r: np.ndarray) -> bool:
                loud = np.flatnonzero(np.abs(r[start:]) > 0.05)
                return len(loud) > 0 and len(r) - (start + loud[-1]) > RATE // 2 and engine.now() > tap_at + 0.5
            recorded = recorder.wait(done, 30, "the pattern, the transient and the silence after them")
    finally:
        recorder.stop()
    first = start + int(np.flatnonzero(np.abs(recorded[start:]) > threshold)[0])
    guess = first - int(np.flatnonzero(np.abs(reference) > threshold)[0])
    lag, misfit = best_fit(recorded, reference, guess)
    print(f"rig: heartbeat at frame {lag}, residual/energy {misfit:.2e}")
    assert misfit < 1e-3, "the recording holds the pattern's samples"
    tap = lag + int((pattern.duration + 0.6) * RATE)
    window = np.abs(recorded[tap - 2400: tap + 9600])
    before = np.abs(recorded[lag + len(reference): tap - 4800])
    assert window.max() > 0.05, "the transient reached the sink"
    assert before.max(initial=0) < window.max() / 4, "and came on its own, after the pattern"


def test_devices_lists_the_rig_sink() -> None:
    listed = {d.name: d for d in hapticsynth.devices()}
    mono = listed.get(os.environ["HAPTICSYNTH_RIG_OUT_MONO"])
    assert mono is not None and mono.opens_now, sorted(listed)


def test_play_live_example_through_the_rig() -> None:
    run = subprocess.run([sys.executable, str(REPO / "examples/python/play_live.py"), "--device",
                          os.environ["HAPTICSYNTH_RIG_OUT_MONO"], "--layout", "H"], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    voices = re.search(r"done: (\d+) voices", run.stdout)
    assert voices and int(voices.group(1)) >= 3, run.stdout  # the pattern, the transient, the loop
