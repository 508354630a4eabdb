// Checks the bundled library files (Haptics/*.ahap, Assets/cues.json, Assets/sfx/*.wav)
// by plain JSON and RIFF reading, independently of the project's own decoder, so the
// files are held to the design numbers of issue 5 whatever the decoder does.

import Foundation
import Testing

/// The repository root, found from this file's location (Tests/HapticKitTests/<file>).
private let repoRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let hapticsDir = repoRoot.appendingPathComponent("Haptics")
private let assetsDir = repoRoot.appendingPathComponent("Assets")

/// The library issue 5 asks for.
private let expectedPatterns: Set<String> = [
    "heartbeat", "capacitor_charge", "thud", "earthquake_splash", "earthquake_simulation",
    "answer_correct", "answer_wrong", "score_perfect", "score_encouragement",
]
private let expectedSFX = ["sfx_shield_impact", "sfx_haptic_thud", "sfx_success_chime", "sfx_click", "sfx_error"]

// MARK: - a minimal, independent reading of the AHAP files

private struct LibraryFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An event as the design states it: type, absolute time, duration, intensity, sharpness.
private struct PlainEvent: Equatable, CustomStringConvertible {
    var transient: Bool
    var time: Double
    var duration: Double?
    var intensity: Double
    var sharpness: Double
    var extra: [String: Double]
    var description: String {
        "\(transient ? "T" : "C")@\(time)\(duration.map { "+\($0)" } ?? "") (\(intensity), \(sharpness))"
    }
}

/// A curve as the design states it: control points at absolute times.
private struct PlainCurve {
    var id: String
    var points: [(time: Double, value: Double)]
}

private struct PlainParameter {
    var id: String
    var time: Double
    var value: Double
}

private struct PlainPattern {
    var events: [PlainEvent] = []
    var curves: [PlainCurve] = []
    var parameters: [PlainParameter] = []

    /// AHAP duration: the end of the last event, or the last parameter / curve point time.
    var duration: Double {
        var end = 0.0
        for e in events { end = max(end, e.time + (e.duration ?? 0)) }
        for c in curves { end = max(end, c.points.last?.time ?? 0) }
        for p in parameters { end = max(end, p.time) }
        return end
    }
}

private let eventParameterRanges: [String: ClosedRange<Double>] = [
    "HapticIntensity": 0...1, "HapticSharpness": 0...1, "AttackTime": 0...1, "DecayTime": 0...1,
    "ReleaseTime": 0...1, "Sustained": 0...1,
]
private let dynamicParameterRanges: [String: ClosedRange<Double>] = [
    "HapticIntensityControl": 0...1, "HapticSharpnessControl": -1...1, "HapticAttackTimeControl": -1...1,
    "HapticDecayTimeControl": -1...1, "HapticReleaseTimeControl": -1...1,
]
private let neutralValue: [String: Double] = [
    "HapticIntensityControl": 1, "HapticSharpnessControl": 0, "HapticAttackTimeControl": 0,
    "HapticDecayTimeControl": 0, "HapticReleaseTimeControl": 0,
]

private func number(_ any: Any?, _ path: String) throws -> Double {
    // JSONSerialization gives NSNumber for numbers and for true/false alike; a Boolean
    // is stored as a C char ("c"), which no JSON number is, so reject that explicitly.
    guard let n = any as? NSNumber, String(cString: n.objCType) != "c" else {
        throw LibraryFileError("\(path): not a number")
    }
    let d = n.doubleValue
    guard d.isFinite else { throw LibraryFileError("\(path): not finite") }
    return d
}

private func dict(_ any: Any?, _ path: String) throws -> [String: Any] {
    guard let d = any as? [String: Any] else { throw LibraryFileError("\(path): not an object") }
    return d
}

private func array(_ any: Any?, _ path: String) throws -> [Any] {
    guard let a = any as? [Any] else { throw LibraryFileError("\(path): not an array") }
    return a
}

private func onlyKeys(_ d: [String: Any], _ allowed: Set<String>, _ path: String) throws {
    let unknown = Set(d.keys).subtracting(allowed)
    if !unknown.isEmpty { throw LibraryFileError("\(path): unexpected keys \(unknown.sorted())") }
}

