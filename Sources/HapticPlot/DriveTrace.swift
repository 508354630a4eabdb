// What a pattern renders to on a profile, reduced to the columns of a picture. The samples
// come from the offline render stream that `render` writes files with (the whole protection
// chain, latency compensated); the gain reduction from the chain's own limiters (their
// meters, read column by column); the envelope from HapticRender's Hilbert envelope; each
// transient's felt onset from the profile's `FeltOnset`.

import HapticRender

/// The drive of a prepared pattern over a time scale (see the file's comment).
public struct DriveTrace: Sendable {
    /// One output channel (silent channels of the layout are left out).
    public struct Channel: Sendable {
        /// `H`, `L`, `R`, with a gain when not 1 (`H*0.5`), and the channel number.
        public var name: String
        public var isHaptic: Bool
        /// Per column: the smallest and largest sample (0 and 0 where nothing was rendered).
        public var minimum: [Float]
        public var maximum: [Float]
        /// Per column: the largest value of the channel's Hilbert envelope (nil when the
        /// stretch is longer than `envelopeFrameLimit`, or the channel is not haptic).
        public var envelope: [Float]?
        /// When a column holds fewer than 2 frames: the samples themselves from `firstFrame`.
        public var samples: [Float]?
    }

    /// The fewest columns per transient at which felt onsets are marked: denser marks would be
    /// a solid band (zoom in with --from/--to to see them), and are not measured.
    public static let columnsPerFeltMark = 10

    /// A transient's event time and where it is felt on the profile (both seconds).
    public struct FeltMark: Sendable, Equatable {
        public var event: Double
        public var felt: Double
        public var sharpness: Double
    }

    public var channels: [Channel]
    /// Per column: the deepest gain reduction (dB, ≥ 0) of the haptic and the audio limiter.
    public var hapticGainReduction: [Float]
    public var audioGainReduction: [Float]
    /// The limiters' ceiling (linear).
    public var ceiling: Float
    /// Empty when the range holds more transients than can be marked (`columnsPerFeltMark`).
    public var feltOnsets: [FeltMark]
    /// Frames the render produced up to the range's end (or its own end), and the frame of
    /// `samples[0]` in sample mode.
    public var framesRendered: Int
    public var firstFrame: Int
    public let sampleRate: Double
    /// The scale it was computed for.
    public let scale: TimeScale

    /// The longest stretch (frames) whose Hilbert envelope is computed: one transform of it,
    /// 2.7 s at 48 kHz; longer plots show the waveform's extent, which the envelope follows.
    public static let envelopeFrameLimit = 1 << 17
    /// Context rendered on each side of the stretch for its envelope.
    static let envelopeContextFrames = 1 << 14

