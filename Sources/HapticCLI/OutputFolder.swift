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

    /// The plan for `-o OUTPUT` when it is a folder (several inputs, an output ending in "/", or
    /// an existing folder): one output per input, named after it with `fileExtension`, and the
    /// folder, made only now that the plan is good. Nil when OUTPUT names one file.
    /// `namesAFile` says whether a missing OUTPUT not ending in "/" reads as a file's name (then
    /// several inputs are refused rather than given a folder called `x.ahap`).
    static func plan(
        _ inputs: [String], into output: String, fileExtension: String, namesAFile: (String) -> Bool = { _ in false }
    ) throws(CLIError) -> (targets: [(input: String, output: String)], folder: OutputFolder)? {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
        guard inputs.count > 1 || output.hasSuffix("/") || (exists && isDirectory.boolValue) else { return nil }
        if exists && !isDirectory.boolValue {
            throw CLIError("\(output): is a file; several inputs need an output folder")
        }
        if !exists && !output.hasSuffix("/") && namesAFile(output) {
            throw CLIError("\(output): several inputs need an output folder; end the name with / to make one (\(output)/)")
        }
        var seen: Set<String> = []
        let targets = try inputs.map { input throws(CLIError) in
            let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
            guard seen.insert(name).inserted else {
                throw CLIError("\(input): a second input named \"\(name)\" would overwrite the first's output")
            }
            return (input: input, output: URL(fileURLWithPath: output).appendingPathComponent(name + "." + fileExtension).path)
        }
        return (targets, try OutputFolder(making: output))
    }

    /// Removes the folders this run made, when they are still empty (rmdir refuses any other).
    func removeIfEmpty() {
        for folder in made where rmdir(folder) != 0 { return }
    }
}
