import HapticALSA
import HapticEngine
#if canImport(Glibc)
import Glibc
#endif

func nowNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Fixed-point text without Foundation.
func fmt(_ x: Double, _ digits: Int = 3) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let v = (abs(x) * scale).rounded()
    let whole = Int(v / scale), frac = Int(v.truncatingRemainder(dividingBy: scale))
    var f = String(frac)
    while f.count < digits { f = "0" + f }
    return (x < 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + f : "")
}

/// `latency-bench stamps PCM PERIOD SECONDS`: writes silence and prints the device's
/// frame/time stamps' drift (ppm, least squares) and jitter (residuals), and how far the
/// engine's filter wanders from the straight line.
func stamps(_ pcm: String, period: Int, seconds: Double, buffer: Int = 3, wait: Int? = nil) {
    var options = ALSAOutputDevice.Options()
    options.waitTimeoutMilliseconds = wait
    let device = ALSAOutputDevice(name: pcm, options: options)
    do { _ = try device.open(requested: DeviceFormat(channels: 2, sampleRate: 48_000, periodFrames: period, bufferFrames: period * buffer)) }
    catch { print("open: \(error)"); exit(1) }
    let silence = [Float](repeating: 0, count: period * 2)
    var points: [(Double, Double)] = []
    var filter = FrameTimeFilter(sampleRate: 48_000)
    var filterPoints: [(Double, Double)] = []
    let end = nowNanos() + Int64(seconds * 1e9)
    var frames: Int64 = 0
    while nowNanos() < end {
        let w0 = nowNanos()
        if let fault = silence.withUnsafeBufferPointer({ device.write($0.baseAddress!, frames: period) }) {
            print("fault \(fault) after \(fmt(Double(nowNanos() - w0) / 1e6)) ms at frame \(frames) (\(device.lastErrorMessage))"); _ = device.recover(from: fault)
        }
        let w = Double(nowNanos() - w0) / 1e6
        if w > Double(period) / 48 * 1.5 { print("slow write \(fmt(w)) ms at frame \(frames)") }
        frames += Int64(period)
        if let ts = device.timestamp() {
            points.append((Double(ts.framesPlayed), Double(ts.monotonicNanos)))
            filter.update(ts)
            filterPoints.append((Double(frames), filter.nanos(forFrame: frames)))
        }
    }
    device.close()
    func fit(_ p: [(Double, Double)]) -> (Double, Double) {
        let n = Double(p.count)
        let mx = p.map(\.0).reduce(0, +) / n, my = p.map(\.1).reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for (x, y) in p { sxy += (x - mx) * (y - my); sxx += (x - mx) * (x - mx) }
        let slope = sxy / sxx
        return (slope, my - slope * mx)
    }
    let skip = points.count / 10
    let (slope, intercept) = fit(Array(points[skip...]))
    let residuals = points[skip...].map { $0.1 - (intercept + slope * $0.0) }
    let rms = (residuals.map { $0 * $0 }.reduce(0, +) / Double(residuals.count)).squareRoot()
    let ppm: Double = (1e9 / 48_000 / slope - 1) * 1e6
    let maxr: Double = residuals.map(abs).max()! / 1e6
    print("\(pcm) period \(period): \(points.count) stamps, drift \(fmt(ppm, 1)) ppm (device fast > 0), residual rms \(fmt(rms / 1e6)) ms, max |r| \(fmt(maxr)) ms")
    // The filter's estimate against the straight line, per second.
    var line = ""
    for sec in stride(from: 0.0, to: seconds, by: 0.5) {
        let i = min(filterPoints.count - 1, Int(sec * 48_000 / Double(period)))
        let (f, t) = filterPoints[i]
        let d: Double = (t - (intercept + slope * f)) / 1e6
        line += " " + fmt(d, 2)
    }
    print("filter - line (ms), every 0.5 s:" + line)
    let first = points[0]
    let d0: Double = (first.1 - (intercept + slope * first.0)) / 1e6
    print("first stamp - line: \(fmt(d0)) ms")
}

let args = CommandLine.arguments
if args.count >= 5 && args[1] == "stamps" {
    stamps(args[2], period: Int(args[3])!, seconds: Double(args[4])!, buffer: args.count > 5 ? Int(args[5])! : 3,
           wait: args.count > 6 ? Int(args[6])! : nil)
    exit(0)
}
print("usage: latency-bench stamps PCM PERIOD SECONDS")
