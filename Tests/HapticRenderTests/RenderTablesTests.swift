import Testing
@testable import HapticRender

@Suite("Render tables: a bounded process-wide cache")
struct RenderTablesTests {
    /// Preparing patterns for many different bands used to add a cache entry for each, for
    /// the life of the process.
    @Test func theCacheKeepsAtMostItsCapacity() throws {
        let capacity = RenderTables.cacheCapacity
        #expect(capacity >= 3, "room for the built-in profiles")
        for i in 0..<(3 * capacity) {
            let band = ActuatorProfile.Band(low: 20 + Double(i) / 7, high: 400)
            let tables = RenderTables.shared(band: band, exponent: 1.7)
            #expect(RenderTables.cachedCount <= capacity)
            // Shared while cached, and the values are the band's.
            #expect(RenderTables.shared(band: band, exponent: 1.7) === tables)
            #expect(tables.frequency.first == band.low)
        }
        #expect(RenderTables.cachedCount <= capacity)
        // An evicted entry comes back with the same values (eviction costs a recomputation only).
        let first = ActuatorProfile.Band(low: 20, high: 400)
        let again = RenderTables.shared(band: first, exponent: 1.7)
        let fresh = RenderTables(band: first, exponent: 1.7)
        #expect(again.frequency == fresh.frequency && again.amplitude == fresh.amplitude)
    }
}
