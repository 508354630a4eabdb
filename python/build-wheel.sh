#!/usr/bin/env bash
# Builds the platform wheel of the Python package with libhapticsynth and its private Swift
# runtime inside (`make wheel` runs it on the release library; the tests on this build's):
#   python/build-wheel.sh LIB_DIR OUT_DIR
# LIB_DIR is what scripts/link-library.sh made (libhapticsynth.so.0 and hapticsynth/, the
# runtime); OUT_DIR receives hapticsynth-VERSION-py3-none-linux_ARCH.whl. The package is staged
# in a temporary copy (the checkout never holds the binaries), the library copied under the
# name the package loads (its SONAME) with the runtime beside it in _lib/hapticsynth/, where
# its RUNPATH ($ORIGIN/hapticsynth) finds it; `ldd` must then name nothing of the toolchain.
# Builds with pip and the interpreter's setuptools, without downloading (`wheel` is installed
# into the interpreter once when its setuptools lacks bdist_wheel).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$(cd "${1:?usage: build-wheel.sh LIB_DIR OUT_DIR}" && pwd)
out=${2:?usage: build-wheel.sh LIB_DIR OUT_DIR}
PYTHON=${PYTHON:-python3}

"$here/ensure-wheel-builder.sh"
stage=$(mktemp -d "${TMPDIR:-/tmp}/hapticsynth-wheel.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp -r "$here/pyproject.toml" "$here/setup.py" "$here/README.md" "$here/src" "$stage/"
find "$stage/src" \( -name __pycache__ -o -name '*.egg-info' -o -name _lib \) -prune -exec rm -rf {} +
bundle="$stage/src/hapticsynth/_lib"
mkdir -p "$bundle/hapticsynth"
cp -L "$lib/libhapticsynth.so.0" "$bundle/libhapticsynth.so.0"
for runtime in "$lib/hapticsynth/"*.so*; do cp -L "$runtime" "$bundle/hapticsynth/"; done
# Debug information is no part of what runs (a debug build's library is mostly that).
strip --strip-debug "$bundle/libhapticsynth.so.0"

toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)")")")
deps=$(env -u LD_LIBRARY_PATH PATH=/usr/bin:/bin ldd "$bundle/libhapticsynth.so.0")
if grep -q "not found" <<<"$deps" || grep -qF -e "$toolchain" -e /opt/swift <<<"$deps"; then
    echo "build-wheel.sh: the bundled library does not stand on its own:" >&2
    echo "$deps" >&2
    exit 1
fi

mkdir -p "$out"
"$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation --no-index -w "$out" "$stage"
ls "$out"/hapticsynth-*.whl
