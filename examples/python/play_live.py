#!/usr/bin/env python3
"""Plays a pattern live, then a transient, then a looping player whose intensity fades.

    python3 play_live.py [PATTERN.ahap] [--device default] [--layout L,R,H] [--profile bass-shaker]

Times are seconds on CLOCK_MONOTONIC (engine.now()); the script waits on the engine's clock
for each part to be heard before the next."""
import argparse
import logging
import sys
import time

import hapticsynth

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("pattern", nargs="?", default="Haptics/heartbeat.ahap")
parser.add_argument("--device", default="default")
parser.add_argument("--layout", default=None)
parser.add_argument("--profile", default="bass-shaker")
arguments = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")  # the library's messages too


def wait_until(engine: hapticsynth.Engine, moment: float) -> None:
    while engine.now() < moment:
        time.sleep(min(0.05, max(0.0, moment - engine.now())))


try:
    pattern = hapticsynth.Pattern.load(arguments.pattern)
    with hapticsynth.Engine(arguments.device, layout=arguments.layout, profile=arguments.profile) as engine:
        start = engine.now() + 0.1
        engine.play(pattern, at=start)
        tap = start + pattern.duration + 0.3
        engine.transient(0.8, 0.5, at=tap)
        print(f"playing {arguments.pattern} ({pattern.duration:.2f} s), then a transient, on {arguments.device}")
        wait_until(engine, tap + 0.3)
        with engine.player(pattern) as player:
            player.start()
            player.schedule_curve("intensity", [(0, 1.0), (2.0, 0.0)], at=engine.now())
            wait_until(engine, engine.now() + 2.2)
            player.stop()
        status = engine.status()
        print(f"done: {status.voices_started} voices, {status.xruns} underruns, latency {status.output_latency * 1000:.1f} ms")
except hapticsynth.HapticsynthError as error:
    sys.exit(f"play_live.py: {error} ({error.status_name})")
