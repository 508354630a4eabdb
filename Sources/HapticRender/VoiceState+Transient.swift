// The transient renderer: adds a burst (precomputed grain or computed as it plays).

import HapticPattern

extension VoiceState {
    @_noLocks @inline(__always)
    func renderTransient(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n0: Int64, _ from: Int, _ count: Int) {
        let a = slot.pointee
        let firstK = n0 &+ Int64(from) &- a.start
        let to = Int(Swift.min(Int64(count), a.length &- firstK &+ Int64(from)))
        let amp = Float(a.level)
        if a.grain >= 0 {
            // The burst precomputed at preparation (the same lanes as below): a scaled add.
            let g = flat.grainSamples.baseAddress! + a.grain + Int(firstK) - from
            var j = from
            let amp8 = SIMD8<Float>(repeating: amp)
            while j + 8 <= to {
                let o = UnsafeMutableRawPointer(haptic + j)
                let v = UnsafeRawPointer(g + j).loadUnaligned(as: SIMD8<Float>.self)
                o.storeBytes(of: o.loadUnaligned(as: SIMD8<Float>.self) + amp8 * v, as: SIMD8<Float>.self)
                j += 8
            }
            while j < to {
                haptic[j] += amp * g[j]
                j += 1
            }
        } else {
            let quarter = Float(a.invAttack), decayRate = Float(a.invDecay)
            var j = from
            while j < to {
                let v = transientLanes(firstK &+ Int64(j - from), a.length, a.inc, quarter, decayRate)
                if j + 8 <= to {
                    let o = UnsafeMutableRawPointer(haptic + j)
                    o.storeBytes(of: o.loadUnaligned(as: SIMD8<Float>.self) + amp * v, as: SIMD8<Float>.self)
                    j += 8
                } else {
                    for l in 0..<(to - j) { haptic[j + l] += amp * v[l] }
                    j = to
                }
            }
        }
        if firstK &+ Int64(to - from) >= a.length { slot.pointee.done = true }
    }
}
