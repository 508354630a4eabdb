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

    /// Begins a short fade-out (a few ms); the voice finishes when it reaches silence.
    public mutating func stop() {
        unique()
        state.requestStop()
    }

    /// True once everything the voice will ever produce has been rendered.
    public var isFinished: Bool { state.isFinished }
}

// MARK: - State

/// A sounding instance of an event.
struct ActiveEvent {
    var kind: EventKind
    var done: Bool
    var event: Int
    /// Output sample of the onset.
    var start: Int64
    /// Unwrapped pattern clock at the onset (envelope time is U(n) - onsetU).
    var onsetU: Double
    /// Transient: final amplitude. Others: the event's own level (intensity/volume).
    var level: Double
    /// Sharpness (haptic) or brightness (audio continuous), before controls.
    var colour: Double
    var pan: Double
    var pitch: Double
    /// Transient: phase increment (cycles per sample) and length in output samples.
    var inc: Double
    var length: Int64
    var invLength: Double
    /// Transient: where its precomputed burst starts in `FlatPattern.grainSamples` (-1: none,
    /// computed as it plays).
    var grain: Int
    /// Continuous oscillators: the phase is phaseAnchor + (n - anchorSample)·inc (evaluated by
    /// `gridPhase`), re-anchored whenever inc changes, so that a constant frequency never
    /// accumulates rounding error.
    var phaseAnchor: Double
    var anchorSample: Int64
    /// Envelope, in pattern samples.
    var attack: Double
    var decay: Double
    var release: Double
    /// 1/attack, 1/decay, 1/release (the envelope multiplies; scalar and 8-lane code agree).
    var invAttack: Double = 1
    var invDecay: Double = 1
    var invRelease: Double = 1
    /// EventDuration in pattern samples (infinity when absent).
    var end: Double
    var sustained: Bool
    /// AudioCustom: the sound, the first frame to play, looping.
    var sound: Int
    var soundOffset: Int64
    var loop: Bool
    var volumeEnvelope: Bool
}

/// Frames per internal chunk (scratch size). A computed global: no lazy initialisation
/// or type metadata on the render path.
@inline(__always) var voiceChunk: Int { 256 }
/// Number of dynamic parameters (`DynamicParameterID.count`).
@inline(__always) var voiceControlCount: Int { 12 }
/// Entries - 1 of the sharpness→frequency, pitch→frequency and intensity→amplitude tables.
@inline(__always) var renderTableSize: Int { 1024 }

extension CompiledEvent {
    // Pattern matching, not ==: enum equality goes through Equatable, which the
    // performance checker (rightly, in debug builds) treats as metadata access.
    @inline(__always) var isTransient: Bool {
        if case .transient = kind { return true }
        return false
    }
    @inline(__always) var isHapticContinuous: Bool {
        if case .continuous = kind { return true }
        return false
    }
}

enum FadeMode {
    case none
    case stopping
    case seekingOut
    case seekingIn
}

/// Runs the voice's vector kernels once per process on scratch memory (a global's one-time
/// initialisation, reached only from `VoiceState.init`, off the render thread): in
/// unoptimised builds their first use instantiates generic type metadata, which allocates.
let voiceKernelsWarmedUp: Void = {
    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 32)
    scratch.initialize(repeating: 0, count: 32)
    addOscillator(scratch, scratch + 16, 0, 0, 16, 0, 0, 0.01)
    let k = (SIMD8<Double>(repeating: 3) + SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)) + 0.5
    let whole = (k + 6.755399441055744e15) - 6.755399441055744e15
    let s = sin2piVector(SIMD8<Float>(k - whole.replacing(with: whole - 1, where: whole .> k)))
    scratch.update(repeating: s[0], count: 1)
    scratch.deallocate()
}()

/// Per-voice mutable state. All buffers are allocated in `init` and freed in `deinit`.
final class VoiceState {

    let pattern: PreparedPattern
    let flat: FlatPattern
    let fs: Double
    let hasAudio: Bool
    let eventCount: Int

    // Profile numbers, copied so the render path touches no strings.
    let transientCycles: Double  // 0 when the length is in milliseconds
    let transientSamples: Double
    let windowIsHann: Bool
    let attackMin: Double, attackLog: Double
    let decayMin: Double, decayLog: Double
    let releaseMin: Double, releaseLog: Double
    let fadeSamples: Double
    let audioFadeSamples: Double

    // Clock: U(n) = uAnchor + (n - nAnchor)·rate (never jumps); P(n) = U(n) - pOffset.
    var now: Int64 = 0
    var rate: Double = 1
    var uAnchor: Double = 0
    var nAnchor: Int64 = 0
    var pOffset: Double = 0
    var loopEnd: Double? = nil

    var cursor = 0
    var eventsStarted = 0
    var active: UnsafeMutablePointer<ActiveEvent>
    let activeCapacity: Int
    var activeCount = 0

    // Fades (stop, seek).
    var fadeMode = FadeMode.none
    var fadeStart: Int64 = 0
    var pendingSeek: Double = 0
    var stopped = false

    // Scratch, one chunk long.
    /// Where the current chunk's haptic events add their samples: the bus itself, or
    /// `hapticScratch` while a fade has to scale the sum first.
    var haptic: UnsafeMutablePointer<Float>
    let hapticScratch: UnsafeMutablePointer<Float>
    let left: UnsafeMutablePointer<Float>
    let right: UnsafeMutablePointer<Float>
    /// controlCount × chunk combined control values (pattern ⊗ live).
    let controls: UnsafeMutablePointer<Float>
    /// Whether a control's chunk values are all equal (enables the constant fast paths).
    let controlConstant: UnsafeMutablePointer<Bool>
    /// amplitude(level · intensity) per sample of the current chunk for `amplitudeRowLevel`
    /// (NaN: not computed for this chunk).
    let amplitudeRowValues: UnsafeMutablePointer<Float>
    var amplitudeRowLevel: Float = .nan
    /// Smooth-knot cursors per control and the pattern position they were last used at.
    let knotCursor: UnsafeMutablePointer<Int>

    // Live layer per control: value moves from liveFrom to liveTo over [liveStart, liveStart + liveRamp).
    let liveFrom: UnsafeMutablePointer<Double>
    let liveTo: UnsafeMutablePointer<Double>
    let liveStart: UnsafeMutablePointer<Int64>
    let liveRamp: UnsafeMutablePointer<Int64>

