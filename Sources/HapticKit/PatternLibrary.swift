#if canImport(Glibc)
import Glibc
#endif
import HapticEngine
import HapticPattern
import Logging
import Synchronization

/// The bundled haptic patterns (a folder of `.ahap` files), parsed once into a cache
/// keyed by file name without extension (`Haptics/heartbeat.ahap` → `"heartbeat"`).
///
/// Thread-safe: the cache is behind a `Mutex`; parsing runs outside it, so a lookup
/// never waits for a preload.
public final class PatternLibrary: Sendable {
    /// What one call of ``preloadPatterns()`` did.
    public struct PreloadReport: Sendable, Equatable {
        /// Files parsed by this call (0 when the library was already loaded).
        public var parsed: Int
        /// Files skipped by this call, with the reason (missing, unreadable, not valid AHAP).
        public var skipped: [String: String]
        /// Wall time of this call, seconds on CLOCK_MONOTONIC.
        public var seconds: Double
        /// Whether this call found the cache already filled (or being filled) and parsed nothing.
        public var wasCached: Bool
    }

    /// The folder searched for `*.ahap`.
    public let folder: String
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

    /// Parses every `*.ahap` of the folder once. A missing folder or a broken file is
    /// logged at debug level and skipped, never fatal. Calling it again does not
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
        switch folder.isEmpty ? .success([]) : listAHAPFiles(folder) {  // empty: no folder
        case .success(let names): files = names
        case .failure(let problem):
            skipped[folder] = problem.description
            logger.debug("pattern library: \(problem); no patterns loaded")
        }
        for file in files {
            let name = String(file.dropLast(5))
            let path = folder.hasSuffix("/") ? folder + file : folder + "/" + file
            switch readWholeFile(path) {
            case .failure(let problem):
                skipped[name] = problem.description
                logger.debug("pattern library: \(path): \(problem); skipped")
            case .success(let bytes):
                parsed += 1
                do {
                    let decoded = try AHAPPattern.decode(from: bytes, options: AHAPDecodeOptions(strict: strict))
                    patterns[name] = decoded.pattern
                } catch {
                    skipped[name] = error.description
                    logger.debug("pattern library: \(path): \(error); skipped")
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

    /// Files skipped by the preload, with the reason.
    public var skipped: [String: String] { state.withLock { $0.skipped } }

    /// Whether the preload has run.
    public var isLoaded: Bool { state.withLock { $0.loaded } }

    /// Files read and decoded since the library was made (shows that a second preload parses nothing).
    public var filesParsed: Int { state.withLock { $0.filesParsed } }
}

// MARK: - small file helpers (plain POSIX: no Foundation needed here)

/// A one-line reason a file could not be used.
struct FileProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The entries of `folder` whose names end in `suffix` (`.ahap` by default), sorted, or why it cannot be read.
func listAHAPFiles(_ folder: String, suffix: String = ".ahap") -> Result<[String], FileProblem> {
    guard let dir = opendir(folder) else {
        return .failure(FileProblem("\(folder): cannot open folder (\(String(cString: strerror(errno))))"))
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        if name.hasSuffix(suffix) && name.count > suffix.count && !name.hasPrefix(".") { names.append(name) }
    }
    return .success(names.sorted())
}

/// Reads a whole regular file (bounded by `Limits.maxFileBytes`: a pattern or cue sheet is small).
func readWholeFile(_ path: String) -> Result<[UInt8], FileProblem> {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return .failure(FileProblem("cannot open (\(String(cString: strerror(errno))))")) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .failure(FileProblem("not a regular file")) }
    guard info.st_size <= Limits.maxFileBytes else { return .failure(FileProblem("larger than the \(Limits.maxFileBytes >> 20) MiB limit")) }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
            return .failure(FileProblem(n == 0 ? "file shrank while reading" : "read failed (\(String(cString: strerror(errno))))"))
        }
        done += n
    }
    return .success(bytes)
}
