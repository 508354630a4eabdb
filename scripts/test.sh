#!/usr/bin/env bash
# The README's test command (`make test` runs this): installs what the tests need, builds
# once, then runs
#   1. every test that needs no sound server, in parallel;
#   2. a bounded fuzzing round (scripts/fuzz.sh: $FUZZ_SECONDS, default 15 s, per target (seven targets);
#      FUZZ_SECONDS=0 skips it), before the timing-sensitive rigs;
#   3. every suite whose type name ends in `RigTests`, one at a time, inside both sound-server
#      rigs (scripts/rig.sh: PulseAudio with null sinks; scripts/jack-rig.sh: JACK dummy),
#      because they share the servers' sinks and would hear each other.
# Extra arguments go to both `swift test` runs (e.g. --filter does not mix; use it alone).
# HAPTICSYNTH_TEST_LOAD=N runs all of it (the build too) with N CPU hogs busy (`stress-ng --cpu N`,
# installed for this check only): the suite must pass on a loaded machine. Fresh clones under
# load, as the issue's proof asks: scripts/loaded-test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

scripts/install-deps.sh --jack
LOAD=${HAPTICSYNTH_TEST_LOAD:-0}
if [ "$LOAD" != 0 ]; then
    scripts/install-deps.sh --load
    stress-ng --cpu "$LOAD" --quiet &
    load_pid=$!
    trap 'kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null || true' EXIT
    echo "== under load: stress-ng --cpu $LOAD (pid $load_pid)"
fi
$SWIFT build --build-tests

echo "== tests without a sound server (parallel)"
$SWIFT test --skip-build --skip 'RigTests' "$@"

FUZZ_SECONDS=${FUZZ_SECONDS:-15}
if [ "$FUZZ_SECONDS" != 0 ]; then
    echo "== fuzzing (${FUZZ_SECONDS} s per target)"
    SWIFTC=${SWIFTC:-${SWIFT}c} scripts/fuzz.sh "$FUZZ_SECONDS"
fi

echo "== tests through the sound-server rigs (serial)"
scripts/rig.sh scripts/jack-rig.sh $SWIFT test --skip-build --filter 'RigTests' --no-parallel "$@"

