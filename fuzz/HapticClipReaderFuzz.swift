// libFuzzer target: the `.haptic` reader, lenient and strict, on arbitrary bytes. A crash,
// trap or sanitizer report is a finding; thrown AHAPErrors are the expected outcome for bad
// input. Each decoded clip is re-encoded and decoded again, converted to AHAP (which must
// pass strict validation) and back (the conversions must take anything the reader gives).
// Built by scripts/fuzz.sh with `swiftc -sanitize=fuzzer`.

import HapticPattern

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHapticClipReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = HapticClip.looksLikeHapticClip(bytes)
    for strict in [false, true] {
        guard let decoded = try? HapticClip.decode(from: bytes, options: .init(strict: strict)) else { continue }
        let text = decoded.clip.encoded()
        guard (try? HapticClip.decode(text: text)) != nil else { fatalError("the writer's output does not read back") }
        let pattern = decoded.clip.ahapPattern()
        do { _ = try pattern.validate(options: .init(strict: true)) } catch { fatalError("converted pattern not strict-valid: \(error)") }
        let back = HapticClip(pattern: pattern)
        _ = back.encoded()
    }
    return 0
}
