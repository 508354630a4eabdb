#!/bin/bash
# The Debian package on a bare Debian 12 (`make package-test`):
#   scripts/package-test.sh out/hapticsynth_VERSION_amd64.deb [REFERENCE_CLI]
# Builds a minimal Debian 12 root with mmdebstrap (from the mirror this machine's apt uses; cached
# in $CACHE, default /var/cache/hapticsynth-package-test, so that later runs only unpack it), unpacks
# a fresh copy, installs the .deb into it with apt (which pulls Debian's libraries only; the
# downloaded .debs are cached too), and there, with no Swift toolchain, runs the CLI (--version,
# validate, info, render — bit-identical to REFERENCE_CLI's render, default .build/release/hapticsynth —
# convert, plot, rhythm -o with the installed library), finds its manual pages with man, builds and
# runs a C program with gcc $(pkg-config --cflags --libs hapticsynth), verifies the systemd units,
# and checks that ldd names nothing outside the root's system folders. Needs root (chroot, mount).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ -f "${1:?usage: package-test.sh PACKAGE.deb [REFERENCE_CLI]}" ] || { echo "package-test.sh: $1: no such package (make deb builds it)" >&2; exit 1; }
deb=$(readlink -f "$1")
reference=${2:-$here/.build/release/hapticsynth}
cache=${CACHE:-/var/cache/hapticsynth-package-test}
started=$(date +%s.%N)
[ "$(id -u)" = 0 ] || { echo "package-test.sh: needs root (chroot)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "package-test.sh: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 1; }

# The mirror apt uses here (deb822 .sources or one-line .list).
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null | grep -v security | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}

mkdir -p "$cache/archives"
base="$cache/bookworm-base.tar"
# The tools of the test itself (not of the package): man-db, gcc, pkg-config, systemd-analyze.
tools=man-db,gcc,libc6-dev,pkg-config,systemd,file
if [ ! -f "$base" ]; then
    echo "== mmdebstrap bookworm from $mirror into $base (once)"
    mmdebstrap --variant=minbase --format=tar --include="$tools" --quiet bookworm "$base.partial" "$mirror"
    mv "$base.partial" "$base"
fi

root=$(mktemp -d /var/tmp/hapticsynth-package-root.XXXXXX)
cleanup() {
    for mount in proc dev; do mountpoint -q "$root/$mount" && umount -l "$root/$mount"; done
    rm -rf "$root"
}
trap cleanup EXIT
tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

echo "== apt install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
cp "$cache/archives/"*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" >/dev/null
cp "$root/var/cache/apt/archives/"*.deb "$cache/archives/" 2>/dev/null || true
if in_root sh -c 'command -v swift swiftc; ls -d /opt/swift* /usr/lib/swift 2>/dev/null'; then
    echo "package-test.sh: a Swift toolchain is in the root" >&2; exit 1
fi

echo "== the CLI"
mkdir -p "$root/work"
cp "$here/Haptics/heartbeat.ahap" "$root/work/"
cp "$here/Assets/sfx/sfx_click.wav" "$root/work/click.wav"
run() { echo "\$ $*"; in_root sh -c "cd /work && $*"; }
run hapticsynth --version
run hapticsynth validate heartbeat.ahap
run hapticsynth info heartbeat.ahap >/dev/null
run hapticsynth info --paths
run hapticsynth render heartbeat.ahap -o heartbeat.wav
"$reference" render "$here/Haptics/heartbeat.ahap" -o "$root/work/reference.wav" >/dev/null
cmp "$root/work/heartbeat.wav" "$root/work/reference.wav"
echo "render: bit-identical to $reference's"
run hapticsynth convert click.wav -o click.ahap
run hapticsynth plot heartbeat.ahap -o heartbeat.png
run file heartbeat.png | grep -q PNG
run hapticsynth rhythm --beats 4 -o session.wav
run test -s session.wav
run 'hapticsynth-studio --help | grep -q "USAGE: hapticsynth-studio"'
# The verb finds the studio's executable beside it: the studio itself refuses the folder.
run 'hapticsynth studio /nonexistent 2>&1 | grep -q "/nonexistent: No such file"'

echo "== manual pages"
run 'man -w hapticsynth && man -w hapticsynth-render && man -w 3 hapticsynth'
run 'man hapticsynth-render | grep -q "hapticsynth render"'

echo "== the C library"
cat >"$root/work/render.c" <<'C'
#include <hapticsynth.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    (void)argc;
    hs_pattern *pattern = NULL;
    if (hs_pattern_load_file(&pattern, argv[1]) != HS_OK) { fprintf(stderr, "%s\n", hs_last_error()); return 1; }
    if (hs_pattern_render_file(pattern, NULL, argv[2]) != HS_OK) { fprintf(stderr, "%s\n", hs_last_error()); return 1; }
    hs_pattern_free(pattern);
    printf("libhapticsynth %s rendered %s\n", hs_version(), argv[2]);
    return strcmp(hs_version(), argv[3]) != 0;
}
C
run 'gcc -Wall -Werror render.c $(pkg-config --cflags --libs hapticsynth) -o render'
run ./render heartbeat.ahap c-render.wav "$(tr -d ' \n' <"$here/VERSION")"
run test -s c-render.wav

echo "== systemd units"
run systemd-analyze verify /usr/lib/systemd/user/hapticsynth-serve.service
run 'systemd-analyze verify /usr/lib/systemd/user/hapticsynth-follow@.service 2>&1 | grep -v "is a template" || true'
run 'systemd-analyze verify /usr/lib/systemd/user/hapticsynth-follow@test.service'

echo "== ldd: nothing outside the root's system folders"
for file in /usr/bin/hapticsynth /usr/lib/libhapticsynth.so.0 /work/render; do
    in_root ldd "$file" >"$root/work/ldd.txt"
    echo "$file: $(wc -l <"$root/work/ldd.txt") libraries, all under /lib or /usr/lib"
    if grep -Ev '^\s*(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2)' "$root/work/ldd.txt" \
        | grep -Ev '=> /(usr/)?lib(64)?/' | grep -q .; then
        echo "package-test.sh: $file needs a library outside /lib and /usr/lib (or one not found):" >&2
        cat "$root/work/ldd.txt" >&2; exit 1
    fi
done
echo "package-test: ok ($(printf '%.0f' "$(echo "$(date +%s.%N) - $started" | bc)") s)"
