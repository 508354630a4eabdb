import Foundation
import HapticPattern
import Testing
@testable import HapticRender

@Suite("Corpus: every real AHAP file renders in lenient mode")
struct CorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/ahap")

    /// File name → `expect` column of SOURCES.tsv.
    static func expectations() throws -> [String: String] {
        let tsv = try String(contentsOf: corpus.appendingPathComponent("SOURCES.tsv"), encoding: .utf8)
        var out: [String: String] = [:]
        let lines = tsv.split(separator: "\n")
        let header = lines[0].split(separator: "\t", omittingEmptySubsequences: false)
        let column = try #require(header.firstIndex(of: "expect"))
        for line in lines.dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count > column { out[String(fields[0])] = String(fields[column]) }
        }
        return out
    }

    @Test func everyLoadableFileRendersWithinTheCeiling() throws {
        let expect = try Self.expectations()
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".ahap") }.sorted()
        #expect(files.count >= 60)
        var rendered = 0
        // Sounds are not loaded here (no file I/O in the pure module's tests): every
        // AudioCustom event must come out as a warning plus silence, never an error.
        let noSounds = MemorySounds(sounds: [:])
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(file)))
            let decoded: DecodedAHAP
            do {
                decoded = try AHAPPattern.decode(from: bytes)
            } catch {
                #expect(expect[file]?.hasPrefix("invalid") == true, "\(file) failed to decode: \(error)")
                continue
            }
            for profile in [ActuatorProfile.bassShaker, .lra] {
                let p = try PreparedPattern(decoded.pattern, profile: profile, sampleRate: fs, sounds: noSounds)
                let out = OfflineRenderer.render(p, tail: 0.1, blockSize: 777)
                #expect(out.frames == p.frameCount + 4_800)
                #expect(out.peak <= Float(pow(10, -1.0 / 20)), "\(file)")
                #expect(out.samples.allSatisfy { $0.isFinite }, "\(file)")
                let audioEvents = decoded.pattern.elements.filter { if case .event(let e) = $0 { e.type == .audioCustom } else { false } }.count
                #expect(p.warnings.filter { $0.contains("rendered as silence") }.count == audioEvents, "\(file)")
            }
            rendered += 1
        }
        #expect(rendered == expect.values.filter { $0 == "ok" }.count)
    }
}
