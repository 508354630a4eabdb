import HapticTestSupport
import Foundation
import HapticPattern
@testable import HapticRender

let fs = 48_000.0

/// Sounds held in memory (the pure tests need no files); rate conversion is not done
/// here, so test sounds are made at the render rate.
struct MemorySounds: SoundSource {
    var sounds: [String: SoundBuffer]
    func sound(path: String, sampleRate: Double, transposition: Double) throws(SoundSourceError) -> SoundBuffer {
        guard let s = sounds[path] else { throw SoundSourceError(path: path, message: "no such sound") }
        return SoundBuffer(channels: s.channels, sampleRate: sampleRate, samples: s.samples)
    }
}

struct Buses {
    var haptic: [Float]
    var left: [Float]
    var right: [Float]
}

func prepare(
    _ elements: [PatternElement], profile: ActuatorProfile = .bassShaker, sounds: (any SoundSource)? = nil,
    strict: Bool = false
) throws -> PreparedPattern {
    try PreparedPattern(AHAPPattern(elements: elements), profile: profile, sampleRate: fs, sounds: sounds, strict: strict)
}

/// Renders `frames` frames of a voice (no output stage) in the given block sizes (cycled).
func renderVoice(
    _ pattern: PreparedPattern, frames: Int, blocks: [Int] = [512], setUp: (inout PatternVoice) -> Void = { _ in }
) -> Buses {
    var voice = PatternVoice(pattern: pattern)
    setUp(&voice)
    var h = [Float](repeating: 0, count: frames)
    var l = [Float](repeating: 0, count: frames)
    var r = [Float](repeating: 0, count: frames)
    h.withUnsafeMutableBufferPointer { hb in
        l.withUnsafeMutableBufferPointer { lb in
            r.withUnsafeMutableBufferPointer { rb in
                var done = 0
                var k = 0
                while done < frames {
                    let n = min(blocks[k % blocks.count], frames - done)
                    k += 1
                    voice.render(into: MixBus(
                        haptic: hb.baseAddress! + done, audioLeft: lb.baseAddress! + done,
                        audioRight: rb.baseAddress! + done, frames: n))
                    done += n
                }
            }
        }
    }
    return Buses(haptic: h, left: l, right: r)
}

func firstNonZero(_ x: [Float]) -> Int? { x.firstIndex { $0 != 0 } }
func lastNonZero(_ x: [Float]) -> Int? { x.lastIndex { $0 != 0 } }

/// Frequency from positive-going zero crossings (interpolated) in x[range].
func measuredFrequency(_ x: [Float], _ range: Range<Int>) -> Double {
    var crossings: [Double] = []
    for i in range.lowerBound + 1..<range.upperBound where x[i - 1] < 0 && x[i] >= 0 {
        let a = Double(x[i - 1]), b = Double(x[i])
        crossings.append(Double(i - 1) + (-a) / (b - a))
    }
    guard crossings.count >= 2 else { return 0 }
    return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / fs)
}

/// Largest |x| in a window of `width` samples centred on `index`.
func peak(_ x: [Float], around index: Int, width: Int) -> Float {
    let lo = max(0, index - width / 2), hi = min(x.count, index + width / 2 + 1)
    return x[lo..<hi].map(abs).max() ?? 0
}

func rms(_ x: ArraySlice<Float>) -> Double {
    (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
}


/// A random pattern: transients, continuous events, steps and curves.
func randomPattern(seed: UInt64, events: Int = 60, length: Double = 3) -> [PatternElement] {
    var g = SeededRandom(seed: seed)
    var out: [PatternElement] = []
    for _ in 0..<events {
        let t = Double.random(in: 0..<length, using: &g)
        if Bool.random(using: &g) {
            out.append(.event(.transient(at: t, intensity: .random(in: 0...1, using: &g), sharpness: .random(in: 0...1, using: &g))))
        } else {
            out.append(.event(.continuous(
                at: t, duration: .random(in: 0.01...1, using: &g), intensity: .random(in: 0...1, using: &g),
                sharpness: .random(in: 0...1, using: &g),
                extra: [EventParameter(.attackTime, .random(in: 0...0.5, using: &g)),
                        EventParameter(.releaseTime, .random(in: 0...0.5, using: &g)),
                        EventParameter(.sustained, Bool.random(using: &g) ? 1 : 0),
                        EventParameter(.decayTime, .random(in: 0...0.5, using: &g))])))
        }
    }
    for _ in 0..<8 {
        out.append(.parameter(DynamicParameter(.hapticIntensityControl, time: .random(in: 0..<length, using: &g), value: .random(in: 0...1, using: &g))))
        out.append(.curve(ParameterCurve(
            .hapticSharpnessControl, time: .random(in: 0..<length, using: &g),
            points: [.init(0, .random(in: -1...1, using: &g)), .init(0.2, .random(in: -1...1, using: &g)), .init(0.5, 0)])))
    }
    return out
}
