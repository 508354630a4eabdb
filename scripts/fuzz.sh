#!/usr/bin/env bash
# Fuzzing with libFuzzer (ships with the Swift toolchain on Linux): builds the targets in
# fuzz/ with `swiftc -sanitize=fuzzer,address` against the HapticPattern, HapticDSP and
# HapticRender sources, and runs each for a bounded time.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s; targets: ahap profile loader)
#
# Seeds come at run time from the shared corpus (../shared/corpus/ahap or
# $HAPTICSYNTH_CORPUS/ahap; the shipped profiles in Assets/actuators for the profile
# target; the AHAP corpus and two .haptic-shaped documents written here for the loader target,
# the C library's in-memory pattern loader) into a scratch corpus under .build/fuzz — nothing
# is copied into the repository.
# Crash inputs land in .build/fuzz/findings/TARGET/; the script exits non-zero on any.
# Each run prints libFuzzer's final line (executions, exec/s) for bench/RESULTS.md.
set -eo pipefail
set -u
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(ahap profile loader)
SWIFTC=${SWIFTC:-swiftc}
OUT=.build/fuzz
CORPUS_ROOT=${HAPTICSYNTH_CORPUS:-../shared/corpus}
mkdir -p "$OUT"

# -package-name: HapticDSP's kernels are `package` declarations (SwiftPM passes the same name).
FLAGS=(-O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name hapticsynth)

# The gold linker warns once per ASan helper symbol ("Cannot export local symbol"); noise.
quiet() { grep -v "Cannot export local symbol" || true; }

# One static library per module, rebuilt when a source is newer than it.
build_module() {  # NAME DEPENDENCIES...
    local name=$1
    local lib="$OUT/lib$name.a"
    local sources=(Sources/"$name"/*.swift)
    if [ -f "$lib" ] && [ -z "$(find Sources/"$name" -newer "$lib" -name '*.swift')" ]; then return; fi
    echo "== building $name for fuzzing"
    "$SWIFTC" "${FLAGS[@]}" -module-name "$name" -emit-library -static -emit-module \
        -emit-module-path "$OUT/$name.swiftmodule" -I "$OUT" -o "$lib" "${sources[@]}" 2>&1 | quiet
}

build_target() {  # TARGET SOURCE LIBS...
    local target=$1 source=$2
    shift 2
    local bin="$OUT/$target-fuzz"
    local newest
    newest=$(ls -t "$source" "$OUT"/lib*.a | head -1)
    if [ -x "$bin" ] && [ "$newest" = "$bin" ]; then return; fi
    echo "== building $bin"
    "$SWIFTC" "${FLAGS[@]}" -I "$OUT" -L "$OUT" "$@" -o "$bin" "$source" 2>&1 | quiet
}

build_module HapticPattern
build_module HapticDSP
build_module HapticRender
build_target ahap fuzz/AHAPReaderFuzz.swift -lHapticPattern
build_target profile fuzz/ProfileDecoderFuzz.swift -lHapticRender -lHapticDSP -lHapticPattern
build_target loader fuzz/PatternLoaderFuzz.swift -lHapticPattern

status=0
for target in "${TARGETS[@]}"; do
    work="$OUT/corpus/$target"
    findings="$OUT/findings/$target"
    mkdir -p "$work" "$findings"
    case $target in
        ahap)
            if [ -d "$CORPUS_ROOT/ahap" ]; then cp -n "$CORPUS_ROOT"/ahap/*.ahap "$work"/ 2>/dev/null || true
            else echo "(no corpus at $CORPUS_ROOT/ahap: starting from an empty seed set)"; fi ;;
        profile)
            cp -n Assets/actuators/*.json "$work"/ 2>/dev/null || true ;;
        loader)
            if [ -d "$CORPUS_ROOT/ahap" ]; then cp -n "$CORPUS_ROOT"/ahap/*.ahap "$work"/ 2>/dev/null || true; fi
            printf '%s' '{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {"editor": "x"}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}], "frequency": [{"time": 0, "frequency": 0.5}]}}}}' >"$work/seed1.haptic"
            printf '%s' '{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}], "signals": null}' >"$work/seed2.json" ;;
        *) echo "unknown fuzz target $target (ahap, profile, loader)"; exit 2 ;;
    esac
    echo "== fuzzing $target for ${SECONDS_PER_TARGET} s"
    log="$OUT/$target.log"
    set +e
    "$OUT/$target-fuzz" "$work" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    set -e
    grep -E "^(#[0-9]+.*DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::average_exec_per_sec)" "$log" || tail -5 "$log"
    if [ $rc -ne 0 ] || ls "$findings" | grep -q .; then
        echo "FUZZ FAILURE in $target (exit $rc): see $log and $findings/"
        grep -E "ERROR|Fatal|SUMMARY" "$log" | head -5 || true
        status=1
    else
        echo "fuzz $target: 0 crashes"
    fi
done
exit $status
