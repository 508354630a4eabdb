import Foundation
import HapticALSATesting
import HapticEngine
import HapticKit
import Testing

@testable import HapticALSA

/// Issue 22: every live verb, with its default layout and an explicit one, on sinks built the
/// way PulseAudio builds them (stereo, 2.1, 5.1, 7.1, 4.0, a DualSense, and the rig's old
/// FL FR AUX0 sink as one case among them). Each test records the sink's monitor and checks
/// where the haptic landed: on the channels its routing names, or a warning says why not.
@Suite(.serialized) struct RoutingRigTests {
    // MARK: the sinks

    struct Sink: Sendable, CustomStringConvertible {
        var short: String
        var out: String
        var input: String
        /// The sink's own channel map (`pactl list sinks`).
        var positions: [ChannelPosition]
        var description: String { short }

        /// Channels to record the monitor with: through ALSA's pulse plugin the capture's map
        /// is fixed by its width, so the smallest width whose map holds every sink position.
        var recordChannels: Int {
            (1...8).first { n in positions.allSatisfy(ChannelPosition.soundServerMap(channels: n).contains) } ?? positions.count
        }

        static func named(_ short: String, _ positions: [ChannelPosition]) -> Sink {
            let upper = short.uppercased()
            return Sink(
                short: short, out: Rig.env["HAPTICSYNTH_RIG_OUT_\(upper)"] ?? "hs_out_\(short)",
                input: Rig.env["HAPTICSYNTH_RIG_IN_\(upper)"] ?? "hs_in_\(short)", positions: positions)
        }
    }

    static let stereo = Sink.named("stereo", [.frontLeft, .frontRight])
    static let twoOne = Sink.named("21", [.frontLeft, .frontRight, .lfe])
    static let fiveOne = Sink.named("51", [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lfe])
    static let sevenOne = Sink.named(
        "71", [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lfe, .sideLeft, .sideRight])
    static let quad = Sink.named("40", [.frontLeft, .frontRight, .rearLeft, .rearRight])
    static let dualsense = Sink.named("dualsense", [.frontLeft, .frontRight, .rearLeft, .rearRight])
    /// The rig's original sink A, shaped to what the engine used to send.
    static let aux = Sink(short: "aux0", out: Rig.out, input: Rig.input, positions: [.frontLeft, .frontRight, .aux(0)])
    static let all = [stereo, twoOne, fiveOne, sevenOne, quad, dualsense, aux]

    /// Where the default layout puts the haptic on each sink: with sound (rhythm, serve) and
    /// without (play of a haptic-only pattern); and where the sound goes.
    static func expectedHaptic(_ sink: Sink, sound: Bool) -> [ChannelPosition] {
        switch sink.short {
        case "stereo": return sound ? [.frontRight] : [.frontLeft, .frontRight]
        case "21", "51", "71": return [.lfe]
        case "40": return sound ? [.rearLeft, .rearRight] : [.frontLeft, .frontRight, .rearLeft, .rearRight]
        case "dualsense": return [.rearLeft, .rearRight]
        default: return [.aux(0)]
        }
    }

    static func expectedSound(_ sink: Sink) -> [ChannelPosition] {
        switch sink.short {
        case "stereo": return [.frontLeft]
        case "dualsense": return []
        default: return [.frontLeft, .frontRight]
        }
    }

    // MARK: recording what a verb plays

