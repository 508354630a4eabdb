// The lookup tables prepared patterns share (sharpness → Hz, intensity → amplitude, pitch → Hz).

import HapticDSP
import HapticPattern
import Synchronization

/// The lookup tables a prepared pattern reads (sharpness → Hz, intensity → amplitude,
/// pitch → Hz). They depend on the profile's band and intensity law only, so they are
/// computed once for each (band, exponent) and shared through a bounded process-wide cache: preparing a short
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
    /// Process-wide and immutable: computed once, on first use.
    static let audioFrequency: [Double] = (0...renderTableSize).map {
        PreparedPattern.audioBaseFrequency * exp2Double(-1 + 2 * Double($0) / Double(renderTableSize))
    }

    private struct Key: Hashable {
        var low: UInt64
        var high: UInt64
        var exponent: UInt64
    }

    /// At most this many (band, law) entries are kept, the least recently used evicted first.
    /// A process uses a handful of profiles; one that prepares patterns for many made-up
    /// profiles (a fuzzer, a profile editor) would otherwise grow the cache without bound.
    /// An entry is about 12 KB, and a prepared pattern copies its tables, so eviction only
    /// costs a recomputation.
    static let cacheCapacity = 16

    /// Process-wide: the shared tables, most recently used last (at most `cacheCapacity`).
    private static let cache = Mutex<[(key: Key, tables: RenderTables)]>([])

    /// The number of entries cached now (for tests of the bound).
    static var cachedCount: Int { cache.withLock { $0.count } }

    /// The tables for this band and law (computed on first use, then shared while cached).
    static func shared(band: ActuatorProfile.Band, exponent: Double) -> RenderTables {
        let key = Key(low: band.low.bitPattern, high: band.high.bitPattern, exponent: exponent.bitPattern)
        if let hit = cache.withLock({ touch(key, in: &$0) }) { return hit }
        let tables = RenderTables(band: band, exponent: exponent)
        return cache.withLock { cache in
            if let raced = touch(key, in: &cache) { return raced }
            if cache.count >= cacheCapacity { cache.removeFirst(cache.count - cacheCapacity + 1) }
            cache.append((key, tables))
            return tables
        }
    }

    /// The cached tables for `key`, moved to the most recently used end; nil when absent.
    private static func touch(_ key: Key, in cache: inout [(key: Key, tables: RenderTables)]) -> RenderTables? {
        guard let i = cache.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = cache.remove(at: i)
        cache.append(entry)
        return entry.tables
    }
}
