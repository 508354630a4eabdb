import Glibc
import HapticALSATesting
import HapticEngine
import HapticFollow
import HapticRender

/// A capture that has always just received the next period of `track` (looped): the
/// follower's queue never starves, so every period runs the whole analysis and synthesis.
private final class LoopedTrackInput: InputDevice, @unchecked Sendable {  // one thread at a time, as InputDevice's contract says
    let name = "click track"
    let track: [Float]
    private var position = 0
    private var waiting = 0

    init(track: [Float]) { self.track = track }

    func arrive(_ frames: Int) { waiting += frames }

    func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        var granted = requested
        granted.channels = 1
        return granted
    }

    func read(into samples: UnsafeMutablePointer<Float>, frames: Int) -> CaptureRead {
        let n = min(frames, waiting)
        for f in 0..<n {
            samples[f] = track[position]
            position = position + 1 == track.count ? 0 : position + 1
        }
        waiting -= n
        return .frames(n)
    }

    func timestamp() -> CaptureTimestamp? { nil }
    func recover(from fault: DeviceFault) -> Bool { true }
    func close() {}
}

private func nanos(_ clock: clockid_t) -> Int64 {
    var t = timespec()
    clock_gettime(clock, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

/// `--cpu [--period N] [--mode M] [--seconds S]`: renders S seconds (default 120) of the click
/// track through a follower and prints the render time per period (thread CPU time and wall
/// time) as a share of the period. Returns the exit status.
func runCPUBench(_ arguments: [String]) -> Int32 {
    var period = 256, seconds = 120
    var mode = FollowMode.analysis
    var args = arguments.dropFirst().filter { $0 != "--cpu" }[...]
    while let a = args.popFirst() {
        switch a {
        case "--period": period = Int(args.popFirst() ?? "").flatMap { (16...8192).contains($0) ? $0 : nil } ?? -1
        case "--seconds": seconds = Int(args.popFirst() ?? "").flatMap { (1...3600).contains($0) ? $0 : nil } ?? -1
        case "--mode": mode = FollowMode(rawValue: args.popFirst() ?? "") ?? { period = -1; return .analysis }()
        default: period = -1
        }
        if period < 0 || seconds < 0 {
            print("usage: follow-bench --cpu [--period 16...8192] [--seconds 1...3600] [--mode analysis|lowpass]")
            return 2
        }
    }
    let rate = ClickTrack.sampleRate
    let input = LoopedTrackInput(track: ClickTrack.irregular(count: 40).samples)
    let follower = CaptureFollower(input: input, settings: FollowSettings(mode: mode), sampleRate: rate, periodFrames: period)
    do { try follower.open() } catch {
        print("follow-bench: \(error)")
        return 1
    }
    var configuration = HapticEngine.Configuration(layout: .hapticMono, profile: .bassShaker, sampleRate: rate, periodFrames: period)
    configuration.liveInput = follower
    let engine = HapticEngine(pulling: .pulled(configuration))
    do { try engine.start() } catch {
        print("follow-bench: \(error)")
        return 1
    }
    defer { engine.stop() }
    let periods = seconds * rate / period
    var cpu = [Double](), wall = [Double]()
    cpu.reserveCapacity(periods)
    wall.reserveCapacity(periods)
    var block = [Float](repeating: 0, count: period * 4)
    block.withUnsafeMutableBufferPointer { out in
        for _ in 0..<periods {
            input.arrive(period)
            let c0 = nanos(CLOCK_THREAD_CPUTIME_ID), w0 = nanos(CLOCK_MONOTONIC)
            _ = engine.render(into: out.baseAddress!, frames: period)
            let w1 = nanos(CLOCK_MONOTONIC), c1 = nanos(CLOCK_THREAD_CPUTIME_ID)
            cpu.append(Double(c1 - c0))
            wall.append(Double(w1 - w0))
        }
    }
    let budget = Double(period) * 1e9 / Double(rate)
    func share(_ values: [Double]) -> String {
        let sorted = values.sorted()
        func q(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] }
        return String(format: "median %.1f µs (%.2f %% of a core), p99 %.1f µs (%.2f %%), mean %.2f %%",
                      q(0.5) / 1e3, q(0.5) / budget * 100, q(0.99) / 1e3, q(0.99) / budget * 100,
                      values.reduce(0, +) / Double(values.count) / budget * 100)
    }
    print("follow-bench --cpu: \(mode.rawValue), period \(period) (\(String(format: "%.3f", budget / 1e6)) ms), \(periods) periods, "
          + "\(follower.statistics.transients) transients")
    print("  thread CPU time per period: \(share(cpu))")
    print("  wall time per period:       \(share(wall))")
    return 0
}
