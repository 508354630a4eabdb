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
    /// The profile file `name` (neither built in nor a path) stands for: `actuators/NAME.json` in
    /// `assetsFolder`, when it is a file there.
    public static func assetsFile(named name: String, assetsFolder: String?) -> String? {
        guard let assetsFolder, !name.isEmpty, !name.hasPrefix("."), !name.contains("/") else { return nil }
        let file = assetsFolder + "/actuators/" + name + ".json"
        return DataFolders.isFile(file) ? file : nil
    }

    /// A built-in profile by name (``builtInNames``), else the profile JSON file at `nameOrPath`
    /// (a path has a "/" or ends in `.json`), else, for another name, `actuators/NAME.json` in
    /// the assets folder (`assetsFolder`: the one ``DataFolders`` finds, so the user's own
    /// profiles in ~/.local/share/hapticsynth/Assets/actuators go by name, in the CLI and the
    /// C library alike).
    public static func named(orPath nameOrPath: String, assetsFolder: String? = nil) throws(ProfileLookupError) -> ActuatorProfile {
        if let builtIn = builtIn(named: nameOrPath) { return builtIn }
        guard nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") else {
            if let file = assetsFile(named: nameOrPath, assetsFolder: assetsFolder) { return try named(orPath: file) }
            let looked = assetsFolder.map { ", none in \($0)/actuators" } ?? ""
            throw ProfileLookupError(
                "profile \(nameOrPath): no such built-in profile (known: \(builtInNames.joined(separator: ", "))\(looked)) and not a .json path")
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
