// The lookup tables prepared patterns share (sharpness → Hz, intensity → amplitude, pitch → Hz).

import HapticDSP
import HapticPattern
import Synchronization

/// The lookup tables a prepared pattern reads (sharpness → Hz, intensity → amplitude,
/// pitch → Hz). They depend on the profile's band and intensity law only, so they are
/// computed once per process for each (band, exponent) and shared: preparing a short
/// pattern would otherwise spend most of its time on some 3,000 exp2/log2 evaluations.
final class RenderTables: Sendable {
    /// `renderTableSize + 1` entries: sharpness i/n → Hz on the band's log scale.
    let frequency: [Double]
    /// 2 × the law's exponent when that is a whole number from 1 to 8 (exponents 0.5, 1, 1.5
    /// ... 4: the amplitude is then computed, by products and one square root, see
    /// `halfPower`), otherwise 0.
    let amplitudeHalfPowers: Int
    /// intensity i/n → amplitude by the power law (empty when `amplitudeHalfPowers` is not 0).
    let amplitude: [Float]

    init(band: ActuatorProfile.Band, exponent: Double) {
        let n = renderTableSize
        frequency = (0...n).map { ActuatorProfile.frequency(forSharpness: Double($0) / Double(n), band: band) }
        let halves = 2 * exponent
        amplitudeHalfPowers = halves == halves.rounded() && halves >= 1 && halves <= 8 ? Int(halves) : 0
        amplitude = amplitudeHalfPowers != 0 ? [] : (0...n).map { Float(powDouble(Double($0) / Double(n), exponent)) }
    }

    /// AudioPitch -1...1 → Hz for AudioContinuous (one octave either side of the base).
    static let audioFrequency: [Double] = (0...renderTableSize).map {
        PreparedPattern.audioBaseFrequency * exp2Double(-1 + 2 * Double($0) / Double(renderTableSize))
    }

    private struct Key: Hashable {
        var low: UInt64
        var high: UInt64
        var exponent: UInt64
    }

    private static let cache = Mutex<[Key: RenderTables]>([:])

    /// The tables for this band and law (computed on first use; a handful of profiles per process).
    static func shared(band: ActuatorProfile.Band, exponent: Double) -> RenderTables {
        let key = Key(low: band.low.bitPattern, high: band.high.bitPattern, exponent: exponent.bitPattern)
        if let hit = cache.withLock({ $0[key] }) { return hit }
        let tables = RenderTables(band: band, exponent: exponent)
        return cache.withLock { cache in
            if let raced = cache[key] { return raced }
            cache[key] = tables
            return tables
        }
    }
}
