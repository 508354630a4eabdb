import CHapticSynth
import Foundation
import HapticKit
import Testing

/// hs_pattern_from_sound_file: a sound becomes the pattern `hapticsynth convert` makes of it.
@Suite struct SoundConversionTests {
    /// Clicks every 0.25 s over a 60 Hz tone on channel 1; the clicks alone, quieter, on channel 2.
    static func writeSound(_ path: String, seconds: Double = 3) throws {
        let rate = 48_000.0
        var samples: [Float] = []
        for i in 0..<Int(seconds * rate) {
            let t = Double(i) / rate, beat = t.truncatingRemainder(dividingBy: 0.25)
            let click = beat < 0.002 ? 0.6 * exp(-beat / 0.0005) : 0
            samples += [Float(0.3 * sin(2 * .pi * 60 * t) + click), Float(0.5 * click)]
        }
        try SoundFileWriter.write(samples, channels: 2, sampleRate: 48_000, to: path)
    }

    /// `pattern` rendered with the default options.
    func render(_ pattern: OpaquePointer?) -> [Float] {
        var frames = 0
        #expect(hs_pattern_render(pattern, nil, nil, 0, &frames, nil) == HS_OK, "\(lastError())")
        var out = [Float](repeating: .nan, count: frames)
        #expect(out.withUnsafeMutableBufferPointer { hs_pattern_render(pattern, nil, $0.baseAddress, frames, &frames, nil) } == HS_OK)
        return out
    }

    @Test("the pattern is convert's for the same options: same events, the same render sample for sample")
    func sameAsConvert() throws {
        let sound = NSTemporaryDirectory() + "hs-convert-\(getpid()).wav"
        try Self.writeSound(sound)
        defer { unlink(sound) }
        var options = hs_convert_options()
        #expect(hs_convert_options_init(&options) == HS_OK)
        #expect(options.sensitivity == 50 && options.min_gap_ms == 50 && options.ducking == 50 && options.breakpoints_per_second == 40)
        options.sensitivity = 70
        options.min_gap_ms = 80
        options.channel = 2
        options.from_seconds = 0.5
        options.to_seconds = 2.5
        var converted: OpaquePointer? = nil
        try #require(hs_pattern_from_sound_file(&converted, sound, &options) == HS_OK, "\(lastError())")
        defer { hs_pattern_free(converted) }

        var swift = SoundConversionOptions()
        (swift.sensitivity, swift.minimumGap, swift.channel, swift.from, swift.to) = (0.7, 0.08, 2, 0.5, 2.5)
        let pattern = try SoundConversion.convert(soundAt: sound, options: swift).haptics.ahapPattern()
        #expect(pattern.events.filter { $0.type == .hapticTransient }.count == 8, "a click every 0.25 s for 2 s")
        var status: Int32 = 0
        let reference = loadJSON(pattern.encoded(), status: &status)
        try #require(status == HS_OK, "\(lastError())")
        defer { hs_pattern_free(reference) }
        var count: Int32 = 0, expected: Int32 = 0
        #expect(hs_pattern_event_count(converted, &count) == HS_OK && hs_pattern_event_count(reference, &expected) == HS_OK)
        #expect(count == expected && count > 8)
        // The metadata is convert's: the command that makes the same file again.
        var length = 0
        #expect(hs_pattern_to_json(converted, Int32(HS_FORMAT_AHAP), nil, 0, &length) == HS_OK)
        var text = [CChar](repeating: 0, count: length + 1)
        #expect(hs_pattern_to_json(converted, Int32(HS_FORMAT_AHAP), &text, text.count, &length) == HS_OK)
        let metadata = try JSONValue.parse(Array(String(cString: text).utf8))["Metadata"]
        #expect(metadata?["Description"] == .string("hapticsynth convert --sensitivity 70 --min-gap 80 --ducking 50 --breakpoints-per-second 40 --gain 0 --channel 2 --from 0.5 --to 2.5"))
        #expect(metadata?["Editor"] == .string(ConversionRequest.editor))
        let heard = render(converted)
        #expect(heard.contains { abs($0) > 0.1 })
        #expect(differingSamples(heard, render(reference)) == 0)

        // NULL options are the defaults.
        var byDefault: OpaquePointer? = nil, initialised: OpaquePointer? = nil
        var defaults = hs_convert_options()
        hs_convert_options_init(&defaults)
        #expect(hs_pattern_from_sound_file(&byDefault, sound, nil) == HS_OK && hs_pattern_from_sound_file(&initialised, sound, &defaults) == HS_OK)
        defer { hs_pattern_free(byDefault); hs_pattern_free(initialised) }
        #expect(differingSamples(render(byDefault), render(initialised)) == 0)
    }

