#!/usr/bin/env bash
# The README's test command (`make test` runs this): installs what the tests need, builds
# once, then runs three lanes at the same time:
#   tests: every test that needs no sound server, in parallel;
#   rig:   every suite whose type name ends in `RigTests`, one at a time, inside both
#          sound-server rigs (scripts/rig.sh: PulseAudio with null sinks; scripts/jack-rig.sh:
#          JACK dummy), because they share the servers' sinks and would hear each other; and
#          those ending in `RealTimeTests` (paced in real time through a virtual device for
#          seconds on end: a parallel lane filling both cores would starve their waits);
#   fuzz:  a bounded fuzzing round (scripts/fuzz.sh: $FUZZ_SECONDS, default 15 s, per target
#          (seven targets); FUZZ_SECONDS=0 skips it), built unoptimized (FUZZ_OPT=-Onone: 40 %
#          of the -O build's CPU, which the other lanes need; `make fuzz` builds at -O).
# The rig suites mostly wait for servers that pace in real time and the fuzzer uses one core,
# so the lanes fill each other's idle time. The rig suites hold on a busy machine anyway (below),
# and this is one. The rig and fuzz lanes' lines start with "rig| " and "fuzz| ". The script
# exits non-zero when any lane failed, after all of them ended; the last lines say which.
# The rig lane runs the test binary itself: a second `swift test` would wait for the first's
# lock on .build until it ended.
# HAPTICSYNTH_BESIDE_RIG_LANE: a command to run once every lane but the rig lane has ended (below).
# Extra arguments go to both test runs (swift-testing's --filter, --skip; they do not mix).
# HAPTICSYNTH_TEST_LOAD=N runs all of it (the build too) with N CPU hogs busy (`stress-ng --cpu N`,
# installed for this check only): the suite must pass on a loaded machine. Fresh clones under
# load, as the issue's proof asks: scripts/loaded-test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

# --browser: the studio's browser step (Chromium, chromedriver, selenium); it fails, never skips,
# when they are missing.
scripts/install-deps.sh --jack --browser
LOAD=${HAPTICSYNTH_TEST_LOAD:-0}
if [ "$LOAD" != 0 ]; then
    scripts/install-deps.sh --load
    stress-ng --cpu "$LOAD" --quiet &
    load_pid=$!
    trap 'kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null || true' EXIT
    echo "== under load: stress-ng --cpu $LOAD (pid $load_pid)"
fi
# The pure kernels optimized in this debug build (Package.swift): a third of the tests' CPU time.
export HAPTICSYNTH_OPTIMIZE_KERNELS=1
$SWIFT build --build-tests
echo "== built in $SECONDS s"
# Each lane's end, in seconds after the build, so that a slow CI run shows which lane held it.
built=$SECONDS
ended() { echo "ended $((SECONDS - built)) s after the build"; }

outcomes=()
failed=0
lane() {  # NAME COMMAND...: runs the command, records its outcome, never stops the script
    local name=$1
    shift
    if "$@"; then outcomes+=("$name: passed"); else outcomes+=("$name: FAILED (status $?)"); failed=1; fi
    outcomes[-1]+=" (at $((SECONDS - built)) s)"
}
# Every lane's lines also go to one log, so that the summary can name the failed tests: CI shows
# only the end of the output, and the failure itself may have scrolled far above it.
lane_log=$(mktemp "${TMPDIR:-/tmp}/hapticsynth-test-lanes.XXXXXX")
prefixed() {  # PREFIX COMMAND...: the command's output, each line prefixed; its status
    local prefix=$1
    shift
    "$@" 2>&1 | sed -u "s/^/$prefix/" | tee -a "$lane_log"
}
lanes=()
stop_lanes() {  # a TERM or an error here: the background lanes stop too (rig.sh stops its servers)
    for pid in "${lanes[@]}"; do pkill -TERM -P "$pid" 2>/dev/null || true; done
    [ -z "${load_pid:-}" ] || kill "$load_pid" 2>/dev/null || true
    rm -f "$lane_log"
}
trap stop_lanes EXIT

