// A pattern's events compiled for one profile and sample rate: defaults applied, values
// clamped, unusable events skipped with a warning, sorted by onset, and the voice limit applied.

import HapticDSP
import HapticPattern

/// The events of a pattern as a voice plays them (see `compile`).
struct EventCompiler {
    let profile: ActuatorProfile
    let sampleRate: Double

    /// What `compile` produces.
    struct Result {
        /// Sorted stably by onset (file order among equal onsets).
        var events: [CompiledEvent]
        /// Beside `events`: the position of each in the pattern's elements, and when it ends
        /// (seconds; release tails and sounds included).
        var elements: [Int]
        var ends: [Double]
        /// The latest end of a kept event, in seconds (release tails and sounds included).
        var end: Double
        var hasAudio: Bool
        /// Events skipped because `Limits.maxVoices` others still sounded when they would start.
        var skippedForVoices: Int
    }

    func compile(
        _ elements: ArraySlice<PatternElement>, sounds: inout SoundResolver, _ warnings: inout PreparationWarnings
    ) throws(RenderError) -> Result {
        let fs = sampleRate
        let pastLimit = "past the \(Limits.maxTime) s limit"
        // Events, in file order first, then sorted stably by onset; `ends` beside them.
        var events: [CompiledEvent] = []
        var positions: [Int] = []
        var ends: [Double] = []
        var hasAudio = false
        let envelope = profile.envelope
        for (position, element) in elements.enumerated() {
            guard case .event(let event) = element else { continue }
            let place = "Pattern[\(position)] (\(event.type.rawValue) at \(event.time) s)"
            guard event.time.isFinite else {
                try warnings.warn("\(place): time is not a finite number; event skipped")
                continue
            }
            if event.time > Limits.maxTime {
                try warnings.warn("\(place): time \(pastLimit)", otherwise: "event skipped")
                continue
            }
            var time = event.time
            if time < 0 {
                try warnings.warn("\(place): negative time clamped to 0")
                time = 0
            }
            func param(_ id: EventParameterID, _ fallback: Double) -> Double {
                let v = event.value(of: id, default: fallback)
                return v.isFinite ? min(id.range.upperBound, max(id.range.lowerBound, v)) : fallback
            }
            // Files have it capped at 30 s by the reader; a pattern built in code may hold an
            // event longer, up to the time limit (past it the output could not be bounded).
            if let d = event.duration, d.isFinite, d > Limits.maxTime {
                try warnings.warn("\(place): EventDuration \(d) s is longer than the \(Limits.maxTime) s limit", otherwise: "capped")
            }
            var duration = event.duration.flatMap { $0.isFinite && $0 >= 0 ? min($0, Limits.maxTime) : nil }
            if event.type.isContinuous && duration == nil {
                try warnings.warn("\(place): continuous event without EventDuration; treated as 0 s")
                duration = 0
            }
            let isAudio = !event.type.isHaptic
            hasAudio = hasAudio || isAudio
            var compiled = CompiledEvent(
                kind: .transient, onset: (time * fs).rounded(),
                level: isAudio ? param(.audioVolume, 1) : param(.hapticIntensity, profile.defaults.intensity),
                colour: event.type == .audioContinuous
                    ? param(.audioBrightness, 1) : param(.hapticSharpness, profile.defaults.sharpness),
                pan: param(.audioPan, 0), pitch: param(.audioPitch, 0),
                attack: param(.attackTime, 0), decay: param(.decayTime, 0), release: param(.releaseTime, 0),
                sustained: event.isSustained, duration: duration.map { $0 * fs }, sound: -1,
                useVolumeEnvelope: event.useVolumeEnvelope, loop: event.loopEnabled)
            var eventEnd = time + (duration ?? 0)
            switch event.type {
            case .hapticTransient:
                compiled.kind = .transient
                let f = ActuatorProfile.frequency(forSharpness: compiled.colour, band: profile.band)
                eventEnd = max(eventEnd, time + profile.transientSeconds(frequency: f))
            case .hapticContinuous, .audioContinuous:
                compiled.kind = event.type == .hapticContinuous ? .continuous : .audioContinuous
                let a = envelope.attack.seconds(for: compiled.attack)
                let r = envelope.release.seconds(for: compiled.release)
                if compiled.sustained {
                    eventEnd = time + (duration ?? 0) + r
                } else {
                    let d = envelope.decay.seconds(for: compiled.decay)
                    eventEnd = time + min(a + d, (duration ?? 0) + r)
                }
            case .audioCustom:
                compiled.kind = .audioCustom
                guard let path = event.waveformPath, !path.isEmpty else {
                    try warnings.warn("\(place): AudioCustom without EventWaveformPath", otherwise: "rendered as silence")
                    break
                }
                compiled.sound = try sounds.resolve(path: path, pitch: compiled.pitch, place: place, &warnings)
                if compiled.sound >= 0 {
                    let seconds = Double(sounds.buffers[compiled.sound].frames) / fs
                    eventEnd = time + (duration ?? (compiled.loop ? 0 : seconds))
                }
            }
            events.append(compiled)
            positions.append(position)
            ends.append(eventEnd)
        }
        return try limitVoices(events, positions: positions, ends: ends, hasAudio: hasAudio, &warnings)
    }

    /// At most `Limits.maxVoices` events sound at once: one that would start while that many
    /// still sound is skipped (each sounding event costs work for every sample).
    private func limitVoices(
        _ events: [CompiledEvent], positions: [Int], ends: [Double], hasAudio: Bool, _ warnings: inout PreparationWarnings
    ) throws(RenderError) -> Result {
        let fs = sampleRate
        let order = events.indices.sorted { a, b in
            events[a].onset != events[b].onset ? events[a].onset < events[b].onset : a < b
        }
        var sounding = MinHeap()
        var kept: [CompiledEvent] = []
        var keptPositions: [Int] = []
        var keptEnds: [Double] = []
        var skipped = 0
        var end = 0.0
        for index in order {
            let start = events[index].onset / fs
            while let first = sounding.min, first <= start { sounding.removeMin() }
            if sounding.count >= Limits.maxVoices {
                skipped += 1
                continue
            }
            sounding.insert(ends[index])
            kept.append(events[index])
            keptPositions.append(positions[index])
            keptEnds.append(ends[index])
            end = max(end, ends[index])
        }
        if skipped > 0 {
            try warnings.warn(
                "\(skipped) event\(skipped == 1 ? "" : "s") would start while \(Limits.maxVoices) others still sound (the limit)",
                otherwise: "skipped")
        }
        return Result(events: kept, elements: keptPositions, ends: keptEnds, end: end, hasAudio: hasAudio, skippedForVoices: skipped)
    }
}
