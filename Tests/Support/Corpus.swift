// The public corpus of real AHAP files and the sounds they name, shared by every suite that
// reads it: ../shared/corpus beside the repository, or $HAPTICSYNTH_CORPUS (the corpus root
// holding ahap/ and audio/, or the ahap folder itself). A standalone clone has neither; the
// suites that need it are then skipped with a printed line saying so.

import Foundation

public enum Corpus {
    /// The folder of AHAP files (holds SOURCES.tsv), or nil when there is no corpus.
    public static let folder: URL? = {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["HAPTICSYNTH_CORPUS"], !env.isEmpty {
            let url = URL(fileURLWithPath: env)
            candidates += [url.appendingPathComponent("ahap"), url]
        } else {
            // Tests/Support/Corpus.swift -> the package root -> ../shared/corpus/ahap
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            candidates.append(root.deletingLastPathComponent().appendingPathComponent("shared/corpus/ahap"))
        }
        let found = candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("SOURCES.tsv").path) }
        if found == nil {
            print("SKIPPED: corpus suites: no corpus at ../shared/corpus/ahap or $HAPTICSYNTH_CORPUS")
        }
        return found
    }()

    /// The corpus's sounds (an audio search root: paths as the AHAP files name them), when present.
    public static var audioFolder: URL? {
        guard let folder else { return nil }
        let audio = folder.deletingLastPathComponent().appendingPathComponent("audio")
        return FileManager.default.fileExists(atPath: audio.path) ? audio : nil
    }

    public static var isAvailable: Bool { folder != nil }

    /// Whether the corpus must be there: in CI (`$CI` set), or when `$HAPTICSYNTH_CORPUS` names
    /// one. Then its absence fails the availability test instead of skipping the suites silently.
    public static var isRequired: Bool { requiredBecause != "" }

    /// Why the corpus is required ("" when it is not).
    public static var requiredBecause: String {
        let env = ProcessInfo.processInfo.environment
        if let named = env["HAPTICSYNTH_CORPUS"], !named.isEmpty { return "$HAPTICSYNTH_CORPUS names \(named)" }
        if let ci = env["CI"], !ci.isEmpty, ci != "0", ci.lowercased() != "false" { return "CI=\(ci) requires it" }
        return ""
    }

    /// The `*.ahap` files of the corpus, sorted.
    public static func files() throws -> [String] {
        guard let folder else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ahap") }.sorted()
    }

    /// `expect` column of SOURCES.tsv by file name (`ok`, or `invalid: why`).
    public static func expectations() throws -> [String: String] {
        guard let folder else { return [:] }
        let text = try String(contentsOf: folder.appendingPathComponent("SOURCES.tsv"), encoding: .utf8)
        var lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = lines.removeFirst()
        guard let fileColumn = header.firstIndex(of: "file"), let expectColumn = header.firstIndex(of: "expect") else { return [:] }
        var table: [String: String] = [:]
        for row in lines where row.count > max(fileColumn, expectColumn) {
            table[row[fileColumn]] = row[expectColumn]
        }
        return table
    }
}
