#!/usr/bin/env bash
# jack-rig.sh — the latency rig: a private JACK server (dummy back-end, real-time pacing, no
# sound card) and ALSA PCM names whose ports feed hapticsynth's own JACK recorder
# (bench/latency-floor/jack-recorder.c), which stamps every cycle in CLOCK_MONOTONIC.
#
#   scripts/jack-rig.sh [--period FRAMES] <command...>   start jackd, run the command, stop jackd
#                                                         (also when the command fails)
#   scripts/jack-rig.sh --floor [--period FRAMES]        run the C latency floor once (see below)
#
# Inside the rig (these need HAPTICSYNTH_JACK_RIG_DIR, which the rig exports):
#   scripts/jack-rig.sh stop-server    SIGKILL jackd (a crash, for fault tests); waits until it is gone
#   scripts/jack-rig.sh start-server   start it again under the same name and period; waits until ready
#
# Environment the command sees:
#   ALSA_CONFIG_PATH          alsa.conf + the rig's asound.conf
#   JACK_DEFAULT_SERVER       a private server name (several rigs can run at once)
#   JACK_NO_START_SERVER=1    nothing auto-starts a server behind our back
#   HAPTICSYNTH_JACK_RIG_DIR  the rig's temporary folder
#   HAPTICSYNTH_JACK_PERIOD   the server's period (frames; default 256), rate 48000
#   HAPTICSYNTH_JACK_OUT      plug PCM (3 ch float, any format converts) -> the recorder's ports
#   HAPTICSYNTH_JACK_RAW_OUT  the jack PCM itself (FLOAT only, exactly 3 channels)
#   HAPTICSYNTH_JACK_RECORDER path of the built recorder; start it BEFORE opening the PCM
#                             (the PCM connects to hs_rec:in_1..3) and wait for "READY"
#   HAPTICSYNTH_JACK_BUS_OUT / _IN  a mono bus in the JACK server, on its own clock (the dummy
#                             back-end's timer, not the PulseAudio rig's): play into _OUT, capture
#                             what was played from _IN. Needs the recorder run as a bus
#                             (-c 1 -T, READY first).
#   HAPTICSYNTH_FLOOR         path of the built C floor program (bench/latency-floor/floor.c)
#   HAPTICSYNTH_JACK_PID      the first jackd's PID (fault tests kill it; the rig's exit trap copes)
#   HAPTICSYNTH_JACK_CTL      absolute path of this script (for stop-server / start-server)
#
# Facts (../shared/alsa-rig notes, re-checked here): -p 64 gives server xruns on 2 vCPUs; a dead
# jackd gives the ALSA writer no error at all (only bounded waits notice); snd_pcm_delay through
# the jack plugin misses about one server period.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELF=$ROOT/scripts/$(basename "${BASH_SOURCE[0]}")
RATE=48000
PERIOD=256

# Starts jackd for rig dir $1 (name $JACK_DEFAULT_SERVER, period $2) in the background, records
# its PID in $1/jackd.pid, waits until its ports are there.
start_jackd() {
    local w=$1 period=$2 pid
    # Only stdin/out/err reach jackd: a caller waiting for this script (a test's Process, which
    # watches a descriptor of its own) must not be held open by the server.
    (
        for fd in /proc/$BASHPID/fd/*; do
            fd=${fd##*/}
            if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
        done
        exec jackd -n "$JACK_DEFAULT_SERVER" -d dummy -r $RATE -p "$period"
    ) >>"$w/jackd.log" 2>&1 </dev/null &
    pid=$!
    disown "$pid" 2>/dev/null || true  # fault tests may SIGKILL it; not news for bash
    echo "$pid" >"$w/jackd.pid"
    for _ in $(seq 250); do
        if jack_lsp 2>/dev/null | grep -q '^system:playback_1$'; then return 0; fi
        alive "$pid" || break
        sleep 0.02
    done
    echo "jack-rig: jackd did not become ready; the end of its log:" >&2
    tail -n 5 "$w/jackd.log" >&2
    return 1
}

# True while process $1 exists and is not a zombie (a killed jackd stays one until the rig reaps it).
alive() {
    local state
    state=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ]
}

