// The rhythm chapter's machinery, shared by `hapticsynth rhythm`, the lockstep tests and
// rhythm-bench: beat maps (from a tempo or a file), a session that schedules every beat a
// little ahead of time through HapticManager, and the report of where each part landed.

import HapticEngine
import HapticPattern
import HapticRender

// MARK: - beat maps

/// Beat times in seconds from the first beat's reference point (the session's start).
public struct BeatMap: Sendable, Equatable {
    /// Strictly increasing, finite, ≥ 0.
    public var times: [Double]
    /// The tempo when the map was made from one (nil for a file).
    public var bpm: Double?

    /// `beats` beats at `bpm` beats per minute, the first at 0.
    public init(bpm: Double, beats: Int) {
        let spacing = 60 / bpm
        times = (0..<max(0, beats)).map { Double($0) * spacing }
        self.bpm = bpm
    }

    /// Explicit times (validated by ``parse(_:source:)`` when they come from a file).
    public init(times: [Double]) {
        self.times = times
        bpm = nil
    }

    /// The most beats a map may hold (a session schedules one cue per beat).
    public static let maximumBeats = 100_000

    /// Reads a beat map file. Two formats, told apart by the first non-blank character:
    /// - JSON: `[0.0, 0.6, 1.2]` or `{"beats": [0.0, 0.6, 1.2]}` (seconds);
    /// - text: one time in seconds per line; blank lines and `#` comments are ignored.
    /// Times must be finite, ≥ 0 and strictly increasing; at least one, at most ``maximumBeats``.
    public static func parse(_ bytes: [UInt8], source: String) throws(BeatMapError) -> BeatMap {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw BeatMapError(source: source, location: "", message: "not UTF-8 text")
        }
        let trimmed = text.drop { $0.isWhitespace }
        var times: [Double] = []
        if trimmed.first == "[" || trimmed.first == "{" {
            let isObject = trimmed.first == "{"
            let prefix = isObject ? "beats" : ""
            let document: JSONValue
            do { document = try JSONValue.parse(bytes) } catch {
                throw BeatMapError(source: source, location: "", message: "not valid JSON (expected [seconds...] or {\"beats\": [seconds...]}): \(error)")
            }
            let list = isObject ? document["beats"] : document
            guard case .array(let items)? = list else {
                throw BeatMapError(source: source, location: "", message: "JSON object without a \"beats\" array")
            }
            for (i, item) in items.enumerated() {
                switch item {
                case .number(let t): times.append(t)
                case .null: throw BeatMapError(source: source, location: "\(prefix)[\(i)]", message: "expected a number of seconds, found null")
                default: throw BeatMapError(source: source, location: "\(prefix)[\(i)]", message: "expected a number of seconds")
                }
            }
            try check(times, source: source) { "\(prefix)[\($0)]" }
        } else {
            var lineOf: [Int] = []
            for (n, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                var line = Substring(rawLine)
                if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
                let field = String(line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                if field.isEmpty { continue }
                guard let value = Double(field) else {
                    throw BeatMapError(source: source, location: "line \(n + 1)", message: "expected a time in seconds, found \"\(field.prefix(40))\"")
                }
                times.append(value)
                lineOf.append(n + 1)
            }
            try check(times, source: source) { "line \(lineOf[$0])" }
        }
        return BeatMap(times: times)
    }

    private static func check(_ times: [Double], source: String, location: (Int) -> String) throws(BeatMapError) {
        guard !times.isEmpty else { throw BeatMapError(source: source, location: "", message: "no beat times") }
        guard times.count <= maximumBeats else {
            throw BeatMapError(source: source, location: "", message: "\(times.count) beats; at most \(maximumBeats)")
        }
        for (i, t) in times.enumerated() {
            guard t.isFinite, t >= 0, t <= 86_400 else {
                throw BeatMapError(source: source, location: location(i), message: "time \(t) is not between 0 and 86400 seconds")
            }
            if i > 0 && t <= times[i - 1] {
                throw BeatMapError(source: source, location: location(i), message: "time \(t) does not come after the previous beat (\(times[i - 1])); times must increase")
            }
        }
    }
}

/// A beat map that could not be read: names the file, the place in it, and what is wrong.
public struct BeatMapError: Error, Sendable, Equatable, CustomStringConvertible {
    public var source: String
    /// `line 3`, `beats[2]`, or empty for the whole file.
    public var location: String
    public var message: String
    public init(source: String, location: String, message: String) {
        self.source = source
        self.location = location
        self.message = message
    }
    public var description: String { printable(location.isEmpty ? "\(source): \(message)" : "\(source): \(location): \(message)") }
}

// MARK: - the session

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

// MARK: - the report

/// Where each beat's sound and haptic started, and how far apart (the rhythm command's
/// table and JSON).
public struct RhythmReport: Sendable, Codable, Equatable {
    /// Where one part of a beat started.
    public struct Onset: Sendable, Codable, Equatable {
        /// The device it played on.
        public var device: String
        /// The render frame the voice started at (the engine's own record).
        public var startFrame: Int64
        /// The device frame the onset is output at (`startFrame` + the output stage's look-ahead).
        public var outputFrame: Int64
        /// The output frame the mapping predicted when the beat was scheduled.
        public var predictedFrame: Int64
        /// Monotonic seconds at which `outputFrame` plays (the engine's mapping).
        public var time: Double
    }

