#!/bin/bash
# Checks the C library the way a user meets it: a fresh clone of this repository's HEAD,
# `make install PREFIX=...`, then the examples built with `cc ... $(pkg-config ...)` and run with
# only the installed files (PKG_CONFIG_PATH into the prefix, the system's PATH, no library path,
# nothing of the clone's build tree); that the CLI and the library need nothing of the Swift
# toolchain; and that `make uninstall` removes every file.
#   scripts/check-install.sh [WORK_DIR]      (default: a temporary folder, removed at the end)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-}
if [ -z "$work" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
clone="$work/clone" prefix="$work/prefix" build="$work/build"
rm -rf "$clone" "$prefix" "$build"
git clone -q "$here" "$clone"
git -C "$clone" checkout -q "$(git -C "$here" rev-parse HEAD)"
echo "== make install PREFIX=$prefix (fresh clone of $(git -C "$here" rev-parse --short HEAD))"
make -C "$clone" install PREFIX="$prefix"

mkdir -p "$build"
cp "$clone/examples/c-library/pull.c" "$clone/examples/c-library/play.c" "$build/"
cp "$clone/Haptics/heartbeat.ahap" "$build/"
rm -rf "$clone"  # nothing of the clone from here on
clean=(env -i PATH=/usr/bin:/bin HOME="$work" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig")
cd "$build"
echo "== cc pull.c \$(pkg-config --cflags --libs hapticsynth)"
"${clean[@]}" sh -c 'cc -Wall -Wextra -Werror pull.c $(pkg-config --cflags --libs hapticsynth) -o pull'
"${clean[@]}" sh -c 'cc -Wall -Wextra -Werror play.c $(pkg-config --cflags --libs hapticsynth) -o play'
"${clean[@]}" sh -c 'cc pull.c $(pkg-config --cflags --libs hapticsynth-static) -o pull-static'
echo "== run"
"${clean[@]}" ./pull heartbeat.ahap heartbeat.f32
"${clean[@]}" ./pull-static heartbeat.ahap heartbeat-static.f32
cmp heartbeat.f32 heartbeat-static.f32
"${clean[@]}" "$prefix/bin/hapticsynth" render heartbeat.ahap -o heartbeat.wav --bits 32f >/dev/null
# The WAV's float samples are its last bytes: compare them with the pulled file.
size=$(stat -c %s heartbeat.f32)
tail -c "$size" heartbeat.wav | cmp - heartbeat.f32
echo "pulled samples = hapticsynth render's, byte for byte ($((size / 4)) samples)"
echo "== what libhapticsynth needs"
"${clean[@]}" ldd "$prefix/lib/libhapticsynth.so.0"
readelf -d "$prefix/lib/libhapticsynth.so.0" | grep -E "SONAME|RUNPATH"
du -sh "$prefix/lib/hapticsynth"
if "${clean[@]}" ldd "$prefix/lib/libhapticsynth.so.0" | grep -q "not found"; then echo "unresolved libraries"; exit 1; fi
# Nothing of the Swift toolchain at run time: the CLI has its runtime linked in, the library
# finds its own copy in lib/hapticsynth/.
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")")
echo "== what the CLI needs (nothing under $toolchain)"
for file in "$prefix/bin/hapticsynth" "$prefix/lib/libhapticsynth.so.0" "$build/pull"; do
    needs=$("${clean[@]}" ldd "$file")
    if grep -qF "$toolchain" <<<"$needs" || grep -q "not found" <<<"$needs"; then
        echo "$file needs the toolchain (or a library not found):"; echo "$needs"; exit 1
    fi
done
"${clean[@]}" ldd "$prefix/bin/hapticsynth"
ls -la "$prefix/bin/hapticsynth"
echo "== make uninstall PREFIX=$prefix"
git clone -q "$here" "$clone"
make -C "$clone" uninstall PREFIX="$prefix"
rm -rf "$clone"
left=$(find "$prefix" -type f -o -type l)
[ -z "$left" ] || { echo "left after make uninstall:"; echo "$left"; exit 1; }
echo "check-install: ok"
