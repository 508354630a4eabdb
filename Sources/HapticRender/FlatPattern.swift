// A prepared pattern's tables as flat, unsafe copies for the render thread.

/// Where one sound's samples live in `FlatPattern.soundSamples`.
struct SoundSpan {
    var offset: Int
    var frames: Int
    var channels: Int
}

/// A knot range for one control in the flat knot arrays.
struct KnotSpan {
    var offset: Int
    var count: Int
}

/// Unsafe flat copies of a prepared pattern's tables (see `PreparedPattern.flat`).
struct FlatPattern {
    let events: UnsafeMutableBufferPointer<CompiledEvent>
    let smoothKnots: UnsafeMutableBufferPointer<ControlKnot>
    let rawKnots: UnsafeMutableBufferPointer<ControlKnot>
    /// Indexed by `DynamicParameterID.index`.
    let smoothSpans: UnsafeMutableBufferPointer<KnotSpan>
    let rawSpans: UnsafeMutableBufferPointer<KnotSpan>
    let neutral: UnsafeMutableBufferPointer<Double>
    let soundSamples: UnsafeMutableBufferPointer<Float>
    let sounds: UnsafeMutableBufferPointer<SoundSpan>
    let frequencyTable: UnsafeMutableBufferPointer<Double>
    /// See `RenderTables.amplitude` (empty when `amplitudeHalfPowers` is not 0).
    let amplitudeTable: UnsafeMutableBufferPointer<Float>
    /// See `RenderTables.amplitudeHalfPowers` (2 for the linear law).
    let amplitudeHalfPowers: Int
    let audioFrequencyTable: UnsafeMutableBufferPointer<Double>
    /// Precomputed transient bursts (`TransientGrains`), sorted by increment.
    let grains: UnsafeMutableBufferPointer<GrainSpan>
    let grainSamples: UnsafeMutableBufferPointer<Float>

    init(
        events: [CompiledEvent], controls: [ControlTimeline], sounds: [SoundBuffer],
        tables: RenderTables, grains: [GrainSpan], grainSamples: [Float]
    ) {
        func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, array.count))
            _ = buffer.initialize(from: array)
            return UnsafeMutableBufferPointer(rebasing: buffer[0..<array.count])
        }
        self.events = copy(events)
        var smooth: [ControlKnot] = []
        var raw: [ControlKnot] = []
        var smoothSpans: [KnotSpan] = []
        var rawSpans: [KnotSpan] = []
        for c in controls {
            smoothSpans.append(KnotSpan(offset: smooth.count, count: c.smooth.count))
            smooth += c.smooth
            rawSpans.append(KnotSpan(offset: raw.count, count: c.raw.count))
            raw += c.raw
        }
        self.smoothKnots = copy(smooth)
        self.rawKnots = copy(raw)
        self.smoothSpans = copy(smoothSpans)
        self.rawSpans = copy(rawSpans)
        self.neutral = copy(controls.map(\.neutral))
        // The sounds straight into one exact allocation (no growing array in between: a
        // pattern's sounds may be hundreds of megabytes, see Limits.maxPatternSoundBytes).
        var spans: [SoundSpan] = []
        var total = 0
        for s in sounds {
            spans.append(SoundSpan(offset: total, frames: s.frames, channels: s.channels))
            total += s.frames * s.channels
        }
        let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, total))
        for (s, span) in zip(sounds, spans) {
            s.samples.withUnsafeBufferPointer { source in
                (samples.baseAddress! + span.offset).initialize(from: source.baseAddress!, count: s.frames * s.channels)
            }
        }
        self.soundSamples = UnsafeMutableBufferPointer(rebasing: samples[0..<total])
        self.sounds = copy(spans)
        self.frequencyTable = copy(tables.frequency)
        self.amplitudeTable = copy(tables.amplitude)
        self.amplitudeHalfPowers = tables.amplitudeHalfPowers
        self.audioFrequencyTable = copy(RenderTables.audioFrequency)
        self.grains = copy(grains)
        self.grainSamples = copy(grainSamples)
    }

    func deallocate() {
        // Each buffer was allocated with capacity max(1, count); freeing by base address is enough.
        for base in [
            UnsafeMutableRawPointer(events.baseAddress), UnsafeMutableRawPointer(smoothKnots.baseAddress),
            UnsafeMutableRawPointer(rawKnots.baseAddress), UnsafeMutableRawPointer(smoothSpans.baseAddress),
            UnsafeMutableRawPointer(rawSpans.baseAddress), UnsafeMutableRawPointer(neutral.baseAddress),
            UnsafeMutableRawPointer(soundSamples.baseAddress), UnsafeMutableRawPointer(sounds.baseAddress),
            UnsafeMutableRawPointer(frequencyTable.baseAddress), UnsafeMutableRawPointer(amplitudeTable.baseAddress),
            UnsafeMutableRawPointer(audioFrequencyTable.baseAddress),
            UnsafeMutableRawPointer(grains.baseAddress), UnsafeMutableRawPointer(grainSamples.baseAddress),
        ] {
            base?.deallocate()
        }
    }
}
