#if canImport(Glibc)
import Glibc
#endif

/// Where hapticsynth's data is found when no option names it: the pattern library (`Haptics`)
/// and the assets (`Assets`: sound effects in sfx/, the cue sheet cues.json, actuator profiles).
/// The CLI's `rhythm` and `serve`, `info --paths` and the C library look in the same places, in
/// this order, and take the first folder that exists:
///   1. `$HAPTICSYNTH_HAPTICS` / `$HAPTICSYNTH_ASSETS`;
///   2. `$XDG_DATA_HOME/hapticsynth/` (default `~/.local/share/hapticsynth/`): the user's own,
///      first of all the folders found by themselves;
///   3. `./Haptics`, `./Assets` (a checkout of the repository, or a project's own folders);
///   4. each `$XDG_DATA_DIRS` entry's `hapticsynth/` (default `/usr/local/share:/usr/share`);
///   5. the install prefix's `share/hapticsynth/`, found from the program (or library) itself:
///      `<prefix>/bin/hapticsynth` or `<prefix>/lib/libhapticsynth.so` → `<prefix>/share/hapticsynth`,
///      so a prefix moved elsewhere still works.
/// A folder is listed once: a later place that resolves to the same folder (the prefix /usr and
/// /usr/share of $XDG_DATA_DIRS, a link) is left out.
public struct DataFolders: Sendable {
    /// The two folders a library of cues is made of.
    public enum Kind: String, Sendable, CaseIterable {
        case haptics = "Haptics"
        case assets = "Assets"

        var environmentVariable: String { self == .haptics ? "HAPTICSYNTH_HAPTICS" : "HAPTICSYNTH_ASSETS" }
    }

    /// One place looked in: the folder and why it is on the list.
    public struct Candidate: Sendable, Equatable {
        public let path: String
        public let origin: String
    }

    let environment: [String: String]
    let installPrefix: String?
    /// The folder `./Haptics` and `./Assets` are relative to; nil: the process's current folder.
    let currentFolder: String?

    /// - Parameters:
    ///   - environment: the process's (or a test's) environment variables.
    ///   - installPrefix: the prefix the running program or library was installed into (its
    ///     folder's parent); nil when unknown.
    ///   - currentFolder: what `./Haptics` is relative to (nil: the current folder, as given).
    public init(environment: [String: String], installPrefix: String?, currentFolder: String? = nil) {
        self.environment = environment
        self.installPrefix = installPrefix
        self.currentFolder = currentFolder
    }

    /// The places looked in for `kind`, in order, each folder once.
    public func candidates(_ kind: Kind) -> [Candidate] {
        var list: [Candidate] = []
        if let given = environment[kind.environmentVariable], !given.isEmpty {
            list.append(Candidate(path: given, origin: "$" + kind.environmentVariable))
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        if let dataHome = Self.absolute(environment["XDG_DATA_HOME"]) {
            list.append(Candidate(path: dataHome + "/hapticsynth/" + kind.rawValue, origin: "$XDG_DATA_HOME"))
        } else if let home {
            list.append(Candidate(path: home + "/.local/share/hapticsynth/" + kind.rawValue, origin: "user data (~/.local/share)"))
        }
        list.append(Candidate(path: currentFolder.map { $0 + "/" + kind.rawValue } ?? kind.rawValue, origin: "current folder"))
        // The XDG spec: unset or empty means the default; relative entries are ignored.
        let dataDirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        for dir in dataDirs.split(separator: ":").map(String.init) where dir.hasPrefix("/") {
            list.append(Candidate(path: Self.trimmed(dir) + "/hapticsynth/" + kind.rawValue, origin: "$XDG_DATA_DIRS"))
        }
        if let installPrefix {
            list.append(Candidate(path: Self.trimmed(installPrefix) + "/share/hapticsynth/" + kind.rawValue, origin: "install prefix"))
        }
        var seen = Set<String>()
        return list.filter { seen.insert(Self.resolved($0.path)).inserted }
    }

    /// The folder `path` names, links and `.`/`..` resolved (realpath); the path as given when
    /// it does not exist (it can only equal itself then).
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// The first of `candidates(kind)` that is a folder; nil when none is.
    public func find(_ kind: Kind) -> Candidate? {
        candidates(kind).first { Self.isFolder($0.path) }
    }

    /// Whether `path` names a folder (following links).
    public static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` names a regular file (following links).
    public static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The prefix a file installed at `<prefix>/bin/x` or `<prefix>/lib/x` belongs to: the
    /// parent of its folder, or nil (a path without two components).
    public static func installPrefix(ofInstalledFile path: String) -> String? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard path.hasPrefix("/"), parts.count >= 2 else { return nil }
        parts.removeLast(2)
        return "/" + parts.joined(separator: "/")
    }

    /// The process's environment variables now (environ; no Foundation).
    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }

    /// The running program's own path (/proc/self/exe, links resolved); nil when unreadable.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func absolute(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        return trimmed(value)
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path == "/" ? "" : path
    }
}
