import ArgumentParser
import Foundation
import HapticKit
import HapticOSC
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
    @Test("send: negative numbers are arguments (the README's own examples), sent as doubles; options still parse anywhere, --help works, a mistyped option is refused")
    func negativeNumbers() throws {
        let sharpness = try #require(try Hapticsynth.parseAsRoot(["send", "/hapticsynth/loop/sharpness", "slider", "-0.2"]) as? Send)
        #expect(sharpness.address == "/hapticsynth/loop/sharpness" && sharpness.arguments == ["slider", "-0.2"])
        let gain = try #require(try Hapticsynth.parseAsRoot(["send", "/hapticsynth/follow/gain", "--timeout", "2", "-6", "--at", "+0.5"]) as? Send)
        #expect(gain.arguments == ["-6"] && gain.timeout == 2 && gain.at == "+0.5")
        #expect(Send.typed(["s:-x", "-1e3"]) == [.string("-x"), .double(-1000)])
        for mistyped in [["send", "/x", "--prot", "9000"], ["send", "/x", "-z"], ["send", "/x", "1", "--verbose"]] {
            #expect(throws: (any Error).self, "\(mistyped)") { _ = try Hapticsynth.parseAsRoot(mistyped) }
        }
        // The program itself: one line and 64 for a mistyped option; --help still helps.
        let mistyped = try LiveProcess(["send", "/x", "--prot", "9000"])
        #expect(mistyped.waitForExit(timeout: 60) == 64)
        #expect(mistyped.stderr.contains("--prot: not an option of send") && mistyped.stderr.split(separator: "\n").count == 1, "\(mistyped.stderr)")
        for help in [["send", "--help"], ["send", "/x", "-0.2", "--help"]] {
            let run = try LiveProcess(help)
            #expect(run.waitForExit(timeout: 60) == 0 && run.stdout.contains("USAGE: hapticsynth send"), "\(help): \(run.stderr)")
        }

        // What goes on the wire: the datagram the server would get, -0.2 a double.
        let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(receiver) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(receiver, $0, &length) } }
        var wait = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let port = String(UInt16(bigEndian: address.sin_port))
        let command = try #require(try Hapticsynth.parseAsRoot(["send", "/hapticsynth/loop/sharpness", "slider", "-0.2", "--port", port]) as? Send)
        var output = CapturedOutput()
        #expect(command.execute(into: &output) == 0, "\(output.standardError)")
        var buffer = [UInt8](repeating: 0, count: 1024)
        let received = recv(receiver, &buffer, buffer.count, 0)
        #expect(Array(buffer.prefix(max(0, received))) == OSCClient.datagram("/hapticsynth/loop/sharpness", [.string("slider"), .double(-0.2)]))
    }

    @Test("serve --profile takes a JSON file as the other verbs do; an unknown name is still a usage error, a missing file one line")
    func serveProfilePath() async throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let path = repo + "/Assets/actuators/voice-coil.json"
        let serve = try #require(try Hapticsynth.parseAsRoot(["serve", "--profile", path]) as? Serve)
        let profile = try serve.profileOption.resolved()
        #expect(profile.name == "voice-coil")
        #expect(serve.managerConfiguration(haptics: "h", assets: "a", profile: profile).engine.profile == profile)
        #expect(throws: (any Error).self) { _ = try Hapticsynth.parseAsRoot(["serve", "--profile", "nope"]) }
        let folders = ["--haptics", repo + "/Haptics", "--assets", repo + "/Assets", "--osc-port", "0"]
        let (status, error) = try await self.serve(folders + ["--profile", "/nonexistent/p.json"])
        #expect(status == 1 && error.hasPrefix("serve: /nonexistent/p.json") && error.split(separator: "\n").count == 1, "\(error)")
    }

    @Test("serve --follow-mode and follow --mode have one default: analysis")
    func followModeDefault() throws {
        let serve = try #require(try Hapticsynth.parseAsRoot(["serve", "--follow", "mon"]) as? Serve)
        let follow = try #require(try Hapticsynth.parseAsRoot(["follow", "-C", "mon"]) as? Follow)
        #expect(serve.follow.mode == .analysis && follow.mode == .analysis)
        #expect(serve.follow.request?.settings.mode == .analysis)
        #expect(try FollowControls().mode == .analysis && FollowSettings().mode == .analysis)
    }
}
