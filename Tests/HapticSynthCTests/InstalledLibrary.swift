import Foundation

/// libhapticsynth as `make install` lays it out, made once per test run from this build's
/// objects (scripts/install.sh: scripts/link-library.sh, then header, libraries, runtime,
/// pkg-config files and the CLI) into a temporary prefix, which is removed at exit.
enum InstalledLibrary {
    struct Install: Sendable {
        let prefix: String
        var lib: String { prefix + "/lib" }
        var pkgConfigPath: String { prefix + "/lib/pkgconfig" }
        var cli: String { prefix + "/bin/hapticsynth" }
        var sharedLibrary: String { lib + "/libhapticsynth.so.0" }
    }

    /// The folder the test binary was built in (its objects are the library's).
    static let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path

    static let prefix = NSTemporaryDirectory() + "hapticsynth-prefix-\(getpid())"

    /// Built on first use; the failure says which step failed and why.
    static let install: Result<Install, InstallFailure> = {
        atexit { try? FileManager.default.removeItem(atPath: InstalledLibrary.prefix) }
        let run = runTool("/bin/bash", [repoRoot + "/scripts/install.sh", binDir, prefix])
        guard run.status == 0 else { return .failure(InstallFailure(description: "scripts/install.sh failed:\n\(run.output)")) }
        return .success(Install(prefix: prefix))
    }()

    /// The environment of a program built and run "with only the installed files": the system's
    /// PATH, pkg-config looking only into the prefix, no library path from the build.
    static func cleanEnvironment(_ install: Install) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "PKG_CONFIG_PATH": install.pkgConfigPath, "PKG_CONFIG_LIBDIR": install.pkgConfigPath,
         "HOME": NSTemporaryDirectory(), "LANG": "C"]
    }
}

struct InstallFailure: Error, CustomStringConvertible {
    let description: String
}

/// Runs `tool` with `arguments` (optionally in `environment`, `directory`); its status and
/// output (stdout and stderr, interleaved as written).
func runTool(_ tool: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do { try process.run() } catch { return (-1, "\(tool): \(error)") }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()  // to the end before waiting: a full pipe blocks the child
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// Runs a shell command line in the clean environment of `install`, in `directory`.
func shell(_ command: String, _ install: InstalledLibrary.Install, directory: String) -> (status: Int32, output: String) {
    runTool("/bin/sh", ["-c", command], environment: InstalledLibrary.cleanEnvironment(install), directory: directory)
}
