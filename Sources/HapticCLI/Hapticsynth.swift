// The root command. Verbs are listed in Subcommands.swift (one place), each in its own file.

import ArgumentParser
import CBuildInfo
import Dispatch
import HapticKit

/// The tool's version: the repository's VERSION file (Package.swift compiles it in).
public let hapticsynthVersion = String(cString: hapticsynth_build_version())

/// What `hapticsynth --version` prints: the version and the git commit it was built from.
public let hapticsynthVersionLine = "\(hapticsynthVersion) (commit \(String(cString: hapticsynth_build_commit())))"

/// `hapticsynth`: the root command. Async, so that verbs that play live can be async too.
public struct Hapticsynth: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "hapticsynth",
        abstract: "A real-time audio-haptic synthesizer for AHAP patterns.",
        discussion: """
            Reads Apple AHAP haptic patterns (JSON), checks and summarises them, renders them \
            into low-frequency actuator drive plus audio (shaped by an actuator profile and a \
            protection chain), and plays them live through ALSA on the monotonic clock with \
            sound effects in lockstep.

            Examples:
              hapticsynth validate Haptics/*.ahap
              hapticsynth info Haptics/heartbeat.ahap
              hapticsynth render Haptics/heartbeat.ahap -o heartbeat.wav
              hapticsynth play -D default Haptics/heartbeat.ahap
              hapticsynth rhythm --bpm 100 --beats 64
            """,
        version: hapticsynthVersionLine,
        subcommands: HapticsynthSubcommands.all
    )

    public init() {}

    /// The tool's entry point (Sources/hapticsynth/main.swift calls it, synchronously): answers
    /// `--version` alone at once, else runs `main(arguments: nil)` on the async runtime and ends
    /// the process with its status. Synchronous so that `--version` pays for neither the async
    /// runtime (a top-level `await` starts its executor and Dispatch's worker threads before the
    /// first line runs) nor the command tree, which ArgumentParser builds with the completion
    /// script check's commands: most of the start-up otherwise (docs/install.md, start-up).
    public static func runAsProcess() -> Never {
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            StandardStreamWriter.output(hapticsynthVersionLine + "\n")
            if let failure = StandardStreamWriter.writeFailure {
                StandardStreamWriter.error(failure + "\n")
                exit(withError: ExitCode(1))
            }
            exit()
        }
        // What a top-level `await` does: the verb runs as a task, the main queue is drained
        // (main-actor work runs there), and the process ends when the verb returns.
        Task {
            await main(arguments: nil)
            exit()
        }
        dispatchMain()
    }

    /// Parses `arguments` (nil: the process's) and runs the chosen verb, async or not, exiting
    /// on error. Not `main()`: ArgumentParser's synchronous `ParsableCommand.main()` refuses
    /// async root commands.
    /// A failed write to standard output ends the tool with one line and a non-zero status
    /// (the verb's own when it failed too), never a trap (see StandardStreamWriter; main.swift
    /// calls its `prepareStandardDescriptors()` first).
    public static func main(arguments: [String]?) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // A bad option or argument: one line naming it (ArgumentParser adds a usage block).
            if exitCode(for: error) == .validationFailure {
                StandardStreamWriter.error("hapticsynth: \(printable(message(for: error))) (see --help)\n")
                exit(withError: ExitCode.validationFailure)
            }
            if let failure = StandardStreamWriter.writeFailure {
                StandardStreamWriter.error(failure + "\n")
                let status = (error as? ExitCode)?.rawValue ?? 1
                exit(withError: ExitCode(status == 0 ? 1 : status))
            }
            exit(withError: error)
        }
        if let failure = StandardStreamWriter.writeFailure {
            StandardStreamWriter.error(failure + "\n")
            exit(withError: ExitCode(1))
        }
    }
}
