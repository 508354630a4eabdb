// What the audition reads from the studio: a selection of a sound checked against it, and the
// haptic of that selection as the designer has it now (the analysis with the edits laid over
// it, published by every answer the studio gives: `current`). The audition reads it again before
// every pass of a loop, so an edit is felt on the next pass.

import HapticKit

/// A stretch of one sound to audition, in seconds of the sound (the waveform's time axis).
public struct AuditionSelection: Sendable, Equatable {
    public var name: String
    /// The sound file's path.
    public var path: String
    public var start: Double
    public var end: Double
    /// False for a pattern file opened on its own: its haptic plays alone.
    public var hasSound = true
    public var duration: Double { end - start }
}

/// A sound's haptic as last shown: the analysis with the edits laid over it, and where the
/// converted range starts in the sound.
struct CurrentHaptic: Sendable {
    var haptics: ConvertedHaptics
    var offset: Double
}

extension Studio {
    /// The shortest selection auditioned (a loop of it is still a pass the engine can schedule).
    public static let minimumSelection = 0.02

    /// `start`…`end` of the sound `name` (seconds of the sound; nil: the converted range's
    /// start or end), checked: finite, within the sound, at least `minimumSelection` long.
    public func auditionSelection(_ name: String, start: Double?, end: Double?) throws(StudioError) -> AuditionSelection {
        // Opened as the page opens it, which publishes the haptic the passes play
        // (auditionHaptics); a request may come before any view was asked for.
        _ = try open(name)
        // A pattern file: its own time, its haptic alone.
        let pattern = Self.isPatternName(name) ? try openedPattern(name) : nil
        let session = pattern == nil ? try opened(name) : nil
        let length = pattern?.base.duration ?? session?.result.info.duration ?? 0
        let offset = session?.settings.from ?? 0
        let from = start ?? offset
        let to = end ?? min(length, offset + (pattern?.base.duration ?? session?.result.haptics.duration ?? 0))
        func check(_ what: String, _ value: Double) throws(StudioError) {
            guard value.isFinite, value >= 0, value <= length + 1e-9 else {
                throw .bad("\(what) \(value): expected seconds from 0 to \(Self.seconds(length)) (the length of \(StudioFolder.quoted(name)))")
            }
        }
        try check("start", from)
        try check("end", to)
        guard to - from >= Self.minimumSelection else {
            throw .bad("start \(from), end \(to): the selection must be at least \(Self.minimumSelection) s long")
        }
        return AuditionSelection(name: name, path: pattern?.path ?? session?.path ?? "", start: from, end: min(to, length), hasSound: pattern == nil)
    }

    /// The haptic of `selection` as it stands now (edits included), starting at 0: what one
    /// pass of the audition plays. Nil when the sound was never opened. Any thread, at once:
    /// it does not wait for the studio (an analysis under way shows its result when it is done).
    public nonisolated func auditionHaptics(_ selection: AuditionSelection) -> AHAPPattern? {
        guard let now = current.withLock({ $0[selection.name] }) else { return nil }
        return now.haptics.window(from: selection.start - now.offset, to: selection.end - now.offset).ahapPattern()
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }
}
