#!/bin/bash
# Installs what `make install PREFIX=... [DESTDIR=...]` installs, from a build folder:
#   scripts/install.sh BIN_DIR PREFIX [--no-cli]
# BIN_DIR is `swift build [-c release] --show-bin-path` after `swift build --target HapticSynthC`
# (and `--product hapticsynth` for the CLI). PREFIX is where the files will live (written into
# the pkg-config files and the systemd units); DESTDIR (environment), when set, is prepended to
# every path written (staged installs, packages: GNU conventions). Installs, under PREFIX:
#   include/hapticsynth.h
#   lib/libhapticsynth.so.X.Y.Z, .so.X, .so   (SONAME libhapticsynth.so.X)
#   lib/libhapticsynth.a
#   lib/hapticsynth/        the Swift runtime libraries the shared library needs (its RUNPATH is
#                           $ORIGIN/hapticsynth) and swiftrt.o for static links
#   lib/pkgconfig/hapticsynth.pc, hapticsynth-static.pc
#   share/man/man3/hapticsynth.3                       (from the header's comments)
#   share/doc/hapticsynth/LICENSE, NOTICE
#   share/hapticsynth/MANIFEST                         (what was installed, for `make uninstall`)
# and with the CLI (unless --no-cli):
#   bin/hapticsynth, bin/hapticsynth-studio            (`hapticsynth studio` runs the second; its
#                                                      manual page is hapticsynth-studio.1, the verb's)
#   share/hapticsynth/Haptics/, Assets/                the pattern library, sound effects, cue
#                                                      sheet and actuator profiles
#   share/man/man1/hapticsynth.1, hapticsynth-VERB.1   (from the argument parser)
#   share/bash-completion/completions/hapticsynth, share/zsh/site-functions/_hapticsynth,
#   share/fish/vendor_completions.d/hapticsynth.fish
#   lib/systemd/user/hapticsynth-serve.service, hapticsynth-follow@.service
# Also: scripts/install.sh --uninstall PREFIX  removes what the MANIFEST lists (`make uninstall`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
destdir=${DESTDIR:-}
usage="usage: install.sh BIN_DIR PREFIX [--no-cli] | install.sh --uninstall PREFIX"

