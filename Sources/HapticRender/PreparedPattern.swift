// Compiling an AHAPPattern for one sample rate and actuator profile: everything a
// voice needs is resolved here (off the render thread), so rendering only reads.

import HapticDSP
import HapticPattern
import Synchronization

/// What kind of sound an event makes.
enum EventKind: UInt8, Sendable {
    case transient
    case continuous
    case audioCustom
    case audioContinuous
}

/// One event with every value resolved (defaults applied, clamped).
struct CompiledEvent: Sendable {
    var kind: EventKind
    /// Onset in pattern samples: round(time · fs).
    var onset: Double
    /// HapticIntensity (haptic) or AudioVolume (audio), 0...1.
    var level: Double
    /// HapticSharpness (haptic) or AudioBrightness (audio continuous), 0...1.
    var colour: Double
    /// AudioPan, -1...1.
    var pan: Double
    /// AudioPitch, -1...1.
    var pitch: Double
    /// Normalised AttackTime/DecayTime/ReleaseTime, 0...1 (controls are added at onset).
    var attack: Double
    var decay: Double
    var release: Double
    var sustained: Bool
    /// EventDuration in pattern samples (nil: absent).
    var duration: Double?
    /// Index into `PreparedPattern.soundBuffers` (AudioCustom with a loaded sound), else -1.
    var sound: Int
    var useVolumeEnvelope: Bool
    var loop: Bool
}

/// A pattern compiled for one sample rate and actuator profile: immutable and
/// shareable by any number of voices (players) on any thread.
public final class PreparedPattern: Sendable {
    /// Warnings from preparation (for example a missing sound in lenient use).
    public let warnings: [String]
    /// Length in seconds including release tails (what `render` writes before `--tail`).
    public let duration: Double
    /// Whether any audio event is present (selects the default layout).
    public let hasAudio: Bool
    /// The rate the pattern was prepared for.
    public let sampleRate: Double
    /// The profile the pattern was prepared for.
    public let profile: ActuatorProfile
    /// Events skipped because `Limits.maxVoices` others still sounded when they would start.
    public let eventsSkippedForVoices: Int
    /// Number of events that will sound (after dropping unusable ones).
    public var eventCount: Int { events.count }
    /// `duration` in frames (rounded up).
    public var frameCount: Int { Int(min(duration * sampleRate, 0x1p53).rounded(.up)) }
    /// The layout to use when the user names none: stereo + haptic with audio, else haptic mono.
    public var defaultLayout: ChannelLayout { hasAudio ? .stereoPlusHaptic : .hapticMono }

    let events: [CompiledEvent]
    /// Pattern control timelines indexed by `DynamicParameterID.index`.
    let controls: [ControlTimeline]
    let soundBuffers: [SoundBuffer]

    // Flat, immutable copies for the render thread (read through pointers, so that
    // rendering does no reference counting or bounds-checked array access).
    // Written once in init, freed in deinit, never mutated: safe to share.
    nonisolated(unsafe) let flat: FlatPattern

    /// Curve points closer than this (in samples) are treated as one time.
    static let minimumPointSpacing = 1.0 / 1024
    /// Samples over which a stepped control moves (anti-zipper), ~1.5 ms.
    static let stepRampSeconds = 0.0015
    /// Fade used for stop, seek and AudioCustom volume envelopes/truncation.
    static let fadeSeconds = 0.005
    /// AudioContinuous: AudioPitch 0 is this frequency; ±1 is ± one octave.
    static let audioBaseFrequency = 440.0

    /// Compiles `pattern`. `sounds` resolves AudioCustom files (nil: every AudioCustom
    /// event is silent with a warning, or an error when `strict`).
    public convenience init(
        _ pattern: AHAPPattern, profile: ActuatorProfile, sampleRate: Double,
        sounds: (any SoundSource)? = nil, strict: Bool = false
    ) throws(RenderError) {
        try self.init(pattern, profile: profile, sampleRate: sampleRate, sounds: sounds, strict: strict, grainBudget: TransientGrains.sampleBudget)
    }

