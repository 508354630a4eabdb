import ArgumentParser
import Foundation
import Testing

@testable import HapticCLI

/// `serve` and `send` without a sound server: bad input gives one line and exit 1, before
/// any device opens; `send`'s argument typing and times. (Through a real server: the
/// HapticOSCTests suites, ServeRigTests among them.)
@Suite("serve and send: options and bad input")
struct ServeSendCommandTests {
    func serve(_ arguments: [String]) async throws -> (Int32, String) {
        let command = try #require(try Hapticsynth.parseAsRoot(["serve"] + arguments) as? Serve)
        var output = CapturedOutput()
        let status = await command.execute(into: &output)
        return (status, output.standardError)
    }

    @Test("serve: a missing folder, an address this machine cannot listen on, a device that does not exist")
    func serveBadInput() async throws {
        let (s1, e1) = try await serve(["--haptics", "/nonexistent/haptics"])
        #expect(s1 == 1 && e1 == "serve: /nonexistent/haptics: no such folder (--haptics)\n")
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let folders = ["--haptics", repo + "/Haptics", "--assets", repo + "/Assets"]
        let (s2, e2) = try await serve(folders + ["--listen", "203.0.113.7", "--osc-port", "0"])
        #expect(s2 == 1 && e2.hasPrefix("serve: 203.0.113.7:0: cannot listen") && e2.split(separator: "\n").count == 1, "\(e2)")
        let (s3, e3) = try await serve(folders + ["-D", "hs_no_such_pcm", "--osc-port", "0"])
        #expect(s3 == 1 && e3.hasPrefix("serve: no playback device") && e3.split(separator: "\n").count == 1, "\(e3)")
    }

    @Test("serve and send refuse out-of-range options")
    func ranges() {
        for arguments in [["serve", "--osc-port", "70000"], ["serve", "--queue", "0"], ["serve", "--profile", "nope"],
                          ["send", "hapticsynth/play"], ["send", "/x", "--at", "1e300"], ["send", "/x", "--at", "nan"],
                          ["send", "/x", "--timetag", "-1"], ["send", "/x", "--port", "0"], ["send", "/x", "--timeout", "inf"]] {
            #expect(throws: (any Error).self, "\(arguments)") { _ = try Hapticsynth.parseAsRoot(arguments) }
        }
    }

    @Test("send: numbers go as doubles, s: forces a string; --at is relative with + and absolute without")
    func typing() {
        #expect(Send.typed(["heartbeat", "0.5", "3", "s:42", "-1e3"]) == [.string("heartbeat"), .double(0.5), .double(3), .string("42"), .double(-1000)])
        #expect(Send.time("+0.5", now: 100) == 100.5)
        #expect(Send.time("250", now: 100) == 250)
        #expect(Send.time("+x", now: 100) == nil)
    }

    @Test("send: no server answering the status gives one line and exit 1 within the timeout")
    func noReply() throws {
        // A bound socket that never answers.
        let quiet = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(quiet) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(quiet, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(quiet, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let command = try #require(try Hapticsynth.parseAsRoot(["send", "/hapticsynth/status", "--port", String(port), "--timeout", "0.2"]) as? Send)
        var output = CapturedOutput()
        #expect(command.execute(into: &output) == 1)
        #expect(output.standardError.hasPrefix("send: no reply from 127.0.0.1:\(port) within 0.2 s"))
    }
}
