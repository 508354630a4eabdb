#!/usr/bin/env bash
# Runs every benchmark in release builds, in the rigs they need (`make bench`).
# Figures print to the terminal; bench/RESULTS.md holds the recorded ones with these commands.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
scripts/install-deps.sh --jack
$SWIFT build -c release

echo "== parse throughput and Haptics/ load time"
.build/release/parse-bench Haptics

echo "== render speed (x real time) per profile, vs sox"
.build/release/render-bench --heartbeat Haptics/heartbeat.ahap

echo "== sound -> haptics: an hour in bounded memory; with the evaluation set (bench/convert-eval/make-set.sh), validity, quality and speed"
.build/release/convert-bench long --minutes 60
if [ -f "${HAPTICSYNTH_EVAL:-../convert-eval}/SOURCES.tsv" ]; then
    .build/release/convert-bench check && .build/release/convert-bench quality && .build/release/convert-bench speed
else
    echo "(no evaluation set at ${HAPTICSYNTH_EVAL:-../convert-eval}: check, quality and speed skipped)"
fi

echo "== plot: the longest corpus pattern (warmth, 103 s), end to end and by stage"
.build/release/plot-bench

echo "== live latency vs the C floor, through JACK (periods 128, 256, 1024)"
for p in 128 256 1024; do
    scripts/jack-rig.sh --period "$p" .build/release/latency-bench jack --period "$p" --trials 200
done

echo "== OSC (serve): message to first sample next to play's immediate start, messages per second (periods 128, 256)"
for p in 128 256; do
    scripts/jack-rig.sh --period "$p" .build/release/osc-bench --period "$p" --trials 200
done

echo "== the C library: hs_engine_transient -> first sample next to the Swift API's, through JACK (periods 128, 256)"
for p in 128 256; do
    scripts/jack-rig.sh --period "$p" .build/release/c-latency-bench --period "$p" --trials 200
done

echo "== rhythm lockstep: skew and onset error, one stream and two devices, through PulseAudio"
scripts/rig.sh .build/release/rhythm-bench --period 1024 --loads 51

echo "== reconnection: server restarted -> sound again, 20 restarts under play --loop, through PulseAudio"
scripts/rig.sh .build/release/reconnect-bench --restarts 20

echo "== follow: live sound to haptics next to a plain ALSA low-pass loop (periods 256, 128; both modes)"
for p in 256 128; do
    for m in analysis lowpass; do
        scripts/rig.sh .build/release/follow-bench --period "$p" --hits 120 --mode "$m"
    done
done