    init(pattern: PreparedPattern) {
        self.pattern = pattern
        self.flat = pattern.flat
        self.fs = pattern.sampleRate
        self.hasAudio = pattern.hasAudio
        self.eventCount = pattern.events.count
        let p = pattern.profile
        (transientCycles, transientSamples) = p.transientLength(sampleRate: pattern.sampleRate)
        windowIsHann = p.transient.window == .hann
        attackMin = p.envelope.attack.min
        attackLog = log2Double(p.envelope.attack.max / p.envelope.attack.min)
        decayMin = p.envelope.decay.min
        decayLog = log2Double(p.envelope.decay.max / p.envelope.decay.min)
        releaseMin = p.envelope.release.min
        releaseLog = log2Double(p.envelope.release.max / p.envelope.release.min)
        fadeSamples = (PreparedPattern.fadeSeconds * pattern.sampleRate).rounded()
        audioFadeSamples = fadeSamples
        // Room for every event twice (a loop may retrigger an event while its previous
        // instance is still releasing).
        activeCapacity = 2 * pattern.events.count + 8
        active = .allocate(capacity: activeCapacity)
        let c = voiceChunk
        hapticScratch = .allocate(capacity: c)
        haptic = hapticScratch
        left = .allocate(capacity: c)
        right = .allocate(capacity: c)
        controls = .allocate(capacity: c * voiceControlCount)
        amplitudeRowValues = .allocate(capacity: c)
        amplitudeRowValues.initialize(repeating: 0, count: c)
        controls.initialize(repeating: 0, count: c * voiceControlCount)
        controlConstant = .allocate(capacity: voiceControlCount)
        controlConstant.initialize(repeating: true, count: voiceControlCount)
        knotCursor = .allocate(capacity: voiceControlCount)
        knotCursor.initialize(repeating: -1, count: voiceControlCount)
        liveFrom = .allocate(capacity: voiceControlCount)
        liveTo = .allocate(capacity: voiceControlCount)
        liveStart = .allocate(capacity: voiceControlCount)
        liveRamp = .allocate(capacity: voiceControlCount)
        for id in DynamicParameterID.allCases {
            liveFrom[id.index] = id.defaultValue
            liveTo[id.index] = id.defaultValue
        }
        liveStart.initialize(repeating: 0, count: voiceControlCount)
        liveRamp.initialize(repeating: 0, count: voiceControlCount)
        _ = voiceKernelsWarmedUp
    }

    deinit {
        active.deallocate()
        hapticScratch.deallocate()
        left.deallocate()
        right.deallocate()
        controls.deallocate()
        amplitudeRowValues.deallocate()
        controlConstant.deallocate()
        knotCursor.deallocate()
        liveFrom.deallocate()
        liveTo.deallocate()
        liveStart.deallocate()
        liveRamp.deallocate()
    }

    /// A full duplicate (for copy-on-write of PatternVoice; allocates).
    func copy() -> VoiceState {
        let c = VoiceState(pattern: pattern)
        c.now = now
        c.rate = rate
        c.uAnchor = uAnchor
        c.nAnchor = nAnchor
        c.pOffset = pOffset
        c.loopEnd = loopEnd
        c.cursor = cursor
        c.eventsStarted = eventsStarted
        c.active.update(from: active, count: activeCount)
        c.activeCount = activeCount
        c.fadeMode = fadeMode
        c.fadeStart = fadeStart
        c.pendingSeek = pendingSeek
        c.stopped = stopped
        c.knotCursor.update(from: knotCursor, count: voiceControlCount)
        c.liveFrom.update(from: liveFrom, count: voiceControlCount)
        c.liveTo.update(from: liveTo, count: voiceControlCount)
        c.liveStart.update(from: liveStart, count: voiceControlCount)
        c.liveRamp.update(from: liveRamp, count: voiceControlCount)
        return c
    }

    // MARK: clock

    @inline(__always)
    func unwrapped(at n: Int64) -> Double {
        uAnchor + Double(n &- nAnchor) * rate
    }

    @inline(__always)
    func patternPosition(at n: Int64) -> Double {
        unwrapped(at: n) - pOffset
    }

    /// The first output sample n (any n, not only >= now) with P(n) >= target.
    @inline(__always)
    func firstSample(reaching target: Double) -> Int64 {
        let x = ceilFast((target + pOffset - uAnchor) / rate)
        var n = nAnchor &+ Int64(min(1e15, max(-1e15, x)))
        while patternPosition(at: n &- 1) >= target { n &-= 1 }
        while patternPosition(at: n) < target { n &+= 1 }
        return n
    }

    func setRate(_ value: Double) {
        let r = value.isFinite ? min(1000, max(0.001, value)) : 1
        uAnchor = unwrapped(at: now)
        nAnchor = now
        rate = r
    }

    var isFinished: Bool {
        if stopped { return true }
        if loopEnd != nil || cursor < eventCount || activeCount > 0 { return false }
        if case .seekingOut = fadeMode { return false }
        return true
    }

    // MARK: live controls

    @inline(__always)
    func liveValue(_ id: Int, at n: Int64) -> Double {
        let ramp = liveRamp[id]
        let elapsed = n &- liveStart[id]
        if ramp <= 0 || elapsed >= ramp { return liveTo[id] }
        if elapsed <= 0 { return liveFrom[id] }
        return liveFrom[id] + (liveTo[id] - liveFrom[id]) * (Double(elapsed) / Double(ramp))
    }

    func setLive(_ id: Int, value: Double, ramp: Double) {
        let current = liveValue(id, at: now)
        liveFrom[id] = current
        liveTo[id] = value
        liveStart[id] = now
        let seconds = ramp.isFinite && ramp > 0 ? min(ramp, Limits.maxTime) : PreparedPattern.stepRampSeconds
        liveRamp[id] = max(1, Int64((seconds * fs).rounded()))
    }

    @inline(__always)
    func combine(_ id: Int, _ patternValue: Double, _ live: Double) -> Double {
        // Indices 0 (HapticIntensityControl) and 5 (AudioVolumeControl) multiply.
        id == 0 || id == 5 ? patternValue * live : patternValue + live
    }

    /// The combined control at an event onset: the raw (unsmoothed) pattern value at
    /// the onset time, so a Parameter at the same time as a transient applies to it.
    @inline(__always)
    func controlAtOnset(_ id: Int, onset: Double, n: Int64) -> Double {
        let span = flat.rawSpans[id]
        let knots = UnsafeBufferPointer(rebasing: flat.rawKnots[span.offset..<(span.offset + span.count)])
        let value = ControlTimeline.value(knots, at: onset, neutral: flat.neutral[id])
        return combine(id, value, liveValue(id, at: n))
    }

    // MARK: stop / seek

    @inline(__always) var isFading: Bool {
        if case .none = fadeMode { return false }
        return true
    }

    func requestStop() {
        if stopped { return }
        if activeCount == 0 {
            stopped = true
            return
        }
        if case .stopping = fadeMode { return }
        fadeMode = .stopping
        fadeStart = now
    }

    func requestSeek(to target: Double) {
        if stopped { return }
        pendingSeek = target
        if activeCount == 0 {
            performSeek(at: now)
            return
        }
        // (Ternaries, not && / ||: their autoclosures would retain self on the render path.)
        switch fadeMode {
        case .none, .seekingIn:
            fadeMode = .seekingOut
            fadeStart = now
        case .stopping, .seekingOut:
            break
        }
    }