    /// `grainBudget`: samples of precomputed transient bursts allowed (0: every burst is
    /// computed as it plays; tests compare the two).
    init(
        _ pattern: AHAPPattern, profile: ActuatorProfile, sampleRate: Double,
        sounds: (any SoundSource)?, strict: Bool, grainBudget: Int
    ) throws(RenderError) {
        let rates = Double(Limits.sampleRates.lowerBound)...Double(Limits.sampleRates.upperBound)
        guard sampleRate.isFinite, rates.contains(sampleRate) else {
            throw RenderError("sample rate \(sampleRate) is out of range (\(Limits.sampleRates.lowerBound)...\(Limits.sampleRates.upperBound) Hz)")
        }
        do {
            try profile.validate(source: "profile \(profile.name)")
        } catch {
            throw RenderError("\(error)")
        }
        let fs = sampleRate
        var warnings: [String] = []
        /// Strict: `message` is an error. Lenient: a warning, with what was done instead.
        func warn(_ message: String, otherwise consequence: String? = nil) throws(RenderError) {
            if strict { throw RenderError(message) }
            warnings.append(consequence.map { "\(message); \($0)" } ?? message)
        }

        // Past `Limits.maxElements`, elements are skipped (the reader warned the same way).
        if pattern.elements.count > Limits.maxElements {
            try warn(
                "the pattern has \(pattern.elements.count) elements, more than the limit of \(Limits.maxElements)",
                otherwise: "Pattern[\(Limits.maxElements)] and after skipped")
        }
        let elements = pattern.elements.prefix(Limits.maxElements)
        let pastLimit = "past the \(Limits.maxTime) s limit"

        // Events, in file order first, then sorted stably by onset; `ends` beside them.
        var events: [CompiledEvent] = []
        var ends: [Double] = []
        var buffers: [SoundBuffer] = []
        var bufferIndex: [String: Int] = [:]
        var hasAudio = false
        var end = 0.0  // seconds
        let envelope = profile.envelope
        for (position, element) in elements.enumerated() {
            guard case .event(let event) = element else { continue }
            let place = "Pattern[\(position)] (\(event.type.rawValue) at \(event.time) s)"
            guard event.time.isFinite else {
                try warn("\(place): time is not a finite number; event skipped")
                continue
            }
            if event.time > Limits.maxTime {
                try warn("\(place): time \(pastLimit)", otherwise: "event skipped")
                continue
            }
            var time = event.time
            if time < 0 {
                try warn("\(place): negative time clamped to 0")
                time = 0
            }
            func param(_ id: EventParameterID, _ fallback: Double) -> Double {
                let v = event.value(of: id, default: fallback)
                return v.isFinite ? min(id.range.upperBound, max(id.range.lowerBound, v)) : fallback
            }
            // Files have it capped at 30 s by the reader; a pattern built in code may hold an
            // event longer, up to the time limit (past it the output could not be bounded).
            var duration = event.duration.flatMap { $0.isFinite && $0 >= 0 ? min($0, Limits.maxTime) : nil }
            if event.type.isContinuous && duration == nil {
                try warn("\(place): continuous event without EventDuration; treated as 0 s")
                duration = 0
            }
            let isAudio = !event.type.isHaptic
            hasAudio = hasAudio || isAudio
            var compiled = CompiledEvent(
                kind: .transient, onset: (time * fs).rounded(),
                level: isAudio ? param(.audioVolume, 1) : param(.hapticIntensity, profile.defaults.intensity),
                colour: event.type == .audioContinuous
                    ? param(.audioBrightness, 1) : param(.hapticSharpness, profile.defaults.sharpness),
                pan: param(.audioPan, 0), pitch: param(.audioPitch, 0),
                attack: param(.attackTime, 0), decay: param(.decayTime, 0), release: param(.releaseTime, 0),
                sustained: event.isSustained, duration: duration.map { $0 * fs }, sound: -1,
                useVolumeEnvelope: event.useVolumeEnvelope, loop: event.loopEnabled)
            var eventEnd = time + (duration ?? 0)
            switch event.type {
            case .hapticTransient:
                compiled.kind = .transient
                let f = ActuatorProfile.frequency(forSharpness: compiled.colour, band: profile.band)
                eventEnd = max(eventEnd, time + profile.transientSeconds(frequency: f))
            case .hapticContinuous, .audioContinuous:
                compiled.kind = event.type == .hapticContinuous ? .continuous : .audioContinuous
                let a = envelope.attack.seconds(for: compiled.attack)
                let r = envelope.release.seconds(for: compiled.release)
                if compiled.sustained {
                    eventEnd = time + (duration ?? 0) + r
                } else {
                    let d = envelope.decay.seconds(for: compiled.decay)
                    eventEnd = time + min(a + d, (duration ?? 0) + r)
                }
            case .audioCustom:
                compiled.kind = .audioCustom
                guard let path = event.waveformPath, !path.isEmpty else {
                    try warn("\(place): AudioCustom without EventWaveformPath", otherwise: "rendered as silence")
                    break
                }
                let transposition = exp2Double(compiled.pitch)
                let key = "\(path)\u{0}\(transposition)"
                if let index = bufferIndex[key] {
                    compiled.sound = index
                } else if let sounds {
                    do {
                        let buffer = try sounds.sound(path: path, sampleRate: fs, transposition: transposition)
                        if buffer.sampleRate != fs {
                            try warn("\(place): sound \(path) came at \(buffer.sampleRate) Hz, not \(fs) Hz", otherwise: "rendered as silence")
                        } else if Double(buffer.frames) > Limits.maxSoundSeconds * fs {
                            try warn("\(place): sound \(path) is longer than the \(Limits.maxSoundSeconds) s limit", otherwise: "rendered as silence")
                        } else if buffer.channels < 1 || buffer.channels > 2 {
                            try warn("\(place): sound \(path) has \(buffer.channels) channels (1 or 2 supported)", otherwise: "rendered as silence")
                        } else {
                            buffers.append(buffer)
                            bufferIndex[key] = buffers.count - 1
                            compiled.sound = buffers.count - 1
                        }
                    } catch {
                        try warn("\(place): \(error)", otherwise: "rendered as silence")
                    }
                } else {
                    try warn("\(place): no sound source to load \(path)", otherwise: "rendered as silence")
                }
                if compiled.sound >= 0 {
                    let seconds = Double(buffers[compiled.sound].frames) / fs
                    eventEnd = time + (duration ?? (compiled.loop ? 0 : seconds))
                }
            }
            events.append(compiled)
            ends.append(eventEnd)
        }
        let order = events.indices.sorted { a, b in
            events[a].onset != events[b].onset ? events[a].onset < events[b].onset : a < b
        }
        // At most `Limits.maxVoices` events sound at once: one that would start while that
        // many still sound is skipped (each sounding event costs work for every sample).
        var sounding = MinHeap()
        var kept: [CompiledEvent] = []
        var skipped = 0
        for index in order {
            let start = events[index].onset / fs
            while let first = sounding.min, first <= start { sounding.removeMin() }
            if sounding.count >= Limits.maxVoices {
                skipped += 1
                continue
            }
            sounding.insert(ends[index])
            kept.append(events[index])
            end = max(end, ends[index])
        }
        if skipped > 0 {
            try warn(
                "\(skipped) event\(skipped == 1 ? "" : "s") would start while \(Limits.maxVoices) others still sound (the limit)",
                otherwise: "skipped")
        }
        events = kept
        self.eventsSkippedForVoices = skipped

        // Dynamic parameters and curves, grouped by parameter.
        var entries = [[(start: Double, order: Int, entry: ControlTimeline.Entry)]](repeating: [], count: DynamicParameterID.count)
        var controlPoints = 0
        for (position, element) in elements.enumerated() {
            switch element {
            case .event: continue
            case .parameter(let p):
                guard p.time.isFinite, p.value.isFinite else {
                    try warn("Pattern[\(position)] (\(p.id.rawValue)): time or value is not finite; ignored")
                    continue
                }
                guard p.time <= Limits.maxTime else {
                    try warn("Pattern[\(position)] (\(p.id.rawValue)): time \(pastLimit)", otherwise: "ignored")
                    continue
                }
                let v = min(p.id.range.upperBound, max(p.id.range.lowerBound, p.value))
                entries[p.id.index].append(((max(0, p.time) * fs).rounded(), position, .step(v)))
                // A pattern lasts until its last parameter too (AHAP's duration rule; a
                // trailing neutral parameter is how a file gives itself a rest, e.g. a loop length).
                end = max(end, max(0, p.time))
            case .curve(let c):
                guard c.time.isFinite, !c.controlPoints.isEmpty,
                    c.controlPoints.allSatisfy({ $0.time.isFinite && $0.value.isFinite })
                else {
                    try warn("Pattern[\(position)] (\(c.id.rawValue) curve): no usable control points; ignored")
                    continue
                }
                let reach = c.time + (c.controlPoints.map(\.time).max() ?? 0)
                guard reach <= Limits.maxTime else {
                    try warn("Pattern[\(position)] (\(c.id.rawValue) curve): reaches \(reach) s, \(pastLimit)", otherwise: "ignored")
                    continue
                }
                controlPoints += c.controlPoints.count
                guard controlPoints <= Limits.maxControlPoints else {
                    try warn(
                        "Pattern[\(position)] (\(c.id.rawValue) curve): more than \(Limits.maxControlPoints) control points in all curves",
                        otherwise: "ignored")
                    continue
                }
                var points = c.controlPoints.enumerated().sorted { a, b in
                    a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
                }.map { (time: $0.element.time * fs, value: min(c.id.range.upperBound, max(c.id.range.lowerBound, $0.element.value))) }
                // Points closer than 1/1024 sample to the one before (or to the curve's start)
                // are moved onto it: a jump, as for equal times. Otherwise the slope between
                // them (a change over a denormal number of samples) is infinite and the
                // control NaN (found by the extreme-pattern property test).
                var previous = 0.0
                for k in points.indices {
                    if points[k].time - previous < PreparedPattern.minimumPointSpacing { points[k].time = previous }
                    previous = points[k].time
                }
                entries[c.id.index].append(((max(0, c.time) * fs).rounded(), position, .curve(points)))
                end = max(end, max(0, c.time) + (points.last.map { $0.time / fs } ?? 0))
            }
        }
        let ramp = PreparedPattern.stepRampSeconds * fs
        self.controls = DynamicParameterID.allCases.sorted { $0.index < $1.index }.map { id in
            let list = entries[id.index].sorted { $0.start != $1.start ? $0.start < $1.start : $0.order < $1.order }
            return ControlTimeline(neutral: id.defaultValue, entries: list.map { ($0.start, $0.entry) }, rampSamples: ramp)
        }

        self.events = events
        self.soundBuffers = buffers
        self.warnings = warnings
        self.duration = end
        self.hasAudio = hasAudio
        self.sampleRate = fs
        self.profile = profile
        let tables = RenderTables.shared(band: profile.band, exponent: profile.intensity.effectiveExponent)
        let grains = TransientGrains.build(
            events: events, sharpnessControl: controls[DynamicParameterID.hapticSharpnessControl.index],
            frequencyTable: tables.frequency, profile: profile, sampleRate: fs, budget: grainBudget)
        self.flat = FlatPattern(
            events: events, controls: controls, sounds: buffers, tables: tables,
            grains: grains.spans, grainSamples: grains.samples)
    }

