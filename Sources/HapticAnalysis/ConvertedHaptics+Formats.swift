// Writing a converted sound as AHAP or as a `.haptic` clip.

import HapticPattern

extension ConvertedHaptics {
    /// The AHAP pattern: per stretch, continuous events (intensity 1, sharpness 0, at most
    /// 30 s each) shaped by chained intensity and sharpness curves; a transient per hit, its
    /// values divided by (intensity) or less (sharpness) the curves at its time, so that it
    /// plays at its analysed values (the curves raised there for at most 2 ms where needed). With
    /// `audio`, an AudioCustom event at 0 plays that sound file (a path relative to the
    /// pattern) in lockstep.
    public func ahapPattern(audio: String? = nil, metadata: JSONValue? = nil) -> AHAPPattern {
        var events: [Event] = []
        var curves: [ParameterCurve] = []
        if let audio {
            events.append(Event(time: 0, type: .audioCustom, parameters: [EventParameter(.audioVolume, 1)], waveformPath: audio))
        }
        for stretch in stretches {
            events += Event.continuousSpan(from: stretch.start, to: stretch.end, intensity: 1, sharpness: 0)
        }
        // Each hit plays at its analysed values through the curves (raising them at its time
        // where they cannot reach, held flat around it where raised or steep, so that an onset
        // rounded to a sample reads the same: TransientCompensation).
        let compensated = TransientCompensation.compensate(
            intensity: stretches.map { $0.intensity.map { ($0.time, $0.value) } },
            sharpness: stretches.map { $0.sharpness.map { ($0.time, $0.value) } },
            hits: transients.map { .init(time: $0.time, intensity: $0.intensity, sharpness: $0.sharpness) },
            holding: true, round: ParameterCurve.roundedValue)
        for k in stretches.indices {
            curves += ParameterCurve.chained(.hapticIntensityControl, compensated.intensity[k])
            curves += ParameterCurve.chained(.hapticSharpnessControl, compensated.sharpness[k])
        }
        for (hit, values) in zip(transients, compensated.events) {
            events.append(.transient(at: ParameterCurve.roundedTime(hit.time), intensity: values.intensity, sharpness: values.sharpness))
        }
        return .assembled(events: events, curves: curves, metadata: metadata)
    }

    /// The `.haptic` clip: the stretches' intensity as amplitude (HapticClipMapping), zero
    /// between them, the sharpness as frequency, and each hit as an emphasis on a breakpoint
    /// at its time.
    public func hapticClip(metadata: HapticClip.Metadata = .init()) -> HapticClip {
        let end = max(duration, stretches.last?.end ?? 0, transients.last.map { $0.time + 0.001 } ?? 0, 0.001)
        var amplitude: [HapticClip.AmplitudeBreakpoint] = []
        var frequency: [HapticClip.FrequencyBreakpoint] = []
        func addAmplitude(_ t: Double, _ intensity: Double) {
            let time = ParameterCurve.roundedTime(t)
            if let last = amplitude.last, last.time >= time { return }
            amplitude.append(.init(time: time, amplitude: HapticClipMapping.amplitude(intensity: intensity)))
        }
        addAmplitude(0, 0)
        for stretch in stretches {
            for p in stretch.intensity { addAmplitude(p.time, p.value) }
            for p in stretch.sharpness {
                let time = ParameterCurve.roundedTime(p.time)
                if let last = frequency.last, last.time >= time { continue }
                frequency.append(.init(time: time, frequency: HapticClipMapping.frequency(sharpness: p.value)))
            }
        }
        addAmplitude(end, 0)
        // The frequency envelope spans the clip from 0, as Meta Haptics Studio's do (a reader
        // or an AHAP conversion that takes the time before the first breakpoint as the default
        // would otherwise read another value there).
        if let first = frequency.first, first.time > 0 { frequency.insert(.init(time: 0, frequency: first.frequency), at: 0) }
        if let last = frequency.last, last.time < end { frequency.append(.init(time: ParameterCurve.roundedTime(end), frequency: last.frequency)) }
        // Each hit on the breakpoint at its time (inserted, interpolated, when there is none):
        // one merge of two time-ordered lists.
        var merged: [HapticClip.AmplitudeBreakpoint] = []
        merged.reserveCapacity(amplitude.count + transients.count)
        var k = 0
        for hit in transients.sorted(by: { $0.time < $1.time }) {
            let t = ParameterCurve.roundedTime(hit.time)
            while k < amplitude.count && amplitude[k].time < t {
                merged.append(amplitude[k])
                k += 1
            }
            if let last = merged.last, last.time == t {
                // a second hit at the same time: the same breakpoint
            } else if k < amplitude.count && amplitude[k].time == t {
                merged.append(amplitude[k])
                k += 1
            } else if let a = merged.last, k < amplitude.count {
                let b = amplitude[k]
                merged.append(.init(time: t, amplitude: a.amplitude + (b.amplitude - a.amplitude) * (t - a.time) / (b.time - a.time)))
            } else {
                continue  // past the end (cannot happen: the end is after every hit)
            }
            let e = HapticClip.Emphasis(
                amplitude: max(merged[merged.count - 1].amplitude, HapticClipMapping.amplitude(intensity: hit.intensity)),
                frequency: min(1, max(0, ParameterCurve.roundedValue(hit.sharpness))))
            if let existing = merged[merged.count - 1].emphasis, existing.amplitude >= e.amplitude { continue }
            merged[merged.count - 1].emphasis = e
        }
        merged += amplitude[k...]
        amplitude = merged
        return HapticClip(metadata: metadata, amplitude: amplitude, frequency: frequency)
    }
}