    /// Jumps so that P(n) = pendingSeek; resumes continuous and audio events in progress.
    func performSeek(at n: Int64) {
        activeCount = 0
        pOffset = unwrapped(at: n) - pendingSeek
        let target = pendingSeek
        // Events before the target that still sound there resume mid-way.
        var first = 0
        var resumed = false
        while first < eventCount {
            let e = flat.events[first]
            if e.onset >= target { break }
            if !e.isTransient {
                let before = activeCount
                activate(first, at: n, resumeAt: target - e.onset)
                if activeCount > before {
                    resumed = true
                }
            }
            first += 1
        }
        cursor = first
        fadeMode = resumed ? .seekingIn : .none
        fadeStart = n
    }

    @inline(__always)
    func fadeGain(at n: Int64) -> Float {
        let t = Double(n &- fadeStart) / fadeSamples
        switch fadeMode {
        case .none: return 1
        case .stopping, .seekingOut: return Float(max(0, 1 - t))
        case .seekingIn: return Float(min(1, t))
        }
    }

    // MARK: events

    @inline(__always)
    func envelopeSeconds(_ min: Double, _ log: Double, _ value: Double) -> Double {
        min * exp2Double(Swift.min(1, Swift.max(0, value)) * log)
    }

    @inline(__always)
    func frequency(sharpness: Double) -> Double {
        frequencyForSharpness(sharpness, flat.frequencyTable.baseAddress!)
    }

    @inline(__always)
    func audioFrequency(pitch: Double) -> Double {
        let n = Double(renderTableSize)
        let x = (Swift.min(1, Swift.max(-1, pitch)) + 1) * 0.5 * n
        let i = Swift.min(renderTableSize - 1, Int(x))
        let f = x - Double(i)
        return flat.audioFrequencyTable[i] + (flat.audioFrequencyTable[i + 1] - flat.audioFrequencyTable[i]) * f
    }

    @inline(__always)
    func amplitude(intensity: Float) -> Float {
        let i = Swift.min(1, Swift.max(0, intensity))
        let halves = flat.amplitudeHalfPowers
        if halves == 2 { return i }
        if halves != 0 { return halfPower(i, halves) }
        let x = i * Float(renderTableSize)
        let k = Swift.min(renderTableSize - 1, Int(x))
        let f = x - Float(k)
        return flat.amplitudeTable[k] + (flat.amplitudeTable[k + 1] - flat.amplitudeTable[k]) * f
    }

    /// Starts event `index` at output sample `n` (`resumeAt`: pattern samples already elapsed).
    func activate(_ index: Int, at n: Int64, resumeAt elapsed: Double = 0) {
        let e = flat.events[index]
        eventsStarted &+= 1
        let onsetU = e.onset + pOffset
        var a = ActiveEvent(
            kind: e.kind, done: false, event: index, start: n, onsetU: onsetU, level: e.level,
            colour: e.colour, pan: e.pan, pitch: e.pitch, inc: 0, length: 0, invLength: 0, grain: -1,
            phaseAnchor: 0, anchorSample: n, attack: 1, decay: 1, release: 1,
            end: e.duration ?? .infinity, sustained: e.sustained, sound: e.sound,
            soundOffset: Int64(roundFast(elapsed)), loop: e.loop, volumeEnvelope: e.useVolumeEnvelope)
        switch e.kind {
        case .transient:
            let intensity = e.level * controlAtOnset(0, onset: e.onset, n: n)
            let sharpness = e.colour + controlAtOnset(1, onset: e.onset, n: n)
            a.level = Double(amplitude(intensity: Float(Swift.min(1, Swift.max(0, intensity)))))
            if a.level == 0 { return }
            let shape = TransientGeometry(
                sharpness: sharpness, frequencyTable: flat.frequencyTable.baseAddress!, sampleRate: fs,
                cycles: transientCycles, fixedSamples: transientSamples)
            a.inc = shape.inc
            a.length = shape.length
            a.invLength = shape.invLength
            a.grain = flat.grain(inc: shape.inc, length: shape.length)
        case .continuous, .audioContinuous:
            let base = e.isHapticContinuous ? 2 : 9  // Haptic vs Audio Attack/Decay/ReleaseTimeControl
            a.attack = fs * envelopeSeconds(attackMin, attackLog, e.attack + controlAtOnset(base, onset: e.onset, n: n))
            a.decay = fs * envelopeSeconds(decayMin, decayLog, e.decay + controlAtOnset(base + 1, onset: e.onset, n: n))
            a.release = fs * envelopeSeconds(releaseMin, releaseLog, e.release + controlAtOnset(base + 2, onset: e.onset, n: n))
            a.invAttack = 1 / a.attack
            a.invDecay = 1 / a.decay
            a.invRelease = 1 / a.release
            if e.duration == nil { a.end = 0 }
            a.inc = -1  // forces anchoring at the first sample
            let endOfSound = a.sustained ? a.end + a.release : Swift.min(a.attack + a.decay, a.end + a.release)
            if elapsed >= endOfSound { return }
        case .audioCustom:
            if e.sound < 0 { return }
            // Without EventDuration the sound plays once (looping needs a duration to fill).
            let frames = Int64(flat.sounds[e.sound].frames)
            if e.duration == nil ? a.soundOffset >= frames : false { return }
            if elapsed >= a.end { return }
        }
        guard activeCount < activeCapacity else { return }
        active[activeCount] = a
        activeCount += 1
    }

    // MARK: rendering

    @_noLocks
    func render(into bus: MixBus) {
        var offset = 0
        while offset < bus.frames {
            if stopped { return }
            var length = Swift.min(bus.frames - offset, voiceChunk)
            let n0 = now
            if isFading {
                let left = fadeStart &+ Int64(fadeSamples) &- n0
                if left <= 0 {
                    switch fadeMode {
                    case .stopping:
                        stopped = true
                        activeCount = 0
                        return
                    case .seekingOut:
                        performSeek(at: n0)
                    case .seekingIn, .none:
                        fadeMode = .none
                    }
                    continue
                }
                length = Swift.min(length, Int(left))
            }
            if let loop = loopEnd {
                if patternPosition(at: n0) >= loop {
                    pOffset += loop
                    cursor = 0
                    continue
                }
                let wrap = firstSample(reaching: loop)
                length = Swift.min(length, Int(wrap &- n0))
            }
            renderChunk(n0, length, bus.haptic + offset, bus.audioLeft + offset, bus.audioRight + offset)
            now = n0 &+ Int64(length)
            offset += length
        }
    }

