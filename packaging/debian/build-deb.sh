#!/bin/bash
# Builds the Debian package from a release build folder (`make deb`):
#   packaging/debian/build-deb.sh BIN_DIR OUT_DIR      -> OUT_DIR/hapticsynth_VERSION_amd64.deb
# One package, hapticsynth: the CLI (its Swift runtime linked in), its data, manual pages,
# completions, systemd user units, and libhapticsynth with its header, pkg-config files and its
# private Swift runtime (/usr/lib/hapticsynth/). Made with scripts/install.sh (PREFIX=/usr,
# DESTDIR=the package root), then made Debian's: manual pages and changelog gzip -9n, the DEP-5
# copyright, binaries stripped, Depends from dpkg-shlibdeps (the private runtime excluded from it).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:?usage: build-deb.sh BIN_DIR OUT_DIR}
out=${2:?usage: build-deb.sh BIN_DIR OUT_DIR}
version=$(tr -d ' \n' <"$here/VERSION")
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/hapticsynth"

DESTDIR="$root" "$here/scripts/install.sh" "$bin" /usr >/dev/null
# dpkg keeps the list of files; the licence is in copyright (Apache-2.0 in common-licenses).
rm -f "$root/usr/share/hapticsynth/MANIFEST" "$root/usr/share/doc/hapticsynth/LICENSE"
install -m 644 "$here/packaging/debian/copyright" "$root/usr/share/doc/hapticsynth/copyright"
gzip -9n -c "$here/packaging/debian/changelog" >"$root/usr/share/doc/hapticsynth/changelog.gz"
chmod 644 "$root/usr/share/doc/hapticsynth/changelog.gz"
gzip -9n "$root"/usr/share/man/man*/*
# Debian's zsh looks in vendor-completions.
mkdir -p "$root/usr/share/zsh/vendor-completions"
mv "$root/usr/share/zsh/site-functions/_hapticsynth" "$root/usr/share/zsh/vendor-completions/"
rmdir "$root/usr/share/zsh/site-functions"
# The README files of the data folders are documentation, not data lintian would mind; keep them.
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/hapticsynth" "$root/usr/bin/hapticsynth-studio"
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
    "$root"/usr/lib/libhapticsynth.so.*.*.* "$root"/usr/lib/hapticsynth/*.so
strip --strip-debug "$root/usr/lib/libhapticsynth.a"
chmod 644 "$root"/usr/lib/hapticsynth/*.so "$root"/usr/lib/hapticsynth/swiftrt.o "$root"/usr/lib/libhapticsynth.so.*.*.*
# bash-completion files are sourced, not run: no #! line.
sed -i '1{/^#!/d}' "$root/usr/share/bash-completion/completions/hapticsynth"

# Depends: what the programs need of Debian's libraries (the private runtime is found through
# the library's RUNPATH: -l makes dpkg-shlibdeps look there and not ask for a package for it).
mkdir -p "$work/src/debian"
cat >"$work/src/debian/control" <<CONTROL
Source: hapticsynth
Maintainer: hapticsynth developers <hapticsynth@example.org>

Package: hapticsynth
Architecture: amd64
CONTROL
(cd "$work/src" && dpkg-shlibdeps -O -l"$root/usr/lib/hapticsynth" -l"$root/usr/lib" \
    "$root/usr/bin/hapticsynth" "$root/usr/bin/hapticsynth-studio" "$root"/usr/lib/libhapticsynth.so.*.*.* "$root"/usr/lib/hapticsynth/*.so 2>"$work/shlibdeps.err") \
    >"$work/substvars" || { cat "$work/shlibdeps.err" >&2; exit 1; }
depends=$(sed -n 's/^shlibs:Depends=//p' "$work/substvars")
# The programs load cairo, libsndfile, alsa-lib, libsoxr and liblo on first use (dlopen: scripts/make-lazy-libraries.sh),
# which dpkg-shlibdeps cannot see: their packages as their shlibs files name them.
for soname in libcairo.so.2 libsndfile.so.1 libasound.so.2 libsoxr.so.0 liblo.so.7; do
    name=${soname%%.so.*} major=${soname##*.so.}
    dependency=$(awk -v n="$name" -v m="$major" '$1 == n && $2 == m { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }' /var/lib/dpkg/info/*.shlibs)
    [ -n "$dependency" ] || { echo "build-deb.sh: no shlibs entry for $soname (is its -dev package installed?)" >&2; exit 1; }
    case ", $depends," in *", ${dependency%% *}"[\ ,]*) ;; *) depends="$depends, $dependency" ;; esac
done
size=$(du -sk --apparent-size "$root/usr" | cut -f1)

mkdir -p "$root/DEBIAN"
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" "$here/packaging/debian/control.in" >"$root/DEBIAN/control"
# procps: the serve unit reloads with /bin/kill -HUP (systemd 252 has no ReloadSignal=).
# The shared library is ldconfig's: a trigger, no maintainer script; shlibs for programs linked to it.
echo "libhapticsynth ${version%%.*} hapticsynth (>= $version)" >"$root/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$root/DEBIAN/triggers"
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +
deb="$out/hapticsynth_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "built $deb (Depends: $depends)"
