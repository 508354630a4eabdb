import Foundation
import HapticCLI
import Testing

/// What keeps the tool's start-up short (bench/startup-bench.sh measures it): `--version` answered
/// before the command tree is built and before the async runtime starts, every verb named without
/// `String(describing:)`, and the C libraries (alsa-lib, libsndfile, libsoxr, liblo, cairo) loaded
/// on first use, not by the loader at every start.
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

    @Test("the program needs none of the C libraries at start; the verbs that use them load them")
    func lazyLibraries() throws {
        let run = try runShell("readelf -d '\(hapticsynthBinary)'", in: URL(fileURLWithPath: NSTemporaryDirectory()))
        let dynamic = String(decoding: run.stdout, as: UTF8.self)
        #expect(run.status == 0 && dynamic.contains("(NEEDED)"), "\(run.stderr)")
        for library in ["libcairo", "libsndfile", "libasound", "libsoxr", "liblo"] {
            #expect(!dynamic.contains(library), "\(library) is loaded at start-up: \(dynamic)")
        }
    }

    @Test("--version starts no thread (answered before the async runtime starts)")
    func versionWithoutRuntime() throws {
        // strace -f names every thread the process starts; the async runtime's executor starts
        // Dispatch's worker threads before a top-level `await` runs its first line.
        let run = try runShell("strace -f -e trace=clone,clone3 -o /dev/stderr '\(hapticsynthBinary)' --version", in: URL(fileURLWithPath: NSTemporaryDirectory()))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("clone"), "\(run.stderr)")
        #expect(run.stderr.contains("+++ exited with 0 +++"), "\(run.stderr)")
    }
}
