// Offline rendering: a voice, the output stage and the latency compensation that
// makes the file start exactly at pattern time 0.

import HapticPattern

/// A whole rendered pattern, interleaved.
public struct RenderedAudio: Sendable, Equatable {
    /// Interleaved samples, `frames * channels` long.
    public var samples: [Float]
    public var frames: Int
    public var channels: Int
    public var sampleRate: Double
    /// Largest |sample| over every channel.
    public var peak: Float
    /// Events started while rendering.
    public var eventsRendered: Int
    /// The prepared pattern's warnings.
    public var warnings: [String]
    /// `peak` in dBFS (-inf for silence).
    public var peakDBFS: Double { gainToDecibels(Double(peak)) }
    /// Length in seconds.
    public var duration: Double { Double(frames) / sampleRate }
}

/// Renders a prepared pattern block by block, for writers that stream to a file.
/// The output starts at pattern time 0 (the limiter's look-ahead is compensated)
/// and is `totalFrames` long: the pattern's duration plus the tail.
public struct OfflineRenderStream {
    public let pattern: PreparedPattern
    public let layout: ChannelLayout
    /// Frames the stream will produce in total.
    public let totalFrames: Int
    public var channels: Int { layout.channels }
    /// Frames produced so far.
    public private(set) var framesWritten = 0
    /// Largest |sample| so far.
    public private(set) var peak: Float = 0
    public var eventsRendered: Int { voice.eventsStarted }
    public var isFinished: Bool { framesWritten >= totalFrames }

    var voice: PatternVoice
    var stage: OutputStage
    let blockSize: Int
    var framesToSkip: Int
    let haptic: UnsafeMutablePointer<Float>
    let left: UnsafeMutablePointer<Float>
    let right: UnsafeMutablePointer<Float>
    let interleaved: UnsafeMutablePointer<Float>
    let owner: BufferOwner
    /// Whether anything writes or reads the audio buses (otherwise they are not cleared).
    let needsAudioBuses: Bool

    /// - Parameters:
    ///   - profile: the profile for the output stage (nil: the one the pattern was prepared for).
    ///   - layout: nil means the pattern's default layout.
    ///   - tail: extra seconds after the pattern's end (releases ring out).
    ///   - blockSize: frames per internal block (any value gives identical samples).
    public init(
        pattern: PreparedPattern, profile: ActuatorProfile? = nil, layout: ChannelLayout? = nil,
        tail: Double = 0, blockSize: Int = 1024
    ) {
        self.pattern = pattern
        let layout = layout ?? pattern.defaultLayout
        self.layout = layout
        let tailFrames = tail.isFinite && tail > 0 ? Int((min(tail, Limits.maxOutputSeconds) * pattern.sampleRate).rounded()) : 0
        totalFrames = pattern.frameCount + tailFrames
        voice = PatternVoice(pattern: pattern)
        stage = OutputStage(profile: profile ?? pattern.profile, sampleRate: pattern.sampleRate, layout: layout)
        self.blockSize = max(1, blockSize)
        framesToSkip = stage.latencyFrames
        haptic = .allocate(capacity: self.blockSize)
        left = .allocate(capacity: self.blockSize)
        right = .allocate(capacity: self.blockSize)
        interleaved = .allocate(capacity: self.blockSize * max(1, layout.channels))
        owner = BufferOwner([haptic, left, right, interleaved])
        needsAudioBuses = pattern.hasAudio || stage.usesAudioBuses
    }