/// Rejects what lenient readers accept but strict JSON does not: a byte-order mark and
/// trailing commas (checked outside strings, whatever the JSON parser tolerates).
private func checkStrictJSONText(_ data: Data, _ name: String) throws {
    let bytes = [UInt8](data)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { throw LibraryFileError("\(name): starts with a byte-order mark") }
    var inString = false, escaped = false
    var lastSignificant: UInt8 = 0
    for b in bytes {
        if inString {
            if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
            continue
        }
        switch b {
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "]"), UInt8(ascii: "}"):
            if lastSignificant == UInt8(ascii: ",") { throw LibraryFileError("\(name): trailing comma") }
        default: break
        }
        lastSignificant = b
    }
}

/// Reads one .ahap file strictly: the required top-level keys, only known keys, explicit
/// intensity and sharpness on every event, positive durations on continuous events,
/// every value in range.
private func readPattern(_ name: String) throws -> PlainPattern {
    let url = hapticsDir.appendingPathComponent(name + ".ahap")
    let data = try Data(contentsOf: url)
    try checkStrictJSONText(data, name)
    let top = try dict(try JSONSerialization.jsonObject(with: data), name)
    try onlyKeys(top, ["Version", "Metadata", "Pattern"], name)
    guard try number(top["Version"], "\(name).Version") == 1.0 else { throw LibraryFileError("\(name): Version is not 1.0") }
    let metadata = try dict(top["Metadata"], "\(name).Metadata")
    try onlyKeys(metadata, ["Project", "Created", "Description"], "\(name).Metadata")
    for key in ["Project", "Created", "Description"] {
        guard let s = metadata[key] as? String, !s.isEmpty else { throw LibraryFileError("\(name).Metadata.\(key): missing or empty") }
    }
    var pattern = PlainPattern()
    let elements = try array(top["Pattern"], "\(name).Pattern")
    guard !elements.isEmpty else { throw LibraryFileError("\(name).Pattern: empty") }
    for (i, element) in elements.enumerated() {
        let path = "\(name).Pattern[\(i)]"
        let e = try dict(element, path)
        guard e.count == 1, let kind = e.keys.first else { throw LibraryFileError("\(path): not exactly one element") }
        switch kind {
        case "Event":
            let ev = try dict(e["Event"], "\(path).Event")
            try onlyKeys(ev, ["Time", "EventType", "EventDuration", "EventParameters"], "\(path).Event")
            let time = try number(ev["Time"], "\(path).Event.Time")
            guard time >= 0 else { throw LibraryFileError("\(path).Event.Time: negative") }
            guard let type = ev["EventType"] as? String, type == "HapticTransient" || type == "HapticContinuous" else {
                throw LibraryFileError("\(path).Event.EventType: not a haptic event type")
            }
            var duration: Double?
            if ev["EventDuration"] != nil { duration = try number(ev["EventDuration"], "\(path).Event.EventDuration") }
            if type == "HapticContinuous" {
                guard let duration, duration > 0 else { throw LibraryFileError("\(path).Event: continuous without a positive EventDuration") }
            } else if duration != nil {
                throw LibraryFileError("\(path).Event: transient with an EventDuration")
            }
            var values: [String: Double] = [:]
            for (j, p) in try array(ev["EventParameters"], "\(path).Event.EventParameters").enumerated() {
                let ppath = "\(path).Event.EventParameters[\(j)]"
                let pd = try dict(p, ppath)
                try onlyKeys(pd, ["ParameterID", "ParameterValue"], ppath)
                guard let id = pd["ParameterID"] as? String, let range = eventParameterRanges[id] else {
                    throw LibraryFileError("\(ppath).ParameterID: unknown")
                }
                guard values[id] == nil else { throw LibraryFileError("\(ppath): duplicate \(id)") }
                let v = try number(pd["ParameterValue"], "\(ppath).ParameterValue")
                guard range.contains(v) else { throw LibraryFileError("\(ppath): \(id) \(v) out of range") }
                values[id] = v
            }
            guard let intensity = values.removeValue(forKey: "HapticIntensity"),
                let sharpness = values.removeValue(forKey: "HapticSharpness")
            else { throw LibraryFileError("\(path).Event: intensity or sharpness not explicit") }
            pattern.events.append(PlainEvent(
                transient: type == "HapticTransient", time: time, duration: duration,
                intensity: intensity, sharpness: sharpness, extra: values))
        case "ParameterCurve":
            let c = try dict(e["ParameterCurve"], "\(path).ParameterCurve")
            try onlyKeys(c, ["ParameterID", "Time", "ParameterCurveControlPoints"], "\(path).ParameterCurve")
            guard let id = c["ParameterID"] as? String, let range = dynamicParameterRanges[id] else {
                throw LibraryFileError("\(path).ParameterCurve.ParameterID: unknown")
            }
            let start = try number(c["Time"], "\(path).ParameterCurve.Time")
            guard start >= 0 else { throw LibraryFileError("\(path).ParameterCurve.Time: negative") }
            var points: [(time: Double, value: Double)] = []
            let raw = try array(c["ParameterCurveControlPoints"], "\(path).ParameterCurve.ParameterCurveControlPoints")
            // Core Haptics takes at most 16 control points per curve.
            guard (2...16).contains(raw.count) else { throw LibraryFileError("\(path): \(raw.count) control points") }
            for (j, p) in raw.enumerated() {
                let ppath = "\(path).ParameterCurve.ParameterCurveControlPoints[\(j)]"
                let pd = try dict(p, ppath)
                try onlyKeys(pd, ["Time", "ParameterValue"], ppath)
                let t = try number(pd["Time"], "\(ppath).Time")
                let v = try number(pd["ParameterValue"], "\(ppath).ParameterValue")
                guard t >= 0, t >= (points.last.map { $0.time - start } ?? 0) else { throw LibraryFileError("\(ppath).Time: not ascending") }
                guard range.contains(v) else { throw LibraryFileError("\(ppath): \(v) out of range") }
                points.append((start + t, v))
            }
            pattern.curves.append(PlainCurve(id: id, points: points))
        case "Parameter":
            let p = try dict(e["Parameter"], "\(path).Parameter")
            try onlyKeys(p, ["ParameterID", "Time", "ParameterValue"], "\(path).Parameter")
            guard let id = p["ParameterID"] as? String, let range = dynamicParameterRanges[id] else {
                throw LibraryFileError("\(path).Parameter.ParameterID: unknown")
            }
            let t = try number(p["Time"], "\(path).Parameter.Time")
            let v = try number(p["ParameterValue"], "\(path).Parameter.ParameterValue")
            guard t >= 0, range.contains(v) else { throw LibraryFileError("\(path).Parameter: out of range") }
            pattern.parameters.append(PlainParameter(id: id, time: t, value: v))
        default:
            throw LibraryFileError("\(path): unknown element \(kind)")
        }
    }
    return pattern
}