    public struct Row: Sendable, Codable, Equatable {
        /// 1-based beat number.
        public var beat: Int
        /// Monotonic seconds the beat was scheduled for.
        public var scheduled: Double
        /// Seconds from the session's origin (the beat map's time).
        public var offset: Double
        public var audio: Onset?
        public var haptic: Onset?
        /// Audio onset minus haptic onset, in samples (whole in one stream; through each
        /// device's mapping in two-device mode). nil when a part is missing.
        public var skewSamples: Double?
        public var skewMs: Double?
        /// The skew the cue's alignment plans (audio start minus haptic start, in samples:
        /// felt alignment, the sheet's offsets); in one stream `skewSamples` equals it exactly.
        public var plannedSkewSamples: Double?
        /// Felt skew: the sound's felt onset (its Hilbert envelope first at half its peak) minus
        /// the haptic's, in ms — the sample skew plus the difference of the two parts' felt
        /// onsets, each measured once per cue on its rendered waveform (``CueAlignment``).
        /// nil when a part is missing or has no felt onset.
        public var feltSkewMs: Double?

        public init(beat: Int, scheduled: Double, offset: Double, audio: Onset?, haptic: Onset?, skewSamples: Double?,
                    skewMs: Double?, plannedSkewSamples: Double? = nil, feltSkewMs: Double? = nil) {
            self.beat = beat
            self.scheduled = scheduled
            self.offset = offset
            self.audio = audio
            self.haptic = haptic
            self.skewSamples = skewSamples
            self.skewMs = skewMs
            self.plannedSkewSamples = plannedSkewSamples
            self.feltSkewMs = feltSkewMs
        }
    }

    /// Figures over all beats.
    public struct Summary: Sendable, Codable, Equatable {
        public var beats: Int
        /// Beats where a part is missing (could not start, or was not found in the trace).
        public var incomplete: Int
        public var maxAbsSkewSamples: Double
        public var maxAbsSkewMs: Double
        /// Beats whose skew is exactly 0 samples.
        public var zeroSkewBeats: Int
        /// Beats whose skew is exactly the planned skew (``Row/plannedSkewSamples``).
        public var plannedSkewBeats: Int
        /// Largest |skew − planned skew| in samples over the beats with both.
        public var maxAbsSkewFromPlanSamples: Double
        /// Largest |felt skew| in ms (``Row/feltSkewMs``); 0 when no beat has one.
        public var maxAbsFeltSkewMs: Double
        /// Beats with a felt skew.
        public var feltBeats: Int
        /// Haptic onset spacing minus round(Δt·fs), in frames, over consecutive beats.
        public var hapticSpacingErrorMin: Int64
        public var hapticSpacingErrorMax: Int64
        /// The same for the audio onsets.
        public var audioSpacingErrorMin: Int64
        public var audioSpacingErrorMax: Int64
        /// Output-frame minus predicted frame (mapping movement between scheduling and rendering).
        public var predictionErrorMaxAbs: Int64
    }

    public var cue: String
    public var sampleRate: Int
    public var bpm: Double?
    public var lead: Double
    public var origin: Double
    public var twoDevice: Bool
    public var rows: [Row]
    /// The beat map's times (seconds from the origin).
    public var times: [Double]

    public var summary: Summary {
        let skews = rows.compactMap(\.skewSamples)
        let maxSkew = skews.map(abs).max() ?? 0
        func spacing(_ pick: (Row) -> Onset?) -> (Int64, Int64) {
            var lo = Int64.max, hi = Int64.min
            for i in 1..<max(1, rows.count) {
                guard let a = pick(rows[i - 1]), let b = pick(rows[i]), a.device == b.device else { continue }
                let nominal = Int64(((times[rows[i].beat - 1] - times[rows[i - 1].beat - 1]) * Double(sampleRate)).rounded())
                let e = (b.outputFrame - a.outputFrame) - nominal
                lo = min(lo, e)
                hi = max(hi, e)
            }
            return lo > hi ? (0, 0) : (lo, hi)
        }
        let h = spacing(\.haptic), a = spacing(\.audio)
        let prediction = rows.flatMap { [$0.haptic, $0.audio] }.compactMap { $0 }.map { abs($0.outputFrame - $0.predictedFrame) }.max() ?? 0
        return Summary(
            beats: rows.count, incomplete: rows.filter { $0.skewSamples == nil }.count,
            maxAbsSkewSamples: maxSkew, maxAbsSkewMs: maxSkew / Double(sampleRate) * 1000,
            zeroSkewBeats: skews.filter { $0 == 0 }.count,
            plannedSkewBeats: rows.filter { $0.skewSamples != nil && $0.skewSamples == $0.plannedSkewSamples }.count,
            maxAbsSkewFromPlanSamples: rows.compactMap { r in r.skewSamples.flatMap { s in r.plannedSkewSamples.map { abs(s - $0) } } }.max() ?? 0,
            maxAbsFeltSkewMs: rows.compactMap(\.feltSkewMs).map(abs).max() ?? 0,
            feltBeats: rows.filter { $0.feltSkewMs != nil }.count,
            hapticSpacingErrorMin: h.0, hapticSpacingErrorMax: h.1, audioSpacingErrorMin: a.0, audioSpacingErrorMax: a.1,
            predictionErrorMaxAbs: prediction)
    }
}
