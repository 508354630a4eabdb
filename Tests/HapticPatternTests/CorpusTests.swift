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
    @Test("corpus availability is reported (the suite below is skipped without it)")
    func availability() throws {
        guard let folder = Corpus.folder else {
            // Visible in the test log: a standalone clone has no ../shared/corpus.
            print("SKIPPED: AHAP corpus suite: no corpus at ../shared/corpus/ahap or $HAPTICSYNTH_CORPUS")
            return
        }
        let table = try Corpus.expectations()
        #expect(!table.isEmpty, "SOURCES.tsv lists no files")
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
