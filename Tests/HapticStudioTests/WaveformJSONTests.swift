import Foundation
import Testing

@testable import HapticStudioCore

@Suite("Studio: the waveform's JSON, written by hand for speed, says what JSONEncoder would")
struct WaveformJSONTests {
    /// The numbers JSON gives back for `view`, by key.
    static func decoded(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("a sound's waveform: the same numbers as JSONEncoder's, within the four decimals it keeps")
    func sameAsEncoder() throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let view = try Waveform.read(folder.path + "/clicks.wav")
        #expect(view.max.count > 100)
        let mine = try Self.decoded(Waveform.json(view))
        let theirs = try Self.decoded(try JSONEncoder().encode(view))
        #expect((mine["bucketSeconds"] as? Double) == (theirs["bucketSeconds"] as? Double))
        for key in ["min", "max", "rms"] {
            let a = try #require(mine[key] as? [Double]), b = try #require(theirs[key] as? [Double])
            #expect(a.count == b.count)
            #expect(zip(a, b).allSatisfy { abs($0 - $1) <= 5e-5 }, "\(key)")
        }
    }

    @Test("hostile values: NaN, infinities, −0, huge and tiny numbers give valid JSON and no trap")
    func hostile() throws {
        let values: [Float] = [.nan, .infinity, -.infinity, -0.0, 0, 1e-30, -1e-30, 0.00006, -0.00006, 0.99996, 1, -1, 12.3456, 1e9, -3e38, .greatestFiniteMagnitude, 0.1234, -0.5]
        let view = WaveformView(bucketSeconds: 0.005, min: values, max: values, rms: values)
        let decoded = try Self.decoded(Waveform.json(view))
        let numbers = try #require(decoded["max"] as? [Double])
        #expect(numbers.count == values.count)
        #expect(Float(numbers[0]) == .greatestFiniteMagnitude && Float(numbers[1]) == .greatestFiniteMagnitude)
        #expect(Float(numbers[2]) == -.greatestFiniteMagnitude)
        #expect(numbers[3] == 0 && numbers[4] == 0 && numbers[5] == 0 && numbers[6] == 0)
        #expect(numbers[10] == 1 && numbers[11] == -1 && numbers[12] == 12.3456 && numbers[16] == 0.1234 && numbers[17] == -0.5)
        #expect(numbers[7] == 0.0001 && numbers[8] == -0.0001 && numbers[9] == 1, "four decimals, rounded")
        #expect(numbers[13] == 1e9 && Float(numbers[14]) == -3e38 && Float(numbers[15]) == .greatestFiniteMagnitude)
        #expect(decoded["bucketSeconds"] as? Double == 0.005)
    }
}
