// libFuzzer target: the actuator-profile decoder on arbitrary bytes. A profile that
// decodes is valid by contract, so it is then used: a short pattern (transients across
// the sharpness range, a continuous event with its envelope) is prepared with it at the
// lowest and highest sample rates and rendered for a few blocks. Any trap there is a hole
// in the profile's validation. Built by scripts/fuzz.sh with `swiftc -sanitize=fuzzer`.

import HapticPattern
import HapticRender

let fuzzPattern = AHAPPattern(elements: [
    .event(.transient(at: 0, intensity: 1, sharpness: 0)),
    .event(.transient(at: 0.001, intensity: 0.5, sharpness: 1)),
    .event(Event(time: 0.002, type: .hapticContinuous, duration: 0.01, parameters: [
        EventParameter(.hapticIntensity, 1), EventParameter(.hapticSharpness, 0.5),
        EventParameter(.attackTime, 1), EventParameter(.releaseTime, 1), EventParameter(.decayTime, 1),
    ])),
    .event(Event(time: 0.003, type: .hapticContinuous, duration: 0.01, parameters: [
        EventParameter(.sustained, 0), EventParameter(.attackTime, 0),
    ])),
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfileDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let profile = try? ActuatorProfile.decode(from: bytes, source: "fuzz") else { return 0 }
    for rate in [Limits.sampleRates.lowerBound, Limits.sampleRates.upperBound] {
        guard let prepared = try? PreparedPattern(fuzzPattern, profile: profile, sampleRate: Double(rate)) else { continue }
        var stream = OfflineRenderStream(pattern: prepared, layout: nil, tail: 0)
        var block = [Float](repeating: 0, count: 512 * stream.channels)
        for _ in 0..<4 where !stream.isFinished {
            _ = block.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: 512) }
        }
    }
    return 0
}
