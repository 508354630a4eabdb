import Foundation
import Testing

/// `make install DESTDIR=... PREFIX=...` and `make uninstall` (scripts/install.sh) as a package
/// build uses them: every part where its users look, the prefix (not the staging folder) written
/// into what names it, the installed CLI finding the installed data, and nothing left after
/// uninstall. The manual pages: one per verb, and every hs_ function of the header on hapticsynth(3).
@Suite(.serialized) struct InstallTreeTests {
    static let prefix = "/usr/local"

    /// A staged install into a fresh folder; the caller removes it.
    func stagedInstall() throws -> String {
        let stage = NSTemporaryDirectory() + "hapticsynth-stage-\(getpid())-\(UUID().uuidString)"
        let run = runTool("/usr/bin/env", ["DESTDIR=" + stage, "/bin/bash", repoRoot + "/scripts/install.sh", InstalledLibrary.binDir, Self.prefix])
        try #require(run.status == 0, "\(run.output)")
        return stage
    }

    func files(under folder: String) -> [String] {
        let run = runTool("/usr/bin/find", [folder, "-mindepth", "1"])
        return run.output.split(separator: "\n").map { String($0.dropFirst(folder.count + 1)) }.sorted()
    }

    @Test("a staged install lays every part where it is looked for; uninstall leaves an empty tree")
    func stagedInstallAndUninstall() throws {
        let stage = try stagedInstall()
        defer { try? FileManager.default.removeItem(atPath: stage) }
        let root = stage + Self.prefix
        let installed = Set(files(under: root))
        for expected in [
            "bin/hapticsynth", "bin/hapticsynth-studio", "include/hapticsynth.h", "lib/libhapticsynth.so", "lib/libhapticsynth.so.0", "lib/libhapticsynth.a",
            "lib/pkgconfig/hapticsynth.pc", "lib/pkgconfig/hapticsynth-static.pc",
            "share/hapticsynth/Haptics/heartbeat.ahap", "share/hapticsynth/Assets/cues.json", "share/hapticsynth/Assets/sfx/sfx_click.wav",
            "share/hapticsynth/Assets/actuators/voice-coil.json",
            "share/man/man1/hapticsynth.1", "share/man/man1/hapticsynth-render.1", "share/man/man3/hapticsynth.3",
            "share/bash-completion/completions/hapticsynth", "share/zsh/site-functions/_hapticsynth",
            "share/fish/vendor_completions.d/hapticsynth.fish",
            "lib/systemd/user/hapticsynth-serve.service", "lib/systemd/user/hapticsynth-follow@.service",
            "share/doc/hapticsynth/LICENSE", "share/doc/hapticsynth/NOTICE",
        ] {
            #expect(installed.contains(expected), "\(expected) not installed")
        }
        // `hapticsynth studio` runs the installed studio beside it (which refuses the folder).
        let studio = runTool(root + "/bin/hapticsynth", ["studio", "/nonexistent"])
        #expect(studio.status != 0 && !studio.output.contains("is not beside") && studio.output.contains("/nonexistent: No such file"), "\(studio.output)")
        // The prefix, not the staging folder, in what names it.
        let pc = try String(contentsOfFile: root + "/lib/pkgconfig/hapticsynth.pc", encoding: .utf8)
        #expect(pc.contains("prefix=/usr/local\n") && !pc.contains(stage), "\(pc)")
        let unit = try String(contentsOfFile: root + "/lib/systemd/user/hapticsynth-serve.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/hapticsynth serve ") && unit.contains("EnvironmentFile=-%E/hapticsynth/serve.env"))

        // The installed CLI, run from elsewhere with nothing in HOME: the prefix's data, found from
        // where the program is (the staged prefix stands for a moved one).
        let empty = NSTemporaryDirectory()
        let paths = runTool(root + "/bin/hapticsynth", ["info", "--paths"],
                            environment: ["HOME": empty + "/none", "XDG_DATA_DIRS": "/nonexistent", "PATH": "/usr/bin:/bin"], directory: "/")
        #expect(paths.output.contains("pattern library (--haptics): \(root)/share/hapticsynth/Haptics\n"), "\(paths.output)")

        let uninstall = runTool("/usr/bin/env", ["DESTDIR=" + stage, "/bin/bash", repoRoot + "/scripts/install.sh", "--uninstall", Self.prefix])
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(files(under: stage) == [], "left after uninstall: \(files(under: stage))")
    }

    @Test("one manual page per verb, made from the parser (its options are the --help's)")
    func manualPagePerVerb() throws {
        let stage = try stagedInstall()
        defer { try? FileManager.default.removeItem(atPath: stage) }
        let man1 = stage + Self.prefix + "/share/man/man1"
        let help = runTool(stage + Self.prefix + "/bin/hapticsynth", ["--help"])
        // The verbs the root --help lists under SUBCOMMANDS (two spaces, a name, spaces, a text).
        let verbs = help.output.components(separatedBy: "SUBCOMMANDS:").last!.split(separator: "\n")
            .compactMap { line -> String? in
                let words = line.split(separator: " ")
                return line.hasPrefix("  ") && !line.hasPrefix("   ") && words.count > 1 && words[0].first!.isLowercase ? String(words[0]) : nil
            }
            .filter { $0 != "help" }
        #expect(verbs.count >= 10, "\(help.output)")
        let pages = Set(files(under: man1))
        #expect(pages == Set(["hapticsynth.1"] + verbs.map { "hapticsynth-\($0).1" }))
        let render = try String(contentsOfFile: man1 + "/hapticsynth-render.1", encoding: .utf8)
        #expect(render.contains("\\fB\\-\\-profile\\fR"), "render's --profile documented")
    }

    @Test("hapticsynth(3) documents every hs_ function the header declares")
    func libraryManualPageComplete() throws {
        let header = try String(contentsOfFile: repoRoot + "/Sources/CHapticSynth/include/hapticsynth.h", encoding: .utf8)
        let declared = Set(header.matches(of: /\b(hs_[a-z_0-9]+)\s*\(/).map { String($0.1) })
            .filter { name in header.contains(try! Regex("\\n[a-z][^\\n;]*\\b\(name)\\s*\\(")) }
        #expect(declared.count >= 40, "\(declared.sorted())")
        let page = runTool("/usr/bin/python3", [repoRoot + "/packaging/man/make-man3.py", repoRoot + "/Sources/CHapticSynth/include/hapticsynth.h", "0"])
        try #require(page.status == 0, "\(page.output)")
        // A function is documented when its prototype starts a FUNCTIONS entry (bold).
        let documented = Set(page.output.matches(of: /\n\\fB[^\n]*?\b(hs_[a-z_0-9]+)\s*\(/).map { String($0.1) })
        #expect(declared.subtracting(documented).sorted() == [], "not on hapticsynth(3)")
    }
}
