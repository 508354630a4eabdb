// libFuzzer target: the AHAP reader, lenient and strict, on arbitrary bytes. A crash,
// trap or sanitizer report is a finding; thrown AHAPErrors are the expected outcome for
// bad input (the reader's limit checks run inside decoding). Each decoded pattern is also
// re-encoded and decoded again (the writer must handle anything the reader produced).
// Built by scripts/fuzz.sh with `swiftc -sanitize=fuzzer`.

import HapticPattern

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAHAPReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    for strict in [false, true] {
        guard let decoded = try? AHAPPattern.decode(from: bytes, options: .init(strict: strict)) else { continue }
        let text = decoded.pattern.encoded()
        _ = try? AHAPPattern.decode(text: text)
        _ = decoded.pattern.duration
    }
    return 0
}
