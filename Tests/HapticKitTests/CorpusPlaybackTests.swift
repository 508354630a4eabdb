// Real sounds converted and traced through the voice (ConversionPlayback): every transient plays
// at its analysed values, the continuous layer at its envelope. The corpus's sounds
// (../shared/corpus/audio: game effects, clicks, textures, 0.1–4.4 s) are the real ones every
// checkout has; `convert-bench check` does the same for the whole evaluation set (bench/RESULTS.md).

import Foundation
import HapticKit
import HapticTestSupport
import Testing

@Suite("Corpus sounds converted play as analysed (traced)")
struct CorpusPlaybackTests {
    @Test("every corpus sound: each transient within 0.02 of its analysed values, the layer within 0.001 of its envelope")
    func corpusSoundsPlayAsAnalysed() throws {
        // No skip: without the corpus this test says so and fails.
        let audio = try #require(Corpus.audioFolder, "no corpus sounds at ../shared/corpus/audio or $HAPTICSYNTH_CORPUS")
        let sounds = (FileManager.default.enumerator(atPath: audio.path)?.allObjects as? [String] ?? [])
            .filter { ["wav", "mp3", "flac", "ogg", "aif", "aiff", "caf"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        #expect(sounds.count >= 10, "the corpus's sounds: \(sounds.count) found in \(audio.path)")
        var transients = 0, levels = 0, withTransients = 0, withLayer = 0
        var worstTransient = 0.0, worstLevel = 0.0
        // At the default sensitivity and a high one (more, closer hits: more raises).
        for sound in sounds {
            for sensitivity in [0.5, 0.9] {
                var options = SoundConversionOptions()
                options.sensitivity = sensitivity
                let haptics = try SoundConversion.convert(soundAt: audio.appendingPathComponent(sound).path, options: options).haptics
                let played = try ConversionPlayback(haptics)
                let sound = "\(sound) at sensitivity \(sensitivity)"
                #expect(played.transientsPlayed == played.transientsMeant, "\(sound): \(played.transientsPlayed) of \(played.transientsMeant) transients traced")
                #expect(played.transientIntensity <= 0.02 && played.transientSharpness <= 0.02,
                        "\(sound): a transient plays off its analysis by \(played.transientIntensity) / \(played.transientSharpness)")
                #expect(played.levelIntensity <= 0.001 && played.levelSharpness <= 0.001,
                        "\(sound): the continuous layer plays off its envelope by \(played.levelIntensity) / \(played.levelSharpness)")
                #expect(played.raisedAwayFromTransients == 0, "\(sound): \(played.raisedAwayFromTransients) curve knots raised away from transients")
                transients += played.transientsPlayed
                levels += played.levelsProbed
                if played.transientsPlayed > 0 { withTransients += 1 }
                if played.levelsProbed > 0 { withLayer += 1 }
                worstTransient = max(worstTransient, played.transientIntensity, played.transientSharpness)
                worstLevel = max(worstLevel, played.levelIntensity, played.levelSharpness)
            }
        }
        // The sample exercises both halves: sounds with hits and sounds with a layer.
        #expect(withTransients >= 5 && withLayer >= 5, "\(withTransients) conversions with transients, \(withLayer) with a continuous layer")
        print("corpus playback: \(sounds.count) sounds, \(transients) transients off by at most \(worstTransient); "
              + "continuous layer at \(levels) levels off by at most \(worstLevel)")
    }
}