    /// What a sink received, by position.
    struct Received: CustomStringConvertible {
        var channels: [ChannelPosition: [Float]]
        func peak(_ p: ChannelPosition) -> Float { channels[p]?.map(abs).max() ?? 0 }
        func rms(_ p: ChannelPosition) -> Float {
            guard let x = channels[p], !x.isEmpty else { return 0 }
            return (x.reduce(0) { $0 + $1 * $1 } / Float(x.count)).squareRoot()
        }
        /// Energy of the first difference over energy, per 10 ms block that carries something,
        /// the median of them: about (2πf/fs)² for a tone, so ≪ 1e-3 for the haptic band (below
        /// ~200 Hz) and larger for a sound effect. The median ignores the few blocks a glitch of
        /// the stream (an underrun on a loaded machine) would make rough.
        func roughness(_ p: ChannelPosition) -> Float {
            guard let x = channels[p], x.count > 481 else { return 0 }
            var values: [Float] = []
            for start in stride(from: 1, to: x.count - 480, by: 480) {
                var e: Float = 0, d: Float = 0
                for i in start..<(start + 480) {
                    e += x[i] * x[i]
                    d += (x[i] - x[i - 1]) * (x[i] - x[i - 1])
                }
                if e > 480 * 1e-6 { values.append(d / e) }
            }
            return values.isEmpty ? 0 : values.sorted()[values.count / 2]
        }
        var description: String {
            channels.keys.sorted { $0.name < $1.name }.map { "\($0): peak \(peak($0)) rms \(rms($0)) rough \(roughness($0))" }
                .joined(separator: "; ")
        }
    }

    /// Records `sink`'s monitor while `body` runs (plus a short tail), by sink position.
    static func record(_ sink: Sink, seconds: Double, _ body: () throws -> Void) throws -> Received {
        let channels = sink.recordChannels
        let capture = ALSACaptureDevice(name: sink.input, channels: channels, sampleFormat: .float32, seconds: seconds)
        try capture.start()
        try body()
        usleep(300_000)
        let recording = capture.stop()
        #expect(!recording.overflowed, "the recording of \(sink) ran out of room")
        let map = ChannelPosition.soundServerMap(channels: channels)
        var byPosition: [ChannelPosition: [Float]] = [:]
        for p in sink.positions {
            guard let c = map.firstIndex(of: p) else { continue }
            byPosition[p] = stride(from: c, to: recording.floatSamples.count, by: recording.channels).map { recording.floatSamples[$0] }
        }
        return Received(channels: byPosition)
    }

    // MARK: the verbs as processes

