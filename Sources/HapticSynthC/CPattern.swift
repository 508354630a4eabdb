#if canImport(Glibc)
import Glibc
#endif
import CHapticSynth
import HapticKit
import Synchronization

/// What an hs_pattern is: a decoded pattern, the reader's warnings as lines, and where its
/// sounds are looked for first (the file's folder). Engine-independent: each engine prepares
/// it for itself once (``prepared(for:)``).
/// `@unchecked Sendable`: the warning strings are written once, at init, and only read after.
final class CPattern: @unchecked Sendable {
    let pattern: AHAPPattern
    /// The warnings, one line each, as C strings for hs_pattern_warning (freed with the pattern).
    let warnings: [UnsafeMutablePointer<CChar>]
    /// The pattern file's path (nil: loaded from memory).
    let path: String?
    /// What was prepared, per engine (an engine that has gone away takes its entry with it).
    private let preparations = Mutex<[UInt64: Preparation]>([:])

    final class Preparation: @unchecked Sendable {
        // Set once at init; read under the pattern's mutex.
        weak var engine: CEngine?
        let prepared: PreparedPattern
        init(_ engine: CEngine, _ prepared: PreparedPattern) {
            self.engine = engine
            self.prepared = prepared
        }
    }

    init(_ decoded: DecodedAHAP, path: String?) {
        pattern = decoded.pattern
        warnings = decoded.warnings.map { strdup($0.description)! }
        self.path = path
    }

    deinit { for warning in warnings { free(warning) } }

    /// The pattern prepared for `engine` (compiled for its profile and rate, its sounds read:
    /// next to the pattern's file, then in the engine's assets folder), made on first use.
    func prepared(for engine: CEngine) throws(Failure) -> PreparedPattern {
        if let done = preparations.withLock({ $0[engine.serial]?.prepared }) { return done }
        let sounds = path.map { SoundLibrary(patternFile: $0, assetsFolder: engine.assetsFolder) }
            ?? SoundLibrary(assetsFolder: engine.assetsFolder)
        let prepared: PreparedPattern
        do { prepared = try engine.manager.prepare(pattern, sounds: sounds) } catch {
            throw Failure(HS_ERR_PARSE, "the pattern cannot be prepared: \(error)")
        }
        return preparations.withLock { cache in
            if let raced = cache[engine.serial] { return raced.prepared }
            cache = cache.filter { $0.value.engine != nil }
            cache[engine.serial] = Preparation(engine, prepared)
            return prepared
        }
    }
}
