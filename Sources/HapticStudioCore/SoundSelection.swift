// The selected part of a sound as an AudioCustom event's file: the audition plays the sound from
// the selection's start, in lockstep with the haptic cut out of the same stretch
// (`ConvertedHaptics.window`). The file is read and converted by the sound library the engines use.

import HapticKit

/// A sound source that knows one file and hands out only its frames from `start` to `end`.
struct SoundSelection: SoundSource {
    let path: String
    let start: Double
    let end: Double
    let library = SoundLibrary()

    func sound(path requested: String, sampleRate: Double, transposition: Double) throws(SoundSourceError) -> SoundBuffer {
        guard requested == path else { throw SoundSourceError(path: requested, message: "not the auditioned sound") }
        let whole = try library.sound(path: path, sampleRate: sampleRate, transposition: transposition)
        let channels = max(1, whole.channels)
        let first = min(whole.frames, max(0, Int((start * sampleRate).rounded())))
        let last = min(whole.frames, max(first, Int((end * sampleRate).rounded())))
        return SoundBuffer(channels: whole.channels, sampleRate: whole.sampleRate, samples: Array(whole.samples[(first * channels)..<(last * channels)]))
    }

    /// The one-event pattern that plays the selection: from its first frame, at full volume,
    /// without a fade-in (as the manager plays sound effects).
    var pattern: AHAPPattern {
        AHAPPattern(elements: [
            .event(Event(time: 0, type: .audioCustom, parameters: [EventParameter(.audioVolume, 1)], waveformPath: path, useVolumeEnvelope: false))
        ])
    }
}
