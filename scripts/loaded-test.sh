#!/usr/bin/env bash
# loaded-test.sh — the issue's proof that the suite holds on a busy machine: `make test` from a
# fresh clone with two CPU hogs running, several times in a row.
#
#   scripts/loaded-test.sh [RUNS]        default 3 runs
#
# Each run clones this repository's HEAD (committed work only) into a fresh folder beside it
# (the corpus is found as ../shared/corpus from there, or $HAPTICSYNTH_CORPUS), then runs
# `HAPTICSYNTH_TEST_LOAD=$LOAD make test` in it: scripts/test.sh installs stress-ng for that check
# only and keeps `stress-ng --cpu $LOAD` (default 2) busy for the whole run, build included. Each
# run's log is kept in the clone's folder (test.log); the clone is removed when the run passed.
# Prints one line per run (outcome, minutes) and exits non-zero if any run failed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-3}
LOAD=${LOAD:-2}
HEAD=$(git -C "$ROOT" rev-parse HEAD)
PARENT=$(dirname "$ROOT")
failed=0
summary=()
for run in $(seq "$RUNS"); do
    clone=$(mktemp -d "$PARENT/hapticsynth-loaded.XXXXXX")
    git clone -q "$ROOT" "$clone"
    git -C "$clone" checkout -q "$HEAD"
    echo "== loaded run $run/$RUNS: $HEAD in $clone, stress-ng --cpu $LOAD"
    t0=$(date +%s)
    if (cd "$clone" && HAPTICSYNTH_TEST_LOAD=$LOAD make test) >"$clone/test.log" 2>&1; then
        outcome=passed
    else
        outcome="FAILED (log: $clone/test.log)"
        failed=1
    fi
    minutes=$(awk "BEGIN { printf \"%.1f\", ($(date +%s) - $t0) / 60 }")
    summary+=("run $run: $outcome in $minutes min")
    echo "${summary[-1]}"
    [ "$outcome" = passed ] && rm -rf "$clone"
done
echo "== scripts/loaded-test.sh $RUNS (stress-ng --cpu $LOAD), $HEAD on $(nproc) cores:"
printf '   %s\n' "${summary[@]}"
exit $failed
