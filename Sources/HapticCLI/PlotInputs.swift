// The inputs of `plot`, read and told apart: patterns, AHAP or `.haptic` (prepared on the
// profile, as `render` prepares them), sound files (through libsndfile), and rhythm reports
// (the JSON that `rhythm --json` prints, live or offline).

import Foundation
import HapticKit
import HapticPlot

struct PlotInputs {
    struct Pattern {
        var file: PatternFile
        var prepared: PreparedPattern
        var trace: PatternTrace
    }
    struct Sound {
        var path: String
        var buffer: SoundBuffer
        var envelope: TimeSeries?
    }
    struct Rhythm {
        var path: String
        var beats: [BeatSkew]
        var sampleRate: Int
        /// "cue beat_hit, 120 BPM, offline to session.wav".
        var description: String
    }

    var patterns: [Pattern] = []
    var sounds: [Sound] = []
    var rhythms: [Rhythm] = []
    /// Files the picture must never be written over: every input, the profile file, the
    /// sounds the patterns play.
    var identities: [FileIdentity] = []
    /// `input: warning: ...` lines (the reader's and the preparation's, as `render` prints them).
    var warnings: [String] = []

    static func load(_ paths: [String], synthesis: SynthesisOptions, profile: ActuatorProfile) throws(CLIError) -> PlotInputs {
        var inputs = PlotInputs()
        var read = CommandInputs()
        read.add(synthesis)
        inputs.identities = read.identities
        for path in paths {
            try checkRegularFile(path)
            if let identity = FileIdentity(path: path) { inputs.identities.append(identity) }
            let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
            if ext == "json", let rhythm = try rhythmReport(path) {
                inputs.rhythms.append(rhythm)
            } else if ext == "ahap" || ext == "haptic" || ext == "json" {
                try inputs.addPattern(path, synthesis: synthesis, profile: profile)
            } else {
                inputs.sounds.append(try sound(path))
            }
        }
        return inputs
    }

    /// A path that is missing, a folder, a pipe or a device is refused in one line (a FIFO
    /// would block the reader forever).
    static func checkRegularFile(_ path: String) throws(CLIError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CLIError(PatternFileError.unreadable(file: path, reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno))).description)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw CLIError(PatternFileError.unreadable(file: path, reason: "is a directory, not a file").description)
        default: throw CLIError(PatternFileError.unreadable(file: path, reason: "not a regular file").description)
        }
    }

    mutating func addPattern(_ path: String, synthesis: SynthesisOptions, profile: ActuatorProfile) throws(CLIError) {
        let (file, prepared) = try synthesis.prepare(path, profile: profile)
        patterns.append(Pattern(file: file, prepared: prepared, trace: PatternTrace(prepared)))
        warnings += (file.decoded.warnings.map(\.description) + prepared.warnings).map { "\(path): warning: \($0)" }
        var sounds = CommandInputs()
        sounds.addSounds(of: file, soundFolders: synthesis.soundFolders)
        identities += sounds.identities
    }

    /// A rhythm report (`rhythm --json`), or nil when the JSON is not one (then it is a pattern).
    static func rhythmReport(_ path: String) throws(CLIError) -> Rhythm? {
        let bytes: [UInt8]
        do { bytes = try PatternFile.readBytes(path) } catch { throw CLIError(error.description) }
        let data = Data(bytes)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["report"] != nil else {
            return nil
        }
        /// What `rhythm --json` prints (`RhythmDocument`), as far as a picture needs it.
        struct Document: Decodable {
            var mode: String
            var report: RhythmReport
        }
        let document: Document
        do { document = try JSONDecoder().decode(Document.self, from: data) } catch {
            throw CLIError("\(path): not a rhythm report as `rhythm --json` writes it (\(Self.reason(error)))")
        }
        let report = document.report
        guard report.sampleRate > 0 else { throw CLIError("\(path): report.sampleRate \(report.sampleRate): expected a positive rate") }
        let fs = Double(report.sampleRate)
        let beats = report.rows.map { row in
            BeatSkew(time: row.offset, planned: row.plannedSkewSamples.map { $0 / fs * 1000 }, sample: row.skewMs, felt: row.feltSkewMs)
        }
        // A report is a file like any other: its times and skews are checked before they choose
        // the picture's time range and scales.
        for (k, beat) in beats.enumerated() {
            guard beat.time.isFinite, (0...Limits.maxOutputSeconds).contains(beat.time) else {
                throw CLIError("\(path): report.rows[\(k)].offset \(formatted(beat.time)): expected 0 to \(Int(Limits.maxOutputSeconds)) s")
            }
            for (name, value) in [("plannedSkewSamples", beat.planned), ("skewMs", beat.sample), ("feltSkewMs", beat.felt)] {
                if let value, !(value.isFinite && abs(value) <= 1e6) {
                    throw CLIError("\(path): report.rows[\(k)].\(name) \(formatted(value)): expected a finite skew within ±1000 s")
                }
            }
        }
        let tempo = report.bpm.map { "\(formatted($0)) BPM" } ?? "beat map"
        return Rhythm(path: path, beats: beats, sampleRate: report.sampleRate, description: "cue \(report.cue), \(tempo), \(document.mode)")
    }

    /// A sound file (any format libsndfile reads), up to the sound length limit.
    static func sound(_ path: String) throws(CLIError) -> Sound {
        let buffer: SoundBuffer
        do { buffer = try SoundFileReader.read(path, maxSeconds: Limits.maxSoundSeconds) } catch {
            throw CLIError("\(path): not a pattern (.ahap, .haptic), a rhythm report (.json) or a sound file libsndfile reads: \(error.message)")
        }
        guard buffer.frames > 0 else { throw CLIError("\(path): the sound has no frames") }
        return Sound(path: path, buffer: buffer, envelope: TimeSeries.envelope(of: buffer))
    }

    static func formatted(_ value: Double) -> String { String(format: "%g", value) }

    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "\((context.codingPath + [key]).map(\.stringValue).joined(separator: ".")) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")): \(context.debugDescription)"
        default:
            return "not valid JSON"
        }
    }

    /// One line of facts for the subtitle.
    func facts(rate: Int) -> String {
        var parts: [String] = []
        for p in patterns {
            let t = p.trace
            parts.append(
                "\(Plot.name(p.file.path)): \(String(format: "%.2f", p.prepared.duration)) s, \(t.transients.count) transients, "
                    + "\(t.continuous.count) continuous, \(t.audio.count) audio events")
        }
        for s in sounds {
            parts.append("\(Plot.name(s.path)): \(String(format: "%.2f", Double(s.buffer.frames) / s.buffer.sampleRate)) s, \(s.buffer.channels) ch, \(Int(s.buffer.sampleRate)) Hz")
        }
        for r in rhythms { parts.append("\(Plot.name(r.path)): \(r.beats.count) beats at \(r.sampleRate) Hz, \(r.description)") }
        if !patterns.isEmpty { parts.append("rendered at \(rate) Hz") }
        return parts.joined(separator: " · ")
    }
}
