#!/bin/bash
# Start-up time of two hapticsynth binaries, interleaved: in each round every command runs once
# with each binary (the order alternating between rounds), so load on the machine falls on both
# alike. Prints per command and binary the median, the quartiles and the ratio after/before, of
# the wall time and of the child's CPU time (user + system, from wait4).
#   bench/startup-bench.sh BEFORE AFTER [ROUNDS]      (default 200 rounds, after 20 warm-up runs)
# The commands: `--version`, and a render of Haptics/heartbeat.ahap to a file in a temporary folder.
set -euo pipefail
before=${1:?usage: startup-bench.sh BEFORE AFTER [ROUNDS]}
after=${2:?usage: startup-bench.sh BEFORE AFTER [ROUNDS]}
rounds=${3:-200}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$before" "$after" "$rounds" "$here/Haptics/heartbeat.ahap" "$work" <<'PY'
import os, statistics, subprocess, sys, time
before, after, rounds, pattern, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
commands = {"--version": ["--version"], "render heartbeat": ["render", pattern, "-o", os.path.join(work, "heartbeat.wav")]}
binaries = {"before": before, "after": after}
times = {(c, b): [] for c in commands for b in binaries}
cpu = {key: [] for key in times}
def run(binary, arguments, key=None):
    start = time.perf_counter_ns()
    child = subprocess.Popen([binary] + arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = (time.perf_counter_ns() - start) / 1e6
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0: sys.exit(f"startup-bench: {binary} {' '.join(arguments)}: exit {child.returncode}")
    # CPU time (user + system) of the child: what the start-up costs, less moved by other load.
    if key: cpu[key].append((usage.ru_utime + usage.ru_stime) * 1e3)
    return wall
for _ in range(20):
    for c, arguments in commands.items():
        for b in binaries.values(): run(b, arguments)
for r in range(rounds):
    order = list(binaries.items()) if r % 2 == 0 else list(reversed(binaries.items()))
    for c, arguments in commands.items():
        for name, binary in order:
            times[(c, name)].append(run(binary, arguments, (c, name)))
print(f"{rounds} rounds, interleaved; ms: median [lower quartile, upper quartile] (min)")
for label, table in (("wall", times), ("cpu (user+sys)", cpu)):
    print(label)
    for c in commands:
        medians = {}
        for name in binaries:
            t = sorted(table[(c, name)])
            q = statistics.quantiles(t, n=4)
            medians[name] = statistics.median(t)
            print(f"  {c:17} {name:6} {medians[name]:6.2f} [{q[0]:6.2f}, {q[2]:6.2f}] ({t[0]:.2f})")
        print(f"  {c:17} after/before {medians['after'] / medians['before']:.2f}")
PY
