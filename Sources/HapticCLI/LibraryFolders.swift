import Foundation

/// The pattern library and assets folders of the verbs that play cues (`rhythm`, `serve`):
/// the option when given, else `$HAPTICSYNTH_HAPTICS` / the assets folder found beside the
/// tool, else `./Haptics` and `./Assets`.
struct LibraryFolders {
    let haptics: String
    let assets: String

    /// Resolves the folders; the error names the folder and its option.
    init(haptics: String?, assets: String?) throws(CLIError) {
        self.haptics = haptics ?? ProcessInfo.processInfo.environment["HAPTICSYNTH_HAPTICS"] ?? "Haptics"
        self.assets = assets ?? SynthesisOptions.assetsFolder() ?? "Assets"
        for (flag, folder) in [("--haptics", self.haptics), ("--assets", self.assets)] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CLIError("\(folder): no such folder (\(flag))")
            }
        }
    }
}
