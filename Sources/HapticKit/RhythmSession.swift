// The rhythm chapter's session, shared by `hapticsynth rhythm`, the lockstep tests and
// rhythm-bench: every beat scheduled a little ahead of time through HapticManager.

import HapticEngine

/// Plays a beat map through a ``HapticManager``: each beat's cue is scheduled `lead`
/// seconds ahead of its time, its haptic part and its sound together. Afterwards
/// ``report(sampleRate:)`` says where every part landed.
///
/// The beat grid's clock:
/// - One stream (sound and haptics on one device): the device's clock is the master, as in
///   rhythm games. The grid is anchored once, at the first beat: F0 = the engine's
///   `frame(forTime:)` of the first beat's monotonic time; beat k then plays at device frame
///   F0 + round((t_k − t_0)·fs) (``HapticManager/playTracked(cue:atFrame:)``), so consecutive
///   beats are exactly round(Δ·fs) samples apart by construction, with no re-anchoring of
///   the engine's schedule grid in between. The price, and the point: the beats follow the
///   device's clock, not CLOCK_MONOTONIC, so over a session they drift from the monotonic
///   schedule by the device's rate error × elapsed time (PulseAudio's null sink here runs
///   +70…+360 ppm: e.g. 4 ms early after 38 s at +110 ppm). What plays with the beats on
///   the same device (the music) runs on the same clock, which is what a player hears.
///   If the engine is replaced (a reset), the grid is re-anchored on the new engine.
/// - Two devices: each beat is scheduled at its monotonic time on both engines
///   (``HapticManager/playTracked(cue:atTime:)``), each placed by its own device's mapping —
///   that is what keeps two devices with different clocks aligned.
public final class RhythmSession {
    /// One scheduled beat.
    public struct Beat: Sendable {
        public var index: Int
        /// Monotonic seconds the beat was meant for (in one stream it plays on the
        /// device-clocked grid, which drifts from this by the device's rate error).
        public var time: Double
        /// What started (nil: nothing could start, e.g. the engine was unavailable).
        public var playback: HapticManager.CuePlayback?
        /// The cue's alignment on the engine it was fired on (the planned skew, the felt onsets).
        public var alignment: CueAlignment?
    }

    public let manager: HapticManager
    public let cue: String
    public let map: BeatMap
    /// Seconds ahead of a beat at which it is scheduled.
    public let lead: Double
    /// Monotonic seconds of the map's time 0 (set by ``run(startingAt:settle:tail:wait:shouldStop:)``).
    public private(set) var origin: Double = 0
    /// Beats scheduled so far.
    public private(set) var beats: [Beat] = []
    /// The engines the beats played on (kept past `shutDown()` for their traces).
    public private(set) var engines: [HapticEngine] = []

    public init(manager: HapticManager, cue: String, map: BeatMap, lead: Double) {
        self.manager = manager
        self.cue = cue
        self.map = map
        self.lead = lead
    }

    /// Mapping snapshots of every engine, taken whenever the session woke up (monotonic
    /// time, engine → mapping): a beat's frames are turned into times with the first
    /// snapshot taken after it played, not with the mapping of scheduling time.
    private var snapshots: [(time: Double, mappings: [ObjectIdentifier: FrameMapping])] = []

    private func snapshot() {
        var all: [ObjectIdentifier: FrameMapping] = [:]
        for engine in [manager.currentEngine, manager.currentAudioEngine].compactMap({ $0 }) {
            all[ObjectIdentifier(engine)] = engine.frameMapping
            if !engines.contains(where: { $0 === engine }) { engines.append(engine) }
        }
        snapshots.append((manager.currentTime, all))
    }

    /// Schedules every beat and waits until they have played. First it lets the engines'
    /// frame/time mappings lock and settle (`settle` seconds after each has a device
    /// timestamp); then it waits (with `wait`, until a monotonic time) until `lead` before
    /// each beat (in one stream: before the time its device frame plays) and fires the cue for it. `origin` nil: the first beat comes `lead` (or the
    /// output latency, if larger) after the settling. Stops early when `shouldStop` says so.
    /// Returns when the last beat's parts and `tail` seconds after them have played.
    public func run(startingAt origin: Double? = nil, settle: Double = 1.0, tail: Double = 0.1,
                    wait: (Double) -> Void, shouldStop: () -> Bool = { false }) {
        var engines = [manager.currentEngine, manager.currentAudioEngine].compactMap { $0 }
        var lockedAt = manager.currentTime
        let giveUp = lockedAt + 5
        while !shouldStop() && manager.currentTime < giveUp {
            engines = [manager.currentEngine, manager.currentAudioEngine].compactMap { $0 }
            if engines.allSatisfy({ $0.frameMapping.isLocked }) { break }
            wait(manager.currentTime + 0.01)
            lockedAt = manager.currentTime
        }
        let latency = engines.map(\.outputLatency).max() ?? 0
        self.origin = origin ?? (lockedAt + settle + max(lead, latency + 0.02))
        var end = self.origin
        // One stream: the beat grid on device frames, anchored at the first beat (see the type's doc).
        var anchor: (engine: HapticEngine, frame: Int64, time: Double)? = nil
        func gridFrame(_ t: Double) -> Int64? {
            guard let anchor else { return nil }
            let fs = Double(anchor.engine.configuration.sampleRate)
            return anchor.frame + Int64(((t - anchor.time) * fs).rounded())
        }
        for (index, t) in map.times.enumerated() {
            let time = self.origin + t
            // On the device-clocked grid, wake `lead` before the beat's frame plays (a fast device
            // brings the beats forward; waking by the monotonic time alone would, over a long
            // session, come later than the beat's frame).
            var wake = time - lead
            if let anchor, anchor.engine === manager.currentEngine, let frame = gridFrame(t) {
                wake = min(wake, anchor.engine.time(forFrame: frame) - lead)
            }
            wait(wake)
            if shouldStop() { break }
            snapshot()
            let playback: HapticManager.CuePlayback?
            if !manager.isTwoDevice, let engine = manager.currentEngine {
                if anchor == nil || anchor!.engine !== engine {
                    anchor = (engine, engine.frame(forTime: time), t)
                }
                playback = manager.playTracked(cue: cue, atFrame: gridFrame(t)!)
            } else {
                playback = manager.playTracked(cue: cue, atTime: time)
            }
            for part in [playback?.haptic, playback?.audio].compactMap({ $0 }) {
                if !self.engines.contains(where: { $0 === part.engine }) { self.engines.append(part.engine) }
                end = max(end, part.time + part.player.pattern.duration)
            }
            beats.append(Beat(index: index, time: time, playback: playback, alignment: manager.cueAlignment(cue)))
        }
        if !shouldStop() { wait(end + tail) }
        snapshot()
    }