    @inline(__always)
    func renderChunk(
        _ n0: Int64, _ count: Int, _ outHaptic: UnsafeMutablePointer<Float>,
        _ outLeft: UnsafeMutablePointer<Float>, _ outRight: UnsafeMutablePointer<Float>
    ) {
        let chunkEnd = n0 &+ Int64(count)
        // Start the events whose onset falls in this chunk.
        while cursor < eventCount {
            let onset = flat.events[cursor].onset
            if let loop = loopEnd, onset >= loop {
                cursor = eventCount
                break
            }
            let m = Swift.max(n0, firstSample(reaching: onset))
            if m >= chunkEnd { break }
            activate(cursor, at: m)
            cursor += 1
        }
        if activeCount == 0 { return }

        let fading = isFading
        if fading {
            hapticScratch.update(repeating: 0, count: count)
            haptic = hapticScratch
        } else {
            haptic = outHaptic
        }
        fillControl(0, n0, count)
        fillControl(1, n0, count)
        amplitudeRowLevel = .nan
        if hasAudio {
            left.update(repeating: 0, count: count)
            right.update(repeating: 0, count: count)
            for id in 5...8 { fillControl(id, n0, count) }
        }
        var i = 0
        while i < activeCount {
            let slot = active + i
            let from = Int(Swift.max(0, slot.pointee.start &- n0))
            switch slot.pointee.kind {
            case .transient:
                renderTransient(slot, n0, from, count)
            case .continuous:
                renderContinuous(slot, n0, from, count)
            case .audioCustom:
                renderAudioCustom(slot, n0, from, count)
            case .audioContinuous:
                renderAudioContinuous(slot, n0, from, count)
            }
            i += 1
        }
        // Compact: keep the order of the survivors (summation order must not depend on history).
        var kept = 0
        for j in 0..<activeCount where !active[j].done {
            if kept != j { active[kept] = active[j] }
            kept += 1
        }
        activeCount = kept

        if !fading {
            if hasAudio {
                for k in 0..<count {
                    outLeft[k] += left[k]
                    outRight[k] += right[k]
                }
            }
        } else {
            for k in 0..<count {
                let g = fadeGain(at: n0 &+ Int64(k))
                outHaptic[k] += hapticScratch[k] * g
                if hasAudio {
                    outLeft[k] += left[k] * g
                    outRight[k] += right[k] * g
                }
            }
        }
    }

    /// Fills `controls[id]` for the chunk with the combined (smoothed pattern ⊗ live) value.
    ///
    /// Every sample's value is a function of its absolute index n only (never of the chunk
    /// split): on knot segment c the pattern value is the segment's line evaluated in double
    /// at g = n rounded down to a multiple of 8, plus (n - g) steps in Float; the live
    /// value is combined in Float. Whole grid blocks then cost one double evaluation.
    @inline(__always)
    func fillControl(_ id: Int, _ n0: Int64, _ count: Int) {
        let out = controls + id * voiceChunk
        let span = flat.smoothSpans[id]
        let ramp = liveRamp[id]
        let since = n0 &- liveStart[id]
        let liveSettled = ramp <= 0 || since >= ramp
        let multiply = id == 0 || id == 5
        if span.count == 0 {
            let v = Float(flat.neutral[id])
            if liveSettled {
                out.update(repeating: combineFloat(multiply, v, Float(liveTo[id])), count: count)
                controlConstant[id] = true
            } else {
                for k in 0..<count {
                    out[k] = combineFloat(multiply, v, Float(liveValue(id, at: n0 &+ Int64(k))))
                }
                controlConstant[id] = false
            }
            return
        }
        let knots = flat.smoothKnots.baseAddress! + span.offset
        let p0 = patternPosition(at: n0)
        var c = knotCursor[id]
        // The cursor only moves forward, except after a seek or loop wrap.
        if c >= span.count || (c >= 0 && knots[c].time > p0) {
            c = ControlTimeline.lastIndex(UnsafeBufferPointer(start: knots, count: span.count), atOrBefore: p0)
        }
        while c + 1 < span.count && knots[c + 1].time <= p0 { c += 1 }
        let pEnd = patternPosition(at: n0 &+ Int64(count - 1))
        let flatSegment = (c < 0 || knots[c].slope == 0) && (c + 1 >= span.count || knots[c + 1].time > pEnd)
        if flatSegment && liveSettled {
            let value = Float(c < 0 ? knots[0].value : knots[c].value)
            out.update(repeating: combineFloat(multiply, value, Float(liveTo[id])), count: count)
            controlConstant[id] = true
            knotCursor[id] = c
            return
        }
        let settledLive = Float(liveTo[id])
        let count0 = span.count
        // Clock values in locals: class properties would be access-checked on every sample.
        let ua = uAnchor, na = nAnchor, r = rate, po = pOffset
        // Knot segment by knot segment: the segment's end is found once (estimate, then
        // checked with the exact formula). Double(n - na) == d0 + Double(k) exactly (integers < 2^53).
        let d0 = Double(n0 &- na)
        let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        var k = 0
        while k < count {
            let p = (ua + (d0 + Double(k)) * r) - po
            while c + 1 < count0 && knots[c + 1].time <= p { c += 1 }
            var kEnd = count
            if c + 1 < count0 {
                let next = knots[c + 1].time
                let estimate = (next - p) / r
                kEnd = estimate < Double(count - k) ? k + Swift.max(1, Int(estimate)) : count
                while kEnd > k + 1 && (ua + (d0 + Double(kEnd - 1)) * r) - po >= next { kEnd -= 1 }
                while kEnd < count && (ua + (d0 + Double(kEnd)) * r) - po < next { kEnd += 1 }
            }
            // The segment's line (before the first knot: the first knot's value, flat).
            let kv = c < 0 ? knots[0].value : knots[c].value
            let kt = c < 0 ? 0 : knots[c].time
            let ks = c < 0 ? 0 : knots[c].slope
            let step = Float(r * ks)
            var q = k
            while q < kEnd {
                let n = n0 &+ Int64(q)
                let g = n & ~7
                let base = Float(kv + (((ua + Double(g &- na) * r) - po) - kt) * ks)
                let values = SIMD8<Float>(repeating: base) + lanes * step
                if liveSettled && n == g && kEnd - q >= 8 {
                    let combined = multiply ? values * settledLive : values + settledLive
                    UnsafeMutableRawPointer(out + q).storeBytes(of: combined, as: SIMD8<Float>.self)
                    q += 8
                    continue
                }
                let stop = Swift.min(kEnd, q + Int(g &+ 8 &- n))
                while q < stop {
                    let lane = Int(n0 &+ Int64(q) &- g)
                    let live = liveSettled ? settledLive : Float(liveValue(id, at: n0 &+ Int64(q)))
                    out[q] = combineFloat(multiply, values[lane], live)
                    q += 1
                }
            }
            k = kEnd
        }
        controlConstant[id] = false
        knotCursor[id] = c
    }

