import Foundation

/// The folder `render` and `convert` write several outputs into (`-o DIR/`, or several inputs).
/// Folders that are missing are made only once the plan is known to be good, and are removed
/// again when the run wrote nothing into them: a run that fails leaves no trace behind.
struct OutputFolder {
    /// The folders this run made, innermost first (`-o a/b/` where neither exists: b, then a).
    private let made: [String]

    /// Makes `path` and any missing parent; an existing folder is used as it is.
    init(making path: String) throws(CLIError) {
        var missing: [String] = []
        var url = URL(fileURLWithPath: path).standardizedFileURL
        while !FileManager.default.fileExists(atPath: url.path), url.path != "/" {
            missing.append(url.path)
            url = url.deletingLastPathComponent()
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CLIError("\(path): cannot create the output folder: \(error.localizedDescription)")
        }
        made = missing
    }

    /// Removes the folders this run made, when they are still empty (rmdir refuses any other).
    func removeIfEmpty() {
        for folder in made where rmdir(folder) != 0 { return }
    }
}