if [ "${1:-}" = --uninstall ]; then
    prefix=${2:?$usage}
    root="$destdir$prefix"
    manifest="$root/share/hapticsynth/MANIFEST"
    [ -f "$manifest" ] || { echo "install.sh: $manifest: no such file (nothing of hapticsynth installed under $root)" >&2; exit 1; }
    dirs=()
    while IFS= read -r file; do
        rm -f "$root/$file"
        dirs+=("$(dirname "$root/$file")")
    done <"$manifest"
    rm -f "$manifest"
    rm -rf "${root:?}/lib/hapticsynth"
    # The folders left empty: hapticsynth's own always; with DESTDIR (a staging tree) all of
    # them up to DESTDIR, so that a staged install and uninstall leave nothing.
    stop=${destdir:-$root}
    for dir in $(printf '%s\n' "${dirs[@]}" "$root/share/hapticsynth" | sort -u -r); do
        while [ "$dir" != "$stop" ] && [ "${#dir}" -gt "${#stop}" ] && rmdir "$dir" 2>/dev/null; do
            [ -n "$destdir" ] || case $dir in */hapticsynth|*/hapticsynth/*) ;; *) break ;; esac
            dir=$(dirname "$dir")
        done
    done
    [ -z "$destdir" ] || [ ! -d "$destdir" ] || find "$destdir" -mindepth 1 -depth -type d -empty -delete
    echo "removed hapticsynth from $root"
    exit 0
fi

bin=${1:?$usage}
prefix=${2:?$usage}
cli=1
[ "${3:-}" = --no-cli ] && cli=0
case $prefix in /*) ;; *) mkdir -p "$prefix"; prefix=$(cd "$prefix" && pwd) ;; esac
root="$destdir$prefix"
version=$(tr -d ' \n' <"$here/VERSION")
major=${version%%.*}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
"$here/scripts/link-library.sh" "$bin" "$stage/link" >/dev/null
tree="$stage/tree"  # the installed tree, made in full here, then copied into $root

install -d "$tree/include" "$tree/lib/pkgconfig" "$tree/share/man/man3" "$tree/share/doc/hapticsynth" "$tree/share/hapticsynth"
install -m 644 "$here/Sources/CHapticSynth/include/hapticsynth.h" "$tree/include/hapticsynth.h"
install -m 755 "$stage/link/libhapticsynth.so.$version" "$tree/lib/"
ln -sfn "libhapticsynth.so.$version" "$tree/lib/libhapticsynth.so.$major"
ln -sfn "libhapticsynth.so.$major" "$tree/lib/libhapticsynth.so"
install -m 644 "$stage/link/libhapticsynth.a" "$tree/lib/"
cp -R "$stage/link/hapticsynth" "$tree/lib/hapticsynth"
python3 "$here/packaging/man/make-man3.py" "$here/Sources/CHapticSynth/include/hapticsynth.h" "$version" >"$tree/share/man/man3/hapticsynth.3"
install -m 644 "$here/LICENSE" "$here/NOTICE" "$tree/share/doc/hapticsynth/"

# The runtime libraries, as -l flags, for static links (everything in lib/hapticsynth but swiftrt.o).
runtime_libs=$(cd "$tree/lib/hapticsynth" && ls *.so | sed 's/^lib\(.*\)\.so$/-l\1/' | tr '\n' ' ')
description="Audio-haptic synthesizer: AHAP patterns to actuator drive, live through ALSA or pulled into your buffer"
cat >"$tree/lib/pkgconfig/hapticsynth.pc" <<PC
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
cat >"$tree/lib/pkgconfig/hapticsynth-static.pc" <<PC
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
    cli_bin="$bin/hapticsynth"
    for program in hapticsynth hapticsynth-studio; do
        [ -x "$bin/$program" ] || { echo "install.sh: $bin/$program: not built (swift build -c release --product $program)" >&2; exit 1; }
    done
    install -d "$tree/bin" "$tree/share/man/man1" "$tree/lib/systemd/user" \
        "$tree/share/bash-completion/completions" "$tree/share/zsh/site-functions" "$tree/share/fish/vendor_completions.d"
    install -m 755 "$cli_bin" "$tree/bin/hapticsynth"
    install -m 755 "$bin/hapticsynth-studio" "$tree/bin/hapticsynth-studio"
    # The data: the pattern library, and the assets (sound effects, cue sheet, actuator profiles).
    cp -R "$here/Haptics" "$here/Assets" "$tree/share/hapticsynth/"
    # Manual pages and completions from the argument parser itself: they never disagree with --help.
    "$cli_bin" --experimental-dump-help | python3 "$here/packaging/man/make-man.py" "$tree/share/man/man1" "$version"
    "$cli_bin" --generate-completion-script bash >"$tree/share/bash-completion/completions/hapticsynth"
    "$cli_bin" --generate-completion-script zsh >"$tree/share/zsh/site-functions/_hapticsynth"
    "$cli_bin" --generate-completion-script fish >"$tree/share/fish/vendor_completions.d/hapticsynth.fish"
    for unit in hapticsynth-serve.service hapticsynth-follow@.service; do
        sed "s|@BINDIR@|$prefix/bin|g" "$here/packaging/systemd/$unit.in" >"$tree/lib/systemd/user/$unit"
    done
fi
find "$tree" -type f -exec chmod go-w,a+r {} +

# Into place, and the list of what was installed (files and links; lib/hapticsynth/ is removed whole).
(cd "$tree" && find . \( -type f -o -type l \) ! -path './lib/hapticsynth/*' | sed 's|^\./||' | LC_ALL=C sort) >"$stage/MANIFEST"
install -d "$root"
rm -rf "${root:?}/lib/hapticsynth"
cp -R --no-preserve=ownership "$tree/." "$root/"
install -m 644 "$stage/MANIFEST" "$root/share/hapticsynth/MANIFEST"
echo "installed hapticsynth $version under $root"