    /// Writes up to `maxFrames` interleaved frames to `output`; returns how many (0 at the end).
    public mutating func render(into output: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        var written = 0
        let ch = layout.channels
        while written < maxFrames && framesWritten < totalFrames {
            let want = min(blockSize, maxFrames - written, totalFrames - framesWritten + framesToSkip)
            // Past the look-ahead, a haptic-only mono layout is mixed and processed right in the
            // caller's buffer (the stage then has nothing to copy).
            let inPlace = framesToSkip == 0 && stage.passesHapticBusThrough
            let h = inPlace ? output + written : haptic
            h.update(repeating: 0, count: want)
            if needsAudioBuses {
                left.update(repeating: 0, count: want)
                right.update(repeating: 0, count: want)
            }
            let bus = MixBus(haptic: h, audioLeft: left, audioRight: right, frames: want)
            voice.render(into: bus)
            if framesToSkip == 0 {
                // Past the look-ahead: straight into the caller's buffer (one pass less).
                let target = output + written * ch
                stage.process(bus, into: target)
                peak = max(peak, peakMagnitude(target, want * ch))
                written += want
                framesWritten += want
                continue
            }
            stage.process(bus, into: interleaved)
            let skip = min(framesToSkip, want)
            framesToSkip -= skip
            let keep = want - skip
            if keep > 0 {
                let source = interleaved + skip * ch
                let target = output + written * ch
                peak = max(peak, copyMeasuringPeak(source, target, keep * ch))
                written += keep
                framesWritten += keep
            }
        }
        return written
    }
}

/// Frees the stream's scratch buffers when the last copy of the stream goes away.
final class BufferOwner {
    let buffers: [UnsafeMutablePointer<Float>]
    init(_ buffers: [UnsafeMutablePointer<Float>]) { self.buffers = buffers }
    deinit { for b in buffers { b.deallocate() } }
}

/// Offline rendering of a whole pattern into memory.
public enum OfflineRenderer {
    /// Renders `pattern` from time 0 for its duration plus `tail` seconds.
    /// - Parameters:
    ///   - profile: the output stage's profile (nil: the one the pattern was prepared for).
    ///   - layout: nil means the pattern's default layout.
    ///   - blockSize: frames per block (any value gives identical samples).
    public static func render(
        _ pattern: PreparedPattern, profile: ActuatorProfile? = nil, layout: ChannelLayout? = nil,
        tail: Double = 0, blockSize: Int = 1024
    ) -> RenderedAudio {
        var stream = OfflineRenderStream(pattern: pattern, profile: profile, layout: layout, tail: tail, blockSize: blockSize)
        let ch = stream.channels
        // Written once by the stream (no zero-fill first); the stream always delivers totalFrames.
        let samples = [Float](unsafeUninitializedCapacity: stream.totalFrames * ch) { buffer, initialized in
            var done = 0
            if let base = buffer.baseAddress {
                while done < stream.totalFrames {
                    let n = stream.render(into: base + done * ch, maxFrames: stream.totalFrames - done)
                    if n == 0 { break }
                    done += n
                }
            }
            // Never short in practice; zero anything left so the array is fully initialised.
            if done < stream.totalFrames { (buffer.baseAddress! + done * ch).initialize(repeating: 0, count: (stream.totalFrames - done) * ch) }
            initialized = stream.totalFrames * ch
        }
        return RenderedAudio(
            samples: samples, frames: stream.totalFrames, channels: ch, sampleRate: pattern.sampleRate,
            peak: stream.peak, eventsRendered: stream.eventsRendered, warnings: pattern.warnings)
    }
}

/// The largest |sample| of `count` samples (8 lanes at a time).
@inline(__always)
func peakMagnitude(_ source: UnsafeMutablePointer<Float>, _ count: Int) -> Float {
    var m = SIMD8<Float>.zero
    var i = 0
    let s = UnsafeRawPointer(source)
    while i + 8 <= count {
        m = pointwiseMax8(m, abs8(s.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)))
        i += 8
    }
    let m4 = m.lowHalf.replacing(with: m.highHalf, where: m.highHalf .> m.lowHalf)
    var peak = max(max(m4[0], m4[1]), max(m4[2], m4[3]))
    while i < count {
        peak = max(peak, abs(source[i]))
        i += 1
    }
    return peak
}

/// Copies `count` samples and returns the largest |sample|.
@inline(__always)
func copyMeasuringPeak(_ source: UnsafeMutablePointer<Float>, _ target: UnsafeMutablePointer<Float>, _ count: Int) -> Float {
    target.update(from: source, count: count)
    return peakMagnitude(target, count)
}
