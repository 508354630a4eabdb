// Where a cue's haptic and sound start, in whole samples, so that they are felt together
// (or as the cue sheet says). Measured once per cue when the cues are prepared for an engine,
// off the render thread (the Hilbert envelope allocates).

import HapticRender

/// A cue's two parts placed against each other, in frames of the engine they were prepared
/// for: the haptic part starts `hapticDelayFrames` after the cue's time, the sound
/// `audioDelayFrames` after it. Both are ≥ 0: the part felt earlier is the one delayed.
public struct CueAlignment: Sendable, Equatable, Codable {
    public var sampleRate: Int
    /// Frames after the cue's time at which the haptic part starts.
    public var hapticDelayFrames: Int64
    /// Frames after the cue's time at which the sound starts (its sheet offset included).
    public var audioDelayFrames: Int64
    /// The sound's felt onset: frames from its first sample until its Hilbert envelope first
    /// reaches half its peak (nil: no sound, or silent).
    public var audioFeltFrames: Int64?
    /// The haptic part's felt onset, in frames from the haptic part's start: where its
    /// envelope first reaches half its peak in the window that starts at the sound's sheet
    /// offset (so a long pattern is measured where its sound lands). nil: no haptic, or silent.
    public var hapticFeltFrames: Int64?

    /// Audio start minus haptic start, in frames: the sample skew a player of this cue plans.
    public var plannedSkewFrames: Int64 { audioDelayFrames - hapticDelayFrames }

    /// Felt onset of the sound minus that of the haptic, in frames, for parts started
    /// `sampleSkew` frames apart (audio minus haptic); nil when either part has no felt onset.
    public func feltSkewFrames(sampleSkew: Double) -> Double? {
        guard let a = audioFeltFrames, let h = hapticFeltFrames else { return nil }
        return sampleSkew + Double(a - h)
    }

    /// The window after a part's reference point in which its felt onset is measured.
    public static let measureSeconds = 0.5

    /// Places `cue`'s parts, prepared for one engine at `sampleRate`: `haptic` is the cue's
    /// haptic part (nil or no events: none), `sound` its sound effect as a one-event pattern.
    /// `audioFelt`, `hapticFelt`: the parts' felt onsets when already measured (.some(nil):
    /// measured, none), else nil.
    public static func place(
        _ cue: CueSheet.Cue, haptic: PreparedPattern?, sound: PreparedPattern?, sampleRate: Int, audioFelt known: Int64?? = nil,
        hapticFelt knownHaptic: Int64?? = nil
    ) -> CueAlignment {
        let fs = Double(sampleRate)
        let sheetOffset = Int64(((cue.sfx?.offset ?? 0) * fs).rounded())
        let window = Int(measureSeconds * fs)
        let hapticPart = haptic.flatMap { $0.eventCount > 0 ? $0 : nil }
        let audioFelt = known ?? sound.flatMap { soundFeltOnset($0, sampleRate: sampleRate) }
        let hapticFelt = hapticPart == nil ? nil
            : knownHaptic ?? hapticPart.flatMap { feltOnset(of: $0, layout: .hapticMono, from: Int(sheetOffset), window: window) }
        // The sound's start minus the haptic's (frames) the alignment asks for.
        var skew = sheetOffset
        if hapticPart != nil && sound != nil {
            switch cue.alignment {
            case .sample: break
            case .hapticOffsetMs(let ms): skew = sheetOffset - Int64((ms / 1000 * fs).rounded())
            case .felt:
                // Felt together: haptic start + hapticFelt = audio start + audioFelt.
                if let audioFelt, let hapticFelt { skew = hapticFelt - audioFelt }
            }
        }
        // From the sample alignment (haptic at the cue's time, the sound at its sheet offset),
        // delay whichever part must come later: nothing moves earlier than the sheet puts it.
        let hapticDelay = max(0, sheetOffset - skew)
        return CueAlignment(sampleRate: sampleRate, hapticDelayFrames: hapticDelay, audioDelayFrames: hapticDelay + skew,
                            audioFeltFrames: audioFelt, hapticFeltFrames: hapticFelt)
    }

    /// A sound effect's felt onset (frames from its first sample; nil: silent).
    public static func soundFeltOnset(_ sound: PreparedPattern, sampleRate: Int) -> Int64? {
        feltOnset(of: sound, layout: ChannelLayout([.audioLeft(gain: 1)]), from: 0, window: Int(measureSeconds * Double(sampleRate)))
    }

    /// Frames from `pattern`'s start to the first point at or after `from` where its Hilbert
    /// envelope (of `layout`'s one channel, rendered offline through the pattern's profile)
    /// reaches half its peak within `window` frames; nil when that stretch is silent or more
    /// than 20 dB below the part's peak until then.
    public static func feltOnset(of pattern: PreparedPattern, layout: ChannelLayout, from: Int, window: Int) -> Int64? {
        // Nothing to measure past the pattern's end (its length is bounded by the pattern's limits).
        let from = max(0, from), window = max(0, window)
        guard from <= pattern.frameCount else { return nil }
        // Only as far as the window reaches (a long pattern's end, or the silent ending, is not
        // needed), one channel, block by block; before the window only its peak is kept.
        var stream = OfflineRenderStream(pattern: pattern, layout: layout)
        var block = [Float](repeating: 0, count: 4_096)
        var stretch: [Float] = []
        stretch.reserveCapacity(window)
        var position = 0, peakBefore: Float = 0
        while position < from + window {
            let n = block.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: min($0.count, from + window - position)) }
            if n == 0 { break }
            for i in 0..<n {
                if position + i < from { peakBefore = max(peakBefore, abs(block[i])) } else { stretch.append(block[i]) }
            }
            position += n
        }
        // Only a stretch that carries the part's energy has an onset to align (not the tail of
        // a transient that came before the sound's offset): its peak within 20 dB of the part's.
        let peak = stretch.map(abs).max() ?? 0
        guard peak > 0, peak >= 0.1 * peakBefore else { return nil }
        // The envelope's peak and half point lie before the stretch has fallen for good below
        // 1 % of its peak: the rest is cut (with 20 ms kept), so that short sounds take a
        // short transform.
        if let last = stretch.lastIndex(where: { abs($0) >= 0.01 * peak }) {
            stretch.removeSubrange(min(stretch.count, last + 960)...)
        }
        return Int64(from + envelopeOnsets(hilbertEnvelope(stretch)).half)
    }
}
