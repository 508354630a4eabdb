// The haptic continuous renderer and the attack/decay/release envelope of continuous events.

import HapticDSP
import HapticPattern

extension VoiceState {
    /// Envelope gain at τ pattern samples after the onset; also whether the event is over.
    @_noLocks @inline(__always)
    func envelope(_ a: ActiveEvent, _ tau: Double) -> Float {
        var g = tau < a.attack ? Swift.max(0, tau * a.invAttack) : 1
        if !a.sustained && tau > a.attack { g *= Swift.max(0, 1 - (tau - a.attack) * a.invDecay) }
        if tau > a.end { g *= Swift.max(0, 1 - (tau - a.end) * a.invRelease) }
        return Float(g)
    }

    @_noLocks @inline(__always)
    func continuousIsOver(_ a: ActiveEvent, _ tau: Double) -> Bool {
        tau >= a.end + a.release || (!a.sustained && tau >= a.attack + a.decay)
    }

    @_noLocks @inline(__always)
    func reanchor(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n: Int64, _ inc: Double) {
        if inc != slot.pointee.inc {
            if slot.pointee.inc >= 0 {
                slot.pointee.phaseAnchor = fractionalPart(
                    slot.pointee.phaseAnchor + Double(n &- slot.pointee.anchorSample) * slot.pointee.inc)
            }
            slot.pointee.anchorSample = n
            slot.pointee.inc = inc
        }
    }

    @_noLocks @inline(__always)
    func renderContinuous(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n0: Int64, _ from: Int, _ count: Int) {
        let intensity = controlRow(ControlIndex.hapticIntensity)
        let sharpness = controlRow(ControlIndex.hapticSharpness)
        let level = Float(slot.pointee.level)
        let colour = slot.pointee.colour
        let sharpConstant = controlConstant[ControlIndex.hapticSharpness]
        let intensityConstant = controlConstant[ControlIndex.hapticIntensity]
        var amp = amplitude(intensity: level * intensity[from])
        if sharpConstant {
            reanchor(slot, n0 &+ Int64(from), frequency(sharpness: colour + Double(sharpness[from])) / fs)
            // Fast path: a sustained event inside its hold segment for the whole range has an
            // envelope of exactly 1, so `addOscillator` computes the same samples as the loop below.
            let a = slot.pointee
            let tauFirst = unwrapped(at: n0 &+ Int64(from)) - a.onsetU
            let tauLast = unwrapped(at: n0 &+ Int64(count - 1)) - a.onsetU
            if a.sustained ? (tauFirst >= a.attack ? tauLast <= a.end : false) : false {
                addOscillator(haptic, amplitudeRow(level, count), n0, from, count, a.phaseAnchor, a.anchorSample, a.inc)
                return
            }
        }
        let ua = uAnchor, na = nAnchor, r = rate
        let row = sharpConstant ? amplitudeRow(level, count) : amplitudeRowValues
        var j = from
        while j < count {
            let n = n0 &+ Int64(j)
            // A whole grid block at a constant frequency: the same per-sample formulas on
            // 8 lanes (envelope in double, amplitude from the shared row).
            if sharpConstant ? ((n & 7) == 0 ? count - j >= 8 : false) : false {
                let a = slot.pointee
                let lastTau = (ua + Double(n &+ 7 &- na) * r) - a.onsetU
                if !continuousIsOver(a, lastTau) {
                    let lanes = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)
                    let tau = (SIMD8(repeating: ua) + (SIMD8(repeating: Double(n &- na)) + lanes) * r) - a.onsetU
                    var g = SIMD8<Double>(repeating: 1)
                    var rise = tau * a.invAttack
                    rise.replace(with: 0, where: rise .< 0)
                    g.replace(with: rise, where: tau .< a.attack)
                    if !a.sustained {
                        var fall = 1 - (tau - a.attack) * a.invDecay
                        fall.replace(with: 0, where: fall .< 0)
                        g.replace(with: g * fall, where: tau .> a.attack)
                    }
                    var release = 1 - (tau - a.end) * a.invRelease
                    release.replace(with: 0, where: release .< 0)
                    g.replace(with: g * release, where: tau .> a.end)
                    let v = sin2piVector(gridPhases(a.phaseAnchor, a.anchorSample, a.inc, n))
                    let amps = UnsafeRawPointer(row + j).loadUnaligned(as: SIMD8<Float>.self)
                    let o = UnsafeMutableRawPointer(haptic + j)
                    o.storeBytes(of: o.loadUnaligned(as: SIMD8<Float>.self) + amps * SIMD8<Float>(g) * v, as: SIMD8<Float>.self)
                    j += 8
                    continue
                }
            }
            if !sharpConstant {
                reanchor(slot, n, frequency(sharpness: colour + Double(sharpness[j])) / fs)
            }
            if !intensityConstant { amp = amplitude(intensity: level * intensity[j]) }
            let a = slot.pointee
            let tau = (ua + Double(n &- na) * r) - a.onsetU
            if continuousIsOver(a, tau) {
                slot.pointee.done = true
                return
            }
            let phase = gridPhase(a.phaseAnchor, a.anchorSample, a.inc, n)
            haptic[j] += amp * envelope(a, tau) * sin2pi(phase)
            j += 1
        }
    }
}