    @inline(__always)
    func renderTransient(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n0: Int64, _ from: Int, _ count: Int) {
        let a = slot.pointee
        let firstK = n0 &+ Int64(from) &- a.start
        let to = Int(Swift.min(Int64(count), a.length &- firstK &+ Int64(from)))
        let amp = Float(a.level)
        if a.grain >= 0 {
            // The burst precomputed at preparation (the same lanes as below): a scaled add.
            let g = flat.grainSamples.baseAddress! + a.grain + Int(firstK) - from
            var j = from
            let amp8 = SIMD8<Float>(repeating: amp)
            while j + 8 <= to {
                let o = UnsafeMutableRawPointer(haptic + j)
                let v = UnsafeRawPointer(g + j).loadUnaligned(as: SIMD8<Float>.self)
                o.storeBytes(of: o.loadUnaligned(as: SIMD8<Float>.self) + amp8 * v, as: SIMD8<Float>.self)
                j += 8
            }
            while j < to {
                haptic[j] += amp * g[j]
                j += 1
            }
        } else {
            let hann = windowIsHann
            var j = from
            while j < to {
                let v = transientLanes(firstK &+ Int64(j - from), a.invLength, a.inc, hann: hann)
                if j + 8 <= to {
                    let o = UnsafeMutableRawPointer(haptic + j)
                    o.storeBytes(of: o.loadUnaligned(as: SIMD8<Float>.self) + amp * v, as: SIMD8<Float>.self)
                    j += 8
                } else {
                    for l in 0..<(to - j) { haptic[j + l] += amp * v[l] }
                    j = to
                }
            }
        }
        if firstK &+ Int64(to - from) >= a.length { slot.pointee.done = true }
    }

    /// Envelope gain at τ pattern samples after the onset; also whether the event is over.
    @inline(__always)
    func envelope(_ a: ActiveEvent, _ tau: Double) -> Float {
        var g = tau < a.attack ? Swift.max(0, tau * a.invAttack) : 1
        if !a.sustained && tau > a.attack { g *= Swift.max(0, 1 - (tau - a.attack) * a.invDecay) }
        if tau > a.end { g *= Swift.max(0, 1 - (tau - a.end) * a.invRelease) }
        return Float(g)
    }

    @inline(__always)
    func continuousIsOver(_ a: ActiveEvent, _ tau: Double) -> Bool {
        tau >= a.end + a.release || (!a.sustained && tau >= a.attack + a.decay)
    }

    @inline(__always)
    func reanchor(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n: Int64, _ inc: Double) {
        if inc != slot.pointee.inc {
            if slot.pointee.inc >= 0 {
                slot.pointee.phaseAnchor = fractionalPart(
                    slot.pointee.phaseAnchor + Double(n &- slot.pointee.anchorSample) * slot.pointee.inc)
            }
            slot.pointee.anchorSample = n
            slot.pointee.inc = inc
        }
    }

