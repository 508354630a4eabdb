// One playback of a selection: its passes on a grid of the haptic device's frames, followed
// (and, for a loop, scheduled) by a thread of its own, so that nothing the server does (an
// analysis holding the studio, requests filling the task pool) delays a pass. Each pass is
// scheduled `lead` seconds ahead with the haptic the studio shows at that moment
// (`Studio.auditionHaptics`, read without waiting for the studio): an edit answered before
// then is felt on that pass. The engine's render thread only plays what is scheduled.

import Dispatch
import Foundation
import HapticEngine
import HapticKit
import Synchronization

final class AuditionLoop: Sendable {
    struct Pass: Sendable {
        var frame: Int64
        var time: Double
        var players: [PatternPlayer]
    }

    struct State {
        var passes: [Pass] = []
        /// Passes of the grid reached so far (scheduled, or skipped when too late).
        var started = 0
        var stopped = false
        var finished = false
    }

    let manager: HapticManager
    let studio: Studio
    let selection: AuditionSelection
    let loop: Bool
    /// Nil for a pattern file (its haptic alone).
    let sound: PreparedPattern?
    let firstFrame: Int64
    /// Frames per pass on the haptic device (the selection's length at the engine's rate).
    let passFrames: Int64
    let state = Mutex(State())
    /// Signalled by `stop` to end a wait at once.
    let wake = DispatchSemaphore(value: 0)

    /// Starts the first pass at `firstFrame` (nil: the engines refused it).
    init?(manager: HapticManager, studio: Studio, selection: AuditionSelection, loop: Bool, sound: PreparedPattern?, haptic: PreparedPattern?,
          firstFrame: Int64, sampleRate: Double) {
        (self.manager, self.studio, self.selection, self.loop, self.sound) = (manager, studio, selection, loop, sound)
        self.firstFrame = firstFrame
        passFrames = max(1, Int64((selection.duration * sampleRate).rounded()))
        guard let started = manager.playTogether(haptic: haptic, sound: sound, atFrame: firstFrame) else { return nil }
        state.withLock { $0.passes = [Pass(frame: firstFrame, time: started.time, players: started.players)]; $0.started = 1 }
        let thread = Thread { [self] in run() }
        thread.name = "hapticsynth-studio-audition"
        thread.start()
    }

    /// Stops what plays (a 2 ms fade) and every pass already scheduled; the thread ends.
    func stop() {
        let players = state.withLock { s -> [PatternPlayer] in
            s.stopped = true
            return s.passes.flatMap(\.players)
        }
        for player in players { try? player.cancel() }
        wake.signal()
    }

    var transport: AuditionTransport {
        let s = state.withLock { $0 }
        guard !s.stopped, !s.finished, let engine = manager.currentEngine else { return Audition.stoppedTransport }
        let now = engine.currentTime
        let into = s.passes.last { $0.time <= now }.map { min(selection.duration, max(0, now - $0.time)) } ?? 0
        return AuditionTransport(
            playing: true, loop: loop, name: selection.name, start: selection.start, end: selection.end,
            position: selection.start + into, passes: s.started)
    }

    /// Seconds a pass is scheduled before it starts: room for compiling the pattern and the
    /// devices' buffers (the larger, with two) on a loaded machine.
    static func lead(latency: Double) -> Double { max(0.2, 2 * latency + 0.1) }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() {
        var k: Int64 = 1
        while !isStopped {
            // No engine for a moment (the manager recovering it from a stall or a lost device):
            // the loop waits for it rather than ending; its grid stays on the device's frames.
            guard let engine = manager.currentEngine else {
                _ = wake.wait(timeout: .now() + .milliseconds(50))
                continue
            }
            let frame = firstFrame + k * passFrames
            let time = engine.frameMapping.time(forFrame: frame)
            guard loop else {
                wait(until: time, engine)
                break
            }
            // Two devices: the one with the longer buffer sets how soon a pass can still start on both.
            let latency = manager.togetherLatency ?? engine.outputLatency
            wait(until: time - Self.lead(latency: latency), engine)
            if isStopped { return }
            k += 1
            // A pass whose frame has passed (the machine held this thread up) is skipped, silent:
            // the grid stays, and `passes` counts it (pass n always starts at frame n × length).
            if time < engine.currentTime + latency {
                state.withLock { $0.started = Int(k) }
                continue
            }
            let haptic = studio.auditionHaptics(selection).flatMap { try? manager.prepare($0) }
            guard let started = manager.playTogether(haptic: haptic, sound: sound, atFrame: frame) else { state.withLock { $0.started = Int(k) }; continue }
            let stopped = state.withLock { s -> Bool in
                s.passes = Array(s.passes.suffix(2)) + [Pass(frame: frame, time: started.time, players: started.players)]
                s.started = Int(k)
                return s.stopped
            }
            if stopped { for player in started.players { try? player.cancel() } }
        }
        state.withLock { $0.finished = true }
    }

    /// Waits until the engine's clock reaches `time`, or `stop`.
    private func wait(until time: Double, _ engine: HapticEngine) {
        let seconds = time - engine.currentTime
        guard seconds > 0, seconds.isFinite else { return }
        _ = wake.wait(timeout: .now() + min(seconds, 3600))
    }
}
