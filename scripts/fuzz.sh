#!/usr/bin/env bash
# Fuzzing with libFuzzer (ships with the Swift toolchain on Linux): builds the targets in
# fuzz/ with `swiftc -sanitize=fuzzer,address` against the HapticPattern, HapticDSP and
# HapticRender sources, and runs each for a bounded time.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s; targets: ahap profile haptic sound osc cues loader)
#
# The OSC decoder's and the cue sheet's targets are compiled together with their own files
# from Sources/HapticOSC and Sources/HapticKit (OSC_SOURCES and CUE_SOURCES below: they need
# liblo, Foundation and HapticPattern only, no clock and no engine), so the fuzzer calls the
# decoders `serve` and `rhythm` run.
#
# Seeds come at run time from the shared corpus (../shared/corpus/ahap or
# $HAPTICSYNTH_CORPUS/ahap; the shipped profiles in Assets/actuators for the profile
# target; a few datagrams of the address space, written by python3, for the osc target;
# Assets/cues.json for the cues target; the AHAP corpus and two .haptic-shaped documents
# written here for the loader target, the C library's in-memory pattern loader)
# into a scratch corpus under .build/fuzz — nothing is copied into the repository.
# Crash inputs land in .build/fuzz/findings/TARGET/; the script exits non-zero on any.
# Each run prints libFuzzer's final line (executions, exec/s) for bench/RESULTS.md.
# FUZZ_OPT (default -O) is the optimization the targets are built with, each level in a folder of
# its own. `make test`'s short round takes -Onone: its build costs 40 % of the CPU (59 core-seconds
# against 146), which a 2-core CI spends beside the tests; the targets then run about a quarter
# as many inputs a second, the seeds and their first mutations still all run.
set -eo pipefail
set -u
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(ahap profile haptic sound osc cues loader)
SWIFTC=${SWIFTC:-swiftc}
OUT=.build/fuzz
FUZZ_OPT=${FUZZ_OPT:--O}
BUILD="$OUT/build${FUZZ_OPT}"  # the libraries and targets at this optimization
CORPUS_ROOT=${HAPTICSYNTH_CORPUS:-../shared/corpus}
mkdir -p "$BUILD"

# -package-name: HapticDSP's kernels are `package` declarations (SwiftPM passes the same name).
FLAGS=("$FUZZ_OPT" -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name hapticsynth)

# The gold linker warns once per ASan helper symbol ("Cannot export local symbol"); noise.
quiet() { grep -v "Cannot export local symbol" || true; }