    @inline(__always)
    func renderContinuous(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n0: Int64, _ from: Int, _ count: Int) {
        let intensity = controls
        let sharpness = controls + voiceChunk
        let level = Float(slot.pointee.level)
        let colour = slot.pointee.colour
        let sharpConstant = controlConstant[1]
        let intensityConstant = controlConstant[0]
        var amp = amplitude(intensity: level * intensity[from])
        if sharpConstant {
            reanchor(slot, n0 &+ Int64(from), frequency(sharpness: colour + Double(sharpness[from])) / fs)
            // Fast path: a sustained event inside its hold segment for the whole range has an
            // envelope of exactly 1, so `addOscillator` computes the same samples as the loop below.
            let a = slot.pointee
            let tauFirst = unwrapped(at: n0 &+ Int64(from)) - a.onsetU
            let tauLast = unwrapped(at: n0 &+ Int64(count - 1)) - a.onsetU
            if a.sustained ? (tauFirst >= a.attack ? tauLast <= a.end : false) : false {
                addOscillator(haptic, amplitudeRow(level, count), n0, from, count, a.phaseAnchor, a.anchorSample, a.inc)
                return
            }
        }
        let ua = uAnchor, na = nAnchor, r = rate
        let row = sharpConstant ? amplitudeRow(level, count) : amplitudeRowValues
        var j = from
        while j < count {
            let n = n0 &+ Int64(j)
            // A whole grid block at a constant frequency: the same per-sample formulas on
            // 8 lanes (envelope in double, amplitude from the shared row).
            if sharpConstant ? ((n & 7) == 0 ? count - j >= 8 : false) : false {
                let a = slot.pointee
                let lastTau = (ua + Double(n &+ 7 &- na) * r) - a.onsetU
                if !continuousIsOver(a, lastTau) {
                    let lanes = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)
                    let tau = (SIMD8(repeating: ua) + (SIMD8(repeating: Double(n &- na)) + lanes) * r) - a.onsetU
                    var g = SIMD8<Double>(repeating: 1)
                    var rise = tau * a.invAttack
                    rise.replace(with: 0, where: rise .< 0)
                    g.replace(with: rise, where: tau .< a.attack)
                    if !a.sustained {
                        var fall = 1 - (tau - a.attack) * a.invDecay
                        fall.replace(with: 0, where: fall .< 0)
                        g.replace(with: g * fall, where: tau .> a.attack)
                    }
                    var release = 1 - (tau - a.end) * a.invRelease
                    release.replace(with: 0, where: release .< 0)
                    g.replace(with: g * release, where: tau .> a.end)
                    let v = sin2piVector(gridPhases(a.phaseAnchor, a.anchorSample, a.inc, n))
                    let amps = UnsafeRawPointer(row + j).loadUnaligned(as: SIMD8<Float>.self)
                    let o = UnsafeMutableRawPointer(haptic + j)
                    o.storeBytes(of: o.loadUnaligned(as: SIMD8<Float>.self) + amps * SIMD8<Float>(g) * v, as: SIMD8<Float>.self)
                    j += 8
                    continue
                }
            }
            if !sharpConstant {
                reanchor(slot, n, frequency(sharpness: colour + Double(sharpness[j])) / fs)
            }
            if !intensityConstant { amp = amplitude(intensity: level * intensity[j]) }
            let a = slot.pointee
            let tau = (ua + Double(n &- na) * r) - a.onsetU
            if continuousIsOver(a, tau) {
                slot.pointee.done = true
                return
            }
            let phase = gridPhase(a.phaseAnchor, a.anchorSample, a.inc, n)
            haptic[j] += amp * envelope(a, tau) * sin2pi(phase)
            j += 1
        }
    }

    /// amplitude(level · intensity[j]) for the chunk, shared by every event with the same
    /// level (a thousand voices at one level compute it once per chunk).
    @inline(__always)
    func amplitudeRow(_ level: Float, _ count: Int) -> UnsafeMutablePointer<Float> {
        if !(amplitudeRowLevel == level) {
            let intensity = controls
            let row = amplitudeRowValues
            // A constant control: one value (what every lane below would compute).
            let constant = controlConstant[0]
            if constant { row.update(repeating: amplitude(intensity: level * intensity[0]), count: count) }
            // 8 lanes at a time, each lane the scalar `amplitude(intensity:)` (same operations).
            let table = flat.amplitudeTable.baseAddress!
            let halves = flat.amplitudeHalfPowers
            var j = constant ? count : 0
            while j + 8 <= count {
                var v = SIMD8(repeating: level) * UnsafeRawPointer(intensity + j).loadUnaligned(as: SIMD8<Float>.self)
                v.replace(with: 0, where: v .< 0)
                v.replace(with: 1, where: v .> 1)
                if halves != 0 {
                    if halves != 2 { v = halfPower(v, halves) }
                } else {
                    let x = v * Float(renderTableSize)
                    var low = SIMD8<Float>(), high = SIMD8<Float>(), f = SIMD8<Float>()
                    for l in 0..<8 {
                        let k = Swift.min(renderTableSize - 1, Int(x[l]))
                        f[l] = x[l] - Float(k)
                        low[l] = table[k]
                        high[l] = table[k + 1]
                    }
                    v = low + (high - low) * f
                }
                UnsafeMutableRawPointer(row + j).storeBytes(of: v, as: SIMD8<Float>.self)
                j += 8
            }
            while j < count {
                row[j] = amplitude(intensity: level * intensity[j])
                j += 1
            }
            amplitudeRowLevel = level
        }
        return amplitudeRowValues
    }

    @inline(__always)
    func panGains(_ pan: Double, stereo: Bool) -> (Float, Float) {
        let p = Swift.min(1, Swift.max(-1, pan))
        if stereo {
            // Balance: a stereo sound keeps both channels at pan 0.
            return (Float(Swift.min(1, 1 - p)), Float(Swift.min(1, 1 + p)))
        }
        // Equal power: cos/sin of (p + 1)·π/4.
        let theta = Float((p + 1) / 8)
        return (sin2pi(theta + 0.25), sin2pi(theta))
    }

    @inline(__always)
    func renderAudioCustom(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n0: Int64, _ from: Int, _ count: Int) {
        let a = slot.pointee
        let span = flat.sounds[a.sound]
        let frames = Int64(span.frames)
        let samples = flat.soundSamples.baseAddress! + span.offset
        let stereo = span.channels == 2
        let volume = controls + 5 * voiceChunk
        let pan = controls + 6 * voiceChunk
        let fade = audioFadeSamples
        let hasDuration = a.end.isFinite
        var j = from
        while j < count {
            let n = n0 &+ Int64(j)
            let k = n &- a.start &+ a.soundOffset
            let tau = unwrapped(at: n) - a.onsetU
            if hasDuration ? tau >= a.end : (k >= frames) {
                slot.pointee.done = true
                return
            }
            var frame: Int64 = k
            if k >= frames {
                if a.loop && frames > 0 { frame = k % frames } else { frame = -1 }
            }
            if frame >= 0 {
                var g = Float(Swift.min(1, Swift.max(0, a.level * Double(volume[j]))))
                if a.volumeEnvelope { g *= Float(Swift.min(1, Double(k + 1) / fade)) }
                // Fade before the end: always when truncating, with the volume envelope at the sound's end.
                if hasDuration {
                    // The event's end always fades (it truncates, or ends padding/looping).
                    g *= Float(Swift.min(1, (a.end - tau) / rate / fade))
                } else if a.volumeEnvelope {
                    g *= Float(Swift.min(1, Double(frames - k) / fade))
                }
                let (gl, gr) = panGains(a.pan + Double(pan[j]), stereo: stereo)
                if stereo {
                    left[j] += samples[Int(frame) * 2] * g * gl
                    right[j] += samples[Int(frame) * 2 + 1] * g * gr
                } else {
                    let s = samples[Int(frame)] * g
                    left[j] += s * gl
                    right[j] += s * gr
                }
            }
            j += 1
        }
    }

    @inline(__always)
    func renderAudioContinuous(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n0: Int64, _ from: Int, _ count: Int) {
        let volume = controls + 5 * voiceChunk
        let pan = controls + 6 * voiceChunk
        let pitch = controls + 7 * voiceChunk
        let brightness = controls + 8 * voiceChunk
        var j = from
        while j < count {
            let n = n0 &+ Int64(j)
            reanchor(slot, n, audioFrequency(pitch: slot.pointee.pitch + Double(pitch[j])) / fs)
            let a = slot.pointee
            let tau = unwrapped(at: n) - a.onsetU
            if continuousIsOver(a, tau) {
                slot.pointee.done = true
                return
            }
            let phase = fractionalPart(a.phaseAnchor + Double(n &- a.anchorSample) * a.inc)
            let b = Float(Swift.min(1, Swift.max(0, a.colour + Double(brightness[j]))))
            // Brightness adds the 2nd and 3rd harmonics (normalised so the peak stays ~1).
            let s1 = sin2pi(Float(phase))
            let s2 = sin2pi(Float(fractionalPart(2 * phase)))
            let s3 = sin2pi(Float(fractionalPart(3 * phase)))
            let wave = (s1 + b * (0.5 * s2 + 0.33 * s3)) / (1 + 0.83 * b)
            let g = Float(Swift.min(1, Swift.max(0, a.level * Double(volume[j])))) * envelope(a, tau)
            let (gl, gr) = panGains(a.pan + Double(pan[j]), stereo: false)
            left[j] += wave * g * gl
            right[j] += wave * g * gr
            j += 1
        }
    }
}

// MARK: - Kernels
// These live in this file on purpose: in unoptimised (debug) builds the @_noLocks
// checker can only verify functions whose bodies are in the same file as the caller.

