#!/usr/bin/env python3
"""Compares two `convert-bench quality --per-file` outputs clip by clip (the tool-made clips
both have, haptify left out when either lacks it): median and mean F50, median envelope
correlation, clips at F50 >= 0.7, and how many clips' F50 stayed, rose or fell.

    bench/convert-eval/compare-per-file.py BASE.tsv OTHER.tsv
"""
import statistics
import sys


def load(path):
    rows = {}
    for line in open(path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) > 11 and f[1] == "tool" and "/" in f[0]:
            rows[f[0]] = f
    return rows


base, other = load(sys.argv[1]), load(sys.argv[2])
clips = sorted(k for k in base if k in other)
fb = [float(base[k][5]) for k in clips]
fo = [float(other[k][5]) for k in clips]
corr = [float(other[k][3]) for k in clips if other[k][3] not in ("", "—")]
same = sum(1 for a, b in zip(fb, fo) if abs(a - b) < 1e-9)
up = sum(1 for a, b in zip(fb, fo) if b > a + 1e-9)
print(f"{len(clips)} clips: median corr {statistics.median(corr):.2f}, median F50 {statistics.median(fo):.2f} "
      f"(base {statistics.median(fb):.2f}), mean F50 {statistics.mean(fo):.3f} (base {statistics.mean(fb):.3f}), "
      f"{sum(1 for x in fo if x >= 0.7)} at F50 >= 0.7 (base {sum(1 for x in fb if x >= 0.7)}), "
      f"F50 same / up / down: {same} / {up} / {len(clips) - same - up}")
