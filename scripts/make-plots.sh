#!/usr/bin/env bash
# make-plots.sh — regenerates the README's pictures (docs/plots/*.png) with `hapticsynth plot`,
# one of each kind: a pattern, its render on a profile, a sound behind the haptic made from
# it, and a rhythm session's timing. Release build; run from anywhere.
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
# A rhythm session rendered offline: planned, sample and felt skew per beat.
# (Written from inside $tmp: the report names its output as given, and the picture shows it,
# so a relative name keeps the picture the same bytes run to run.)
root=$PWD
(cd "$tmp" && "$root/$bin" rhythm --haptics "$root/Haptics" --assets "$root/Assets" --bpm 120 --beats 24 -o session.wav --json >session.json)
$bin plot "$tmp/session.json" --size "$width" -o "$out/rhythm.png"
ls -l "$out"
