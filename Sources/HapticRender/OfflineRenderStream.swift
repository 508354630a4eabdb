import HapticDSP
import HapticPattern

/// Renders a prepared pattern block by block, for writers that stream to a file.
/// The output starts at pattern time 0 (the limiter's look-ahead is compensated); it lasts
/// the pattern's duration plus the tail, and with `.silence` (the default) until it is silent.
public struct OfflineRenderStream {
    public let pattern: PreparedPattern
    public let layout: ChannelLayout
    /// Frames the stream will produce in total: known from the start with `.exactLength`; with
    /// `.silence` it grows past the nominal length in steps of `silenceStepFrames` until the
    /// output is silent (never beyond `maximumFrames`). Any block sizes give the same end.
    public private(set) var totalFrames: Int
    /// The pattern's duration plus the tail, in frames.
    public let nominalFrames: Int
    /// The most frames `.silence` may add up to.
    public let maximumFrames: Int
    /// The most frames the stream can produce in all: the nominal length with `.exactLength`,
    /// else `maximumFrames` (the longest ring-out counted). A writer chooses its format from it.
    public var mostFrames: Int { ending == .exactLength ? nominalFrames : maximumFrames }
    public let ending: RenderEnding
    /// `.silence` may run this much past the nominal end (``RingOutMeter``'s bound).
    public static let maximumExtraSeconds = RingOutMeter.maximumExtraSeconds
    /// The level below which the output counts as silent: -90 dBFS (``RingOutMeter``'s).
    public static let silenceLevel = RingOutMeter.silenceLevel
    /// `.silence` extends the render in steps of this many frames (10 ms at 48 kHz).
    public static let silenceStepFrames = 480
    /// `.exactLength`: the length of the closing fade.
    public static let endFadeSeconds = 0.005
    public var channels: Int { layout.channels }
    /// Frames produced so far.
    public private(set) var framesWritten = 0
    /// Largest |sample| so far.
    public private(set) var peak: Float = 0
    public var eventsRendered: Int { voice.eventsStarted }
    public var isFinished: Bool {
        if framesWritten < totalFrames { return false }
        if ending == .exactLength || totalFrames >= maximumFrames { return true }
        return voicesFinished && ringOut.hasRungOut
    }

    /// The voice of the first actuator (it renders the sound too).
    var voice: PatternVoice
    /// One voice per further actuator profile the layout names (`OutputStage.actuators`).
    var actuatorVoices: [PatternVoice]
    var voicesFinished: Bool { voice.isFinished && actuatorVoices.allSatisfy(\.isFinished) }
    var stage: OutputStage
    /// What the stream was made with (for `renderedLength()`, which makes a fresh one).
    let stageProfile: ActuatorProfile
    let tail: Double
    let blockSize: Int
    var framesToSkip: Int
    let haptic: UnsafeMutablePointer<Float>
    let left: UnsafeMutablePointer<Float>
    let right: UnsafeMutablePointer<Float>
    let interleaved: UnsafeMutablePointer<Float>
    let owner: BufferOwner
    /// Whether anything writes or reads the audio buses (otherwise they are not cleared).
    let needsAudioBuses: Bool
    /// `.silence`: whether the output has rung out.
    var ringOut: RingOutMeter
    let endFadeFrames: Int

    /// - Parameters:
    ///   - profile: the profile for the output stage (nil: the one the pattern was prepared for).
    ///   - layout: nil means the pattern's default layout.
    ///   - tail: extra seconds after the pattern's end (releases ring out).
    ///   - ending: `.silence` (go on until the output is silent) or `.exactLength`.
    ///   - blockSize: frames per internal block (any value gives identical samples).
    public init(
        pattern: PreparedPattern, profile: ActuatorProfile? = nil, layout: ChannelLayout? = nil,
        tail: Double = 0, ending: RenderEnding = .silence, blockSize: Int = 1024
    ) {
        self.pattern = pattern
        let layout = layout ?? pattern.defaultLayout
        self.layout = layout
        let tailFrames = tail.isFinite && tail > 0 ? Int((min(tail, Limits.maxOutputSeconds) * pattern.sampleRate).rounded()) : 0
        nominalFrames = pattern.frameCount + tailFrames
        totalFrames = nominalFrames
        self.ending = ending
        maximumFrames = nominalFrames + Int(Self.maximumExtraSeconds * pattern.sampleRate)
        let stageProfile = profile ?? pattern.profile
        ringOut = RingOutMeter(profile: stageProfile, sampleRate: pattern.sampleRate)
        self.stageProfile = stageProfile
        self.tail = tail
        endFadeFrames = max(1, Int((Self.endFadeSeconds * pattern.sampleRate).rounded()))
        stage = OutputStage(profile: stageProfile, sampleRate: pattern.sampleRate, layout: layout)
        // A layout naming profiles gets one voice per distinct profile; otherwise the pattern
        // plays as prepared (the profile then shapes the output stage only, as it always has).
        let actuators = stage.actuators
        if layout.profiles.contains(where: { $0 != nil }) {
            voice = PatternVoice(pattern: pattern.variant(for: actuators[0], withSound: true))
            actuatorVoices = actuators.dropFirst().map { PatternVoice(pattern: pattern.variant(for: $0)) }
        } else {
            voice = PatternVoice(pattern: pattern)
            actuatorVoices = []
        }
        self.blockSize = max(1, blockSize)
        framesToSkip = stage.latencyFrames
        haptic = .allocate(capacity: self.blockSize * actuators.count)
        left = .allocate(capacity: self.blockSize)
        right = .allocate(capacity: self.blockSize)
        interleaved = .allocate(capacity: self.blockSize * max(1, layout.channels))
        owner = BufferOwner([haptic, left, right, interleaved])
        needsAudioBuses = pattern.hasAudio || stage.usesAudioBuses
    }

