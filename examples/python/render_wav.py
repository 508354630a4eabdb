#!/usr/bin/env python3
"""Renders a pattern to a 16-bit WAV with the standard library's `wave`.

    python3 render_wav.py PATTERN.ahap OUT.wav [--profile voice-coil] [--layout L,R,H] [--rate 48000]

hapticsynth.render gives what `hapticsynth render --bits 32f` writes (float32, frames ×
channels); `wave` writes integer PCM, so the samples are scaled, clipped and rounded to 16 bits."""
import argparse
import sys
import wave

import numpy as np

import hapticsynth

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("pattern")
parser.add_argument("output")
parser.add_argument("--profile", default="bass-shaker")
parser.add_argument("--layout", default=None)
parser.add_argument("--rate", type=int, default=48000)
arguments = parser.parse_args()

try:
    drive = hapticsynth.render(arguments.pattern, rate=arguments.rate, profile=arguments.profile, layout=arguments.layout)
except hapticsynth.HapticsynthError as error:
    sys.exit(f"render_wav.py: {error} ({error.status_name})")

pcm = np.round(np.clip(drive, -1.0, 32767 / 32768) * 32768).astype("<i2")
with wave.open(arguments.output, "wb") as out:
    out.setnchannels(drive.shape[1])
    out.setsampwidth(2)
    out.setframerate(arguments.rate)
    out.writeframes(pcm.tobytes())
print(f"{arguments.output}: {len(drive) / arguments.rate:.3f} s, {drive.shape[1]} channel(s), peak {np.abs(drive).max():.3f}")