    public init(pattern: PreparedPattern, layout: ChannelLayout? = nil, scale: TimeScale, trace: PatternTrace? = nil) {
        let fs = pattern.sampleRate
        sampleRate = fs
        self.scale = scale
        var stream = OfflineRenderStream(pattern: pattern, layout: layout)
        stream.metersGain = true
        let sources = stream.layout.sources
        let kept = sources.indices.filter { if case .silence = sources[$0] { return false } else { return true } }
        let boundaries = scale.frameBoundaries(sampleRate: fs)
        let columns = scale.columns
        let first = boundaries[0], last = boundaries[columns]
        let sampleMode = Double(last - first) < 2 * Double(columns)
        let envelopeStretch = last - first <= Self.envelopeFrameLimit
        let context = Self.envelopeContextFrames
        // Kept in full: the stretch (sample mode), or the haptic channels around it (envelope).
        let keepFrom = max(0, first - (envelopeStretch ? context : 1))
        let keepTo = last + (envelopeStretch ? context : 1)
        let ch = stream.channels
        var minimum = [[Float]](repeating: [Float](repeating: 0, count: columns), count: ch)
        var maximum = minimum
        var kept2 = [[Float]](repeating: [], count: ch)
        var hapticReduction = [Float](repeating: 0, count: columns)
        var audioReduction = [Float](repeating: 0, count: columns)
        let chunk = 4096
        var buffer = [Float](repeating: 0, count: chunk * ch)
        var position = 0
        var ended = false
        // Renders up to frame `end`, calling `use` with each block and its first frame.
        func advance(to end: Int, _ use: (UnsafeBufferPointer<Float>, Int, Int) -> Void) {
            while position < end && !ended {
                let n = buffer.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: min(chunk, end - position)) }
                if n == 0 {
                    ended = true
                    break
                }
                buffer.withUnsafeBufferPointer { use($0, n, position) }
                position += n
            }
        }
        func keep(_ block: UnsafeBufferPointer<Float>, _ n: Int, _ at: Int) {
            let lo = max(at, keepFrom), hi = min(at + n, keepTo)
            guard lo < hi else { return }
            for c in 0..<ch where sampleMode || (envelopeStretch && Self.isHaptic(sources[c])) {
                for f in lo..<hi { kept2[c].append(block[(f - at) * ch + c]) }
            }
        }
        advance(to: first, keep)
        _ = stream.takeLowestGains()
        for column in 0..<columns {
            var low = [Float](repeating: .infinity, count: ch), high = [Float](repeating: -.infinity, count: ch)
            advance(to: boundaries[column + 1]) { block, n, at in
                keep(block, n, at)
                for f in 0..<n {
                    for c in 0..<ch {
                        let v = block[f * ch + c]
                        low[c] = min(low[c], v)
                        high[c] = max(high[c], v)
                    }
                }
            }
            let gains = stream.takeLowestGains()
            hapticReduction[column] = Float(max(0, -gainToDecibels(Double(gains.haptic))))
            audioReduction[column] = Float(max(0, -gainToDecibels(Double(gains.audio))))
            for c in 0..<ch where low[c] <= high[c] {
                minimum[c][column] = low[c]
                maximum[c][column] = high[c]
            }
        }
        framesRendered = position
        advance(to: keepTo, keep)
        firstFrame = keepFrom

        var channels: [Channel] = []
        for c in kept {
            var envelope: [Float]? = nil
            if envelopeStretch && Self.isHaptic(sources[c]) && !kept2[c].isEmpty {
                let values = hilbertEnvelope(kept2[c])
                envelope = (0..<columns).map { column in
                    let lo = boundaries[column] - keepFrom, hi = min(values.count, boundaries[column + 1] - keepFrom)
                    guard lo < hi, lo >= 0 else { return 0 }
                    return Float(values[lo..<hi].max() ?? 0)
                }
            }
            channels.append(Channel(
                name: Self.name(sources[c], number: c + 1, of: sources.count), isHaptic: Self.isHaptic(sources[c]),
                minimum: minimum[c], maximum: maximum[c], envelope: envelope, samples: sampleMode ? kept2[c] : nil))
        }
        self.channels = channels
        hapticGainReduction = hapticReduction
        audioGainReduction = audioReduction
        ceiling = stream.ceiling
        feltOnsets = Self.feltOnsets(trace ?? PatternTrace(pattern), scale: scale)
    }

    /// Each transient in the range: its event time and its felt onset on the pattern's profile
    /// (`ActuatorProfile.feltOnset`: the half-envelope of that transient rendered through the
    /// profile's chain), measured once per sharpness. Past 64 distinct sharpness values they
    /// are measured on a grid of 1/64 (the felt onset moves by under 1 % of itself between
    /// neighbours), so that a file cannot make this take long.
    static func feltOnsets(_ trace: PatternTrace, scale: TimeScale) -> [FeltMark] {
        let inRange = trace.transients.filter { $0.time >= scale.from && $0.time <= scale.to }
        guard inRange.count * columnsPerFeltMark <= scale.columns else { return [] }
        let distinct = Set(inRange.map(\.sharpness))
        let key: (Double) -> Double = distinct.count <= 64 ? { $0 } : { ($0 * 64).rounded() / 64 }
        var measured: [Double: Double?] = [:]
        var marks: [FeltMark] = []
        let profile = trace.pattern.profile, fs = trace.pattern.sampleRate
        for t in inRange {
            let k = key(t.sharpness)
            if measured[k] == nil {
                measured[k] = .some((try? profile.feltOnset(sharpness: k, sampleRate: fs)).map { $0.halfEnvelopeMs / 1000 })
            }
            if let delay = measured[k] ?? nil {
                marks.append(FeltMark(event: t.time, felt: t.time + delay, sharpness: t.sharpness))
            }
        }
        return marks
    }

    static func isHaptic(_ source: ChannelLayout.Source) -> Bool {
        if case .haptic = source { return true }
        return false
    }

    /// `H`, `ch 3: H*0.5`: the channel number only when there are several.
    static func name(_ source: ChannelLayout.Source, number: Int, of count: Int) -> String {
        (count > 1 ? "ch \(number): " : "") + ChannelLayout([source]).mapDescription
    }
}
