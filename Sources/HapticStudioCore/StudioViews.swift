// What the studio's API answers, as JSON (docs/studio.md describes each field).

import HapticKit

/// A file in the folder's list.
public struct ListedFile: Encodable, Sendable, Equatable {
    public var name: String
    /// "sound" or "pattern".
    public var kind: String
    /// A sound's haptic: "none" (no pattern beside it yet), "converted", "edited" (the saved
    /// pattern holds edits); a pattern: "pattern".
    public var state: String
    /// A sound whose settings or edits in this session are not saved yet (a pattern: its edits).
    public var unsaved: Bool
    /// Whether the page opens it: every sound, and a pattern of no sound's stem (the designer's
    /// own file, edited as it is); a sound's pattern opens with its sound.
    public var openable: Bool
}

/// The selected sound: its settings, the haptic made from it (with the designer's edits), the
/// sensitivity ladder and the edit state.
public struct SoundView: Encodable, Sendable {
    public var name: String
    /// "sound", or "pattern" for a pattern file opened on its own (no settings, no sound: its
    /// `sound` is the pattern's length with 0 channels).
    public var kind: String
    public var output: String
    public var settings: StudioSettings
    public var sound: SoundInfo
    /// The haptic as drawn and saved (times from the converted range's start).
    public var haptic: HapticView
    /// The transients' times at each sensitivity 0, 10 … 100 %, when already made (else absent:
    /// `GET /api/ladder` makes it).
    public var ladder: [LadderRung]?
    public var edits: EditState
    public var notes: [String]
    public var unsaved: Bool

    public struct SoundInfo: Encodable, Sendable {
        public var duration: Double
        public var sampleRate: Int
        public var channels: Int
    }

    public struct LadderRung: Encodable, Sendable {
        public var sensitivity: Double
        public var times: [Double]
    }

    public struct EditState: Encodable, Sendable {
        public var count: Int
        public var orphans: Int
        public var canUndo: Bool
        public var canRedo: Bool
        public var layer: EditLayer
    }
}

/// The sensitivity ladder of a sound, for the settings it was made with (the sensitivity and
/// `audio` aside).
public struct LadderView: Encodable, Sendable {
    public var name: String
    public var settings: StudioSettings
    public var rungs: [SoundView.LadderRung]
}

/// Transients and curves as drawn.
public struct HapticView: Encodable, Sendable {
    public struct Transient: Encodable, Sendable {
        public var time: Double
        public var intensity: Double
        public var sharpness: Double
        /// "analysed", "edited" (an analysed hit changed) or "added".
        public var origin: String
    }

    public struct Stretch: Encodable, Sendable {
        public var start: Double
        public var end: Double
        /// [time, value] pairs.
        public var intensity: [[Double]]
        public var sharpness: [[Double]]
    }

    /// The range's start in the sound (s): add it to a time here for the sound's time.
    public var offset: Double
    public var duration: Double
    public var transients: [Transient]
    public var stretches: [Stretch]
}

/// A sound's waveform for drawing: per column of `bucketSeconds`, the lowest and highest
/// sample and the RMS (the envelope), of the channels' mix.
public struct WaveformView: Encodable, Sendable {
    public var bucketSeconds: Double
    public var min: [Float]
    public var max: [Float]
    public var rms: [Float]
}

/// What a save wrote (names relative to the folder).
public struct SaveResult: Encodable, Sendable {
    public var written: [String]
    /// The --per-sound file written (absent for a pattern file, which has no settings).
    public var perSound: String?
    public var edited: Bool
}
