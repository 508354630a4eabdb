// `plot`: the title names every profile a layout renders for, and a sound with NaN or
// infinite samples is refused with `convert`'s own line.

import Foundation
import HapticCLI
import HapticKit
import Testing

@Suite("hapticsynth plot: title and sound checks")
struct PlotTitleAndSoundTests {
    @Test("a layout with several profiles: the title and the drive panel name each of them")
    func everyProfileNamed() throws {
        let temp = try TempFolder()
        let pattern = try temp.file("p.ahap", clampedPattern)
        let out = temp.url.appendingPathComponent("p.svg").path
        let run = try CLIRun(["plot", pattern, "-o", out, "--layout", "FL=H:bass-shaker,FR=H:voice-coil*0.5"])
        #expect(run.status == 0, "\(run.stderr)")
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        #expect(svg.contains(">p.ahap · bass-shaker, voice-coil</text>"), "the title names both profiles")
        #expect(svg.contains(">drive on bass-shaker, voice-coil</text>"), "the drive panel names both")
    }

    @Test("a sound with a NaN or infinite sample: refused with the line convert gives, nothing written")
    func nonFiniteSound() throws {
        let temp = try TempFolder()
        for bad in [Float.nan, .infinity] {
            let sound = temp.url.appendingPathComponent("bad.wav").path
            var samples = (0..<48000).map { Float(sin(Double($0) * 0.01) * 0.3) }
            samples[24000] = bad
            try writeSound(sound, channels: 2, format: .wav, bits: .float32, samples: samples)
            let picture = temp.url.appendingPathComponent("bad.png").path
            let plot = try CLIRun(["plot", sound, "-o", picture])
            let convert = try CLIRun(["convert", sound, "-o", temp.url.appendingPathComponent("bad.ahap").path])
            #expect(plot.status == 1 && convert.status == 1)
            #expect(plot.stderr.contains("sample 24000 (0.500000 s) of channel 1 is \(bad.isNaN ? "NaN" : "infinite")"), "\(plot.stderr)")
            #expect(plot.stderr == convert.stderr, "the same line as convert")
            #expect(!FileManager.default.fileExists(atPath: picture))
        }
    }
}
