#!/usr/bin/env bash
# The Python package's tests against this build (scripts/test.sh runs them):
#   python/run-tests.sh BIN_DIR          installed from the folder, then from the wheel
#   python/run-tests.sh BIN_DIR rig      the rig tests (inside scripts/rig.sh), from the folder
# BIN_DIR is `swift build --show-bin-path`: the library is linked from its objects
# (scripts/link-library.sh) and its CLI is the one the tests compare with. Each install goes
# into a fresh virtual environment in a temporary folder (removed at the end) that sees the
# system's site-packages (NumPy, pytest): nothing is downloaded. pytest finding no test (its
# exit 5) is a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
bin=$(cd "${1:?usage: run-tests.sh BIN_DIR [rig]}" && pwd)
mode=${2:-all}
PYTHON=${PYTHON:-python3}
export PYTHONDONTWRITEBYTECODE=1 HAPTICSYNTH_CLI="$bin/hapticsynth"

work=$(mktemp -d "${TMPDIR:-/tmp}/hapticsynth-python.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$repo/scripts/link-library.sh" "$bin" "$work/lib" >/dev/null
"$here/ensure-wheel-builder.sh"

fresh_env() {  # NAME: a new virtual environment over the system's packages
    "$PYTHON" -m venv --system-site-packages "$work/$1"
}
run_pytest() {  # ENV PYTEST-ARGS...: pytest in that environment; no test run is a failure
    local status=0
    (cd "$here" && "$work/$1/bin/python" -m pytest -p no:cacheprovider -q -rs "${@:2}") || status=$?
    if [ "$status" = 5 ]; then echo "python: pytest ran no test" >&2; return 1; fi
    return "$status"
}
install_from_folder() {  # ENV: pip install of a copy of the folder (the checkout is left as it is)
    mkdir -p "$work/source"
    cp -r "$here/pyproject.toml" "$here/setup.py" "$here/README.md" "$here/src" "$work/source/"
    "$work/$1/bin/python" -m pip install --quiet --no-deps --no-build-isolation --no-index "$work/source"
}

case $mode in
all)
    echo "== python: pip install ./python (the library from HAPTICSYNTH_LIBRARY)"
    fresh_env folder
    install_from_folder folder
    HAPTICSYNTH_LIBRARY="$work/lib/libhapticsynth.so.0" run_pytest folder -m "not rig"
    echo "== python: the wheel (library and runtime bundled)"
    "$here/build-wheel.sh" "$work/lib" "$work/wheels" >/dev/null
    fresh_env wheel
    "$work/wheel/bin/python" -m pip install --quiet --no-deps --no-index "$work"/wheels/hapticsynth-*.whl
    HAPTICSYNTH_TEST_WHEEL=1 run_pytest wheel -m "not rig"
    ;;
rig)
    echo "== python: rig tests"
    fresh_env folder
    install_from_folder folder
    HAPTICSYNTH_LIBRARY="$work/lib/libhapticsynth.so.0" run_pytest folder -m rig -s
    ;;
*) echo "run-tests.sh: unknown mode $mode (all or rig)" >&2; exit 2 ;;
esac
