#!/bin/bash
# Links libhapticsynth, the C library, from the objects `swift build --target HapticSynthC`
# leaves in a build folder:
#   scripts/link-library.sh BIN_DIR OUT_DIR
# BIN_DIR is `swift build [-c release] --show-bin-path`; OUT_DIR receives
#   libhapticsynth.so.X.Y.Z   (SONAME libhapticsynth.so.X; exports exactly the functions of
#                              Sources/CHapticSynth/hapticsynth.symbols, in version node
#                              HAPTICSYNTH_X; RUNPATH $ORIGIN/hapticsynth)
#   libhapticsynth.so.X, libhapticsynth.so   (symbolic links)
#   libhapticsynth.a          (the same objects, for static linking)
#   hapticsynth/              (the Swift runtime libraries the shared library needs, and
#                              swiftrt.o for static links: copied from the toolchain)
# The version comes from VERSION (hapticsynth.h's HS_VERSION_* must agree).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: link-library.sh BIN_DIR OUT_DIR}
out=${2:?usage: link-library.sh BIN_DIR OUT_DIR}
SWIFTC=${SWIFTC:-swiftc}

# The version: the repository's VERSION file; the header's HS_VERSION_* (what C programs compile
# against, and hs_version) must say the same.
version=$(tr -d ' \n' <"$here/VERSION")
header="$here/Sources/CHapticSynth/include/hapticsynth.h"
version_part() { sed -n "s/^#define HS_VERSION_$1 \([0-9]*\)$/\1/p" "$header"; }
header_version="$(version_part MAJOR).$(version_part MINOR).$(version_part PATCH)"
if [ "$header_version" != "$version" ]; then
    echo "link-library.sh: VERSION says $version but hapticsynth.h's HS_VERSION_* say $header_version" >&2
    exit 1
fi
major=${version%%.*}

# The modules the library is made of: the C API and everything it depends on (a module left
# out shows as an undefined symbol at link time, and the link fails).
modules=(CHapticSynth HapticSynthC HapticKit HapticEngine HapticALSA CALSASupport CSoundServer HapticSoundFile HapticAnalysis HapticFollow
         HapticRender HapticDSP HapticPattern Logging CBuildInfo)
# A Swift module's objects are those its output file map names that exist (the objects of
# its current sources, or the module's one object from a whole-module build), and its wrapped
# module: a build folder keeps the objects of deleted or renamed files, which would link
# twice. A C module's are all it has.
objects=()
for module in "${modules[@]}"; do
    dir="$bin/$module.build"
    found=()
    if [ -f "$dir/output-file-map.json" ]; then
        while IFS= read -r object; do
            [ -e "$object" ] && found+=("$object")
        done < <(sed -n 's/^ *"object": "\(.*\)",\{0,1\}$/\1/p' "$dir/output-file-map.json")
        [ -e "$dir/$module.swiftmodule.o" ] && found+=("$dir/$module.swiftmodule.o")
    else
        for object in "$dir/"*.o; do [ -e "$object" ] && found+=("$object"); done
    fi
    [ ${#found[@]} -gt 0 ] || { echo "link-library.sh: no objects for $module in $bin (swift build --target HapticSynthC first)" >&2; exit 1; }
    objects+=("${found[@]}")
done

mkdir -p "$out"
rm -f "$out"/libhapticsynth.*
runtime_dir=$(dirname "$(dirname "$(command -v "$SWIFTC")")")/lib/swift/linux
[ -d "$runtime_dir" ] || runtime_dir=$(dirname "$(readlink -f "$(command -v "$SWIFTC")")")/../lib/swift/linux

# The version script: exactly the functions of the committed list global (the hs_ API; C
# helpers of other modules that happen to share the prefix stay local), everything else local.
symbols="$here/Sources/CHapticSynth/hapticsynth.symbols"
map="$out/hapticsynth.map"
{
    echo "HAPTICSYNTH_$major {"
    echo "    global:"
    grep -v '^#' "$symbols" | sed '/^$/d; s/.*/        &;/'
    echo "    local:"
    echo "        *;"
    echo "};"
} >"$map"

# The shared library: SONAME, only the API exported, the Swift runtime found next to it.
"$SWIFTC" -emit-library -o "$out/libhapticsynth.so.$version" "${objects[@]}" \
    -lasound -lsndfile -lsoxr \
    -no-toolchain-stdlib-rpath \
    -Xlinker -soname="libhapticsynth.so.$major" \
    -Xlinker --version-script="$map" \
    -Xlinker -rpath -Xlinker '$ORIGIN/hapticsynth' \
    -Xlinker -z -Xlinker now
ln -sf "libhapticsynth.so.$version" "$out/libhapticsynth.so.$major"
ln -sf "libhapticsynth.so.$major" "$out/libhapticsynth.so"
rm -f "$map"

# The static library: the same objects.
ar rcs "$out/libhapticsynth.a" "${objects[@]}"

# The Swift runtime the shared library needs (NEEDED, followed through the runtime's own
# NEEDED entries), and swiftrt.o (the image registration a static link needs).
rm -rf "$out/hapticsynth"
mkdir -p "$out/hapticsynth"
queue=("$out/libhapticsynth.so.$version")
while [ ${#queue[@]} -gt 0 ]; do
    file=${queue[0]}
    queue=("${queue[@]:1}")
    for needed in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        if [ -f "$runtime_dir/$needed" ] && [ ! -f "$out/hapticsynth/$needed" ]; then
            cp "$runtime_dir/$needed" "$out/hapticsynth/$needed"
            queue+=("$out/hapticsynth/$needed")
        fi
    done
done
cp "$runtime_dir/x86_64/swiftrt.o" "$out/hapticsynth/swiftrt.o" 2>/dev/null \
    || cp "$runtime_dir/$(uname -m)/swiftrt.o" "$out/hapticsynth/swiftrt.o"
echo "linked $out/libhapticsynth.so.$version (SONAME libhapticsynth.so.$major), libhapticsynth.a; runtime: $(cd "$out/hapticsynth" && ls | tr '\n' ' ')"
