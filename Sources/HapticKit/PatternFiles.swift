// Patterns and profiles named by the app at run time — a path, or a built-in name — read
// without Foundation (the C library's hs_pattern_load_file, hs_engine_open's profile).

extension AHAPPattern {
    /// Reads the pattern file at `path` in any recognised format (``PatternFormat``; the name
    /// helps recognise it): one regular file of at most `Limits.maxFileBytes`, through
    /// ``AHAPPattern/load(from:fileName:options:)``.
    public static func load(file path: String, options: AHAPDecodeOptions = .init()) throws(PatternLoadError) -> DecodedAHAP {
        switch readWholeFile(path) {
        case .success(let bytes): return try load(from: bytes, fileName: path, options: options)
        case .failure(let problem): throw .unreadable(problem.description)
        }
    }
}

/// Why a profile named by the app could not be had: one line naming it.
public struct ProfileLookupError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension ActuatorProfile {
    /// A built-in profile by name (``builtInNames``), else the profile JSON file at `nameOrPath`
    /// (a path has a "/" or ends in `.json`).
    public static func named(orPath nameOrPath: String) throws(ProfileLookupError) -> ActuatorProfile {
        if let builtIn = builtIn(named: nameOrPath) { return builtIn }
        guard nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") else {
            throw ProfileLookupError(
                "profile \(nameOrPath): no such built-in profile (known: \(builtInNames.joined(separator: ", "))) and not a .json path")
        }
        let bytes: [UInt8]
        switch readWholeFile(nameOrPath) {
        case .success(let b): bytes = b
        case .failure(let problem): throw ProfileLookupError("\(nameOrPath): cannot read: \(problem)")
        }
        do {
            return try decode(from: bytes, source: nameOrPath)
        } catch {
            throw ProfileLookupError("\(error)")
        }
    }
}