    /// The first snapshot of `engine`'s mapping taken at least 50 ms after `time` (else the last).
    /// Snapshots are in time order: a binary search finds the first candidate (a report asks
    /// once per part, so a linear search made long sessions quadratic).
    func mapping(of engine: HapticEngine, after time: Double) -> FrameMapping? {
        let id = ObjectIdentifier(engine)
        var low = 0, high = snapshots.count
        while low < high {
            let mid = (low + high) / 2
            if snapshots[mid].time >= time + 0.05 { high = mid } else { low = mid + 1 }
        }
        return snapshots[low...].first { $0.mappings[id] != nil }?.mappings[id]
            ?? snapshots.last { $0.mappings[id] != nil }?.mappings[id]
    }

    /// Where every beat's parts landed, from the engines' applied-start traces (read them
    /// only once the engines are stopped, or from a manual-drive thread).
    public func report(sampleRate: Int) -> RhythmReport {
        // Per engine, once: its applied starts by slot, and the output stage's look-ahead (a
        // voice starts that many frames before the frame it is heard at: the engine renders it
        // that much early so that the frame playing at T carries the onset).
        var starts: [ObjectIdentifier: (bySlot: [Int32: [AppliedStart]], lookahead: Int64)] = [:]
        for engine in engines {
            starts[ObjectIdentifier(engine)] = (Dictionary(grouping: engine.appliedStarts(), by: \.slot),
                                                Int64(engine.outputStageLatencyFrames))
        }
        let fs = Double(sampleRate)
        func landed(_ part: HapticManager.CuePart?) -> RhythmReport.Onset? {
            guard let part, let slot = part.slot, let engine = starts[ObjectIdentifier(part.engine)] else { return nil }
            let candidates = engine.bySlot[slot] ?? []
            let lookahead = engine.lookahead
            guard let hit = candidates.min(by: { abs($0.frame + lookahead - part.predictedFrame) < abs($1.frame + lookahead - part.predictedFrame) }),
                  abs(hit.frame + lookahead - part.predictedFrame) < Int64(fs * 0.1) else { return nil }
            let out = hit.frame + lookahead
            return RhythmReport.Onset(
                device: part.engine.deviceName ?? "?", startFrame: hit.frame, outputFrame: out,
                predictedFrame: part.predictedFrame,
                time: mapping(of: part.engine, after: part.time)?.time(forFrame: out) ?? part.mapping.time(forFrame: out))
        }
        var rows: [RhythmReport.Row] = []
        for beat in beats {
            let haptic = landed(beat.playback?.haptic), audio = landed(beat.playback?.audio)
            var skewSamples: Double? = nil
            if let haptic, let audio {
                if haptic.device == audio.device && beat.playback?.haptic?.engine === beat.playback?.audio?.engine {
                    skewSamples = Double(audio.outputFrame - haptic.outputFrame)
                } else {
                    skewSamples = (audio.time - haptic.time) * fs
                }
            }
            // The alignment's frames are the haptic engine's; the report's are at `sampleRate`.
            let scale = beat.alignment.map { fs / Double($0.sampleRate) } ?? 1
            let planned = beat.alignment.map { Double($0.plannedSkewFrames) * scale }
            let felt = skewSamples.flatMap { skew in
                beat.alignment.flatMap { a in a.feltSkewFrames(sampleSkew: 0).map { skew + $0 * scale } }
            }
            rows.append(RhythmReport.Row(
                beat: beat.index + 1, scheduled: beat.time, offset: beat.time - origin, audio: audio, haptic: haptic,
                skewSamples: skewSamples, skewMs: skewSamples.map { $0 / fs * 1000 },
                plannedSkewSamples: planned, feltSkewMs: felt.map { $0 / fs * 1000 }))
        }
        return RhythmReport(cue: cue, sampleRate: sampleRate, bpm: map.bpm, lead: lead, origin: origin,
                            twoDevice: manager.isTwoDevice, rows: rows, times: map.times)
    }
}
