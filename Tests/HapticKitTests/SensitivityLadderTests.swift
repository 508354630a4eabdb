// The sensitivity ladder behind `convert --list-sensitivities` and `plot --panels sensitivity`:
// each rung is the conversion at that sensitivity, with the other options as given.

import Foundation
import HapticKit
import Testing

@Suite("sensitivity ladder")
struct SensitivityLadderTests {
    /// Two seconds of clicks, one every 0.1 s, each a little quieter than the one before, over
    /// a quiet 50 Hz tone, in two channels of which the second carries only the tone.
    func writeClicks(_ path: String) throws {
        let rate = 48000
        var interleaved: [Float] = []
        for i in 0..<(2 * rate) {
            let t = Double(i) / Double(rate)
            let k = Int(t / 0.1), since = t - Double(k) * 0.1
            let click = since < 0.005 ? 0.9 * pow(0.8, Double(k)) * exp(-since / 0.001) * sin(2 * Double.pi * 120 * since) : 0
            let tone = 0.02 * sin(2 * Double.pi * 50 * t)
            interleaved += [Float(click + tone), Float(tone)]
        }
        try SoundFileWriter.write(interleaved, channels: 2, sampleRate: rate, to: path)
    }

    @Test("each rung is convert at its sensitivity, the other options passed through; rungs sorted, once each")
    func rungsAreConversions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hapticsynth-ladder-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("clicks.wav").path
        try writeClicks(path)
        var options = SoundConversionOptions()
        options.minimumGap = 0.08
        options.from = 0.25
        let ladder = try SoundConversion.sensitivityLadder(soundAt: path, options: options, sensitivities: [0.9, 0.1, 0.5, 0.1, 1])
        #expect(ladder.rungs.map(\.sensitivity) == [0.1, 0.5, 0.9, 1])
        for rung in ladder.rungs {
            var o = options
            o.sensitivity = rung.sensitivity
            let converted = try SoundConversion.convert(soundAt: path, options: o).haptics.transients.map(\.time)
            #expect(rung.times == converted, "\(rung.sensitivity)")
            // From --from on, the pattern's own times.
            #expect(rung.times.allSatisfy { $0 >= 0 && $0 < 1.75 })
        }
        // The fading clicks: fewer at 10 % than at 100 %; the loud one at 0.3 s (0.05 s into the
        // range) at 10 %. (More sensitive rungs also take the range's start, where the tone
        // begins, and the 80 ms gap then drops that click: each rung is its own conversion.)
        let low = try #require(ladder.rung(at: 0.1)), high = try #require(ladder.rung(at: 1))
        #expect(low.times.count < high.times.count, "\(low.times) against \(high.times)")
        #expect(low.times.contains { abs($0 - 0.05) < 0.003 }, "\(low.times)")
        #expect(ladder.rung(at: 0.3) == nil)
        // The conversion with its ladder (`convert --list-sensitivities`): the same conversion and
        // the same ladder as asked for apart.
        options.sensitivity = 0.7
        let (conversion, alongside) = try SoundConversion.convert(soundAt: path, options: options, ladder: [1, 0.1, 0.5, 0.9])
        let alone = try SoundConversion.convert(soundAt: path, options: options)
        #expect(conversion.haptics == alone.haptics)
        #expect(conversion.notes == alone.notes)
        #expect(alongside == ladder)
        options.sensitivity = 0.5
        // The second channel has no clicks: nothing after the range's start at any sensitivity.
        options.channel = 2
        let tone = try SoundConversion.sensitivityLadder(soundAt: path, options: options, sensitivities: [0.5, 1])
        #expect(tone.rungs.allSatisfy { $0.times.allSatisfy { $0 < 0.02 } }, "\(tone.rungs)")
        // A sensitivity outside 0…1 is refused as convert refuses it, naming it.
        for bad in [Double.nan, 1.5, -0.1] {
            let error = #expect(throws: SoundFileError.self) {
                _ = try SoundConversion.sensitivityLadder(soundAt: path, sensitivities: [0.5, bad])
            }
            #expect(error?.description.contains("sensitivity") == true, "\(String(describing: error))")
        }
    }
}