    @Test("hostile options and files: a status and one message naming what, never a pattern")
    func refusals() throws {
        let folder = NSTemporaryDirectory() + "hs-convert-bad-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sound = folder + "/s.wav", text = folder + "/notes.txt"
        try Self.writeSound(sound, seconds: 1)
        try Data("not a sound".utf8).write(to: URL(fileURLWithPath: text))
        func options(_ change: (inout hs_convert_options) -> Void) -> hs_convert_options {
            var o = hs_convert_options()
            hs_convert_options_init(&o)
            change(&o)
            return o
        }
        let cases: [(hs_convert_options?, String, Int32, String)] = [
            (options { $0.sensitivity = .nan }, sound, Int32(HS_ERR_INVALID_ARGUMENT), "options->sensitivity nan"),
            (options { $0.min_gap_ms = 1e308 }, sound, Int32(HS_ERR_INVALID_ARGUMENT), "options->min_gap_ms 1e+308"),
            (options { $0.ducking = -.infinity }, sound, Int32(HS_ERR_INVALID_ARGUMENT), "options->ducking -inf"),
            (options { $0.to_seconds = 1e-300 }, sound, Int32(HS_ERR_UNSUPPORTED), "options->to_seconds 1e-300 s is not after options->from_seconds 0"),
            (options { $0.gate_dbfs = 1 }, sound, Int32(HS_ERR_INVALID_ARGUMENT), "options->gate_dbfs 1.0 is outside -120.0...0.0"),
            (options { $0.channel = -1 }, sound, Int32(HS_ERR_INVALID_ARGUMENT), "options->channel -1"),
            (options { ($0.normalize, $0.gain_db) = (1, 6) }, sound, Int32(HS_ERR_INVALID_ARGUMENT), "give one of them"),
            (options { $0.struct_size = 0 }, sound, Int32(HS_ERR_INVALID_ARGUMENT), "struct_size is 0"),
            (options { $0.channel = 3 }, sound, Int32(HS_ERR_UNSUPPORTED), "options->channel 3: the file has 2 channels"),
            (options { $0.from_seconds = 5 }, sound, Int32(HS_ERR_UNSUPPORTED), "options->from_seconds 5.0 s is at or past the end of the sound"),
            (nil, folder + "/missing.wav", Int32(HS_ERR_IO), "no such file"),
            (nil, text, Int32(HS_ERR_IO), "cannot read as a sound file"),
            (nil, folder, Int32(HS_ERR_IO), "is a directory"),
        ]
        for (given, path, expected, words) in cases {
            var pattern: OpaquePointer? = OpaquePointer(bitPattern: 1)
            var o = given ?? hs_convert_options()
            let status = given == nil ? hs_pattern_from_sound_file(&pattern, path, nil) : hs_pattern_from_sound_file(&pattern, path, &o)
            let message = lastError()
            #expect(status == expected, "\(words): \(String(cString: hs_status_name(status))) \(message)")
            #expect(message.hasPrefix("hs_pattern_from_sound_file: ") && message.contains(words), "\(message)")
            #expect(pattern == nil, "no pattern on failure")
        }
        var pattern: OpaquePointer? = nil
        #expect(hs_pattern_from_sound_file(nil, sound, nil) == HS_ERR_INVALID_ARGUMENT)
        #expect(hs_pattern_from_sound_file(&pattern, nil, nil) == HS_ERR_INVALID_ARGUMENT && pattern == nil)
        #expect(hs_convert_options_init(nil) == HS_ERR_INVALID_ARGUMENT)
    }
}
