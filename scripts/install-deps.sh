#!/usr/bin/env bash
# install-deps.sh — installs what hapticsynth needs on Debian/Ubuntu, only when missing.
#   scripts/install-deps.sh           build deps (alsa, sndfile, soxr, liblo + its tools, cairo, pkg-config) + test rig
#                                     (pulseaudio, pulseaudio-utils, ALSA plugins, sox, strace)
#   scripts/install-deps.sh --jack    also jackd2 + libjack-jackd2-dev (latency benchmarks)
#   scripts/install-deps.sh --load    also stress-ng (the suite under load: HAPTICSYNTH_TEST_LOAD, scripts/loaded-test.sh)
#   scripts/install-deps.sh --browser also Debian's chromium and chromium-driver, and selenium from PyPI (the studio's
#                                     browser test, scripts/studio-browser-test.sh; selenium drives the system chromedriver)
# Licences (NOTICE has the full list): what hapticsynth links is LGPL-2.1-or-later, linked dynamically
# (libasound2, libsndfile1, libsoxr0, liblo7), and cairo (libcairo2, for `plot`) is LGPL-2.1 or MPL-1.1
# (its choice), linked dynamically too; pkg-config is build-time only; the rest are used by the
# tests as separate programs, never linked into the library or CLI: pulseaudio, pulseaudio-utils and
# libasound2-plugins (LGPL-2.1+), sox (GPL-2+), strace (LGPL-2.1+; the start-up test counts threads), liblo-tools (LGPL/GPL), jackd2 (GPL-2+; libjack LGPL-2.1+,
# linked only by the test recorder); stress-ng (GPL-2+, test load only).
# Idempotent and quiet; when everything is present it only asks dpkg (well under a second).
set -euo pipefail

browser=0
# selenium (Apache-2.0), for the studio's browser test only; never downloads a browser here (the test
# gives it the system chromedriver's path).
install_selenium() {
    [ "$browser" = 1 ] || return 0
    python3 -c 'import selenium' 2>/dev/null && return 0
    echo "install-deps.sh: installing selenium (pip)" >&2
    python3 -m pip install --quiet --disable-pip-version-check selenium >&2
}

pkgs=(libasound2-dev libsndfile1-dev libsoxr-dev liblo-dev liblo-tools libcairo2-dev pkg-config pulseaudio pulseaudio-utils libasound2-plugins sox strace)
for arg in "$@"; do
    case "$arg" in
    --jack) pkgs+=(jackd2 libjack-jackd2-dev) ;;
    --load) pkgs+=(stress-ng) ;;
    --browser) pkgs+=(chromium chromium-driver); browser=1 ;;
    *) echo "install-deps.sh: unknown option '$arg' (known: --jack, --load, --browser)" >&2; exit 2 ;;
    esac
done

missing=()
for p in "${pkgs[@]}"; do
    # "install ok installed" is dpkg's status for a fully installed package.
    if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    install_selenium
    exit 0
fi

if ! command -v apt-get >/dev/null; then
    echo "install-deps.sh: missing ${missing[*]} and no apt-get here; install them with your package manager" >&2
    exit 1
fi
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "install-deps.sh: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_selenium