    /// The frames this stream produces in all, known before its first sample: the nominal
    /// length with `.exactLength`; with `.silence` found by rendering a fresh stream made the
    /// same way to its end, samples dropped (the render is deterministic and its end does not
    /// depend on block sizes). For a header that must hold the length up front (WAV on a
    /// pipe); it costs one more render. This stream is not touched.
    public func renderedLength() -> Int {
        if ending == .exactLength { return nominalFrames }
        var fresh = OfflineRenderStream(pattern: pattern, profile: stageProfile, layout: layout, tail: tail, ending: ending, blockSize: blockSize)
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 4096 * max(1, fresh.channels))
        defer { block.deallocate() }
        while fresh.render(into: block, maxFrames: 4096) > 0 {}
        return fresh.framesWritten
    }

    /// The protection chain's ceiling as a linear sample value.
    public var ceiling: Float { stage.ceiling }

    /// Whether the protection chain's limiters meter their gain (off by default; see
    /// `takeLowestGains()`). Set it before the first `render` call.
    public var metersGain: Bool {
        get { stage.metersGain }
        set { stage.metersGain = newValue }
    }

    /// With `metersGain`: the lowest gain (1: no reduction) the haptic and audio limiters
    /// applied to the frames written since the last call (the first call: since frame 0).
    public mutating func takeLowestGains() -> (haptic: Float, audio: Float) { stage.takeLowestGains() }

    /// Writes up to `maxFrames` interleaved frames to `output`; returns how many (0 at the end).
    public mutating func render(into output: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        let start = framesWritten
        var written = 0
        let ch = layout.channels
        while written < maxFrames {
            if framesWritten >= totalFrames {
                // `.silence`: past the nominal end, one more block unless the voice has finished
                // and the output has been quiet long enough.
                guard ending == .silence, totalFrames < maximumFrames,
                    !(voicesFinished && ringOut.hasRungOut)
                else { break }
                // A fixed step (not the block size), so the end is the same whatever the calls.
                totalFrames = min(maximumFrames, totalFrames + Self.silenceStepFrames)
            }
            // The look-ahead is skipped in blocks of its own (any split gives the same samples),
            // so that the gain meters start at frame 0.
            let want = framesToSkip > 0
                ? min(blockSize, framesToSkip) : min(blockSize, maxFrames - written, totalFrames - framesWritten)
            // Past the look-ahead, a haptic-only mono layout is mixed and processed right in the
            // caller's buffer (the stage then has nothing to copy).
            let inPlace = framesToSkip == 0 && stage.passesHapticBusThrough
            let h = inPlace ? output + written : haptic
            let buses = actuatorVoices.count + 1
            for k in 0..<buses { (h + k * blockSize).update(repeating: 0, count: want) }
            if needsAudioBuses {
                left.update(repeating: 0, count: want)
                right.update(repeating: 0, count: want)
            }
            var bus = MixBus(haptic: h, audioLeft: left, audioRight: right, frames: want)
            bus.hapticBusCount = buses
            bus.hapticStride = blockSize
            voice.render(into: bus.actuator(0))
            for k in actuatorVoices.indices { actuatorVoices[k].render(into: bus.actuator(k + 1)) }
            if framesToSkip == 0 {
                // Past the look-ahead: straight into the caller's buffer (one pass less).
                let target = output + written * ch
                stage.process(bus, into: target)
                let blockPeak = peakMagnitude(target, want * ch)
                peak = max(peak, blockPeak)
                ringOut.note(peak: blockPeak, target, frames: want, channels: ch)
                written += want
                framesWritten += want
                continue
            }
            stage.process(bus, into: interleaved)
            framesToSkip -= want
            if framesToSkip == 0 { _ = stage.takeLowestGains() }
        }
        if ending == .exactLength { fadeEnd(output, from: start, count: written) }
        return written
    }

    /// `.exactLength`: the last `endFadeFrames` frames fade linearly to 0 (the final frame is 0).
    func fadeEnd(_ output: UnsafeMutablePointer<Float>, from start: Int, count: Int) {
        let fadeStart = totalFrames - endFadeFrames
        if start + count <= fadeStart { return }
        let ch = layout.channels
        for i in max(0, fadeStart - start)..<count {
            let remaining = totalFrames - 1 - (start + i)
            let g = Float(remaining) / Float(endFadeFrames)
            for c in 0..<ch { output[i * ch + c] *= g }
        }
    }
}

/// Frees the stream's scratch buffers when the last copy of the stream goes away.
final class BufferOwner {
    let buffers: [UnsafeMutablePointer<Float>]
    init(_ buffers: [UnsafeMutablePointer<Float>]) { self.buffers = buffers }
    deinit { for b in buffers { b.deallocate() } }
}
