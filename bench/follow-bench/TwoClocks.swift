// follow-bench --two-clocks: the sound comes from a second clock. The PulseAudio rig's sinks all
// run on that server's timer, so a capture of one sink's monitor and an output to another share
// a clock and there is no drift to correct. Inside the JACK rig as well (scripts/rig.sh
// scripts/jack-rig.sh follow-bench --two-clocks ...), the click track is played into a mono bus
// in the JACK server (its dummy back-end paces on its own timer) and `follow` captures that bus,
// while it still plays on the PulseAudio rig's sink B: a capture and an output on two clocks, as
// a game's sound card and a shaker's USB interface are.
import Foundation
import HapticALSATesting

/// The JACK rig's recorder run as a mono bus (`-c 1 -T`): players write to its input, any
/// number of captures read its output. Its cycle stamps (CLOCK_MONOTONIC) give the JACK
/// server's rate over the whole run.
struct JACKBus {
    let process: Subject
    let stamps: URL

    /// Starts the bus (the rig's recorder binary), waits until it is ready.
    static func start(in folder: URL) throws -> JACKBus? {
        guard let recorder = ProcessInfo.processInfo.environment["HAPTICSYNTH_JACK_RECORDER"] else {
            print("follow-bench: --two-clocks runs inside scripts/jack-rig.sh, itself inside scripts/rig.sh")
            return nil
        }
        let stamps = folder.appendingPathComponent("bus-stamps.csv")
        let bus = try Subject(URL(fileURLWithPath: recorder),
                              ["-c", "1", "-T", "-o", "/dev/null", "-s", stamps.path, "-O", "/dev/null"])
        guard bus.waitFor("READY") else {
            bus.stop()
            print("follow-bench: the JACK bus did not start:\n" + bus.output.joined(separator: "\n"))
            return nil
        }
        return JACKBus(process: bus, stamps: stamps)
    }

    /// Stops the bus; returns the JACK server's rate against CLOCK_MONOTONIC (ppm) over all its
    /// cycles, or nil without enough of them.
    func stop() -> Double? {
        process.stop()
        guard let text = try? String(contentsOf: stamps, encoding: .utf8) else { return nil }
        let points = text.split(separator: "\n").dropFirst().compactMap { line -> (Double, Double)? in
            let fields = line.split(separator: ",")
            guard fields.count == 2, let frame = Double(fields[0]), let t = Double(fields[1]) else { return nil }
            return (frame, t)
        }
        return ratePPM(points)
    }
}

/// A clock's rate against CLOCK_MONOTONIC (ppm above the nominal 48 kHz) from (frame, ns)
/// points: the least-squares slope of time against frames. Nil for fewer than 100 points or
/// less than 10 s.
func ratePPM(_ points: [(frame: Double, nanos: Double)]) -> Double? {
    guard points.count >= 100, let first = points.first, let last = points.last, last.nanos - first.nanos >= 10e9,
          let nanosPerFrame = leastSquaresSlope(points.map { (x: $0.frame, y: $0.nanos) }), nanosPerFrame > 0
    else { return nil }
    return (1e9 / Double(ClickTrack.sampleRate) / nanosPerFrame - 1) * 1e6
}

/// Both clocks' rates against CLOCK_MONOTONIC (ppm), from `seconds` of recording the JACK bus
/// and the PulseAudio sink that `follow` plays on (each read stamped), side by side.
func measureClocks(jackBus: String, pulseMonitor: String, seconds: Double) -> (jack: Double?, pulse: Double?) {
    let jack = ALSACaptureDevice(name: jackBus, channels: 1, seconds: seconds + 5)
    let pulse = ALSACaptureDevice(name: pulseMonitor, channels: 2, seconds: seconds + 5)
    do {
        try jack.start()
        try pulse.start()
    } catch {
        print("follow-bench: measuring the clocks: \(error)")
        return (nil, nil)
    }
    let end = Date().addingTimeInterval(seconds)
    while Date() < end { usleep(100_000) }
    func rate(_ recording: ALSARecording) -> Double? {
        // The first second is left out (the stream settling).
        ratePPM(recording.stamps.dropFirst(recording.stamps.count * 1 / Int(seconds.rounded(.up)))
            .map { (Double($0.framesCaptured), Double($0.monotonicNanos)) })
    }
    return (rate(jack.stop()), rate(pulse.stop()))
}
