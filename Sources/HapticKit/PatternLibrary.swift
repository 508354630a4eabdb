import HapticEngine
import HapticPattern
import Logging
import Synchronization

/// The bundled haptic patterns (a folder of `.ahap` files, and `.haptic` clips from Meta Haptics
/// Studio or Lofelt Studio, read as the AHAP pattern they convert to), parsed once into a cache
/// keyed by file name without extension (`Haptics/heartbeat.ahap` → `"heartbeat"`). When
/// `name.ahap` and `name.haptic` are both there, the AHAP file is the pattern and the clip is
/// skipped (with that reason).
///
/// Thread-safe: the cache is behind a `Mutex`; parsing runs outside it, so a lookup
/// never waits for a preload.
public final class PatternLibrary: Sendable {
    /// What one call of ``preloadPatterns()`` did.
    public struct PreloadReport: Sendable, Equatable {
        /// Files parsed by this call (0 when the library was already loaded).
        public var parsed: Int
        /// Files skipped by this call (their paths: the folder's path joined with the file's
        /// name; the folder's own path when it cannot be listed), with the reason (unreadable,
        /// not a regular file, not valid AHAP).
        public var skipped: [String: String]
        /// Wall time of this call, seconds on CLOCK_MONOTONIC.
        public var seconds: Double
        /// Whether this call found the cache already filled (or being filled) and parsed nothing.
        public var wasCached: Bool
    }

    /// The folder searched for `*.ahap` and `*.haptic`.
    public let folder: String
    /// The names of the files the library loads end so (the AHAP file first: it wins a name).
    static let fileSuffixes = [".ahap", ".haptic"]
    /// Whether files are decoded in strict mode (warnings are errors).
    public let strict: Bool
    private let logger: Logger

    private struct State {
        var patterns: [String: AHAPPattern] = [:]
        var skipped: [String: String] = [:]
        var loaded = false
        var loading = false
        var filesParsed = 0
    }
    private let state = Mutex(State())

    /// - Parameters:
    ///   - folder: the patterns folder (the project's `Haptics/`; empty: none).
    ///   - strict: decode in strict mode (the bundled library is held to it).
    public init(folder: String, strict: Bool = true, logger: Logger = Logger(label: "hapticsynth.library")) {
        self.folder = folder
        self.strict = strict
        self.logger = logger
    }

    /// Parses every `*.ahap` and `*.haptic` of the folder once. A missing folder or a broken
    /// file is logged at debug level and skipped, never fatal; only regular files are opened (a
    /// named pipe or a device called `*.ahap` is skipped, never waited on). Calling it again does not
    /// re-parse (the report says `wasCached`); a call made while another is parsing
    /// returns at once as well.
    @discardableResult
    public func preloadPatterns() -> PreloadReport {
        let t0 = MonotonicClock.now()
        let proceed = state.withLock { s -> Bool in
            guard !s.loaded, !s.loading else { return false }
            s.loading = true
            return true
        }
        guard proceed else {
            return PreloadReport(parsed: 0, skipped: [:], seconds: MonotonicClock.now() - t0, wasCached: true)
        }

        var patterns: [String: AHAPPattern] = [:]
        var skipped: [String: String] = [:]
        var parsed = 0
        var files: [String] = []
        switch folder.isEmpty ? .success([]) : listFiles(folder, suffix: "") {  // empty: no folder
        case .success(let names): files = names.filter { name in Self.fileSuffixes.contains { name.hasSuffix($0) } }
        case .failure(let problem):
            skipped[folder] = problem.description
            logger.debug("pattern library: \(printable(folder)): \(problem); no patterns loaded")
        }
        // (Every listed file ends in one of the suffixes.)
        func patternName(_ file: String) -> String { String(file.dropLast(Self.fileSuffixes.first { file.hasSuffix($0) }?.count ?? 0)) }
        let ahapNames = Set(files.filter { $0.hasSuffix(".ahap") }.map(patternName))
        for file in files {
            let clip = file.hasSuffix(".haptic")
            let name = patternName(file)
            let path = folder.hasSuffix("/") ? folder + file : folder + "/" + file
            if clip && ahapNames.contains(name) {
                skipped[path] = "\(name).ahap has the same name and is the pattern"
                continue
            }
            switch readWholeFile(path) {
            case .failure(let problem):
                skipped[path] = problem.description
                logger.debug("pattern library: \(printable(path)): \(problem); skipped")
            case .success(let bytes):
                parsed += 1
                do throws(AHAPError) {
                    let options = AHAPDecodeOptions(strict: strict)
                    patterns[name] = clip
                        ? try HapticClip.decode(from: bytes, options: options).clip.ahapPattern()
                        : try AHAPPattern.decode(from: bytes, options: options).pattern
                } catch {
                    skipped[path] = error.description
                    logger.debug("pattern library: \(printable(path)): \(error); skipped")
                }
            }
        }
        state.withLock { s in
            s.patterns = patterns
            s.skipped = skipped
            s.filesParsed += parsed
            s.loaded = true
            s.loading = false
        }
        return PreloadReport(parsed: parsed, skipped: skipped, seconds: MonotonicClock.now() - t0, wasCached: false)
    }

    /// The parsed pattern called `name` (nil: unknown, skipped, or not preloaded yet).
    public func pattern(named name: String) -> AHAPPattern? { state.withLock { $0.patterns[name] } }

    /// Every loaded pattern, by name.
    public var patterns: [String: AHAPPattern] { state.withLock { $0.patterns } }

    /// Names of the loaded patterns, sorted.
    public var names: [String] { state.withLock { $0.patterns.keys.sorted() } }

    /// Files skipped by the preload (by path), with the reason.
    public var skipped: [String: String] { state.withLock { $0.skipped } }

    /// Whether the preload has run.
    public var isLoaded: Bool { state.withLock { $0.loaded } }

    /// Files read and decoded since the library was made (shows that a second preload parses nothing).
    public var filesParsed: Int { state.withLock { $0.filesParsed } }
}