private func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

private func sameEvents(_ actual: [PlainEvent], _ expected: [PlainEvent]) -> Bool {
    let sort: (PlainEvent, PlainEvent) -> Bool = { ($0.time, $0.transient ? 1 : 0) < ($1.time, $1.transient ? 1 : 0) }
    let a = actual.sorted(by: sort), e = expected.sorted(by: sort)
    guard a.count == e.count else { return false }
    return zip(a, e).allSatisfy { x, y in
        x.transient == y.transient && close(x.time, y.time) && close(x.intensity, y.intensity)
            && close(x.sharpness, y.sharpness) && close(x.duration ?? -1, y.duration ?? -1)
    }
}

private func T(_ time: Double, _ intensity: Double, _ sharpness: Double) -> PlainEvent {
    PlainEvent(transient: true, time: time, duration: nil, intensity: intensity, sharpness: sharpness, extra: [:])
}

private func C(_ from: Double, _ to: Double, _ intensity: Double, _ sharpness: Double) -> PlainEvent {
    PlainEvent(transient: false, time: from, duration: to - from, intensity: intensity, sharpness: sharpness, extra: [:])
}

/// Checks a curve with `id` exists once and has exactly these (absolute time, value) points.
private func expectCurve(_ p: PlainPattern, _ id: String, _ expected: [(Double, Double)], _ name: String) {
    let curves = p.curves.filter { $0.id == id }
    #expect(curves.count == 1, "\(name): \(curves.count) \(id) curves")
    guard let c = curves.first else { return }
    #expect(c.points.count == expected.count, "\(name): \(id) has \(c.points.count) points")
    for (a, e) in zip(c.points, expected) {
        #expect(close(a.time, e.0) && close(a.value, e.1), "\(name): \(id) point (\(a.time), \(a.value)) != \(e)")
    }
}