    deinit { flat.deallocate() }
}

extension PreparedPattern {
    /// The frequency the renderer uses for `sharpness` (the profile's log mapping,
    /// interpolated from a 1025-entry table; within 3e-7 of the exact mapping).
    public func renderedFrequency(forSharpness sharpness: Double) -> Double {
        frequencyForSharpness(sharpness, flat.frequencyTable.baseAddress!)
    }
}

extension ActuatorProfile {
    /// The frequency for a sharpness in 0...1: log-frequency interpolation over the band.
    public static func frequency(forSharpness sharpness: Double, band: Band) -> Double {
        let s = min(1, max(0, sharpness))
        return band.low * exp2Double(s * log2Double(band.high / band.low))
    }

    /// The frequency for a sharpness in 0...1 on this profile.
    public func frequency(forSharpness sharpness: Double) -> Double {
        ActuatorProfile.frequency(forSharpness: sharpness, band: band)
    }

    /// Length of a transient burst at `frequency`, in seconds.
    public func transientSeconds(frequency: Double) -> Double {
        let rule = transientRule(sampleRate: 1)  // at 1 Hz, samples are seconds
        return rule.cycles > 0 ? rule.cycles / frequency : rule.fixedSamples
    }

    /// The amplitude for a (controlled) intensity in 0...1 by this profile's law.
    public func amplitude(forIntensity intensity: Double) -> Double {
        powDouble(min(1, max(0, intensity)), self.intensity.effectiveExponent)
    }
}

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
        var samples: [Float] = []
        var spans: [SoundSpan] = []
        for s in sounds {
            spans.append(SoundSpan(offset: samples.count, frames: s.frames, channels: s.channels))
            samples += s.samples.prefix(s.frames * s.channels)
        }
        self.soundSamples = copy(samples)
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

