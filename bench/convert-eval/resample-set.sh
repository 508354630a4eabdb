#!/usr/bin/env bash
# A copy of the conversion evaluation set with every WAV sound at another sample rate, to see
# how much of the quality figures is the sounds' rate and bandwidth rather than the sounds
# (a held-out set may well hold 22.05 or 16 kHz effects). References and the .tsv files are
# linked, not copied; MP3 sounds are left out (SoX here has no MP3 handler), so compare
# families without them.
#
#   bench/convert-eval/resample-set.sh RATE OUT [--and-back]     (set: $HAPTICSYNTH_EVAL, else ../convert-eval)
#
# --and-back takes each sound through RATE and back to its own rate: the bandwidth of RATE at
# the analysis geometry of the original. SoX's `rate` effect (high quality, linear phase).
set -euo pipefail
cd "$(dirname "$0")/../.."
RATE=${1:?usage: resample-set.sh RATE OUT [--and-back]}
OUT=${2:?usage: resample-set.sh RATE OUT [--and-back]}
BACK=${3:-}
SET=${HAPTICSYNTH_EVAL:-../convert-eval}
SET=$(cd "$SET" && pwd)
command -v sox >/dev/null || { echo "resample-set.sh: sox not found (apt-get install sox)" >&2; exit 1; }
[ -f "$SET/SOURCES.tsv" ] || { echo "resample-set.sh: no evaluation set at $SET (bench/convert-eval/make-set.sh)" >&2; exit 1; }
[ -e "$OUT" ] && { echo "resample-set.sh: $OUT exists; give a new folder" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
for f in "$SET"/*.tsv; do ln -s "$f" "$OUT/"; done
cd "$SET"
for family in */; do mkdir -p "$OUT/$family"; done
for f in */*; do
    case "$f" in
        *.wav)
            if [ "$BACK" = "--and-back" ]; then
                sox -V1 "$f" -b 24 "$OUT/$f" rate "$RATE" rate "$(soxi -r "$f")"
            else
                sox -V1 "$f" -b 24 "$OUT/$f" rate "$RATE"
            fi ;;
        *.mp3) ;;
        *) ln -s "$SET/$f" "$OUT/$f" ;;
    esac
done
echo "$OUT: $(ls "$OUT"/*/*.wav | wc -l) sounds at ${RATE} Hz${BACK:+ and back}"