echo "== tests through the sound-server rigs (serial), in the background; lines start with \"rig| \""
bin_path=$($SWIFT build --show-bin-path)
tests_binary="$bin_path/hapticsynthPackageTests.xctest"
# SIGINT and SIGQUIT at their defaults for the tests, however `make test` was started: a start in
# the background inherits them ignored, the live verbs the rig tests end with SIGINT would inherit
# that, and a live verb keeps an inherited ignored signal ignored, as nohup expects.
rig_steps() {  # the rig suites; then the Python package's rig tests, in a rig of their own
    local status=0
    scripts/rig.sh scripts/jack-rig.sh env --default-signal=INT,QUIT \
        "$tests_binary" --testing-library swift-testing --filter 'RigTests|RealTimeTests' --no-parallel "$@" || status=$?
    scripts/rig.sh python/run-tests.sh "$bin_path" rig || status=$?
    ended
    return "$status"
}
NO_COLOR=1 prefixed "rig| " rig_steps "$@" &
rig_pid=$!
lanes+=("$rig_pid")

FUZZ_SECONDS=${FUZZ_SECONDS:-15}
if [ "$FUZZ_SECONDS" != 0 ]; then
    echo "== fuzzing (${FUZZ_SECONDS} s per target), in the background; lines start with \"fuzz| \""
    fuzz_round() { local status=0; scripts/fuzz.sh "$FUZZ_SECONDS" || status=$?; ended; return "$status"; }
    FUZZ_OPT=${FUZZ_OPT:--Onone} SWIFTC="${SWIFTC:-${SWIFT}c}" prefixed "fuzz| " fuzz_round &
    fuzz_pid=$!
    lanes+=("$fuzz_pid")
fi

echo "== tests without a sound server (parallel)"
lane "tests without a sound server" prefixed "" $SWIFT test --skip-build --skip 'RigTests|RealTimeTests' "$@"
# The Python package (python/run-tests.sh): pip-installed from its folder and from its wheel,
# each in a fresh virtual environment, against this build's library and CLI; lines "py| ".
echo "== the Python package"
lane "Python package" prefixed "py| " python/run-tests.sh "$bin_path"

# The studio in a real browser (headless Chromium; scripts/studio-browser-test.sh), a step of its own.
echo "== the studio in a browser; lines start with \"studio| \""
lane "studio browser test" prefixed "studio| " scripts/studio-browser-test.sh
if [ -n "${fuzz_pid:-}" ]; then
    echo "== waiting for the fuzzing round"
    lane "fuzzing round" wait "$fuzz_pid"
fi
# By now only the rig lane runs, for minutes, and it mostly waits for servers that pace in real
# time: HAPTICSYNTH_BESIDE_RIG_LANE (a shell command) runs in the idle cores, niced. CI builds the
# package here (.ci/run); its failure fails this run.
if [ -n "${HAPTICSYNTH_BESIDE_RIG_LANE:-}" ]; then
    echo "== beside the rig lane: $HAPTICSYNTH_BESIDE_RIG_LANE; lines start with \"beside| \""
    # In the caller's environment: this script's own setting would change the manifest the
    # command's builds read (Package.swift), and a later build without it would build again.
    lane "beside the rig lane" prefixed "beside| " env -u HAPTICSYNTH_OPTIMIZE_KERNELS \
        nice -n 10 bash -c "$HAPTICSYNTH_BESIDE_RIG_LANE"
fi
echo "== waiting for the rig lane"
lane "tests through the sound-server rigs" wait "$rig_pid"
trap - EXIT
[ -z "${load_pid:-}" ] || { kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null || true; }
echo "== make test:"
printf '   %s\n' "${outcomes[@]}"
if [ $failed != 0 ]; then
    # swift-testing's "✘ Test ... recorded an issue at FILE:LINE: ..." lines; each shortened.
    echo "== the failed tests' issues (in full above):"
    grep -ao '✘ Test .* recorded an issue.*' "$lane_log" | cut -c1-1000 | head -n 20 || true
    grep -aE 'Fatal error|==[0-9]+==ERROR' "$lane_log" | cut -c1-400 | head -n 5 || true
    grep -aE '^(py|rig)\| FAILED ' "$lane_log" | cut -c1-400 | head -n 10 || true  # pytest's (python/)
fi
rm -f "$lane_log"
exit $failed
