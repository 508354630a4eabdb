import Foundation
import HapticPattern
import HapticTestSupport
import Testing

/// What the corpus's `invalid: ...` descriptions mean (the corpus itself is located by
/// HapticTestSupport's `Corpus`).
enum CorpusExpectations {
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
    // A standalone clone without the corpus skips this (reported as skipped, not passed); where
    // the corpus is required — CI, or $HAPTICSYNTH_CORPUS set — its absence is a failure.
    @Test("the corpus is present where it is required, and SOURCES.tsv matches its files",
          .enabled(if: Corpus.isAvailable || Corpus.isRequired, "no corpus, and none required (no $CI, no $HAPTICSYNTH_CORPUS)"))
    func availability() throws {
        let folder = try #require(
            Corpus.folder, "no AHAP corpus at ../shared/corpus/ahap or $HAPTICSYNTH_CORPUS, and \(Corpus.requiredBecause)")
        let table = try Corpus.expectations()
        #expect(!table.isEmpty, "SOURCES.tsv lists no files")
        let files = Set(try Corpus.files())
        #expect(!files.isEmpty, "\(folder.path) holds no .ahap files")
        let missing = table.keys.filter { $0.hasSuffix(".ahap") && !files.contains($0) }.sorted()
        #expect(missing.isEmpty, "listed in SOURCES.tsv but not in \(folder.path): \(missing.prefix(5))")
        print("AHAP corpus: \(folder.path), \(table.count) files listed")
    }

    // Skipped (not failed) when the corpus folder is absent; the test above prints why.
    @Test("every file loads leniently unless SOURCES.tsv marks it invalid; invalid ones fail with the expected kind",
          .enabled(if: Corpus.isAvailable, "AHAP corpus not found (../shared/corpus/ahap or $HAPTICSYNTH_CORPUS)"))
    func corpus() throws {
        let folder = try #require(Corpus.folder)
        let table = try Corpus.expectations()
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
                    guard let kind = CorpusExpectations.expectedKind(expect) else {
                        Issue.record("\(name): no error kind known for the expectation '\(expect)' (extend CorpusExpectations); got \(error)")
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
