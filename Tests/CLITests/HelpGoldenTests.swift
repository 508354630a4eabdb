import ArgumentParser
import Foundation
import HapticCLI
import Testing

/// `--help` of the root command and of every verb, compared with Tests/CLITests/Golden/<name>.txt.
///
/// To regenerate after an intended change to the help texts:
///     HAPTICSYNTH_UPDATE_GOLDEN=1 swift test --filter CLITests
/// (writes the files, then review them with `git diff Tests/CLITests/Golden`).
@Suite("Help texts (golden files)")
struct HelpGoldenTests {
    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let updating = ProcessInfo.processInfo.environment["HAPTICSYNTH_UPDATE_GOLDEN"] == "1"
    /// A fixed width, so the text does not depend on the terminal.
    static let columns = 100

    static var commands: [(name: String, type: any ParsableCommand.Type)] {
        [("hapticsynth", Hapticsynth.self)] + HapticsynthSubcommands.all.map { ($0._commandName, $0) }
    }

    @Test("help text matches its golden file", arguments: commands.map(\.name))
    func help(_ name: String) throws {
        let type = try #require(Self.commands.first { $0.name == name }?.type)
        let text = Hapticsynth.helpMessage(for: type, columns: Self.columns) + "\n"
        let file = Self.goldenFolder.appendingPathComponent("\(name).txt")
        if Self.updating {
            try FileManager.default.createDirectory(at: Self.goldenFolder, withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
            print("updated \(file.path)")
        }
        guard let golden = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("missing golden file \(file.path); run HAPTICSYNTH_UPDATE_GOLDEN=1 swift test --filter CLITests")
            return
        }
        #expect(text == golden)
    }

    @Test("every verb's help has an example, and the root lists every verb")
    func examples() {
        let root = Hapticsynth.helpMessage(for: Hapticsynth.self, columns: Self.columns)
        for (name, type) in Self.commands {
            let text = Hapticsynth.helpMessage(for: type, columns: Self.columns)
            #expect(text.contains("Example"), "\(name)")
            #expect(text.contains("hapticsynth \(name == "hapticsynth" ? "" : name)"), "\(name)")
            if name != "hapticsynth" { #expect(root.contains("  \(name) "), "root help lists \(name)") }
        }
    }
}