/// The design patterns carry nothing beyond the design, except neutral parameters
/// (which only set a length) — never one that would change an intensity or sharpness.
private func expectOnlyNeutralParameters(_ p: PlainPattern, _ name: String) {
    for param in p.parameters {
        #expect(param.id != "HapticIntensityControl", "\(name): extra HapticIntensityControl parameter")
        #expect(close(param.value, neutralValue[param.id] ?? .nan), "\(name): non-neutral \(param.id) \(param.value)")
    }
}

// MARK: - the tests

@Suite("Library files: Haptics/, Assets/cues.json, Assets/sfx/")
struct LibraryFilesTests {
    static let patternNames: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: hapticsDir.path)) ?? []
        return files.filter { $0.hasSuffix(".ahap") }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test func libraryHoldsExactlyTheIssuePatterns() {
        #expect(Set(Self.patternNames) == expectedPatterns)
    }

    @Test("every .ahap is strict, complete AHAP", arguments: patternNames)
    func strictAHAP(name: String) throws {
        let p = try readPattern(name)
        #expect(!p.events.isEmpty)
        #expect(p.duration > 0)
    }

    @Test func strictReaderRejectsWhatItShould() throws {
        // The checks above could fail: the text check catches a trailing comma and a BOM.
        #expect(throws: LibraryFileError.self) { try checkStrictJSONText(Data("{\"a\": [1, 2,]}".utf8), "t") }
        #expect(throws: LibraryFileError.self) { try checkStrictJSONText(Data([0xEF, 0xBB, 0xBF] + Array("{}".utf8)), "t") }
        try checkStrictJSONText(Data("{\"a\": \"x,]\"}".utf8), "t")  // a comma inside a string is fine
    }

    @Test func earthquakeSplashMatchesDesign() throws {
        let p = try readPattern("earthquake_splash")
        let events = [C(0.0, 0.8, 0.3, 0.15), C(0.8, 1.8, 0.9, 0.6), T(0.9, 1.0, 0.8), T(1.2, 0.9, 0.7), T(1.5, 0.7, 0.5), C(1.8, 2.2, 0.4, 0.2)]
        #expect(sameEvents(p.events, events), "\(p.events)")
        expectCurve(p, "HapticIntensityControl", [(0, 0.4), (0.4, 0.6), (0.8, 1.0), (1.3, 1.0), (1.8, 0.5), (2.2, 0.0)], "earthquake_splash")
        expectCurve(p, "HapticSharpnessControl", [(0, 0.2), (0.8, 0.8), (1.3, 0.7), (2.2, 0.0)], "earthquake_splash")
        #expect(p.curves.count == 2 && p.parameters.isEmpty)
        #expect(close(p.duration, 2.2))
    }

    @Test func earthquakeSimulationMatchesDesign() throws {
        let p = try readPattern("earthquake_simulation")
        #expect(sameEvents(p.events, [C(0, 4, 0.35, 0.2), T(0.8, 0.5, 0.4), T(1.7, 0.4, 0.3), T(2.9, 0.3, 0.2)]), "\(p.events)")
        expectCurve(p, "HapticIntensityControl", [(0, 0.0), (0.5, 0.8), (1.5, 1.0), (3.0, 0.6), (4.0, 0.0)], "earthquake_simulation")
        #expect(p.curves.count == 1 && p.parameters.isEmpty)
        #expect(close(p.duration, 4.0))
    }

    @Test func answerAndEncouragementMatchDesign() throws {
        let designs: [(String, [PlainEvent])] = [
            ("answer_correct", [T(0, 0.6, 0.5), T(0.15, 0.8, 0.7)]),
            ("answer_wrong", [T(0, 0.8, 0.9), T(0.1, 0.55, 0.7), T(0.2, 0.3, 0.5)]),
            ("score_encouragement", [T(0, 0.3, 0.2), T(0.15, 0.5, 0.4)]),
        ]
        for (name, events) in designs {
            let p = try readPattern(name)
            #expect(sameEvents(p.events, events), "\(name): \(p.events)")
            #expect(p.curves.isEmpty && p.parameters.isEmpty, "\(name): has curves or parameters")
        }
    }

    @Test func scorePerfectMatchesDesign() throws {
        let p = try readPattern("score_perfect")
        #expect(sameEvents(p.events, [T(0, 0.3, 0.3), T(0.1, 0.5, 0.5), T(0.2, 0.7, 0.7), C(0.4, 1.0, 0.9, 0.3), T(1.2, 1.0, 0.9)]), "\(p.events)")
        expectCurve(p, "HapticIntensityControl", [(0.4, 0.7), (0.7, 1.0), (1.0, 0.4)], "score_perfect")
        #expect(p.curves.count == 1)
        expectOnlyNeutralParameters(p, "score_perfect")
        #expect(abs(p.duration - 1.5) < 0.05, "about 1.5 s, got \(p.duration)")
    }

    @Test func heartbeatIsALubDubThatLoopsUnderLiveIntensity() throws {
        let p = try readPattern("heartbeat")
        let transients = p.events.filter(\.transient).sorted { $0.time < $1.time }
        #expect(transients.count == 2)
        guard transients.count == 2 else { return }
        let (lub, dub) = (transients[0], transients[1])
        #expect(lub.time == 0)
        #expect((0.12...0.2).contains(dub.time - lub.time), "dub \(dub.time - lub.time) s after lub")
        #expect(dub.intensity < lub.intensity && lub.sharpness <= 0.3, "lub strong and low, dub weaker")
        // Nothing in the file may pin HapticIntensityControl: the app drives it live.
        #expect(!p.curves.contains { $0.id == "HapticIntensityControl" })
        expectOnlyNeutralParameters(p, "heartbeat")
        // A loop length of a resting heart, with the rest as trailing silence.
        #expect((0.8...1.0).contains(p.duration), "loop length \(p.duration)")
        let soundEnd = p.events.map { $0.time + ($0.duration ?? 0) }.max() ?? 0
        #expect(p.duration - soundEnd >= 0.4, "rest of \(p.duration - soundEnd) s")
    }

    @Test func capacitorChargeRisesThenSnaps() throws {
        let p = try readPattern("capacitor_charge")
        let body = p.events.filter { !$0.transient }
        #expect(body.count == 1)
        guard let charge = body.first, let end = charge.duration.map({ charge.time + $0 }) else { return }
        #expect(end - charge.time >= 1.0, "a long press")
        for id in ["HapticIntensityControl", "HapticSharpnessControl"] {
            guard let c = p.curves.first(where: { $0.id == id }) else {
                Issue.record("no \(id) curve"); continue
            }
            let values = c.points.map(\.value)
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "\(id) rises: \(values)")
        }
        let snap = p.events.filter(\.transient)
        #expect(snap.count == 1 && close(snap[0].time, end) && snap[0].intensity >= 0.9, "snap transient at \(end)")
    }

    @Test func thudIsHeavyAndDull() throws {
        let p = try readPattern("thud")
        #expect(p.events.allSatisfy { $0.sharpness <= 0.2 }, "low sharpness")
        #expect(p.events.contains { $0.transient && $0.intensity >= 0.9 }, "heavy")
        let body = p.events.filter { !$0.transient }
        #expect(body.count == 1 && body[0].extra["Sustained"] == 0 && (body[0].extra["DecayTime"] ?? 0) > 0, "decaying body")
        #expect(p.duration <= 0.5, "short")
    }

    @Test func readmeTableGivesEveryPatternWithItsLength() throws {
        let readme = try String(contentsOf: hapticsDir.appendingPathComponent("README.md"), encoding: .utf8)
        var listed: [String: Double] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let seconds = cells[1].split(separator: " ").first.flatMap { Double($0) }
            listed[name] = seconds
        }
        #expect(Set(listed.keys) == Set(Self.patternNames))
        for name in Self.patternNames {
            let p = try readPattern(name)
            #expect(listed[name].map { close($0, p.duration) } == true, "\(name): README says \(String(describing: listed[name])), file is \(p.duration) s")
        }
    }

    // MARK: cue sheet

    @Test func cueSheetNamesExistingFilesAndTheIssueMoments() throws {
        let data = try Data(contentsOf: assetsDir.appendingPathComponent("cues.json"))
        try checkStrictJSONText(data, "cues.json")
        let top = try dict(try JSONSerialization.jsonObject(with: data), "cues.json")
        #expect(top["schema"] as? String == "hapticsynth-cues")
        #expect(try number(top["version"], "version") == 1)
        let cues = try dict(top["cues"], "cues")
        var fired: [String: (pattern: String?, sfx: String?)] = [:]
        for (name, value) in cues {
            let cue = try dict(value, name)
            try onlyKeys(cue, ["moment", "haptic", "sfx"], name)
            #expect(cue["haptic"] != nil || cue["sfx"] != nil, "\(name): fires nothing")
            var pattern: String?
            if let h = cue["haptic"] {
                let haptic = try dict(h, "\(name).haptic")
                #expect(haptic.count == 1, "\(name).haptic: needs exactly one of pattern/transient/buzz")
                if let file = haptic["pattern"] as? String {
                    pattern = file
                    #expect(FileManager.default.fileExists(atPath: hapticsDir.appendingPathComponent(file + ".ahap").path), "\(name): no Haptics/\(file).ahap")
                } else if let t = haptic["transient"] {
                    try checkTransient(t, "\(name).haptic.transient")
                } else if let b = haptic["buzz"] {
                    let buzz = try array(b, "\(name).haptic.buzz")
                    #expect((2...8).contains(buzz.count), "\(name): a buzz is a few transients")
                    var last = -1.0
                    for (i, t) in buzz.enumerated() {
                        let time = try number(try dict(t, "\(name).buzz[\(i)]")["time"], "\(name).buzz[\(i)].time")
                        #expect(time >= 0 && time > last, "\(name).buzz[\(i)]: times ascending from 0")
                        last = time
                        try checkTransient(t, "\(name).haptic.buzz[\(i)]", extraKeys: ["time"])
                    }
                } else {
                    Issue.record("\(name).haptic: none of pattern/transient/buzz")
                }
            }
            var sfx: String?
            if let s = cue["sfx"] {
                let sd = try dict(s, "\(name).sfx")
                try onlyKeys(sd, ["name", "offset"], "\(name).sfx")
                sfx = sd["name"] as? String
                #expect(sfx.map { FileManager.default.fileExists(atPath: assetsDir.appendingPathComponent("sfx/\($0).wav").path) } == true, "\(name): sfx \(String(describing: sfx)) missing")
                if sd["offset"] != nil { #expect(try number(sd["offset"], "\(name).sfx.offset") >= 0) }
            }
            fired[name] = (pattern, sfx)
        }
        // The moments issue 5 names, with what each fires (nil pattern = an inline transient or buzz).
        let required: [String: (String?, String?)] = [
            "beat_hit": ("heartbeat", "sfx_shield_impact"), "segment_lock": ("thud", "sfx_haptic_thud"),
            "capacitor_snap": ("capacitor_charge", "sfx_haptic_thud"), "heart_collect": (nil, "sfx_success_chime"),
            "node_connect": (nil, "sfx_success_chime"), "wheel_detent": (nil, "sfx_click"),
            "invalid_connect": (nil, "sfx_error"), "finale": ("heartbeat", nil),
            "answer_correct": ("answer_correct", nil), "answer_wrong": ("answer_wrong", nil),
            "score_perfect": ("score_perfect", nil), "score_encouragement": ("score_encouragement", nil),
            "earthquake_splash": ("earthquake_splash", nil), "earthquake_simulation": ("earthquake_simulation", nil),
        ]
        for (name, want) in required {
            let got = fired[name]
            #expect(got?.pattern == want.0 && got?.sfx == want.1, "\(name): fires \(String(describing: got)), want \(want)")
        }
        for name in ["heart_collect", "node_connect", "wheel_detent"] {
            #expect((try? dict(cues[name], name)["haptic"] as? [String: Any])?["transient"] != nil, "\(name): an inline transient")
        }
        #expect((try? dict(cues["invalid_connect"], "")["haptic"] as? [String: Any])?["buzz"] != nil, "invalid_connect: a buzz")
    }

    @Test func capacitorSnapSoundLandsOnTheSnapTransient() throws {
        let data = try Data(contentsOf: assetsDir.appendingPathComponent("cues.json"))
        let cues = try dict(try dict(try JSONSerialization.jsonObject(with: data), "")["cues"], "cues")
        let sfx = try dict(try dict(cues["capacitor_snap"], "capacitor_snap")["sfx"], "sfx")
        let offset = try number(sfx["offset"], "offset")
        let snap = try readPattern("capacitor_charge").events.filter(\.transient).map(\.time)
        #expect(snap.count == 1 && close(snap[0], offset), "sfx offset \(offset) vs snap \(snap)")
    }

    // MARK: sound effects

    @Test("sound effect is a short 48 kHz 16-bit PCM WAV", arguments: expectedSFX)
    func soundEffectIsWAV(name: String) throws {
        let data = try Data(contentsOf: assetsDir.appendingPathComponent("sfx/\(name).wav"))
        let wav = try parseWAV([UInt8](data))
        #expect(wav.format == 1, "PCM")
        #expect(wav.sampleRate == 48_000)
        #expect(wav.bitsPerSample == 16)
        #expect(wav.channels == 1 || wav.channels == 2)
        #expect(wav.blockAlign == wav.channels * 2 && wav.byteRate == 48_000 * UInt32(wav.blockAlign))
        #expect(wav.dataBytes > 0 && wav.dataBytes % Int(wav.blockAlign) == 0)
        let seconds = Double(wav.dataBytes / Int(wav.blockAlign)) / 48_000
        #expect(seconds > 0 && seconds < 1, "\(name): \(seconds) s")
        #expect(wav.peak > 1000, "\(name): not silent (peak \(wav.peak))")
    }
}

