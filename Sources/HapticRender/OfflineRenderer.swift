// Offline rendering of a whole pattern into memory (OfflineRenderStream does the work, block
// by block), and how a render ends.


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

/// How an offline render ends.
public enum RenderEnding: Sendable, Equatable {
    /// Past the pattern's end (plus the tail), rendering goes on until every voice has
    /// finished and the output has rung out (``RingOutMeter``, the rule live playback ends by
    /// too: below -90 dBFS for one period of the protection high-pass's cutoff, so the chain's
    /// ringing has died too), at most `maximumExtraSeconds` more. A file never ends in the
    /// middle of a sound.
    case silence
    /// Exactly the pattern's duration plus the tail; the last few ms fade out (rather than
    /// stop on a click).
    case exactLength
}

/// Offline rendering of a whole pattern into memory.
public enum OfflineRenderer {
    /// Renders `pattern` from time 0 for its duration plus `tail` seconds, and with `.silence`
    /// (the default) on until the output is silent (see `RenderEnding`).
    /// - Parameters:
    ///   - profile: the output stage's profile (nil: the one the pattern was prepared for).
    ///   - layout: nil means the pattern's default layout.
    ///   - blockSize: frames per block (any value gives identical samples).
    public static func render(
        _ pattern: PreparedPattern, profile: ActuatorProfile? = nil, layout: ChannelLayout? = nil,
        tail: Double = 0, ending: RenderEnding = .silence, blockSize: Int = 1024
    ) -> RenderedAudio {
        var stream = OfflineRenderStream(pattern: pattern, profile: profile, layout: layout, tail: tail, ending: ending, blockSize: blockSize)
        let ch = stream.channels
        // The nominal length written once by the stream (no zero-fill first), then whatever
        // `.silence` adds, block by block.
        var samples = [Float](unsafeUninitializedCapacity: stream.nominalFrames * ch) { buffer, initialized in
            var done = 0
            if let base = buffer.baseAddress {
                while done < stream.nominalFrames {
                    let n = stream.render(into: base + done * ch, maxFrames: stream.nominalFrames - done)
                    if n == 0 { break }
                    done += n
                }
            }
            // Never short in practice; zero anything left so the array is fully initialised.
            if done < stream.nominalFrames { (buffer.baseAddress! + done * ch).initialize(repeating: 0, count: (stream.nominalFrames - done) * ch) }
            initialized = stream.nominalFrames * ch
        }
        if ending == .silence {
            var block = [Float](repeating: 0, count: max(1, blockSize) * ch)
            while true {
                let n = block.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: max(1, blockSize)) }
                if n == 0 { break }
                samples += block[0..<(n * ch)]
            }
        }
        return RenderedAudio(
            samples: samples, frames: samples.count / max(1, ch), channels: ch, sampleRate: pattern.sampleRate,
            peak: stream.peak, eventsRendered: stream.eventsRendered, warnings: pattern.warnings)
    }
}