    static var tool: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hapticsynth").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return repoRoot + "/.build/debug/hapticsynth"
    }
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A verb's run: exit status and what it printed.
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    /// Runs `hapticsynth arguments` to its end (killed after `timeout`).
    static func run(_ arguments: [String], timeout: Double = 180) throws -> Run {
        let process = try Spawned(arguments)
        return process.wait(timeout: timeout)
    }

    /// A hapticsynth process with its output collected.
    final class Spawned: @unchecked Sendable {
        let process = Process()
        private let out = Pipe(), err = Pipe()
        private let text = CollectedText()

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: RoutingRigTests.tool)
            process.arguments = arguments
            process.standardOutput = out
            process.standardError = err
            let text = self.text
            out.fileHandleForReading.readabilityHandler = { text.append(String(decoding: $0.availableData, as: UTF8.self), err: false) }
            err.fileHandleForReading.readabilityHandler = { text.append(String(decoding: $0.availableData, as: UTF8.self), err: true) }
            try process.run()
        }

        var standardOutput: String { text.read().out }
        var standardError: String { text.read().err }

        /// Waits (bounded) until standard output holds `line`'s prefix; false if it never came.
        func waitForLine(startingWith prefix: String, timeout: Double = 30) -> Bool {
            let end = now() + timeout
            while now() < end {
                if standardOutput.split(separator: "\n").contains(where: { $0.hasPrefix(prefix) }) { return true }
                if !process.isRunning { return false }
                usleep(20_000)
            }
            return false
        }

        func wait(timeout: Double) -> Run {
            let end = now() + timeout
            while process.isRunning && now() < end { usleep(20_000) }
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            usleep(50_000)
            return Run(status: process.terminationStatus, out: standardOutput, err: standardError)
        }
    }

    /// Standard output and error of a process, appended from the pipes' handler threads.
    /// `@unchecked Sendable`: every access takes the lock.
    final class CollectedText: @unchecked Sendable {
        private let lock = NSLock()
        private var out = "", err = ""
        func append(_ s: String, err isErr: Bool) {
            lock.lock()
            if isErr { err += s } else { out += s }
            lock.unlock()
        }
        func read() -> (out: String, err: String) {
            lock.lock()
            defer { lock.unlock() }
            return (out, err)
        }
    }

    static let heartbeat = repoRoot + "/Haptics/heartbeat.ahap"
    static let folders = ["--haptics", repoRoot + "/Haptics", "--assets", repoRoot + "/Assets"]

    static func play(_ sink: Sink, layout: String? = nil, file: String = heartbeat) throws -> (Run, Received) {
        var run: Run? = nil
        let received = try record(sink, seconds: 40) {
            run = try Self.run(["play", "-D", sink.out, "--verbose"] + (layout.map { ["--layout", $0] } ?? []) + [file])
        }
        return (run!, received)
    }

    static func rhythm(_ sink: Sink, layout: String? = nil) throws -> (Run, Received) {
        var run: Run? = nil
        let received = try record(sink, seconds: 60) {
            run = try Self.run(
                ["rhythm", "-D", sink.out, "--bpm", "150", "--beats", "4", "--verbose"] + folders
                    + (layout.map { ["--layout", $0] } ?? []))
        }
        return (run!, received)
    }

    /// `serve`, then a cue (sound and haptic) and two transients over OSC (`hapticsynth send`).
    static func serve(_ sink: Sink, layout: String? = nil) throws -> (Run, Received) {
        var run: Run? = nil
        let received = try record(sink, seconds: 60) {
            let serve = try Spawned(
                ["serve", "-D", sink.out, "--osc-port", "0", "--verbose"] + folders + (layout.map { ["--layout", $0] } ?? []))
            #expect(serve.waitForLine(startingWith: "listening on", timeout: 120), "serve did not start: \(serve.standardError)")
            // "listening on 127.0.0.1:PORT (OSC over UDP), ..."
            let line = serve.standardOutput.split(separator: "\n").first { $0.hasPrefix("listening on ") } ?? ""
            let port = line.split(separator: " ").dropFirst(2).first?.split(separator: ":").last.map(String.init) ?? "0"
            for message in [["/hapticsynth/cue", "beat_hit"], ["/hapticsynth/transient", "1", "0.5"],
                            ["/hapticsynth/play", "heartbeat"]] {
                _ = try Self.run(["send", "--port", port] + message, timeout: 10)
                usleep(400_000)
            }
            usleep(800_000)
            kill(serve.process.processIdentifier, SIGTERM)
            run = serve.wait(timeout: 10)
        }
        return (run!, received)
    }

    // MARK: checks

    /// The haptic is on `positions` (low-frequency drive) and nowhere it was not routed.
    static func expectHaptic(
        _ received: Received, on positions: [ChannelPosition], sink: Sink, soundOn: [ChannelPosition], _ run: Run,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = Comment(rawValue: "\(sink): \(received)\nstderr: \(run.err)")
        // serve ends on SIGTERM: 0, or 143 when its fade-out outlasted the watchdog's 100 ms (a
        // loaded machine); what it played is what is checked here.
        #expect(run.status == 0 || run.status == 143, context, sourceLocation: sourceLocation)
        for p in positions {
            #expect(received.rms(p) > 0.005, "no haptic on \(p); \(context)", sourceLocation: sourceLocation)
            if !soundOn.contains(p) {
                // The haptic alone measures 2e-5…4e-4 here; the sound effect (a 280 Hz thud) 1.3e-3.
                #expect(received.roughness(p) < 0.001, "\(p) is not the haptic alone; \(context)", sourceLocation: sourceLocation)
            }
        }
        for p in soundOn where !positions.contains(p) {
            #expect(received.rms(p) > 0.001, "no sound on \(p); \(context)", sourceLocation: sourceLocation)
        }
        #expect(!run.err.contains("does not reach the actuator"), context, sourceLocation: sourceLocation)
    }

    // MARK: default layouts, every verb, every sink

    @Test(arguments: all)
    func playPutsTheHapticWhereTheDefaultRoutesIt(sink: Sink) throws {
        guard Rig.isRunning else { return }
        let (run, received) = try Self.play(sink)
        Self.expectHaptic(received, on: Self.expectedHaptic(sink, sound: false), sink: sink, soundOn: [], run)
        // The verbose map names the sink it played into.
        #expect(run.err.contains("channels: "), "\(run.err)")
        if sink.short == "dualsense" {
            #expect(received.peak(.frontLeft) == 0 && received.peak(.frontRight) == 0, "\(received)")
        }
    }

    /// rhythm and serve carry sound and haptic: the sound on the fronts, the haptic where the
    /// sink keeps it (said in one line on a stereo sink and a DualSense).
    @Test(arguments: ["rhythm", "serve"], all)
    func soundVerbsPutTheHapticWhereTheDefaultRoutesIt(verb: String, sink: Sink) throws {
        guard Rig.isRunning else { return }
        let (run, received) = try verb == "rhythm" ? Self.rhythm(sink) : Self.serve(sink)
        Self.expectHaptic(
            received, on: Self.expectedHaptic(sink, sound: true), sink: sink, soundOn: Self.expectedSound(sink), run)
        switch sink.short {
        case "stereo":
            #expect(run.err.contains("\(verb): \(sink.out) is stereo and carries sound and haptic"), "\(run.err)")
        case "dualsense":
            #expect(received.peak(.frontLeft) == 0 && received.peak(.frontRight) == 0, "\(received)")
            #expect(run.err.contains("\(verb): \(sink.out) is a DualSense"), "\(run.err)")
        default: break
        }
    }

    // MARK: explicit layouts

    @Test func explicitLayoutsLandWhereTheyName() throws {
        guard Rig.isRunning else { return }
        var (run, received) = try Self.play(Self.fiveOne, layout: "H@LFE")
        Self.expectHaptic(received, on: [.lfe], sink: Self.fiveOne, soundOn: [], run)
        for p in [ChannelPosition.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter] {
            #expect(received.peak(p) == 0, "\(p): \(received)")
        }
        (run, received) = try Self.rhythm(Self.sevenOne, layout: "FL,FR,RL=H,RR=H")
        Self.expectHaptic(received, on: [.rearLeft, .rearRight], sink: Self.sevenOne, soundOn: [.frontLeft, .frontRight], run)
        #expect(received.peak(.lfe) == 0, "\(received)")
        (run, received) = try Self.serve(Self.quad, layout: "L,R,H,H*0.5")
        Self.expectHaptic(received, on: [.rearLeft, .rearRight], sink: Self.quad, soundOn: [.frontLeft, .frontRight], run)
        let ratio = received.rms(.rearRight) / received.rms(.rearLeft)
        #expect(abs(ratio - 0.5) < 0.02, "RR/RL = \(ratio)")
        // The DualSense preset on its sink: haptics on 3-4, nothing on 1-2; with sound asked for, sound there.
        (run, received) = try Self.rhythm(Self.dualsense, layout: "dualsense")
        Self.expectHaptic(received, on: [.rearLeft, .rearRight], sink: Self.dualsense, soundOn: [], run)
        #expect(received.peak(.frontLeft) == 0 && received.peak(.frontRight) == 0, "\(received)")
        (run, received) = try Self.rhythm(Self.dualsense, layout: "dualsense+sound")
        Self.expectHaptic(
            received, on: [.rearLeft, .rearRight], sink: Self.dualsense, soundOn: [.frontLeft, .frontRight], run)
    }

    /// Where the server drops the haptic, the verb says so in one line with the fix, and the
    /// recording confirms that the sink got none of it.
    @Test func aHapticTheServerDropsIsReportedNotLostSilently() throws {
        guard Rig.isRunning else { return }
        // The old default (L,R,H: the third channel is AUX0) on a 2.1 sink.
        var (run, received) = try Self.rhythm(Self.twoOne, layout: "L,R,H")
        #expect(run.err.contains("rhythm: warning: \(Self.twoOne.out): the haptic on channel 3 (AUX0) does not reach the actuator"), "\(run.err)")
        #expect(run.err.contains("use --layout FL=L,FR=R,LFE=H"), "\(run.err)")
        #expect(received.peak(.lfe) == 0, "\(received)")
        // LFE on a stereo sink, through serve.
        (run, received) = try Self.serve(Self.stereo, layout: "2.1")
        #expect(run.err.contains("serve: warning: \(Self.stereo.out): the haptic on channel 6 (LFE) does not reach the actuator"), "\(run.err)")
        #expect(run.err.contains("use --layout L,H"), "\(run.err)")
        // The haptic on rear channels of a stereo sink: mixed into the speakers, never on its own.
        (run, received) = try Self.play(Self.stereo, layout: "0,0,H,H")
        #expect(run.err.contains("play: warning:") && run.err.contains("mixes it into the speakers"), "\(run.err)")
    }

    /// The path a desktop user takes: `-D default`, a pulse PCM naming no sink, with the server's
    /// default sink a 2.1 one: the haptic goes to LFE.
    @Test func theServersDefaultSinkDecides() throws {
        guard Rig.isRunning, let server = Rig.env["HAPTICSYNTH_RIG_SERVER"],
            let sink21 = Rig.env["HAPTICSYNTH_RIG_SINK_21"], let pcm = Rig.env["HAPTICSYNTH_RIG_DEFAULT"]
        else { return }
        func setDefault(_ sink: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
            p.arguments = ["-s", server, "set-default-sink", sink]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
        }
        try setDefault(sink21)
        defer { try? setDefault("hs_sink") }
        let viaDefault = Sink(short: "default→2.1", out: pcm, input: Self.twoOne.input, positions: Self.twoOne.positions)
        let (run, received) = try Self.rhythm(viaDefault)
        Self.expectHaptic(received, on: [.lfe], sink: viaDefault, soundOn: [.frontLeft, .frontRight], run)
        #expect(run.err.contains("LFE"), "\(run.err)")
    }

    // MARK: two actuators on one card

    /// A bass shaker on FL and a voice coil on FR of one stereo card: each channel's spectrum
    /// peaks in its own profile's band (bass-shaker 22–90 Hz, voice-coil 50–300 Hz; sharpness
    /// 0.5 lands on 44.5 and 122 Hz), not in the other's.
    @Test func twoActuatorsEachInItsOwnBand() throws {
        guard Rig.isRunning else { return }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("two-actuators-\(getpid()).ahap").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try #"{"Version":1,"Pattern":[{"Event":{"Time":0.05,"EventType":"HapticContinuous","EventDuration":1.5,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.8},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let (run, received) = try Self.play(Self.stereo, layout: "FL=H:bass-shaker,FR=H:voice-coil*0.5", file: file)
        #expect(run.status == 0, "\(run.err)")
        let shaker = try #require(received.channels[.frontLeft]), coil = try #require(received.channels[.frontRight])
        let fShaker = Self.peakFrequency(shaker), fCoil = Self.peakFrequency(coil)
        #expect((22...90).contains(fShaker) && !(50...300).contains(fShaker), "FL peaks at \(fShaker) Hz")
        #expect((50...300).contains(fCoil) && !(22...90).contains(fCoil), "FR peaks at \(fCoil) Hz")
        #expect(abs(fShaker - 44.5) < 3 && abs(fCoil - 122.5) < 4, "\(fShaker) Hz, \(fCoil) Hz")
    }

    /// The frequency (1 Hz steps, 10–500 Hz) where the loudest second of `x` peaks.
    static func peakFrequency(_ x: [Float]) -> Double {
        let fs = 48_000.0
        let n = 48_000
        // The loudest one-second window (the continuous event's body).
        var start = 0, best: Float = 0
        for s in stride(from: 0, to: max(1, x.count - n), by: 4800) {
            let e = x[s..<min(x.count, s + n)].reduce(0) { $0 + $1 * $1 }
            if e > best { best = e; start = s }
        }
        let window = Array(x[start..<min(x.count, start + n)])
        var peak = 0.0, peakPower = 0.0
        for f in 10...500 {
            let w = 2 * Double.pi * Double(f) / fs
            var re = 0.0, im = 0.0
            for (i, v) in window.enumerated() {
                re += Double(v) * cos(w * Double(i))
                im -= Double(v) * sin(w * Double(i))
            }
            let power = re * re + im * im
            if power > peakPower { peakPower = power; peak = Double(f) }
        }
        return peak
    }

    // MARK: what the server does

    /// Measured: a 6-channel stream (FL FR RL RR FC LFE, the pulse plugin's map for 6) on a 2.1
    /// sink. PulseAudio keeps FL and LFE where they are and, with remixing on as shipped, folds
    /// the silent RL and FC into FL (1/9 and 1/2) and normalises the row: the front comes out
    /// 1/(1 + 1/9 + 1/2) = 0.621 (-4.1 dB) of what a 2-channel stream gets. LFE is untouched.
    @Test func aSixChannelStreamOnA21SinkKeepsLFEAndLowersTheFronts() throws {
        guard Rig.isRunning else { return }
        func measure(channels: Int) throws -> (front: Float, lfe: Float) {
            let device = ALSAOutputDevice(name: Self.twoOne.out)
            var format = DeviceFormat(channels: channels, sampleRate: 48_000, periodFrames: 256, bufferFrames: 768)
            var frontRMS: Float = 0, lfeRMS: Float = 0
            let received = try Self.record(Self.twoOne, seconds: 10) {
                format = try device.open(requested: format)
                defer { device.close() }
                let frames = 48_000
                var samples = [Float](repeating: 0, count: frames * channels)
                for i in 0..<frames {
                    samples[i * channels] = 0.5 * Float(sin(2 * Double.pi * 440 * Double(i) / 48_000))
                    if channels == 6 { samples[i * channels + 5] = 0.5 * Float(sin(2 * Double.pi * 40 * Double(i) / 48_000)) }
                }
                _ = samples.withUnsafeBufferPointer { device.write($0.baseAddress!, frames: frames) }
                device.drain()
            }
            // Peaks: the sines' amplitudes (an RMS would depend on how much silence was recorded).
            frontRMS = received.peak(.frontLeft)
            lfeRMS = received.peak(.lfe)
            #expect(device.channelMap == nil || device.channelMap == ChannelPosition.soundServerMap(channels: channels))
            return (frontRMS, lfeRMS)
        }
        let stereo = try measure(channels: 2), six = try measure(channels: 6)
        let decibels = 20 * log10(Double(six.front / stereo.front))
        print("2.1 sink: FL of a 6-channel stream vs a 2-channel one: \(String(format: "%.2f", decibels)) dB (peaks \(six.front), \(stereo.front)); LFE peak \(six.lfe)")
        #expect(abs(decibels - 20 * log10(1 / (1 + 1.0 / 9 + 0.5))) < 0.5, "\(decibels) dB")
        #expect(stereo.lfe == 0 && six.lfe > 0.2)
    }

    // MARK: the library

    /// HapticManager and HapticEngine say where the haptic went; an explicit L,R,H on a 5.1
    /// sink (AUX0) is reported, the default is not.
    @Test func theLibraryReportsTheRouting() throws {
        guard Rig.isRunning else { return }
        let folders = (haptics: Self.repoRoot + "/Haptics", assets: Self.repoRoot + "/Assets")
        let chosen = HapticManager(hapticsFolder: folders.haptics, assetsFolder: folders.assets, deviceName: Self.fiveOne.out)
        defer { chosen.shutDown() }
        #expect(chosen.configuration.engine.layout == (try ChannelLayout.parse("FL,FR,LFE=H")))
        let routing = try #require(chosen.channelRouting)
        #expect(routing.warning == nil, "\(routing.summary)")
        #expect(routing.summary.hasPrefix("L→FL R→FR 0→RL 0→RR 0→FC H→LFE via sink "), "\(routing.summary)")
        let old = HapticManager(
            hapticsFolder: folders.haptics, assetsFolder: folders.assets, deviceName: Self.fiveOne.out,
            layout: .stereoPlusHaptic)
        defer { old.shutDown() }
        #expect(old.channelRouting?.warning?.contains("the haptic on channel 3 (AUX0) does not reach the actuator") == true)
        #expect(old.currentEngine?.channelRouting == old.channelRouting)
    }
}
