import Foundation
import HapticPattern
import HapticSoundFile
import HapticTestSupport
import Testing
@testable import HapticRender

@Suite(
    "Corpus: every real AHAP file renders in lenient mode",
    .enabled(if: Corpus.isAvailable, "AHAP corpus not found (../shared/corpus or $HAPTICSYNTH_CORPUS)"))
struct CorpusTests {
    static let ceiling = Float(pow(10, -1.0 / 20))

    static func audioEventCount(_ pattern: AHAPPattern) -> Int {
        pattern.elements.filter { if case .event(let e) = $0 { e.type == .audioCustom } else { false } }.count
    }

    @Test("without sounds: every loadable file renders under the ceiling; each AudioCustom event is a warning and silence")
    func everyLoadableFileRendersWithinTheCeiling() throws {
        let expect = try Corpus.expectations()
        let files = try Corpus.files()
        #expect(files.count >= 60)
        var rendered = 0
        let noSounds = MemorySounds(sounds: [:])
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: Corpus.folder!.appendingPathComponent(file)))
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
                // At least the pattern plus the tail, and on until silent: the last 10 ms below -60 dBFS.
                #expect(out.frames >= p.frameCount + 4_800)
                #expect(out.samples.suffix(480 * out.channels).allSatisfy { abs($0) < 0.001 }, "\(file): ends loud")
                #expect(out.peak <= Self.ceiling, "\(file)")
                #expect(out.samples.allSatisfy { $0.isFinite }, "\(file)")
                #expect(
                    p.warnings.filter { $0.contains("rendered as silence") }.count == Self.audioEventCount(decoded.pattern),
                    "\(file)")
            }
            rendered += 1
        }
        #expect(rendered == expect.values.filter { $0 == "ok" }.count)
    }

    @Test("with the corpus's sounds (libsndfile + libsoxr): AudioCustom events sound in L/R, found ones without warnings")
    func filesWithSoundsRenderTheirAudio() throws {
        let audio = try #require(Corpus.audioFolder, "the corpus has no audio/ folder")
        var withAudio = 0
        for file in try Corpus.files() {
            let url = Corpus.folder!.appendingPathComponent(file)
            guard let decoded = try? AHAPPattern.decode(from: [UInt8](Data(contentsOf: url))),
                Self.audioEventCount(decoded.pattern) > 0
            else { continue }
            let sounds = SoundLibrary(patternFile: url.path, folders: [audio.path])
            let p = try PreparedPattern(decoded.pattern, profile: .bassShaker, sampleRate: fs, sounds: sounds)
            #expect(p.hasAudio)
            let out = OfflineRenderer.render(p)
            #expect(out.channels == 3)
            #expect(out.peak <= Self.ceiling, "\(file)")
            let missing = decoded.pattern.audioFiles.filter { sounds.resolve($0) == nil }
            #expect(p.warnings.filter { $0.contains("not found") }.count <= missing.count * 4, "\(file): \(p.warnings)")
            if missing.isEmpty {
                var audioPeak: Float = 0
                for frame in 0..<out.frames { audioPeak = max(audioPeak, abs(out.samples[frame * 3]), abs(out.samples[frame * 3 + 1])) }
                #expect(audioPeak > 0.01, "\(file): its sounds were found, so L/R must carry them")
                #expect(!p.warnings.contains { $0.contains("rendered as silence") }, "\(file): \(p.warnings)")
            }
            withAudio += 1
        }
        #expect(withAudio >= 10, "the corpus has at least ten patterns with AudioCustom events")
    }
}
