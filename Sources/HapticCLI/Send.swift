import ArgumentParser
import Foundation
import HapticKit
import HapticOSC

/// `hapticsynth send ADDRESS [ARGS...] [--at +0.5] [--port 9000]`
public struct Send: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one OSC message to a running `hapticsynth serve` (for scripts and tests).",
        discussion: """
            Arguments that read as numbers are sent as doubles (the server converts them to the \
            types the address takes), negative ones included, the others as strings; prefix s: \
            to send a number, or a word starting with -, as a string (s:42). --at appends a time on the server's clock (CLOCK_MONOTONIC): +0.5 is \
            half a second from now, a plain number is an absolute monotonic time. --timetag does \
            the same with an OSC bundle whose timetag is that moment on the wall clock. For \
            /hapticsynth/status and /hapticsynth/clock the reply is printed (exit 1 when none \
            comes within --timeout).

            Examples:
              hapticsynth send /hapticsynth/play heartbeat
              hapticsynth send /hapticsynth/transient 0.8 0.5 --at +0.5
              hapticsynth send /hapticsynth/loop/start slider heartbeat
              hapticsynth send /hapticsynth/loop/intensity slider 0.3
              hapticsynth send /hapticsynth/loop/sharpness slider -0.2
              hapticsynth send /hapticsynth/status
            """
    )

    @Argument(help: ArgumentHelp("The OSC address (/hapticsynth/...).", valueName: "address"))
    public var address: String

    // `.allUnrecognized`: a negative number ("-0.2", "-6") is an argument, not an unknown
    // option; the options below still parse wherever they stand, and any other word that
    // starts with a dash is refused in `validate` (a mistyped option is not sent as a string).
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The message's arguments (negative numbers included).", valueName: "arg"))
    public var arguments: [String] = []

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Append a monotonic time: +SECONDS from now, or absolute SECONDS.", valueName: "time"))
    public var at: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Send in a bundle timetagged +SECONDS from now (or at absolute monotonic SECONDS).", valueName: "time"))
    public var timetag: String?

    @Option(name: .long, help: ArgumentHelp("The server's host.", valueName: "host"))
    public var host = "127.0.0.1"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The server's UDP port.", valueName: "port"))
    public var port = 9000

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seconds to wait for a reply (status, clock).", valueName: "seconds"))
    public var timeout = 1.0

    public init() {}

    public func validate() throws {
        guard address.hasPrefix("/") else { throw ValidationError("\(address): an OSC address starts with /") }
        if let option = arguments.first(where: { $0.hasPrefix("-") && Double($0) == nil }) {
            throw ValidationError("\(printable(option)): not an option of send, nor a number (prefix s: to send it as a string)")
        }
        guard (1...65535).contains(port) else { throw ValidationError("--port \(port): expected 1...65535") }
        guard timeout.isFinite, timeout > 0, timeout <= 60 else { throw ValidationError("--timeout \(timeout): expected 0...60 seconds") }
        for (flag, value) in [("--at", at), ("--timetag", timetag)] {
            if let value, Self.time(value, now: 0) == nil {
                throw ValidationError("\(flag) \(value): expected +SECONDS or a monotonic time in seconds (0...1e9)")
            }
        }
    }

    /// `+0.5` (from `now`) or an absolute time; nil when it is neither.
    static func time(_ text: String, now: Double) -> Double? {
        let relative = text.hasPrefix("+")
        guard let v = Double(relative ? String(text.dropFirst()) : text), v.isFinite, v >= 0, v <= 1e9 else { return nil }
        return relative ? now + v : v
    }

    /// The typed arguments: numbers as doubles, `s:` forces a string.
    static func typed(_ arguments: [String]) -> [OSCClient.Argument] {
        arguments.map { text in
            if text.hasPrefix("s:") { return .string(String(text.dropFirst(2))) }
            if let v = Double(text), !text.isEmpty { return .double(v) }
            return .string(text)
        }
    }

    public func run() throws {
        var out = StandardStreams()
        let status = execute(into: &out)
        if status != 0 { throw ExitCode(status) }
    }

    public func execute(into out: inout some CommandOutput) -> Int32 {
        let client: OSCClient
        do { client = try OSCClient(host: host, port: port) } catch {
            out.printError("send: \(error)")
            return 1
        }
        let now = HapticClock.now()
        var args = Self.typed(arguments)
        if let at, let t = Self.time(at, now: now) { args.append(.double(t)) }
        var wall: Double? = nil
        if let timetag, let t = Self.time(timetag, now: now) { wall = t + OSCTimetag.wallMinusMonotonic() }
        guard client.send(address, args, timetag: wall) else {
            out.printError("send: \(host):\(port): the message could not be sent")
            return 1
        }
        guard address == "/hapticsynth/status" || address == "/hapticsynth/clock" else { return 0 }
        guard let reply = client.receive(timeout: timeout) else {
            out.printError("send: no reply from \(host):\(port) within \(timeout) s (is `hapticsynth serve` running?)")
            return 1
        }
        out.print(([reply.address] + reply.arguments.map(Self.text)).joined(separator: " "))
        return 0
    }

    static func text(_ argument: OSCClient.Argument) -> String {
        switch argument {
        case .string(let s): s.contains(" ") ? "\"\(s)\"" : s
        case .double(let d): String(format: "%.6f", d)
        case .float(let f): String(f)
        case .int32(let i): String(i)
        case .int64(let h): String(h)
        }
    }
}
