// The sounds of a pattern's AudioCustom events: each file loaded once per transposition,
// checked, and given an index into the prepared pattern's sound buffers.

import HapticDSP
import HapticPattern

/// Loads and checks AudioCustom sounds through a `SoundSource` (one load per path and
/// transposition). A sound that cannot be used is a warning, and its events are silent.
struct SoundResolver {
    let sounds: (any SoundSource)?
    let sampleRate: Double
    /// The usable sounds, indexed by `CompiledEvent.sound`.
    private(set) var buffers: [SoundBuffer] = []
    private var bufferIndex: [String: Int] = [:]

    init(sounds: (any SoundSource)?, sampleRate: Double) {
        self.sounds = sounds
        self.sampleRate = sampleRate
    }

    /// The buffer index for `path` played at `pitch` (AudioPitch, ±1 octave), or -1 (silence;
    /// warned, or an error when strict). `place` names the event in messages.
    mutating func resolve(
        path: String, pitch: Double, place: String, _ warnings: inout PreparationWarnings
    ) throws(RenderError) -> Int {
        let fs = sampleRate
        let transposition = exp2Double(pitch)
        let key = "\(path)\u{0}\(transposition)"
        if let index = bufferIndex[key] { return index }
        guard let sounds else {
            try warnings.warn("\(place): no sound source to load \(path)", otherwise: "rendered as silence")
            return -1
        }
        do {
            let buffer = try sounds.sound(path: path, sampleRate: fs, transposition: transposition)
            if buffer.sampleRate != fs {
                try warnings.warn("\(place): sound \(path) came at \(buffer.sampleRate) Hz, not \(fs) Hz", otherwise: "rendered as silence")
            } else if Double(buffer.frames) > Limits.maxSoundSeconds * fs {
                try warnings.warn("\(place): sound \(path) is longer than the \(Limits.maxSoundSeconds) s limit", otherwise: "rendered as silence")
            } else if buffer.channels < 1 || buffer.channels > 2 {
                try warnings.warn("\(place): sound \(path) has \(buffer.channels) channels (1 or 2 supported)", otherwise: "rendered as silence")
            } else {
                buffers.append(buffer)
                bufferIndex[key] = buffers.count - 1
                return buffers.count - 1
            }
        } catch {
            // (In strict use this also catches the error a check above threw, as before the split.)
            try warnings.warn("\(place): \(error)", otherwise: "rendered as silence")
        }
        return -1
    }
}
