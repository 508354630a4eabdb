// A damaged MP3, for the tests of what the tool and the library say about one.

import CSndFile
import Foundation

/// Why a fixture could not be made.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
}

/// Writes two seconds of a 200 Hz tone as MP3 (libsndfile's encoder) to `path`, then overwrites a
/// stretch of its frames (the same damage every run): libmpg123 complains about it on
/// descriptor 2 as it decodes.
public func writeDamagedMP3(_ path: String) throws {
    var info = SF_INFO()
    info.samplerate = 44_100
    info.channels = 1
    info.format = Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
    guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
        throw FixtureError(description: "libsndfile cannot write MP3 to \(path)")
    }
    var tone = (0..<88_200).map { Float(0.3 * sin(2 * Double.pi * 200 * Double($0) / 44_100)) }
    let written = sf_writef_float(file, &tone, 88_200)
    sf_close(file)
    guard written == 88_200 else { throw FixtureError(description: "libsndfile wrote \(written) of 88200 frames to \(path)") }
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var state: UInt32 = 12_345
    for k in 3000..<min(bytes.count, 6000) {
        state = state &* 1_103_515_245 &+ 12_345
        bytes[k] = UInt8(truncatingIfNeeded: state >> 16)
    }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}