private func checkTransient(_ any: Any, _ path: String, extraKeys: Set<String> = []) throws {
    let d = try dict(any, path)
    try onlyKeys(d, Set(["intensity", "sharpness"]).union(extraKeys), path)
    for key in ["intensity", "sharpness"] {
        let v = try number(d[key], "\(path).\(key)")
        #expect((0...1).contains(v), "\(path).\(key) \(v) out of 0...1")
    }
}

private struct WAVInfo {
    var format: UInt16 = 0, channels: UInt16 = 0, sampleRate: UInt32 = 0, byteRate: UInt32 = 0
    var blockAlign: UInt16 = 0, bitsPerSample: UInt16 = 0, dataBytes = 0, peak = 0
}

/// Walks the RIFF chunks of a WAV file: "RIFF" size "WAVE", then fmt and data chunks.
private func parseWAV(_ b: [UInt8]) throws -> WAVInfo {
    func u16(_ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) | UInt32(u16(i + 2)) << 16 }
    func tag(_ i: Int) -> String { String(decoding: b[i..<i + 4], as: UTF8.self) }
    guard b.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else { throw LibraryFileError("not RIFF/WAVE") }
    guard Int(u32(4)) + 8 == b.count else { throw LibraryFileError("RIFF size \(u32(4)) + 8 != file size \(b.count)") }
    var info = WAVInfo()
    var sawFmt = false, sawData = false
    var i = 12
    while i + 8 <= b.count {
        let id = tag(i), size = Int(u32(i + 4)), body = i + 8
        guard body + size <= b.count else { throw LibraryFileError("chunk \(id) runs past the end") }
        if id == "fmt " {
            guard size >= 16 else { throw LibraryFileError("fmt chunk too short") }
            info.format = u16(body); info.channels = u16(body + 2); info.sampleRate = u32(body + 4)
            info.byteRate = u32(body + 8); info.blockAlign = u16(body + 12); info.bitsPerSample = u16(body + 14)
            sawFmt = true
        } else if id == "data" {
            guard sawFmt else { throw LibraryFileError("data before fmt") }
            info.dataBytes = size
            var s = body
            while s + 1 < body + size {
                info.peak = max(info.peak, abs(Int(Int16(bitPattern: u16(s)))))
                s += 2
            }
            sawData = true
        }
        i = body + size + (size & 1)  // chunks are padded to even length
    }
    guard sawFmt, sawData else { throw LibraryFileError("missing fmt or data chunk") }
    return info
}
