// A prepared pattern read back through its voice, for pictures and reports: where each event
// starts and ends, and the values the renderer gives it. Nothing is computed on the side:
// each event is started by the voice's own `activate` (its parameters with the pattern's
// controls at its onset, its envelope times through the profile), a continuous event's level
// at a sample is the control row the continuous renderer reads (`fillControl`) times the
// envelope it applies (`envelope`), and a transient's values are the ones `activate` uses.

import HapticPattern

/// A prepared pattern's events as its voice plays them (see the file's comment). Off the render
/// thread: it allocates a voice; one instance is not for use from two threads at once.
public final class PatternTrace {
    /// A transient as it starts.
    public struct Transient: Sendable, Equatable {
        /// The event's position in the pattern's elements.
        public var element: Int
        /// Onset, in seconds.
        public var time: Double
        /// 0...1: the event's intensity times the intensity control at its onset (before the
        /// profile's intensity law).
        public var intensity: Double
        /// 0...1: the event's sharpness plus the sharpness control at its onset.
        public var sharpness: Double
        /// The burst's frequency (Hz) and length (s) on the profile.
        public var frequency: Double
        public var duration: Double
    }

    /// A haptic continuous event: from its onset until its envelope has released.
    public struct Continuous: Sendable, Equatable {
        public var element: Int
        public var start: Double
        public var end: Double
    }

    /// An audio event: from its onset to its end (the sound's length, its duration, or the
    /// envelope's release); `playable` is false when the voice will not play it (a sound that
    /// could not be loaded).
    public struct Audio: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case custom
            case continuous
        }
        public var element: Int
        public var kind: Kind
        public var start: Double
        public var end: Double
        public var playable: Bool
    }

    /// A continuous event's values at one sample.
    public struct Level: Sendable, Equatable {
        /// 0...1: the event's intensity times the intensity control, times its envelope.
        public var intensity: Double
        /// 0...1: the event's sharpness plus the sharpness control.
        public var sharpness: Double
    }

    public let pattern: PreparedPattern
    /// In onset order.
    public let transients: [Transient]
    public let continuous: [Continuous]
    public let audio: [Audio]

    let voice: VoiceState
    /// Beside `continuous`: each event as the voice started it.
    let continuousStarts: [ActiveEvent]

    public init(_ pattern: PreparedPattern) {
        self.pattern = pattern
        let voice = VoiceState(pattern: pattern)
        let fs = pattern.sampleRate
        var transients: [Transient] = []
        var continuous: [Continuous] = []
        var starts: [ActiveEvent] = []
        var audio: [Audio] = []
        for (index, e) in pattern.events.enumerated() {
            // The voice's clock is at its origin (rate 1): pattern sample = output sample.
            let n = Int64(e.onset)
            voice.activeCount = 0
            voice.activate(index, at: n)
            let started = voice.activeCount == 1 ? voice.active[0] : nil
            let element = pattern.eventElements[index]
            switch e.kind {
            case .transient:
                guard let a = started else { continue }
                let values = voice.transientValues(e, at: n)
                transients.append(Transient(
                    element: element, time: e.onset / fs, intensity: values.intensity,
                    sharpness: Swift.min(1, Swift.max(0, values.sharpness)), frequency: a.inc * fs,
                    duration: Double(a.length) / fs))
            case .continuous:
                guard let a = started else { continue }
                continuous.append(Continuous(element: element, start: e.onset / fs, end: pattern.eventEnds[index]))
                starts.append(a)
            case .audioCustom, .audioContinuous:
                audio.append(Audio(
                    element: element, kind: e.kind == .audioCustom ? .custom : .continuous, start: e.onset / fs,
                    end: pattern.eventEnds[index], playable: started != nil))
            }
        }
        voice.activeCount = 0
        self.voice = voice
        self.transients = transients
        self.continuous = continuous
        self.continuousStarts = starts
        self.audio = audio
    }

    /// The times (seconds) inside continuous event `index` where its level's slope may change:
    /// its envelope's corners and the knots of the intensity and sharpness controls. Between
    /// two of them the level is a product of straight lines, so a picture that samples it
    /// there and densely enough in between draws it as the renderer makes it.
    public func breakpoints(ofContinuous index: Int) -> [Double] {
        let a = continuousStarts[index]
        let fs = pattern.sampleRate
        let start = a.onsetU, end = continuous[index].end * fs
        var times = [start, start + a.attack]
        if !a.sustained { times.append(start + a.attack + a.decay) }
        if a.end.isFinite { times += [start + a.end, start + a.end + a.release] }
        let flat = voice.flat
        for id in [ControlIndex.hapticIntensity, ControlIndex.hapticSharpness] {
            // The knots inside the event only (found by binary search: a pattern may hold many
            // events and many knots).
            let span = flat.smoothSpans[id]
            let knots = UnsafeBufferPointer(rebasing: flat.smoothKnots[span.offset..<(span.offset + span.count)])
            var k = ControlTimeline.lastIndex(knots, atOrBefore: start) + 1
            while k < knots.count && knots[k].time < end {
                times.append(knots[k].time)
                k += 1
            }
        }
        return times.filter { $0 >= start && $0 <= end }.sorted().map { $0 / fs }
    }

    /// Continuous event `index`'s values at `time` (seconds; the sample at or before it), as
    /// the continuous renderer computes them for that sample; intensity 0 outside the event.
    public func level(ofContinuous index: Int, at time: Double) -> Level {
        let a = continuousStarts[index]
        let n = Int64(Swift.min(1e15, Swift.max(0, time.isFinite ? time * pattern.sampleRate : 0)).rounded(.down))
        voice.fillControl(ControlIndex.hapticIntensity, n, 1)
        voice.fillControl(ControlIndex.hapticSharpness, n, 1)
        let control = voice.controlRow(ControlIndex.hapticIntensity)[0]
        let sharpness = Swift.min(1, Swift.max(0, a.colour + Double(voice.controlRow(ControlIndex.hapticSharpness)[0])))
        let tau = voice.unwrapped(at: n) - a.onsetU
        guard tau >= 0, !voice.continuousIsOver(a, tau) else { return Level(intensity: 0, sharpness: sharpness) }
        let intensity = Swift.min(1, Swift.max(0, Float(a.level) * control)) * voice.envelope(a, tau)
        return Level(intensity: Double(intensity), sharpness: sharpness)
    }
}
