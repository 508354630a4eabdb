// The sounds of a pattern's AudioCustom events: each file loaded once per transposition
// (however its path is spelt), checked, held to the pattern's sound budget, and given an
// index into the prepared pattern's sound buffers.

import HapticDSP
import HapticPattern

/// Loads and checks AudioCustom sounds through a `SoundSource` (one load per file and
/// transposition). A sound that cannot be used is a warning, and its events are silent.
/// The sounds of one pattern hold at most `Limits.maxPatternSoundBytes` of samples: a sound
/// that would pass it is not loaded (refused from its estimate when the source gives one),
/// and its events are silent (a small file could otherwise ask for one 5 MB sound at 200
/// pitches, each converted and held apart: 14 GB).
struct SoundResolver {
    let sounds: (any SoundSource)?
    let sampleRate: Double
    /// The usable sounds, indexed by `CompiledEvent.sound`.
    private(set) var buffers: [SoundBuffer] = []
    private var bufferIndex: [String: Int] = [:]
    /// `buffers` by the address of their samples (a lookup, not a scan: a pattern may hold
    /// tens of thousands of small sounds).
    private var indexBySamples: [Int: Int] = [:]
    /// Bytes of samples held by `buffers` (a buffer shared by two keys counted once).
    private(set) var bytesHeld = 0
    /// AudioCustom events left silent because their sound would pass the budget.
    private(set) var eventsOverBudget = 0

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
        guard let sounds else {
            try warnings.warn("\(place): no sound source to load \(path)", otherwise: "rendered as silence")
            return -1
        }
        let estimate = sounds.estimate(path: path, sampleRate: fs, transposition: transposition)
        let key = "\(estimate?.identity ?? path)\u{0}\(transposition)"
        if let index = bufferIndex[key] { return index }
        if let estimate, bytesHeld + estimate.bytes > Limits.maxPatternSoundBytes {
            try overBudget(place, path, &warnings)
            return -1
        }
        do {
            let buffer = try sounds.sound(path: path, sampleRate: fs, transposition: transposition)
            // A source may hand the same samples for two keys (one file, two spellings): counted once.
            let address = buffer.samples.isEmpty ? nil : buffer.samples.withUnsafeBufferPointer { $0.baseAddress.map { Int(bitPattern: $0) } }
            if let address, let shared = indexBySamples[address] {
                bufferIndex[key] = shared
                return shared
            }
            if bytesHeld + buffer.samples.count * MemoryLayout<Float>.size > Limits.maxPatternSoundBytes {
                try overBudget(place, path, &warnings)
                return -1
            }
            if buffer.sampleRate != fs {
                try warnings.warn("\(place): sound \(path) came at \(buffer.sampleRate) Hz, not \(fs) Hz", otherwise: "rendered as silence")
            } else if Double(buffer.frames) > Limits.maxSoundSeconds * fs {
                try warnings.warn("\(place): sound \(path) is longer than the \(Limits.maxSoundSeconds) s limit", otherwise: "rendered as silence")
            } else if buffer.channels < 1 || buffer.channels > 2 {
                try warnings.warn("\(place): sound \(path) has \(buffer.channels) channels (1 or 2 supported)", otherwise: "rendered as silence")
            } else {
                buffers.append(buffer)
                bytesHeld += buffer.samples.count * MemoryLayout<Float>.size
                bufferIndex[key] = buffers.count - 1
                if let address { indexBySamples[address] = buffers.count - 1 }
                return buffers.count - 1
            }
        } catch {
            // (In strict use this also catches the error a check above threw, as before the split.)
            try warnings.warn("\(place): \(error)", otherwise: "rendered as silence")
        }
        return -1
    }

    /// Strict: an error. Lenient: counted (one warning for them all, see `budgetWarning`).
    private mutating func overBudget(_ place: String, _ path: String, _ warnings: inout PreparationWarnings) throws(RenderError) {
        if warnings.strict {
            try warnings.warn("\(place): sound \(path) would pass the \(Limits.maxPatternSoundBytes >> 20) MiB the sounds of one pattern may hold")
        }
        eventsOverBudget += 1
    }

    /// The one warning for the events left silent by the budget (lenient use).
    func budgetWarning(_ warnings: inout PreparationWarnings) throws(RenderError) {
        guard eventsOverBudget > 0 else { return }
        try warnings.warn(
            "\(eventsOverBudget) AudioCustom event\(eventsOverBudget == 1 ? "" : "s") would pass the \(Limits.maxPatternSoundBytes >> 20) MiB the sounds of one pattern may hold (each file at each AudioPitch is held apart)",
            otherwise: "rendered as silence")
    }
}