extension ControlTimeline {
    /// Index of the last knot with time <= t, or -1 (binary search; no allocation).
    @inline(__always)
    static func lastIndex(_ knots: UnsafeBufferPointer<ControlKnot>, atOrBefore t: Double) -> Int {
        var lo = 0
        var hi = knots.count  // answer in [lo-1, hi-1]
        while lo < hi {
            let mid = (lo + hi) >> 1
            if knots[mid].time <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    /// Value of a piecewise-linear knot list at `t` (before the first knot: its value;
    /// after the last: held). Equal-time pairs resolve to the right (post-jump) value.
    @inline(__always)
    static func value(_ knots: UnsafeBufferPointer<ControlKnot>, at t: Double, neutral: Double) -> Double {
        if knots.isEmpty { return neutral }
        let i = lastIndex(knots, atOrBefore: t)
        if i < 0 { return knots[0].value }
        let k = knots[i]
        return k.value + (t - k.time) * k.slope
    }
}


/// x^(halves/2) for x in 0...1: one square root (`squareRootFast`) when `halves` is odd, then
/// whole powers by repeated products. The scalar and the 8-lane forms do the same operations,
/// so a lane gives the scalar's value to the bit.
@inline(__always)
func halfPower(_ x: Float, _ halves: Int) -> Float {
    var r: Float = halves & 1 == 1 ? squareRootFast(x) : 1
    var k = halves >> 1
    while k > 0 {
        r *= x
        k -= 1
    }
    return r
}

@inline(__always)
func halfPower(_ x: SIMD8<Float>, _ halves: Int) -> SIMD8<Float> {
    var r: SIMD8<Float> = halves & 1 == 1 ? squareRootFast(x) : SIMD8(repeating: 1)
    var k = halves >> 1
    while k > 0 {
        r *= x
        k -= 1
    }
    return r
}

/// √x for finite x >= 0, within 1 ulp (0 and 1 exact), from additions and products only: the
/// standard library's `squareRoot` falls back to libm's `sqrtf`, and its 8-lane form runs lane
/// by lane. The reciprocal root's bit-pattern estimate (3.4 % off), two Newton steps (5e-6),
/// then one correction of the root itself.
@inline(__always)
func squareRootFast(_ x: Float) -> Float {
    var r = Float(bitPattern: 0x5f37_59df &- (x.bitPattern &>> 1))
    let h = 0.5 * x
    r = r * (1.5 - h * r * r)
    r = r * (1.5 - h * r * r)
    let y = x * r
    return y + (x - y * y) * (0.5 * r)
}

@inline(__always)
func squareRootFast(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let bits = SIMD8<UInt32>(repeating: 0x5f37_59df) &- (unsafeBitCast(x, to: SIMD8<UInt32>.self) &>> 1)
    var r = unsafeBitCast(bits, to: SIMD8<Float>.self)
    let h = 0.5 * x
    r = r * (1.5 - h * r * r)
    r = r * (1.5 - h * r * r)
    let y = x * r
    return y + (x - y * y) * (0.5 * r)
}

/// sin(2πx) for x in [0, 1] (a phase in cycles); absolute error below 3e-7, exact zeros at
/// 0, ½ and 1. Branch- and select-free so that the 8-lane version is cheap on plain SSE2:
/// sin(2πx) = cos(2πw) with w = x - ¼ reduced to [-½, ½], = sin(π/2 · (1 - 4|w|)), and the
/// argument of that sine lies in [-π/2, π/2], where an odd Taylor polynomial is accurate.
@inline(__always)
func sin2pi(_ x: Float) -> Float {
    let u = x - 0.25
    let w = u - ((u + 12_582_912) - 12_582_912)  // u minus the nearest integer (1.5·2^23 trick)
    let y = (1 - 4 * abs(w)) * (Float.pi / 2)
    let y2 = y * y
    var p: Float = -2.5052108e-8
    p = p * y2 + 2.7557319e-6
    p = p * y2 - 1.9841270e-4
    p = p * y2 + 8.3333333e-3
    p = p * y2 - 1.6666667e-1
    p = p * y2 + 1
    return y * p
}

extension FlatPattern {
    /// The offset of the grain for a burst with this increment and length, or -1.
    @inline(__always)
    func grain(inc: Double, length: Int64) -> Int {
        var lo = 0
        var hi = grains.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if grains[mid].inc < inc { lo = mid + 1 } else { hi = mid }
        }
        if lo < grains.count && grains[lo].inc == inc && grains[lo].length == length { return grains[lo].offset }
        return -1
    }
}

/// A pattern control value combined with the live one (intensity and volume multiply, the
/// others add), in Float: the same operation on every path that fills a control.
@inline(__always)
func combineFloat(_ multiply: Bool, _ pattern: Float, _ live: Float) -> Float {
    multiply ? pattern * live : pattern + live
}

/// One transient burst's samples k0 ..< k0 + 8 before its amplitude: window(k)·sin(2π·k·inc)
/// at the sample centres k + ½ (the burst occupies [0, length) and is ~0 at both ends).
/// Each lane depends on its k only, so the precomputed grains and the bursts computed as
/// they play are the same numbers.
@inline(__always)
func transientLanes(_ k0: Int64, _ invLength: Double, _ inc: Double, hann: Bool) -> SIMD8<Float> {
    let lanes = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)
    let k = (SIMD8<Double>(repeating: Double(k0)) + lanes) + 0.5
    let w0 = sin2piVector(SIMD8<Float>(k * invLength * 0.5))
    let w = hann ? w0 * w0 : w0
    let x = k * inc
    let whole = (x + 6.755399441055744e15) - 6.755399441055744e15
    let s = sin2piVector(SIMD8<Float>(x - whole.replacing(with: whole - 1, where: whole .> x)))
    return w * s
}

/// A sharpness (0...1) → Hz through the prepared table (`renderTableSize + 1` entries,
/// log-frequency over the profile's band), linearly interpolated.
@inline(__always)
func frequencyForSharpness(_ sharpness: Double, _ table: UnsafePointer<Double>) -> Double {
    let n = Double(renderTableSize)
    let x = Swift.min(1, Swift.max(0, sharpness)) * n
    let i = Swift.min(renderTableSize - 1, Int(x))
    let f = x - Double(i)
    return table[i] + (table[i + 1] - table[i]) * f
}

/// A transient's oscillator increment and burst length for its (controlled) sharpness: one
/// computation for the voice and for the grains precomputed at preparation.
struct TransientGeometry {
    /// Cycles per sample.
    var inc: Double
    /// Burst length in samples (>= 1).
    var length: Int64
    var invLength: Double

    /// `cycles` > 0: the burst lasts that many periods; else `fixedSamples`.
    @inline(__always)
    init(sharpness: Double, frequencyTable: UnsafePointer<Double>, sampleRate: Double, cycles: Double, fixedSamples: Double) {
        let f = frequencyForSharpness(sharpness, frequencyTable)
        inc = f / sampleRate
        let samples = cycles > 0 ? cycles / f * sampleRate : fixedSamples
        length = Swift.max(1, Int64(roundFast(samples)))
        invLength = 1 / Double(length)
    }
}

/// The phase (in cycles, [0, 1)) of a continuous oscillator at output sample n >= 0.
///
/// Evaluated on a grid of 8 samples fixed to the absolute sample index: the phase at the grid
/// point g = n rounded down to a multiple of 8 in double precision from the anchor (exact over
/// any length), then n - g increments in Float. The value depends on n only, never on how
/// the samples were split into blocks, and `gridPhases` computes the same values 8 at a time.
@inline(__always)
func gridPhase(_ anchor: Double, _ base: Int64, _ inc: Double, _ n: Int64) -> Float {
    let g = n & ~7
    let pg = Float(fractionalPart(anchor + Double(g &- base) * inc))
    let x = pg + Float(n &- g) * Float(inc)
    return x >= 1 ? x - 1 : x
}

