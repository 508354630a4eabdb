// libFuzzer target: the converter's sound reader on arbitrary bytes (libsndfile's formats,
// through a scratch file), read as mono blocks the way `convert` reads them, then analysed and
// converted (some inputs at a ladder of sensitivities from one analysis, as `convert
// --list-sensitivities` does, some with the live follower's hit decision). Refusals (SoundFileError: unreadable, truncated, NaN samples...) are expected;
// a crash, trap or sanitizer report is a finding. At most 30 s of sound per input, so a
// header claiming hours is read only as far as its data goes.
// Built by scripts/fuzz.sh with `swiftc -sanitize=fuzzer`.

import Glibc
import HapticAnalysis
import HapticSoundFile

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSoundReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    // libsndfile reads a path: the input goes to a scratch file of this process under .build
    // (memfd_create is not visible from Swift's Glibc module).
    let path = ".build/fuzz/sound-input-\(getpid()).bin"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    if let data, size > 0 { _ = write(fd, data, size) }
    close(fd)
    guard let stream = try? SoundFileStream(path: path) else { return 0 }
    let rate = stream.info.sampleRate
    guard (8000...384_000).contains(rate), stream.info.frames > 0 else { return 0 }
    var settings = AnalysisSettings(sampleRate: Double(rate))
    settings.hitDecision = size % 5 == 0 ? .onRise : .afterPeak
    let sensitivities = size % 2 == 0 ? [0.5] : [0.5, 1, 0.1, 0]
    guard let converter = try? SoundConverter(analysis: settings, sensitivities: sensitivities) else { return 0 }
    let limit = min(stream.info.frames, 30 * rate)
    let channel: Int? = size % 3 == 0 ? nil : 1
    do {
        try stream.readMono(from: 0, to: limit, channel: channel) { block in
            block.withUnsafeBufferPointer { converter.feed($0.baseAddress!, count: $0.count) }
        }
    } catch {
        return 0
    }
    for haptics in converter.finishEach() {
        _ = haptics.ahapPattern().encoded()
        _ = haptics.hapticClip().encoded()
    }
    return 0
}