/// The lookup tables a prepared pattern reads (sharpness → Hz, intensity → amplitude,
/// pitch → Hz). They depend on the profile's band and intensity law only, so they are
/// computed once per process for each (band, exponent) and shared: preparing a short
/// pattern would otherwise spend most of its time on some 3,000 exp2/log2 evaluations.
final class RenderTables: Sendable {
    /// `renderTableSize + 1` entries: sharpness i/n → Hz on the band's log scale.
    let frequency: [Double]
    /// 2 × the law's exponent when that is a whole number from 1 to 8 (exponents 0.5, 1, 1.5
    /// ... 4: the amplitude is then computed, by products and one square root, see
    /// `halfPower`), otherwise 0.
    let amplitudeHalfPowers: Int
    /// intensity i/n → amplitude by the power law (empty when `amplitudeHalfPowers` is not 0).
    let amplitude: [Float]

    init(band: ActuatorProfile.Band, exponent: Double) {
        let n = renderTableSize
        frequency = (0...n).map { ActuatorProfile.frequency(forSharpness: Double($0) / Double(n), band: band) }
        let halves = 2 * exponent
        amplitudeHalfPowers = halves == halves.rounded() && halves >= 1 && halves <= 8 ? Int(halves) : 0
        amplitude = amplitudeHalfPowers != 0 ? [] : (0...n).map { Float(powDouble(Double($0) / Double(n), exponent)) }
    }