/// `gridPhase` for the 8 samples g ..< g + 8 (g a multiple of 8); identical values.
@inline(__always)
func gridPhases(_ anchor: Double, _ base: Int64, _ inc: Double, _ g: Int64) -> SIMD8<Float> {
    let pg = Float(fractionalPart(anchor + Double(g &- base) * inc))
    let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
    var x = SIMD8<Float>(repeating: pg) + lanes * Float(inc)
    x.replace(with: x - 1, where: x .>= 1)
    return x
}

/// `sin2pi` on 8 lanes: the same operations in the same order, so identical values.
@inline(__always)
func sin2piVector(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let u = x - 0.25
    let w = u - ((u + 12_582_912) - 12_582_912)
    let magnitude = unsafeBitCast(unsafeBitCast(w, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
    let y = (1 - 4 * magnitude) * (Float.pi / 2)
    let y2 = y * y
    var p = SIMD8<Float>(repeating: -2.5052108e-8)
    p = p * y2 + 2.7557319e-6
    p = p * y2 - 1.9841270e-4
    p = p * y2 + 8.3333333e-3
    p = p * y2 - 1.6666667e-1
    p = p * y2 + 1
    return y * p
}

/// out[j] += amp[j] · sin(2π·gridPhase(n0 + j)) for j in from ..< count, 8 grid-aligned
/// samples at a time (the partial grid blocks at either end take the same lanes one by one).
@inline(__always)
func addOscillator(
    _ out: UnsafeMutablePointer<Float>, _ amp: UnsafeMutablePointer<Float>, _ n0: Int64, _ from: Int, _ count: Int,
    _ anchor: Double, _ base: Int64, _ inc: Double
) {
    var n = n0 &+ Int64(from)
    let end = n0 &+ Int64(count)
    while n < end {
        let g = n & ~7
        let v = sin2piVector(gridPhases(anchor, base, inc, g))
        if n == g && end &- g >= 8 {
            let j = Int(g &- n0)
            let o = UnsafeMutableRawPointer(out + j)
            let a = UnsafeRawPointer(amp + j).loadUnaligned(as: SIMD8<Float>.self)
            o.storeBytes(of: o.loadUnaligned(as: SIMD8<Float>.self) + a * v, as: SIMD8<Float>.self)
            n = g &+ 8
        } else {
            let stop = Swift.min(end, g &+ 8)
            while n < stop {
                let j = Int(n &- n0)
                out[j] += amp[j] * v[Int(n &- g)]
                n &+= 1
            }
        }
    }
}

/// The fractional part of `x` (in [0, 1)), without libm.
@inline(__always)
func fractionalPart(_ x: Double) -> Double {
    x - floorFast(x)
}

/// floor(x) (values with |x| >= 2^51 are returned as they are: they are integers or too large
/// to matter here). Written with plain arithmetic because `rounded(_:)` goes through a generic rounding
/// rule that the real-time checker rejects in unoptimised builds.
@inline(__always)
func floorFast(_ x: Double) -> Double {
    // Adding and removing 1.5·2^52 rounds to an integer (the sum lies in [2^52, 2^53), where
    // the spacing of doubles is 1) for |x| < 2^51; step down if it rounded up.
    if !(abs(x) < 2.251799813685248e15) { return x }
    let r = (x + 6.755399441055744e15) - 6.755399441055744e15
    return r > x ? r - 1 : r
}

/// The fractional part of x for 0 <= x < 2^51 (oscillator phases): branch-free, so loops vectorise.
@inline(__always)
func phaseFraction(_ x: Double) -> Double {
    let r = (x + 6.755399441055744e15) - 6.755399441055744e15
    return x - (r > x ? r - 1 : r)
}

/// ceil(x), same domain as `floorFast`.
@inline(__always)
func ceilFast(_ x: Double) -> Double {
    -floorFast(-x)
}

/// Rounds half away from zero (like `rounded()`), same domain as `floorFast`.
@inline(__always)
func roundFast(_ x: Double) -> Double {
    x >= 0 ? floorFast(x + 0.5) : -floorFast(-x + 0.5)
}

/// 2^x in double precision (relative error ~1e-12). Not on the hot path; used to
/// build tables and convert decibels.
func exp2Double(_ x: Double) -> Double {
    if x.isNaN { return .nan }
    if x > 1023 { return .infinity }
    if x < -1074 { return 0 }
    let whole = floorFast(x)
    let y = (x - whole) * 0.6931471805599453  // ln 2
    // e^y for y in [0, ln 2): Taylor series to y^14/14! (error < 1e-14), by Horner with the
    // coefficients 1/k! (no divisions: preparing a pattern evaluates this thousands of times).
    var p = 1.0 / 87_178_291_200
    p = p * y + 1.0 / 6_227_020_800
    p = p * y + 1.0 / 479_001_600
    p = p * y + 1.0 / 39_916_800
    p = p * y + 1.0 / 3_628_800
    p = p * y + 1.0 / 362_880
    p = p * y + 1.0 / 40_320
    p = p * y + 1.0 / 5_040
    p = p * y + 1.0 / 720
    p = p * y + 1.0 / 120
    p = p * y + 1.0 / 24
    p = p * y + 1.0 / 6
    p = p * y + 0.5
    p = p * y + 1
    p = p * y + 1
    return p * Double(sign: .plus, exponent: Int(whole), significand: 1)
}

/// log2(x) for x > 0 in double precision (error ~1e-13); -inf for 0.
func log2Double(_ x: Double) -> Double {
    precondition(!(x < 0), "log2 of a negative number")
    if x == 0 { return -.infinity }
    if x.isInfinite { return .infinity }
    var e = Double(x.exponent)
    var m = x.significand  // [1, 2)
    if m > 1.4142135623730951 {
        m /= 2
        e += 1
    }
    // ln m = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716.
    let s = (m - 1) / (m + 1)
    let s2 = s * s
    var sum = 0.0
    var power = s
    var k = 1.0
    while k < 40 {
        sum += power / k
        power *= s2
        k += 2
    }
    return e + 2 * sum / 0.6931471805599453
}

/// x^y for x >= 0 (0^y = 0 for y > 0, 1 for y == 0).
func powDouble(_ x: Double, _ y: Double) -> Double {
    if y == 0 { return 1 }
    if x == 0 { return 0 }
    return exp2Double(y * log2Double(x))
}

/// Decibels to a linear gain.
func decibelsToGain(_ db: Double) -> Double {
    exp2Double(db * 0.16609640474436813)  // log2(10) / 20
}

/// A linear gain to decibels (-inf for 0).
public func gainToDecibels(_ gain: Double) -> Double {
    20 * log2Double(abs(gain)) * 0.30102999566398120  // log10(2)
}
