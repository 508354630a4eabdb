#!/usr/bin/env bash
# The designer's walk-through in docs/studio.md (docs/studio/*.png), made again from the real page:
# Tests/StudioBrowser/studio_screenshots.py drives headless Chromium through opening a sound,
# tuning, editing, auditioning (inside the PulseAudio rig, scripts/rig.sh) and saving, then
# optipng packs the PNGs losslessly. Needs a build (`swift build`, or BIN_DIR=... for release).
#
#   scripts/studio-screenshots.sh [SOUND] [OUT_DIR]
#
# SOUND defaults to the corpus's Drums.wav (apple/unityplugins, Apache-2.0; ../shared/corpus/audio/
# SOURCES.tsv): it is read, never copied into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
sound=${1:-../shared/corpus/audio/AHAP/Drums.wav}
out=${2:-docs/studio}
bin=${BIN_DIR:-$($SWIFT build --show-bin-path)}
[[ -f $sound ]] || { echo "studio-screenshots.sh: $sound: no such sound" >&2; exit 1; }
command -v optipng > /dev/null || { echo "studio-screenshots.sh: optipng is needed (apt-get install optipng)" >&2; exit 1; }
SE_OFFLINE=true scripts/rig.sh python3 Tests/StudioBrowser/studio_screenshots.py "$bin" "$sound" "$out"
optipng -quiet -o2 -strip all "$out"/[1-5]-*.png
ls -l "$out"/[1-5]-*.png
