import Foundation
import HapticPattern
import Testing

/// The public corpus of real AHAP files (../shared/corpus/ahap beside the repository,
/// or $HAPTICSYNTH_CORPUS: either the corpus root holding ahap/, or the ahap folder itself).
enum Corpus {
    static let folder: URL? = {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["HAPTICSYNTH_CORPUS"], !env.isEmpty {
            let url = URL(fileURLWithPath: env)
            candidates += [url.appendingPathComponent("ahap"), url]
        } else {
            // Tests/HapticPatternTests/CorpusTests.swift -> the package root -> ../shared/corpus/ahap
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            candidates.append(root.deletingLastPathComponent().appendingPathComponent("shared/corpus/ahap"))
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("SOURCES.tsv").path) }
    }()

    static var isAvailable: Bool { folder != nil }

    /// `expect` column of SOURCES.tsv by file name.
    static func expectations(in folder: URL) throws -> [String: String] {
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

    /// The error kind an `invalid: ...` description names (nil when no known phrase matches).
    static func expectedKind(_ expect: String) -> AHAPError.Kind? {
        let text = expect.lowercased()
        let table: [(String, AHAPError.Kind)] = [
            ("none of event/parameter/parameter", .elementShape), ("more than one of", .elementShape),
            ("not json", .syntax), ("syntax", .syntax),
            ("pattern missing", .missingPattern), ("no pattern", .missingPattern),
            ("eventtype", .unknownEventType),
            ("negative", .invalidTime), ("non-finite", .invalidTime),
            ("duration", .missingDuration),
            ("non-number", .wrongType), ("wrong type", .wrongType),
            ("waveform", .missingWaveformPath),
        ]
        return table.first { text.contains($0.0) }?.1
    }
}

@Suite("Public AHAP corpus")
struct CorpusTests {
    @Test("corpus availability is reported (the suite below is skipped without it)")
    func availability() throws {
        guard let folder = Corpus.folder else {
            // Visible in the test log: a standalone clone has no ../shared/corpus.
            print("SKIPPED: AHAP corpus suite: no corpus at ../shared/corpus/ahap or $HAPTICSYNTH_CORPUS")
            return
        }
        let table = try Corpus.expectations(in: folder)
        #expect(!table.isEmpty, "SOURCES.tsv lists no files")
        print("AHAP corpus: \(folder.path), \(table.count) files listed")
    }

    // Skipped (not failed) when the corpus folder is absent; the test above prints why.
    @Test("every file loads leniently unless SOURCES.tsv marks it invalid; invalid ones fail with the expected kind",
          .enabled(if: Corpus.isAvailable, "AHAP corpus not found (../shared/corpus/ahap or $HAPTICSYNTH_CORPUS)"))
    func corpus() throws {
        let folder = try #require(Corpus.folder)
        let table = try Corpus.expectations(in: folder)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ahap") }.sorted()
        #expect(files.count >= 1)
        var loaded = 0, refused = 0
        for name in files {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            // Files not (yet) listed in SOURCES.tsv are expected to load.
            let expect = table[name] ?? "ok"
            if expect.hasPrefix("invalid") {
                do {
                    _ = try AHAPPattern.decode(from: bytes)
                    Issue.record("\(name) is marked '\(expect)' but loaded")
                } catch {
                    refused += 1
                    guard let kind = Corpus.expectedKind(expect) else {
                        Issue.record("\(name): no error kind known for the expectation '\(expect)' (extend Corpus.expectedKind); got \(error)")
                        continue
                    }
                    #expect(error.kind == kind, "\(name): \(error)")
                }
            } else {
                do {
                    let decoded = try AHAPPattern.decode(from: bytes)
                    loaded += 1
                    // Every loadable file also survives a round trip through the encoder.
                    let again = try AHAPPattern.decode(text: decoded.pattern.encoded())
                    #expect(again.pattern == decoded.pattern, "\(name) round trip")
                } catch {
                    Issue.record("\(name) should load: \(error)")
                }
            }
        }
        print("AHAP corpus: \(loaded) files loaded, \(refused) refused as expected")
    }
}
