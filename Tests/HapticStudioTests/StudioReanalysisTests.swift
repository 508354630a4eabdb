import Foundation
import HapticCLI
import Testing

@testable import HapticStudioCore

@Suite("Studio: re-analysis (what a session keeps between moves equals a fresh conversion)")
struct StudioReanalysisTests {
    /// `hapticsynth convert` on the folder's clicks.wav with `arguments`: the pattern's text.
    static func converted(_ folder: SoundFolder, _ arguments: [String]) throws -> String {
        let output = folder.path + "/cli-\(UUID().uuidString).ahap"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let convert = try Convert.parse([folder.path + "/clicks.wav", "-o", output] + arguments)
        var captured = CapturedOutput()
        #expect(try convert.execute(into: &captured) == 0)
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    @Test("controls moved A → B → A → C → A: every answer is a fresh conversion with those options, byte for byte")
    func sequence() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        let a = StudioSettings()
        var b = a
        b.sensitivity = 85  // not a rung of the ladder
        var c = a
        (c.ducking, c.breakpointsPerSecond, c.minGap) = (20, 60, 120)
        var d = b
        d.gain = -6
        let steps: [(StudioSettings, [String])] = [
            (a, []), (b, ["--sensitivity", "85"]), (a, []), (c, ["--ducking", "20", "--breakpoints-per-second", "60", "--min-gap", "120"]),
            (a, []), (d, ["--sensitivity", "85", "--gain", "-6"]), (b, ["--sensitivity", "85"]), (a, []),
        ]
        var texts: Set<String> = []
        for (n, (settings, arguments)) in steps.enumerated() {
            let view = try await studio.analyse("clicks.wav", settings: settings)
            let fresh = try Self.converted(folder, arguments)
            #expect(try await studio.pattern("clicks.wav") == fresh, "step \(n): \(arguments)")
            #expect(view.haptic.transients.count == fresh.components(separatedBy: "HapticTransient").count - 1, "step \(n)")
            texts.insert(fresh)
        }
        // The steps are different conversions (else the test shows nothing).
        #expect(texts.count >= 4)
    }
}
