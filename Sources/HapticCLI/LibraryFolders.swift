#if canImport(Glibc)
import Glibc
#endif
import HapticKit

/// The pattern library and assets folders of the verbs that play cues (`rhythm`, `serve`):
/// the option when given, else the first folder that exists of the places `DataFolders` lists
/// ($HAPTICSYNTH_HAPTICS / $HAPTICSYNTH_ASSETS, ./Haptics and ./Assets, the user's and the
/// system's XDG data folders, the install prefix's share/hapticsynth).
struct LibraryFolders {
    let haptics: String
    let assets: String

    /// Where this process looks: its environment and the prefix it was installed into.
    static var search: DataFolders {
        DataFolders(
            environment: ProcessEnvironment.variables,
            installPrefix: DataFolders.executablePath().flatMap(DataFolders.installPrefix(ofInstalledFile:)))
    }

    /// Resolves the folders; the error names the folder and its option, or where it looked.
    init(haptics: String?, assets: String?) throws(CLIError) {
        self.haptics = try Self.resolve(haptics, .haptics, flag: "--haptics", what: "pattern library")
        self.assets = try Self.resolve(assets, .assets, flag: "--assets", what: "assets folder")
    }

    private static func resolve(_ given: String?, _ kind: DataFolders.Kind, flag: String, what: String) throws(CLIError) -> String {
        if let given {
            guard DataFolders.isFolder(given) else { throw CLIError("\(given): no such folder (\(flag))") }
            return given
        }
        let search = Self.search
        // A folder named by the environment is meant: its absence is an error, not a fallback.
        if let first = search.candidates(kind).first, first.origin.hasPrefix("$HAPTICSYNTH"), !DataFolders.isFolder(first.path) {
            throw CLIError("\(first.path): no such folder (\(first.origin))")
        }
        if let found = search.find(kind) { return found.path }
        let looked = search.candidates(kind).map(\.path).joined(separator: ", ")
        throw CLIError("no \(what) found (looked in \(looked)); \(flag) names one")
    }
}

/// The process's environment variables, read once (no Foundation needed).
enum ProcessEnvironment {
    static let variables: [String: String] = DataFolders.processEnvironment()
}
