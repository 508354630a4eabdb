import CHapticSynth
import HapticKit

/// Where the C library finds the pattern library, the assets and the profiles named by name when
/// the app names no folder: the places the CLI looks (``DataFolders``: the user's folder first),
/// with the install prefix of this library itself (`<prefix>/lib/libhapticsynth.so`, found with
/// dladdr; the app's own when linked statically).
enum LibraryDataFolders {
    /// The search as the process's environment is now (an app may set it before opening).
    static var search: DataFolders {
        DataFolders(environment: DataFolders.processEnvironment(), installPrefix: installPrefix)
    }

    static let installPrefix: String? = {
        guard let file = hs_internal_library_file() else { return nil }
        // A relative name (a program run by a relative path) gives nil: nothing to place it by.
        return DataFolders.installPrefix(ofInstalledFile: String(cString: file))
    }()
}
