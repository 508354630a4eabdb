#!/usr/bin/env bash
# ladder-speed.sh BIN [BIN...] — what a designer waits for when choosing a sensitivity: the time
# of `convert --list-sensitivities` (10 rungs and the conversion), of `plot --panels
# sound,sensitivity` (21 rungs) and of a plain conversion, for a 10-minute sound SoX makes (pink
# noise with a click every 200 ms) and for SOUND (default: the evaluation set's 103 s MP3).
# Each binary runs in turn, RUNS rounds (default 5), so that they share the machine's state;
# prints the median and range (s) per binary and job.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BIN [BIN...]  (RUNS=5 SOUND=file)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
sound=${SOUND:-$here/../../../convert-eval/haptify/warmth.mp3}
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sox -n -r 44100 -c 1 "$tmp/noise.wav" synth 20 pinknoise vol 0.3
sox -n -r 44100 -c 1 "$tmp/clicks.wav" synth 0.01 sine 1000 vol 0.9 pad 0 0.19 repeat 99
sox -m "$tmp/noise.wav" "$tmp/clicks.wav" "$tmp/mix.wav"
sox "$tmp/mix.wav" "$tmp/long.wav" repeat 29
jobs=("list long.wav|convert $tmp/long.wav -o $tmp/out.ahap --list-sensitivities"
      "plot long.wav|plot $tmp/long.wav --panels sound,sensitivity -o $tmp/out.png"
      "convert long.wav|convert $tmp/long.wav -o $tmp/out.ahap"
      "list $(basename "$sound")|convert $sound -o $tmp/out.ahap --list-sensitivities"
      "plot $(basename "$sound")|plot $sound --panels sound,sensitivity -o $tmp/out.png")
declare -A times
for ((r = 0; r < runs; r++)); do
    for job in "${jobs[@]}"; do
        for bin in "$@"; do
            start=$(date +%s.%N)
            # (The arguments are split on spaces: the paths have none.)
            $bin ${job#*|} >/dev/null 2>&1
            end=$(date +%s.%N)
            times["$bin|${job%%|*}"]+="$(echo "$end - $start" | bc) "
        done
    done
done
printf '%-18s %-44s %8s %17s\n' job binary median range
for job in "${jobs[@]}"; do
    for bin in "$@"; do
        sorted=($(printf '%s\n' ${times["$bin|${job%%|*}"]} | sort -g))
        n=${#sorted[@]}
        printf '%-18s %-44s %8.3f %8.3f–%-8.3f\n' "${job%%|*}" "$bin" "${sorted[$((n / 2))]}" "${sorted[0]}" "${sorted[$((n - 1))]}"
    done
done
