// The voice's block loop: a render call split into chunks at loop wraps and fade ends, the
// events whose onsets fall in a chunk started, each sounding event rendered, the sum faded.

import HapticDSP
import HapticPattern

extension VoiceState {
    // MARK: rendering

    @_noLocks
    func render(into bus: MixBus) {
        var offset = 0
        while offset < bus.frames {
            if stopped { return }
            var length = Swift.min(bus.frames - offset, voiceChunk)
            let n0 = now
            if isFading {
                let left = fadeStart &+ Int64(fadeSamples) &- n0
                if left <= 0 {
                    switch fadeMode {
                    case .stopping:
                        stopped = true
                        activeCount = 0
                        return
                    case .seekingOut:
                        performSeek(at: n0)
                    case .seekingIn, .none:
                        fadeMode = .none
                    }
                    continue
                }
                length = Swift.min(length, Int(left))
            }
            if let loop = loopEnd {
                if patternPosition(at: n0) >= loop {
                    pOffset += loop
                    cursor = 0
                    continue
                }
                let wrap = firstSample(reaching: loop)
                length = Swift.min(length, Int(wrap &- n0))
            }
            renderChunk(n0, length, bus.haptic + offset, bus.audioLeft + offset, bus.audioRight + offset)
            now = n0 &+ Int64(length)
            offset += length
        }
    }

    @_noLocks @inline(__always)
    func renderChunk(
        _ n0: Int64, _ count: Int, _ outHaptic: UnsafeMutablePointer<Float>,
        _ outLeft: UnsafeMutablePointer<Float>, _ outRight: UnsafeMutablePointer<Float>
    ) {
        let chunkEnd = n0 &+ Int64(count)
        // Start the events whose onset falls in this chunk.
        while cursor < eventCount {
            let onset = flat.events[cursor].onset
            if let loop = loopEnd, onset >= loop {
                cursor = eventCount
                break
            }
            let m = Swift.max(n0, firstSample(reaching: onset))
            if m >= chunkEnd { break }
            activate(cursor, at: m)
            cursor += 1
        }
        if activeCount == 0 { return }

        let fading = isFading
        if fading {
            hapticScratch.update(repeating: 0, count: count)
            haptic = hapticScratch
        } else {
            haptic = outHaptic
        }
        fillControl(ControlIndex.hapticIntensity, n0, count)
        fillControl(ControlIndex.hapticSharpness, n0, count)
        amplitudeRowLevel = .nan
        if hasAudio {
            left.update(repeating: 0, count: count)
            right.update(repeating: 0, count: count)
            fillControl(ControlIndex.audioVolume, n0, count)
            fillControl(ControlIndex.audioPan, n0, count)
            fillControl(ControlIndex.audioPitch, n0, count)
            fillControl(ControlIndex.audioBrightness, n0, count)
        }
        var i = 0
        while i < activeCount {
            let slot = active + i
            let from = Int(Swift.max(0, slot.pointee.start &- n0))
            switch slot.pointee.kind {
            case .transient:
                renderTransient(slot, n0, from, count)
            case .continuous:
                renderContinuous(slot, n0, from, count)
            case .audioCustom:
                renderAudioCustom(slot, n0, from, count)
            case .audioContinuous:
                renderAudioContinuous(slot, n0, from, count)
            }
            i += 1
        }
        // Compact: keep the order of the survivors (summation order must not depend on history).
        var kept = 0
        for j in 0..<activeCount where !active[j].done {
            if kept != j { active[kept] = active[j] }
            kept += 1
        }
        activeCount = kept

        if !fading {
            if hasAudio {
                for k in 0..<count {
                    outLeft[k] += left[k]
                    outRight[k] += right[k]
                }
            }
        } else {
            for k in 0..<count {
                let g = fadeGain(at: n0 &+ Int64(k))
                outHaptic[k] += hapticScratch[k] * g
                if hasAudio {
                    outLeft[k] += left[k] * g
                    outRight[k] += right[k] * g
                }
            }
        }
    }
}
