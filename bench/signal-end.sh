#!/usr/bin/env bash
# signal-end.sh — how long `play` takes to end after SIGINT on a loaded machine, through the
# PulseAudio rig: the time from the signal to the process's end (its zombie state in /proc, what
# the kernel knows), whether the graceful path made it or the watchdog's deadline ended it
# ("interrupted" on stderr), and the process's resident memory while playing.
#
#   bench/signal-end.sh [BINARY...]     default: .build/release/hapticsynth
#
# Runs each binary RUNS times (default 20) in turn, in one rig, with `stress-ng --cpu $LOAD`
# (default 2) busy, and prints per binary: median and max milliseconds, the watchdog count, RSS.
# The timing loop runs at SCHED_FIFO (so that the figure is the process's, not this script's
# wait for CPU); each play runs with normal scheduling and SIGINT at its default, as a shell
# starts it.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-20}
LOAD=${LOAD:-2}
[ $# -gt 0 ] || set -- .build/release/hapticsynth
if [ -z "${HAPTICSYNTH_RIG_DIR:-}" ]; then
    scripts/install-deps.sh --load >/dev/null
    stress-ng --cpu "$LOAD" --quiet &
    load=$!
    trap 'kill $load 2>/dev/null || true' EXIT
    status=0
    scripts/rig.sh chrt -f 80 "$0" "$@" || status=$?
    exit $status
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/signal-end.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A transient now and one at the end of the time limits: a voice that waits an hour.
cat >"$work/pattern.ahap" <<'EOF'
{"Version": 1.0, "Pattern": [
 {"Event": {"Time": 0.0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}},
 {"Event": {"Time": 3599, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}
EOF
for binary in "$@"; do
    times=() watchdog=0 rss=0
    for _ in $(seq "$RUNS"); do
        chrt -o 0 env --default-signal=INT "$binary" play -D "$HAPTICSYNTH_RIG_OUT_MONO" "$work/pattern.ahap" 2>"$work/err" &
        pid=$!
        for _ in $(seq 600); do grep -q 'play: ready' "$work/err" && break; sleep 0.05; done
        sleep 0.5
        rss=$(awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$pid/status")
        t0=$(date +%s%N)
        kill -INT "$pid"
        while [ -e "/proc/$pid" ] && [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do :; done
        t1=$(date +%s%N)
        wait "$pid" || true
        times+=($(( (t1 - t0) / 1000000 )))
        if grep -q 'took too long' "$work/err"; then watchdog=$((watchdog + 1)); fi
    done
    sorted=($(printf '%s\n' "${times[@]}" | sort -n))
    echo "$binary: SIGINT to end, $RUNS runs under stress-ng --cpu $LOAD: median ${sorted[$((RUNS / 2))]} ms, min ${sorted[0]}, max ${sorted[-1]}; ended by the watchdog $watchdog; RSS while playing $rss MiB"
done
