#!/usr/bin/env python3
"""Pulls samples from an offline engine, as a program mixing its own audio does: a pattern at
time 0 and transients on a beat, pulled in 256-frame blocks (an audio callback's size).

    python3 offline_pull.py [PATTERN.ahap]

The engine's clock is the frames pulled; the first pattern renders bit for bit what
hapticsynth.render gives, which the script checks."""
import sys

import numpy as np

import hapticsynth

path = sys.argv[1] if len(sys.argv) > 1 else "Haptics/heartbeat.ahap"
pattern = hapticsynth.Pattern.load(path)
block, rate = 256, 48000
with hapticsynth.Engine.offline(channels=1, profile="bass-shaker", rate=rate) as engine:
    engine.play(pattern, at=0)
    for beat in range(4):
        engine.transient(1.0, 0.6, at=pattern.duration + 0.25 + beat * 0.5)
    frames = int((pattern.duration + 2.5) * rate)
    out = np.empty((frames // block * block, 1), dtype=np.float32)
    for start in range(0, len(out), block):
        engine.render(block, out=out[start:start + block])
    print(f"pulled {len(out)} frames ({engine.now():.3f} s on the engine's clock)")

alone = hapticsynth.render(pattern, layout="H")
before_beats = min(len(alone), int((pattern.duration + 0.25) * rate))  # the transients add in after this
same = np.array_equal(out[:before_beats], alone[:before_beats])
peaks = [float(np.abs(out[int((pattern.duration + 0.25 + b * 0.5) * rate):][:4800]).max()) for b in range(4)]
print(f"the pattern equals hapticsynth.render bit for bit: {same}; transient peaks {', '.join(f'{p:.3f}' for p in peaks)}")
sys.exit(0 if same and min(peaks) > 0.05 else 1)
