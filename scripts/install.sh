#!/bin/bash
# Installs what `make install PREFIX=...` installs, from a build folder:
#   scripts/install.sh BIN_DIR PREFIX [--no-cli]
# BIN_DIR is `swift build [-c release] --show-bin-path` after `swift build --target HapticSynthC`
# (and `--product hapticsynth` for the CLI). Installs
#   PREFIX/include/hapticsynth.h
#   PREFIX/lib/libhapticsynth.so.X.Y.Z, .so.X, .so   (SONAME libhapticsynth.so.X)
#   PREFIX/lib/libhapticsynth.a
#   PREFIX/lib/hapticsynth/        the Swift runtime libraries the shared library needs (its
#                                  RUNPATH is $ORIGIN/hapticsynth) and swiftrt.o for static links
#   PREFIX/lib/pkgconfig/hapticsynth.pc, hapticsynth-static.pc
#   PREFIX/bin/hapticsynth         the CLI (unless --no-cli)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: install.sh BIN_DIR PREFIX [--no-cli]}
prefix=${2:?usage: install.sh BIN_DIR PREFIX [--no-cli]}
cli=1
[ "${3:-}" = --no-cli ] && cli=0
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
"$here/scripts/link-library.sh" "$bin" "$stage"
version=$(basename "$stage"/libhapticsynth.so.*.*.*)
version=${version#libhapticsynth.so.}
major=${version%%.*}

install -d "$prefix/include" "$prefix/lib/pkgconfig" "$prefix/lib/hapticsynth"
install -m 644 "$here/Sources/CHapticSynth/include/hapticsynth.h" "$prefix/include/hapticsynth.h"
install -m 755 "$stage/libhapticsynth.so.$version" "$prefix/lib/"
ln -sfn "libhapticsynth.so.$version" "$prefix/lib/libhapticsynth.so.$major"
ln -sfn "libhapticsynth.so.$major" "$prefix/lib/libhapticsynth.so"
install -m 644 "$stage/libhapticsynth.a" "$prefix/lib/"
rm -rf "${prefix:?}/lib/hapticsynth"
cp -R "$stage/hapticsynth" "$prefix/lib/hapticsynth"

# The runtime libraries, as -l flags, for static links (everything in lib/hapticsynth but swiftrt.o).
runtime_libs=$(cd "$prefix/lib/hapticsynth" && ls *.so | sed 's/^lib\(.*\)\.so$/-l\1/' | tr '\n' ' ')
description="Audio-haptic synthesizer: AHAP patterns to actuator drive, live through ALSA or pulled into your buffer"
cat >"$prefix/lib/pkgconfig/hapticsynth.pc" <<PC
prefix=$prefix
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include

Name: hapticsynth
Description: $description
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lhapticsynth
PC
cat >"$prefix/lib/pkgconfig/hapticsynth-static.pc" <<PC
prefix=$prefix
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include
runtimedir=\${libdir}/hapticsynth

Name: hapticsynth-static
Description: $description (linked statically; the Swift runtime from \${runtimedir})
Version: $version
Cflags: -I\${includedir}
Libs: \${libdir}/libhapticsynth.a \${runtimedir}/swiftrt.o -L\${runtimedir} -Wl,-rpath,\${runtimedir} $runtime_libs-lasound -lsndfile -lsoxr -lstdc++ -lm -lpthread -ldl
PC

if [ $cli = 1 ]; then
    install -d "$prefix/bin"
    install -m 755 "$bin/hapticsynth" "$prefix/bin/hapticsynth"
fi
echo "installed libhapticsynth $version under $prefix"
