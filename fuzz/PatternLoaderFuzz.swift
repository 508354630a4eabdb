// libFuzzer target: the in-memory pattern loader behind the C library's hs_pattern_load_json
// (AHAPPattern.load(from:fileName:): format recognition, then the format's reader), on
// arbitrary bytes, with no name, a .haptic name and an .ahap name. A crash, trap or sanitizer
// report is a finding; a thrown PatternLoadError is the expected outcome for bad input. What
// loads is read the way the C API reads it: duration, events, warnings as lines.
// Built by scripts/fuzz.sh with `swiftc -sanitize=fuzzer`.

import HapticPattern

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPatternLoader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = PatternFormat.recognise(bytes)
    for name in [nil, "x.haptic", "x.ahap"] as [String?] {
        guard let decoded = try? AHAPPattern.load(from: bytes, fileName: name) else { continue }
        _ = decoded.pattern.duration
        _ = decoded.pattern.events.count
        for warning in decoded.warnings { _ = warning.description.utf8CString }
    }
    return 0
}
