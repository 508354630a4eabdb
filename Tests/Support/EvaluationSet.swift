// The conversion evaluation set (bench/convert-eval/make-set.sh): public sounds with the
// haptic clips tools and designers made for them, kept outside the repository in
// ../convert-eval beside it, or $HAPTICSYNTH_EVAL. Suites that use it skip with a printed
// line when it is not there.

import Foundation

public enum EvaluationSet {
    /// The set's folder (holds SOURCES.tsv), or nil.
    public static let folder: URL? = {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["HAPTICSYNTH_EVAL"], !env.isEmpty {
            candidates.append(URL(fileURLWithPath: env))
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.deletingLastPathComponent().appendingPathComponent("convert-eval"))
        let found = candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("SOURCES.tsv").path) }
        if found == nil { print("SKIPPED: evaluation-set suites: no set at ../convert-eval or $HAPTICSYNTH_EVAL (bench/convert-eval/make-set.sh makes it)") }
        return found
    }()

    /// Paths of the set's files with extension `ext` (every family), sorted.
    public static func files(withExtension ext: String) -> [String] {
        guard let folder, let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [String] = []
        while let name = walker.nextObject() as? String {
            if name.hasSuffix("." + ext) { found.append(folder.appendingPathComponent(name).path) }
        }
        return found.sorted()
    }
}
