import Foundation
import HapticRender
import HapticSoundFile

/// A fresh temporary folder per test, removed by `cleanup()`.
struct TempFolder {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "hs-sndfile-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func contents() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted() ?? [] }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// A sine of `frequency` Hz, `frames` long, on every one of `channels` channels.
func sine(frequency: Double, rate: Double, frames: Int, amplitude: Double, channels: Int = 1) -> [Float] {
    var out = [Float](repeating: 0, count: frames * channels)
    for i in 0 ..< frames {
        let v = Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / rate))
        for c in 0 ..< channels { out[i * channels + c] = v }
    }
    return out
}

/// Channel `channel` of interleaved samples.
func channel(_ samples: [Float], _ channel: Int, of channels: Int) -> [Float] {
    stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
}

/// Frequency from rising zero crossings, with linear interpolation between samples.
func zeroCrossingFrequency(_ x: [Float], rate: Double) -> Double {
    var crossings: [Double] = []
    for i in 1 ..< x.count where x[i - 1] < 0 && x[i] >= 0 {
        let frac = Double(-x[i - 1]) / Double(x[i] - x[i - 1])
        crossings.append(Double(i - 1) + frac)
    }
    guard crossings.count >= 2 else { return 0 }
    return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / rate)
}

func rms(_ x: ArraySlice<Float>) -> Double {
    (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
}

/// Runs a program; returns its exit status and standard output.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func which(_ tool: String) -> String? {
    for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + tool) {
        return dir + "/" + tool
    }
    return nil
}