    /// AudioPitch -1...1 → Hz for AudioContinuous (one octave either side of the base).
    static let audioFrequency: [Double] = (0...renderTableSize).map {
        PreparedPattern.audioBaseFrequency * exp2Double(-1 + 2 * Double($0) / Double(renderTableSize))
    }

    private struct Key: Hashable {
        var low: UInt64
        var high: UInt64
        var exponent: UInt64
    }

    private static let cache = Mutex<[Key: RenderTables]>([:])

    /// The tables for this band and law (computed on first use; a handful of profiles per process).
    static func shared(band: ActuatorProfile.Band, exponent: Double) -> RenderTables {
        let key = Key(low: band.low.bitPattern, high: band.high.bitPattern, exponent: exponent.bitPattern)
        if let hit = cache.withLock({ $0[key] }) { return hit }
        let tables = RenderTables(band: band, exponent: exponent)
        return cache.withLock { cache in
            if let raced = cache[key] { return raced }
            cache[key] = tables
            return tables
        }
    }
}

/// A binary min-heap of times (the ends of the events sounding), for the voice limit.
private struct MinHeap {
    private var items: [Double] = []
    var count: Int { items.count }
    var min: Double? { items.first }

    mutating func insert(_ value: Double) {
        items.append(value)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i] < items[parent] else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func removeMin() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < items.count && items[l] < items[smallest] { smallest = l }
            if r < items.count && items[r] < items[smallest] { smallest = r }
            if smallest == i { return }
            items.swapAt(i, smallest)
            i = smallest
        }
    }
}
