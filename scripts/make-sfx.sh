#!/bin/sh
# Make the sound effects in Assets/sfx/ with SoX (Debian package "sox", 14.4.2).
#
# Output: 48 kHz, 16-bit signed PCM, mono WAV, each under 1 s.
# Reproducible: -R seeds SoX's noise generators with a fixed value and -D turns
# dithering off, so running this twice writes byte-identical files
# (`scripts/make-sfx.sh --check` proves it against the committed files).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Assets/sfx"
check=0
[ "${1:-}" = "--check" ] && check=1

command -v sox >/dev/null 2>&1 || { echo "make-sfx.sh: sox not found (apt-get install sox)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# make NAME EFFECTS...: synthesise from nothing (-n) into $tmp/NAME.wav.
make() {
    name=$1; shift
    sox -R -D -V1 -n -r 48000 -b 16 -c 1 -e signed-integer "$tmp/$name.wav" "$@"
}

# Shield impact (0.35 s): a low thump sweeping 140 -> 40 Hz under a burst of pink
# noise (the hit on the shield), logarithmic decay, normalised to -3 dBFS.
make sfx_shield_impact \
    synth 0.35 sine 140/40 synth 0.35 pinknoise mix \
    lowpass 3000 fade l 0.001 0.35 0.34 gain -n -3

# Haptic thud (0.3 s): the audible side of the thud pattern, 80 -> 40 Hz sine with
# dark brown noise, low-passed at 400 Hz, fast decay.
make sfx_haptic_thud \
    synth 0.3 sine 80/40 synth 0.3 brownnoise mix \
    lowpass 400 fade l 0.003 0.3 0.28 gain -n -3

# Success chime (0.6 s): C6 then G6 (1046.5 Hz, 1568 Hz), each with a short
# attack and a long decay. The ':' starts a second effects chain whose output
# follows the first.
make sfx_success_chime \
    synth 0.15 sine 1046.5 fade l 0.002 0.15 0.12 gain -6 \
    : synth 0.45 sine 1568 fade l 0.002 0.45 0.42 gain -6

# Click (12 ms): a square-wave tick with a little noise, high-passed, for wheel detents.
make sfx_click \
    synth 0.012 square 2500 synth 0.012 whitenoise mix \
    highpass 1000 fade l 0 0.012 0.011 gain -n -6

# Error (0.37 s): two low, soft-edged square tones falling G3 -> D3 ("uh-oh").
make sfx_error \
    synth 0.14 square 196 lowpass 2500 fade t 0.005 0.14 0.02 gain -15 pad 0 0.03 \
    : synth 0.2 square 147 lowpass 2500 fade t 0.005 0.2 0.06 gain -15

status=0
for f in "$tmp"/*.wav; do
    name=$(basename "$f")
    if [ $check = 1 ]; then
        if ! cmp -s "$f" "$out/$name"; then
            echo "make-sfx.sh: Assets/sfx/$name differs from the recipe's output" >&2
            status=1
        fi
    else
        mkdir -p "$out"
        cp "$f" "$out/$name"
        echo "wrote Assets/sfx/$name ($(soxi -D "$f") s)"
    fi
done
exit $status
