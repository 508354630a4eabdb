#!/usr/bin/env bash
# Batch speed of `render`, `convert` and `plot` with -j 1 against -j 2: a folder of 200 patterns
# (the repository's Haptics/ and the public corpus, taken in turn) and 200 short sounds made
# with SoX, each verb run RUNS times with -j 1 and -j 2 interleaved (the order alternating),
# wall-clock medians and spread (min-max); every -j 2 output compared byte for byte with -j 1.
# Usage: bench/batch-bench.sh [BINARY]   (default .build/release/hapticsynth; RUNS=5)
# The generated files live in a temporary folder, removed at the end; the corpus is only read.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/hapticsynth}
RUNS=${RUNS:-5}
CORPUS=${HAPTICSYNTH_CORPUS:-../shared/corpus}
[ -x "$BIN" ] || { echo "batch-bench: no binary at $BIN (swift build -c release --product hapticsynth)" >&2; exit 1; }
command -v sox >/dev/null || { echo "batch-bench: needs sox" >&2; exit 1; }
WORK=$(mktemp -d /tmp/batch-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/patterns" "$WORK/sounds"

# 200 patterns, round robin over the available ones (names made unique).
mapfile -t sources < <(ls Haptics/*.ahap; ls "$CORPUS"/ahap/*.ahap 2>/dev/null || true)
for i in $(seq 0 199); do
    cp "${sources[$((i % ${#sources[@]}))]}" "$WORK/patterns/p$(printf %03d "$i").ahap"
done
# 200 sounds, 0.3-2.0 s: a tone with hits, a noise burst, a falling chirp.
for i in $(seq 0 199); do
    len=$(awk -v i="$i" 'BEGIN { printf "%.2f", 0.3 + (i % 18) * 0.1 }')
    f=$((40 + (i * 7) % 200))
    out="$WORK/sounds/s$(printf %03d "$i").wav"
    case $((i % 3)) in
        0) sox -n -r 48000 -c 1 -b 16 "$out" synth "$len" sine "$f" tremolo 4 90 fade 0.005 "$len" 0.05 ;;
        1) sox -n -r 44100 -c 2 -b 16 "$out" synth "$len" pinknoise fade 0.001 "$len" "$(awk -v l="$len" 'BEGIN { print l * 0.8 }')" ;;
        2) sox -n -r 48000 -c 1 -b 24 "$out" synth "$len" sine "$((f * 4))-$f" fade 0.002 "$len" 0.1 ;;
    esac
done
PLOT_SOUNDS=("$WORK"/sounds/s00{0..7}.wav)

declare -A times
run() {  # name jobs command...
    local name=$1 jobs=$2
    shift 2
    local start end
    start=$(date +%s.%N)
    "$@" -j "$jobs" >"$WORK/$name-j$jobs.out" 2>"$WORK/$name-j$jobs.err" || true
    # (The lines name the output folder: j1/ or j2/.)
    sed -i "s#$WORK/j$jobs/#OUT/#g" "$WORK/$name-j$jobs.out" "$WORK/$name-j$jobs.err"
    end=$(date +%s.%N)
    times[$name-$jobs]+="$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f ", e - s }')"
}
for r in $(seq 1 "$RUNS"); do
    order=(1 2)
    [ $((r % 2)) -eq 0 ] && order=(2 1)
    for j in "${order[@]}"; do
        rm -rf "$WORK/j$j" && mkdir -p "$WORK/j$j"
        run render "$j" "$BIN" render "$WORK"/patterns/*.ahap -o "$WORK/j$j/render/"
        run convert "$j" "$BIN" convert "$WORK"/sounds/*.wav -o "$WORK/j$j/convert/"
        run plot "$j" "$BIN" plot "${PLOT_SOUNDS[@]}" --panels sound,sensitivity -o "$WORK/j$j/plot.png"
    done
done

same=yes
diff -r "$WORK/j1" "$WORK/j2" >/dev/null || same=no
for v in render convert plot; do
    cmp -s "$WORK/$v-j1.out" "$WORK/$v-j2.out" || same=no
    cmp -s "$WORK/$v-j1.err" "$WORK/$v-j2.err" || same=no
done
stats() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f s (%.2f-%.2f)", m, v[1], v[NR] }'; }
echo "batch-bench: $(nproc) processors, $RUNS runs each, -j 1 and -j 2 interleaved; $BIN"
printf '%-40s %-24s %-24s %s\n' "verb" "-j 1 median (min-max)" "-j 2 median (min-max)" "speed-up"
for v in render convert plot; do
    case $v in
        render) what="render 200 patterns -o DIR/" ;;
        convert) what="convert 200 sounds -o DIR/" ;;
        plot) what="plot 8 sounds --panels sound,sensitivity" ;;
    esac
    one=$(echo "${times[$v-1]}" | stats); two=$(echo "${times[$v-2]}" | stats)
    m1=${one%% s*}; m2=${two%% s*}
    printf '%-40s %-24s %-24s %s\n' "$what" "$one" "$two" "$(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.2fx", a / b }')"
done
echo "outputs (files, standard output and error) identical -j 1 vs -j 2: $same"
[ "$same" = yes ]