# One static library per module, rebuilt when a source is newer than it.
build_module() {  # NAME [EXTRA SWIFTC FLAGS...]
    local name=$1
    shift
    local lib="$BUILD/lib$name.a"
    local sources=(Sources/"$name"/*.swift)
    if [ -f "$lib" ] && [ -z "$(find Sources/"$name" -newer "$lib" -name '*.swift')" ]; then return; fi
    echo "== building $name for fuzzing ($FUZZ_OPT)"
    "$SWIFTC" "${FLAGS[@]}" -module-name "$name" -emit-library -static -emit-module \
        -emit-module-path "$BUILD/$name.swiftmodule" -I "$BUILD" "$@" -o "$lib" "${sources[@]}" 2>&1 | quiet
}

build_target() {  # TARGET "SOURCE..." FLAGS_AND_LIBS...
    local target=$1
    local -a sources
    read -r -d '' -a sources <<< "$2" || true  # the list may span lines
    shift 2
    local bin="$BUILD/$target-fuzz"
    local newest
    newest=$(ls -t "$bin" "${sources[@]}" "$BUILD"/lib*.a 2>/dev/null | head -1 || true)
    if [ -x "$bin" ] && [ "$newest" = "$bin" ]; then return; fi
    echo "== building $bin"
    "$SWIFTC" "${FLAGS[@]}" -module-name "${target^}Fuzz" -I "$BUILD" -L "$BUILD" "$@" -o "$bin" "${sources[@]}" 2>&1 | quiet
}

# The OSC decoder and what it uses (a file added to the decoder's imports belongs here).
OSC_SOURCES="fuzz/OSCDecoderFuzz.swift Sources/HapticOSC/OSCDecoder.swift Sources/HapticOSC/OSCCommand.swift
    Sources/HapticOSC/OSCTimetag.swift Sources/HapticOSC/OSCSocketError.swift"
# The cue-sheet decoder and the file helpers it uses.
CUE_SOURCES="fuzz/CueSheetFuzz.swift Sources/HapticKit/CueSheet.swift Sources/HapticKit/RegularFiles.swift"

# A few datagrams of the address space as seeds (liblo's message layout: address, type tags, arguments).
osc_seeds() {  # FOLDER
    python3 - "$1" <<'PY'
import struct, sys, os
def pad(b): return b + b"\0" * (4 - len(b) % 4)
def msg(address, *args):
    tags, data = ",", b""
    for a in args:
        if isinstance(a, str): tags += "s"; data += pad(a.encode())
        elif isinstance(a, float): tags += "d"; data += struct.pack(">d", a)
        else: tags += "f"; data += struct.pack(">f", a[0])
    return pad(address.encode()) + pad(tags.encode()) + data
def bundle(*messages):
    return pad(b"#bundle") + struct.pack(">II", 3900000000, 1) + b"".join(struct.pack(">i", len(m)) + m for m in messages)
seeds = [msg("/hapticsynth/play", "heartbeat"), msg("/hapticsynth/cue", "beat_hit", 1500.0),
    msg("/hapticsynth/transient", (0.8,), (0.5,)), msg("/hapticsynth/loop/start", "slider", "heartbeat", (0.6,)),
    msg("/hapticsynth/loop/curve", "slider", "intensity", (0.0,), (1.0,), (0.5,), (0.2,)),
    msg("/hapticsynth/loop/stop", "slider"), msg("/hapticsynth/stop"), msg("/hapticsynth/status"),
    msg("/hapticsynth/follow/gain", (-6.0,)), msg("/hapticsynth/follow/mode", "lowpass"),
    msg("/hapticsynth/follow/mute", (1.0,)), msg("/hapticsynth/follow/ducking", (-12.0,)),
    msg("/*?*?*?*?x"), bundle(msg("/hapticsynth/transient", (1.0,), (0.0,)), msg("/hapticsynth/play", "thud"))]
for i, seed in enumerate(seeds):
    with open(os.path.join(sys.argv[1], "seed-%02d" % i), "wb") as f: f.write(seed)
PY
}

build_module HapticPattern
build_module HapticDSP
build_module HapticRender
build_target ahap fuzz/AHAPReaderFuzz.swift -lHapticPattern
build_target profile fuzz/ProfileDecoderFuzz.swift -lHapticRender -lHapticDSP -lHapticPattern
# Sound → haptics (issue 20): the .haptic reader, and the converter's sound reader (libsndfile).
build_module HapticAnalysis
build_module HapticSoundFile -I Sources/CSndFile -I Sources/CSoxr
build_target haptic fuzz/HapticClipReaderFuzz.swift -lHapticPattern
build_target sound fuzz/SoundReaderFuzz.swift -I Sources/CSndFile -I Sources/CSoxr \
    -lHapticSoundFile -lHapticAnalysis -lHapticRender -lHapticDSP -lHapticPattern -lsndfile -lsoxr
build_target osc "$OSC_SOURCES" -I Sources/CLiblo -lHapticPattern -llo
# (The file helpers name a failure in the system's words: HapticSoundFile's fileSystemReason.)
build_target cues "$CUE_SOURCES" -I Sources/CSndFile -I Sources/CSoxr \
    -lHapticSoundFile -lHapticRender -lHapticDSP -lHapticPattern -lsndfile -lsoxr
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
        haptic)  # .haptic clips of the evaluation set (bench/convert-eval/make-set.sh), if made
            eval_set=${HAPTICSYNTH_EVAL:-../convert-eval}
            if [ -d "$eval_set" ]; then find "$eval_set" -name '*.haptic' -size -64k -exec cp -n {} "$work"/ \; 2>/dev/null || true
            else echo "(no evaluation set at $eval_set: starting from an empty seed set)"; fi ;;
        sound)  # small sounds of the shared corpus
            if [ -d "$CORPUS_ROOT/audio" ]; then find "$CORPUS_ROOT/audio" -name '*.wav' -size -64k -exec cp -n {} "$work"/ \; 2>/dev/null || true
            else echo "(no corpus at $CORPUS_ROOT/audio: starting from an empty seed set)"; fi ;;
        osc)
            osc_seeds "$work" ;;
        cues)
            cp -n Assets/cues.json "$work"/ 2>/dev/null || true ;;
        loader)
            if [ -d "$CORPUS_ROOT/ahap" ]; then cp -n "$CORPUS_ROOT"/ahap/*.ahap "$work"/ 2>/dev/null || true; fi
            printf '%s' '{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {"editor": "x"}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}], "frequency": [{"time": 0, "frequency": 0.5}]}}}}' >"$work/seed1.haptic"
            printf '%s' '{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}], "signals": null}' >"$work/seed2.json" ;;
        *) echo "unknown fuzz target $target (ahap, profile, haptic, sound, osc, cues, loader)"; exit 2 ;;
    esac
    echo "== fuzzing $target for ${SECONDS_PER_TARGET} s"
    log="$OUT/$target.log"
    set +e
    "$BUILD/$target-fuzz" "$work" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=10 \
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
rm -f "$OUT"/sound-input-*.bin  # the sound target's scratch inputs
exit $status
