// One playback of a prepared pattern. The render path works on preallocated,
// pointer-addressed state (VoiceState) so that it never allocates, locks or
// reference-counts per sample.
//
// Block independence: every sample's value is a function of its absolute voice
// sample index n and of state that changes only at exact sample positions (event
// onsets, loop wraps, fade ends) or between render calls (setControl, playbackRate,
// seek, stop). Internal chunking only ever splits at such positions or evaluates
// the same per-sample formulas, so any split of N frames gives identical samples.

import HapticPattern

/// One playback of a prepared pattern: adds its output into mix buses, block by block.
/// Rendering N frames in one call or in any split gives identical samples.
/// Every method is real-time safe (no allocation, no locks) once initialised;
/// `init` allocates its per-event state and must run off the render thread.
///
/// Copies of a voice share nothing observable: a mutating call on a copy first
/// duplicates the state (which allocates), so keep one voice per playback on the
/// render thread and never copy it there.
public struct PatternVoice {
    public let pattern: PreparedPattern
    var state: VoiceState

    public init(pattern: PreparedPattern) {
        self.pattern = pattern
        self.state = VoiceState(pattern: pattern)
    }

    @inline(__always)
    private mutating func unique() {
        if !isKnownUniquelyReferenced(&state) { state = state.copy() }
    }

    /// Adds `bus.frames` frames of output into `bus`, advancing the voice.
    public mutating func render(into bus: MixBus) {
        // Copy-on-write: only does work when the value was copied, which the render thread
        // never does. The hot path itself (the state's method) is checked by @_noLocks.
        if !isKnownUniquelyReferenced(&state) { state = state.copy() }
        state.render(into: bus)
    }

    /// Pattern seconds advanced per output second (scales times and durations, not
    /// frequencies). May change between any two render calls. Clamped to 0.001...1000.
    public var playbackRate: Double {
        get { state.rate }
        set {
            unique()
            state.setRate(newValue)
        }
    }

    /// Current position in pattern seconds.
    public var position: Double { state.patternPosition(at: state.now) / pattern.sampleRate }

    /// Output frames rendered so far by this voice.
    public var framesRendered: Int64 { state.now }

    /// Events started so far (each loop repetition counts again).
    public var eventsStarted: Int { state.eventsStarted }

    /// Jumps to `offset` pattern seconds (sounding events are cut with a short fade).
    public mutating func seek(to offset: Double) {
        unique()
        state.requestSeek(to: max(0, offset.isFinite ? offset : 0) * pattern.sampleRate)
    }

    /// When set, playback jumps back to 0 on reaching this position (pattern seconds).
    public var loopEnd: Double? {
        get { state.loopEnd.map { $0 / pattern.sampleRate } }
        set {
            unique()
            if let value = newValue, value.isFinite, value * pattern.sampleRate >= 1 {
                state.loopEnd = (value * pattern.sampleRate).rounded()
            } else {
                state.loopEnd = nil
            }
        }
    }

    /// Sets a live value for a dynamic parameter, layered on the pattern's own controls
    /// (multiplying controls multiply, adding ones add). The value moves there linearly
    /// over `ramp` seconds (0: the renderer's short anti-zipper smoothing).
    public mutating func setControl(_ id: DynamicParameterID, value: Double, ramp: Double = 0) {
        unique()
        state.setLive(id.index, value: min(id.range.upperBound, max(id.range.lowerBound, value.isFinite ? value : id.defaultValue)), ramp: ramp)
    }

    /// Sets a live value for a dynamic parameter at once, without the anti-zipper ramp: the
    /// value a voice starts with, set before its first frame (a ramp would begin its first
    /// onsets from the neutral value).
    public mutating func presetControl(_ id: DynamicParameterID, value: Double) {
        unique()
        state.presetLive(id.index, value: min(id.range.upperBound, max(id.range.lowerBound, value.isFinite ? value : id.defaultValue)))
    }

    /// Begins a short fade-out (a few ms); the voice finishes when it reaches silence.
    public mutating func stop() {
        unique()
        state.requestStop()
    }

    /// True once everything the voice will ever produce has been rendered.
    public var isFinished: Bool { state.isFinished }
}
