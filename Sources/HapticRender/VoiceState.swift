// A voice's preallocated, pointer-addressed state: its clock and its buffers. The block loop
// (VoiceState+Render.swift), event starts, per-kind renderers, controls and fades are
// extensions in the files named VoiceState+*.swift.
//
// Functions in other files that the @_noLocks render path calls carry @_noLocks themselves:
// in unoptimised (debug) builds the checker cannot see a body in another file, and it
// accepts a call to a function that is checked where it is defined. The kernels in HapticDSP
// are `@inlinable package` and @_noLocks, so calls into that module are checked the same way
// (Swift 6.3.1: an unannotated, non-inlinable callee there is rejected).

import HapticDSP
import HapticPattern

/// Frames per internal chunk (scratch size). A computed global: no lazy initialisation
/// or type metadata on the render path. Samples do not depend on it (every value is a
/// function of the absolute sample index); 512 rather than 256 halves the per-chunk set-up
/// (control rows, amplitude row, event starts): the voice renders warmth.ahap about 5 %
/// faster, with the same output bits (bench/RESULTS.md, issue 15). Costs 12 KB more per voice.
var voiceChunk: Int { @_noLocks @inline(__always) get { 512 } }
/// Rows of a voice's control tables: one per dynamic parameter (`DynamicParameterID.count`,
/// counted from its cases). Read only where the tables are made and copied, off the render thread.
var voiceControlCount: Int { DynamicParameterID.count }
/// Entries - 1 of the sharpness→frequency, pitch→frequency and intensity→amplitude tables.
@inlinable package var renderTableSize: Int { @_noLocks @inline(__always) get { 1024 } }


/// Runs the voice's vector kernels once per process on scratch memory (a global's one-time
/// initialisation, reached only from `VoiceState.init`, off the render thread): in
/// unoptimised builds their first use instantiates generic type metadata, which allocates.
/// Process-wide: a one-time effect (that metadata stays instantiated); nothing else changes.
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
    let transientRule: TransientRule
    let attackMin: Double, attackLog: Double
    let decayMin: Double, decayLog: Double
    let releaseMin: Double, releaseLog: Double
    let fadeSamples: Double
    /// A live step's ramp (`PreparedPattern.stepRampSeconds`) in frames.
    let stepRampFrames: Int64

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
        transientRule = p.transientRule(sampleRate: pattern.sampleRate)
        attackMin = p.envelope.attack.min
        attackLog = log2Double(p.envelope.attack.max / p.envelope.attack.min)
        decayMin = p.envelope.decay.min
        decayLog = log2Double(p.envelope.decay.max / p.envelope.decay.min)
        releaseMin = p.envelope.release.min
        releaseLog = log2Double(p.envelope.release.max / p.envelope.release.min)
        fadeSamples = (PreparedPattern.fadeSeconds * pattern.sampleRate).rounded()
        stepRampFrames = Self.rampFrames(PreparedPattern.stepRampSeconds, fs: pattern.sampleRate)
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

    @_noLocks @inline(__always)
    func unwrapped(at n: Int64) -> Double {
        uAnchor + Double(n &- nAnchor) * rate
    }

    @_noLocks @inline(__always)
    func patternPosition(at n: Int64) -> Double {
        unwrapped(at: n) - pOffset
    }

    /// The first output sample n (any n, not only >= now) with P(n) >= target. A target
    /// more than 10^15 samples (about 660 years at 48 kHz) away, or not a number, gives
    /// nAnchor ± 10^15: a sample no render reaches.
    ///
    /// Bounded: the closed-form estimate is off by a rounding at most, and the exact formula
    /// corrects it in at most `maximumCorrection` steps each way (never a number of steps that
    /// a pattern's values choose: an event at 3e10 s used to walk 10^15 samples here).
    @_noLocks @inline(__always)
    func firstSample(reaching target: Double) -> Int64 {
        let x = ceilFast((target + pOffset - uAnchor) / rate)
        let far = 1e15
        if !(x < far) { return nAnchor &+ Int64(far) }
        if !(x > -far) { return nAnchor &- Int64(far) }
        var n = nAnchor &+ Int64(x)
        var steps = 0
        // (No && in the conditions: its autoclosure would retain self on the render path.)
        while steps < maximumCorrection {
            if patternPosition(at: n &- 1) < target { break }
            n &-= 1
            steps += 1
        }
        steps = 0
        while steps < maximumCorrection {
            if patternPosition(at: n) >= target { break }
            n &+= 1
            steps += 1
        }
        return n
    }

    /// See `firstSample(reaching:)`.
    @inline(__always) var maximumCorrection: Int { 8 }

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
}
