// Compiling an AHAPPattern for one sample rate and actuator profile: everything a
// voice needs is resolved here (off the render thread), so rendering only reads.

import HapticDSP
import HapticPattern
import Synchronization

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
    /// AudioCustom events left silent because their sounds would pass `Limits.maxPatternSoundBytes`.
    public let soundEventsOverBudget: Int
    /// Number of events that will sound (after dropping unusable ones).
    public var eventCount: Int { events.count }
    /// `duration` in frames (rounded up).
    public var frameCount: Int { Int(min(duration * sampleRate, 0x1p53).rounded(.up)) }
    /// Bytes of sound samples the pattern holds (its own copy, for the render thread).
    public var soundBytes: Int { flat.soundSamples.count * MemoryLayout<Float>.size }
    /// The layout to use when the user names none: stereo + haptic with audio, else haptic mono.
    public var defaultLayout: ChannelLayout { hasAudio ? .stereoPlusHaptic : .hapticMono }

    /// What the pattern was compiled from (for `variant(for:)`).
    let source: AHAPPattern
    let sounds: (any SoundSource)?
    let strict: Bool
    /// `variant(for:)`'s compiled patterns, one per profile asked for.
    let variants = Mutex<[(profile: ActuatorProfile, withSound: Bool, pattern: PreparedPattern)]>([])

    let events: [CompiledEvent]
    /// Beside `events`: each one's position in the pattern's elements, and its end in seconds
    /// (for `PatternTrace`; the voice does not read them).
    let eventElements: [Int]
    let eventEnds: [Double]
    /// Pattern control timelines indexed by `DynamicParameterID.index`.
    let controls: [ControlTimeline]

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
        var warnings = PreparationWarnings(strict: strict)
        // Past `Limits.maxElements`, elements are skipped (the reader warned the same way).
        if pattern.elements.count > Limits.maxElements {
            try warnings.warn(
                "the pattern has \(pattern.elements.count) elements, more than the limit of \(Limits.maxElements)",
                otherwise: "Pattern[\(Limits.maxElements)] and after skipped")
        }
        let elements = pattern.elements.prefix(Limits.maxElements)
        var resolver = SoundResolver(sounds: sounds, sampleRate: fs)
        let compiled = try EventCompiler(profile: profile, sampleRate: fs).compile(elements, sounds: &resolver, &warnings)
        try resolver.budgetWarning(&warnings)
        let timelines = try ControlCompiler(sampleRate: fs).compile(elements, &warnings)
        let events = compiled.events
        let controls = timelines.controls
        self.eventsSkippedForVoices = compiled.skippedForVoices
        self.soundEventsOverBudget = resolver.eventsOverBudget
        self.controls = controls
        self.events = events
        self.eventElements = compiled.elements
        self.eventEnds = compiled.ends
        self.warnings = warnings.messages
        self.duration = max(compiled.end, timelines.end)
        self.hasAudio = compiled.hasAudio
        self.sampleRate = fs
        self.profile = profile
        self.source = pattern
        self.sounds = sounds
        self.strict = strict
        let tables = RenderTables.shared(band: profile.band, exponent: profile.intensity.effectiveExponent)
        let grains = TransientGrains.build(
            events: events, sharpnessControl: controls[DynamicParameterID.hapticSharpnessControl.index],
            frequencyTable: tables.frequency, profile: profile, sampleRate: fs, budget: grainBudget)
        self.flat = FlatPattern(
            events: events, controls: controls, sounds: resolver.buffers, tables: tables,
            grains: grains.spans, grainSamples: grains.samples)
    }

    deinit { flat.deallocate() }
}

extension PreparedPattern {
    /// This pattern compiled for another actuator profile (itself for its own profile), for a
    /// layout whose haptic channels drive several kinds of actuator: its haptic events only
    /// (the sound is the same whatever the profile, and is rendered once, by the pattern
    /// itself) unless `withSound`. Compiled once per profile and kept; off the render thread.
    /// The profile must be valid (a built-in or decoded one is); if it cannot be compiled
    /// after all, this pattern stands in for it.
    public func variant(for profile: ActuatorProfile, withSound: Bool = false) -> PreparedPattern {
        if profile == self.profile { return self }
        return variants.withLock { kept in
            if let hit = kept.first(where: { $0.profile == profile && $0.withSound == withSound }) {
                return hit.pattern
            }
            var pattern = source
            if !withSound {
                pattern.elements.removeAll {
                    if case .event(let event) = $0 { return !event.type.isHaptic }
                    return false
                }
            }
            let compiled = (try? PreparedPattern(
                pattern, profile: profile, sampleRate: sampleRate, sounds: withSound ? sounds : nil, strict: false,
                grainBudget: TransientGrains.sampleBudget)) ?? self
            kept.append((profile, withSound, compiled))
            return compiled
        }
    }

    /// The frequency the renderer uses for `sharpness` (the profile's log mapping,
    /// interpolated from a 1025-entry table; within 3e-7 of the exact mapping).
    public func renderedFrequency(forSharpness sharpness: Double) -> Double {
        frequencyForSharpness(sharpness, flat.frequencyTable.baseAddress!)
    }
}