case "${1:-}" in
stop-server | start-server)
    if [ -z "${HAPTICSYNTH_JACK_RIG_DIR:-}" ] || [ ! -d "$HAPTICSYNTH_JACK_RIG_DIR" ]; then
        echo "jack-rig: $1: HAPTICSYNTH_JACK_RIG_DIR is not set (run this inside scripts/jack-rig.sh)" >&2
        exit 2
    fi
    w=$HAPTICSYNTH_JACK_RIG_DIR
    pid=$(cat "$w/jackd.pid" 2>/dev/null || true)
    if [ "$1" = stop-server ]; then
        [ -n "$pid" ] || exit 0
        kill -KILL "$pid" 2>/dev/null || true
        for _ in $(seq 250); do alive "$pid" || exit 0; sleep 0.02; done
        exit 1
    fi
    if [ -n "$pid" ] && alive "$pid"; then exit 0; fi
    start_jackd "$w" "${HAPTICSYNTH_JACK_PERIOD:-256}"
    exit $?
    ;;
esac
FLOOR_RUN=
while [ $# -gt 0 ]; do
    case "$1" in
    --period) PERIOD=$2; shift 2 ;;
    --floor) FLOOR_RUN=1; shift ;;
    *) break ;;
    esac
done
if [ -z "$FLOOR_RUN" ] && [ $# -eq 0 ]; then
    echo "usage: scripts/jack-rig.sh [--period FRAMES] <command...> | --floor [--period FRAMES]" >&2
    exit 2
fi
log() { printf 'jack-rig: %s\n' "$*" >&2; }

"$ROOT/scripts/install-deps.sh" --jack

W=$(mktemp -d /tmp/hapticsynth-jack.XXXXXX)
JACKD_PID=
cleanup() {
    # The first server, and the one a fault test restarted (start-server), if any.
    for p in "$JACKD_PID" "$(cat "$W/jackd.pid" 2>/dev/null || true)"; do
        [ -n "$p" ] || continue
        kill "$p" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.02; done
        kill -KILL "$p" 2>/dev/null || true
    done
    if [ -n "${HAPTICSYNTH_RIG_KEEP:-}" ]; then log "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Our own C helpers, rebuilt when their sources change.
for prog in floor jack-recorder; do
    src=$ROOT/bench/latency-floor/$prog.c
    cc -O2 -o "$W/$prog" "$src" -lasound -ljack -lpthread
done

cat >"$W/asound.conf" <<EOF
pcm.hs_jack_raw_out {
    type jack
    playback_ports { 0 "hs_rec:in_1" 1 "hs_rec:in_2" 2 "hs_rec:in_3" }
    hint { show on description "JACK rig: straight into hs_rec (3 ch, float)" }
}
pcm.hs_jack_out { type plug slave.pcm "hs_jack_raw_out" hint { show on description "JACK rig (plug)" } }
pcm.hs_jack_bus_out {
    type plug
    slave.pcm { type jack playback_ports { 0 "hs_rec:in_1" } }
    hint { show on description "JACK rig: a mono bus (the recorder run with -c 1 -T), its input" }
}
pcm.hs_jack_bus_in {
    type plug
    slave.pcm { type jack capture_ports { 0 "hs_rec:out_1" } }
    hint { show on description "JACK rig: the mono bus's output (any number of readers)" }
}
EOF
# Inside another rig (scripts/rig.sh), keep its PCM names and add ours.
export ALSA_CONFIG_PATH=${ALSA_CONFIG_PATH:-/usr/share/alsa/alsa.conf}:$W/asound.conf
# JACK's shared registry has 8 server slots and frees a dead server's slot only when a server of
# the same name starts. Fault tests SIGKILL jackd (no clean-up), so fresh names per run filled
# the registry ("Too many servers already active"). Reuse the name of a rig whose script is
# gone (the name carries the script's PID); otherwise take a new one.
server_name() {
    local f n pid
    for f in /dev/shm/jack_hapticsynth-*_0_0; do
        [ -e "$f" ] || continue
        n=${f#/dev/shm/jack_}; n=${n%_0_0}; pid=${n#hapticsynth-}
        case "$pid" in '' | *[!0-9]*) continue ;; esac
        if ! kill -0 "$pid" 2>/dev/null && ! grep -qs "hapticsynth-$pid" "$W"/../hapticsynth-jack.*/claimed 2>/dev/null; then
            echo "$n"; return
        fi
    done
    echo "hapticsynth-$$"
}
export JACK_DEFAULT_SERVER=$(server_name) JACK_NO_START_SERVER=1
echo "$JACK_DEFAULT_SERVER" >"$W/claimed"
export HAPTICSYNTH_JACK_RIG_DIR=$W HAPTICSYNTH_JACK_PERIOD=$PERIOD
export HAPTICSYNTH_JACK_OUT=hs_jack_out HAPTICSYNTH_JACK_RAW_OUT=hs_jack_raw_out
export HAPTICSYNTH_JACK_BUS_OUT=hs_jack_bus_out HAPTICSYNTH_JACK_BUS_IN=hs_jack_bus_in
export HAPTICSYNTH_JACK_RECORDER=$W/jack-recorder HAPTICSYNTH_FLOOR=$W/floor HAPTICSYNTH_JACK_CTL=$SELF

t0=$(date +%s%N)
ready=
start_jackd "$W" "$PERIOD" && ready=1
JACKD_PID=$(cat "$W/jackd.pid")
if [ -z "$ready" ]; then
    log "jackd failed to start; its log:"
    cat "$W/jackd.log" >&2
    exit 1
fi
export HAPTICSYNTH_JACK_PID=$JACKD_PID
log "jackd pid=$JACKD_PID (server $JACK_DEFAULT_SERVER, -p $PERIOD) ready in $((($(date +%s%N) - t0) / 1000000)) ms"

# Starts the recorder in the background; waits for READY. Sets REC_PID.
start_recorder() {
    "$HAPTICSYNTH_JACK_RECORDER" -c 3 -o "$W/rec.f32" -s "$W/stamps.csv" -O "$W/onsets.csv" >"$W/rec.out" 2>"$W/rec.err" &
    REC_PID=$!
    for _ in $(seq 250); do grep -q READY "$W/rec.out" 2>/dev/null && return 0; sleep 0.02; done
    log "recorder did not start"; cat "$W/rec.err" >&2; return 1
}

if [ -n "$FLOOR_RUN" ]; then
    # One floor measurement per ALSA period/buffer setting; latency = onset time - write time.
    for pb in "$PERIOD $((2 * PERIOD))" "$PERIOD $((4 * PERIOD))" "1024 4096"; do
        set -- $pb
        start_recorder
        rc=0
        timeout 60 "$HAPTICSYNTH_FLOOR" -D hs_jack_out -c 3 -p "$1" -b "$2" -n 50 -i 100 -o "$W/floor.csv" || rc=$?
        sleep 0.2
        kill "$REC_PID" 2>/dev/null; wait "$REC_PID" 2>/dev/null || true
        [ $rc -eq 0 ] || { log "floor failed ($rc)"; exit $rc; }
        echo "--- jackd -p $PERIOD, ALSA period $1 / buffer $2: write -> reaches the server (ms)"
        # Pair the n-th logged impulse with the n-th recorded onset.
        paste -d, <(tail -n +2 "$W/floor.csv") <(tail -n +2 "$W/onsets.csv") | awk -F, -v rate=$RATE 'BEGIN { n = 0 }
            NF >= 7 { lat[n] = ($7 - $3) / 1e6; unrep[n] = lat[n] - $4 * 1000 / rate; n++ }
            function sort(a, k,  i, j, t) { for (i = 1; i < k; i++) for (j = i; j > 0 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
            END {
                if (n == 0) { print "no impulses matched"; exit 1 }
                sort(lat, n); sort(unrep, n)
                printf "latency n=%d min=%.3f median=%.3f p99=%.3f max=%.3f\n", n, lat[0], lat[int(n/2)], lat[int(n*0.99)], lat[n-1]
                printf "latency not in snd_pcm_delay: min=%.3f median=%.3f max=%.3f\n", unrep[0], unrep[int(n/2)], unrep[n-1]
            }'
    done
    echo "jackd xruns: $(grep -c -i xrun "$W/jackd.log" || true)"
    exit 0
fi

rc=0
"$@" || rc=$?
exit $rc
