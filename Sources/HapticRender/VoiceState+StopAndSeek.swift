// A voice's stop and seek: short fades out (and back in, for events resumed mid-way).

import HapticPattern

enum FadeMode {
    case none
    case stopping
    case seekingOut
    case seekingIn
}

extension VoiceState {
    // MARK: stop / seek

    var isFading: Bool {
        @_noLocks @inline(__always) get {
            if case .none = fadeMode { return false }
            return true
        }
    }

    func requestStop() {
        if stopped { return }
        if activeCount == 0 {
            stopped = true
            return
        }
        if case .stopping = fadeMode { return }
        fadeMode = .stopping
        fadeStart = now
    }

    func requestSeek(to target: Double) {
        if stopped { return }
        pendingSeek = target
        if activeCount == 0 {
            performSeek(at: now)
            return
        }
        // (Ternaries, not && / ||: their autoclosures would retain self on the render path.)
        switch fadeMode {
        case .none, .seekingIn:
            fadeMode = .seekingOut
            fadeStart = now
        case .stopping, .seekingOut:
            break
        }
    }

    /// Jumps so that P(n) = pendingSeek; resumes continuous and audio events in progress.
    @_noLocks
    func performSeek(at n: Int64) {
        activeCount = 0
        pOffset = unwrapped(at: n) - pendingSeek
        let target = pendingSeek
        // Events before the target that still sound there resume mid-way.
        var first = 0
        var resumed = false
        while first < eventCount {
            let e = flat.events[first]
            if e.onset >= target { break }
            if !e.isTransient {
                let before = activeCount
                activate(first, at: n, resumeAt: target - e.onset)
                if activeCount > before {
                    resumed = true
                }
            }
            first += 1
        }
        cursor = first
        fadeMode = resumed ? .seekingIn : .none
        fadeStart = n
    }

    @_noLocks @inline(__always)
    func fadeGain(at n: Int64) -> Float {
        let t = Double(n &- fadeStart) / fadeSamples
        switch fadeMode {
        case .none: return 1
        case .stopping, .seekingOut: return Float(max(0, 1 - t))
        case .seekingIn: return Float(min(1, t))
        }
    }
}
