import Foundation
import HapticCLI
import Testing

/// What keeps the tool's start-up short (bench/startup-bench.sh measures it): `--version` answered
/// before the command tree is built, every verb named without `String(describing:)`, and cairo
/// and libsndfile loaded on first use, not by the loader at every start.
@Suite("start-up")
struct StartupTests {
    @Test("--version prints the version line, exit 0 (answered before the parser)")
    func version() throws {
        let run = try runShell("'\(hapticsynthBinary)' --version", in: URL(fileURLWithPath: NSTemporaryDirectory()))
        let out = String(decoding: run.stdout, as: UTF8.self)
        #expect(run.status == 0 && out == hapticsynthVersionLine + "\n" && run.stderr.isEmpty, "\(out)\(run.stderr)")
    }

    @Test("every verb names itself")
    func verbsNamed() {
        for verb in HapticsynthSubcommands.all {
            #expect(verb.configuration.commandName != nil, "\(verb) has no commandName")
        }
    }

    @Test("the program needs neither cairo nor libsndfile at start; plot and render load them")
    func lazyLibraries() throws {
        let run = try runShell("readelf -d '\(hapticsynthBinary)'", in: URL(fileURLWithPath: NSTemporaryDirectory()))
        let dynamic = String(decoding: run.stdout, as: UTF8.self)
        #expect(run.status == 0 && dynamic.contains("(NEEDED)"), "\(run.stderr)")
        #expect(!dynamic.contains("libcairo") && !dynamic.contains("libsndfile"), "\(dynamic)")
    }
}
