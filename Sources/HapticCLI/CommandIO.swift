// How verbs write: through a `CommandOutput`, so that tests run them in-process and
// read what they printed and their exit status, while the tool writes to the terminal.

import ArgumentParser
import Foundation

/// Where a verb writes its output and its diagnostics.
public protocol CommandOutput {
    /// A line of normal output (stdout in the tool).
    mutating func print(_ line: String)
    /// A line of diagnostics (stderr in the tool).
    mutating func printError(_ line: String)
}

/// The terminal: stdout and stderr, written line by line through ``StandardStreamWriter``
/// (a failed write never traps: see there).
public struct StandardStreams: CommandOutput {
    public init() {}
    public mutating func print(_ line: String) { StandardStreamWriter.output(line + "\n") }
    public mutating func printError(_ line: String) { StandardStreamWriter.error(line + "\n") }
}

/// Output kept in memory (for tests and for callers that want the text).
public struct CapturedOutput: CommandOutput {
    public var standardOutput = ""
    public var standardError = ""
    public init() {}
    public mutating func print(_ line: String) { standardOutput += line + "\n" }
    public mutating func printError(_ line: String) { standardError += line + "\n" }
}

/// A verb whose work is `execute(into:)`: it returns the exit status instead of exiting,
/// so the same code runs in the tool (`run()`) and in tests.
public protocol HapticsynthVerb: ParsableCommand {
    /// Does the work, writing to `output`; returns the process exit status.
    func execute(into output: inout some CommandOutput) throws -> Int32
}

extension HapticsynthVerb {
    public mutating func run() throws {
        var output = StandardStreams()
        let status = try execute(into: &output)
        if status != 0 { throw ExitCode(status) }
    }
}

/// Options shared by verbs that can print a machine-readable report.
public struct OutputFormatOptions: ParsableArguments {
    @Flag(name: .long, help: "Print a machine-readable JSON report instead of text.")
    public var json = false

    public init() {}
}

/// Encodes a report as pretty JSON with stable key order.
func jsonText(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
}
