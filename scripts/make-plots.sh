#!/usr/bin/env bash
# make-plots.sh — regenerates the README's pictures (docs/plots/*.png) with `hapticsynth plot`,
# one of each kind: a pattern, its render on a profile, a sound behind the haptic made from
# it, a sound's transients at each sensitivity, and a rhythm session's timing. Release build; run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
$SWIFT build -c release --product hapticsynth >/dev/null
bin=.build/release/hapticsynth
out=docs/plots
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
width=1100

# The pattern: continuous events with their envelopes and curves, transients, sharpness as colour.
$bin plot Haptics/earthquake_splash.ahap --panels pattern --size "$width" -o "$out/pattern.png"
# The render on a profile: drive, envelope, ceiling, limiter, felt onsets (the heartbeat's beat).
$bin plot Haptics/heartbeat.ahap --panels pattern,drive --to 0.35 --size "$width" -o "$out/render.png"
# A sound and the haptic it became (when `convert` is there; else the sound behind a pattern).
sound=Assets/sfx/sfx_shield_impact.wav
# (`convert` comes with another branch; an unknown subcommand prints the root help and exits 0,
# so look for it in the list of subcommands.)
if $bin --help | grep -qE '^  convert '; then
    $bin convert "$sound" -o "$tmp/shield.ahap" >/dev/null
    $bin plot "$sound" "$tmp/shield.ahap" --panels sound,pattern --size "$width" -o "$out/sound.png"
else
    $bin plot "$sound" --size "$width" -o "$out/sound.png"
fi
# A sound's transients at each sensitivity, as `convert` gives them (to choose --sensitivity by
# eye): eight hits of pink noise over a falling tone, from -1 to -30 dB, over a faint noise bed.
if $bin --help | grep -qE '^  convert '; then
    i=0
    for hit in "0.05 -1" "0.42 -14" "0.61 -24" "0.85 -4" "1.18 -18" "1.37 -30" "1.62 -8" "1.96 -21"; do
        set -- $hit
        sox -R -D -V1 -n -r 48000 -b 16 -c 1 -e signed-integer "$tmp/hit$i.wav" \
            synth 0.25 sine 90/40 synth 0.25 pinknoise mix fade l 0.001 0.25 0.24 gain -n "$2" pad "$1"
        i=$((i + 1))
    done
    sox -R -D -V1 -n -r 48000 -b 16 -c 1 -e signed-integer "$tmp/bed.wav" synth 2.4 pinknoise gain -n -50
    sox -R -D -V1 -m "$tmp"/hit*.wav "$tmp/bed.wav" "$tmp/hits.wav"
    $bin plot "$tmp/hits.wav" --panels sound,sensitivity --size "$width" -o "$out/sensitivity.png"
fi
# A rhythm session rendered offline: planned, sample and felt skew per beat.
# (Written from inside $tmp: the report names its output as given, and the picture shows it,
# so a relative name keeps the picture the same bytes run to run.)
root=$PWD
(cd "$tmp" && "$root/$bin" rhythm --haptics "$root/Haptics" --assets "$root/Assets" --bpm 120 --beats 24 -o session.wav --json >session.json)
$bin plot "$tmp/session.json" --size "$width" -o "$out/rhythm.png"
ls -l "$out"
