import HapticALSA
import HapticEngine
import HapticFollow
import Synchronization

/// A capture followed on an engine, and the supervision that reopens it when it is lost:
/// the one place both `follow` (``LiveFollower``) and `serve --follow` (``HapticManager``)
/// open a capture, so both recover it the same way while their output keeps running.
///
/// Made before the engine that renders its ``follower`` starts (the follower is the engine's
/// ``LiveInput``); `supervise` starts the reopening, `stop` ends it and closes the capture.
final class SupervisedCapture: Sendable {
    /// What is reported from the supervision task.
    enum Event: Sendable {
        /// The capture was lost; it is reopened as soon as it can be (the output keeps running).
        case lost
        /// The capture is back after `seconds`.
        case back(seconds: Double)
    }

    let follower: CaptureFollower
    /// The priority the capture is opened at (the first open and every reopen).
    private let ioPriority: Int32?
    private let done = StopFlag()
    /// The task that reopens a lost capture (awaited by `stop`, so no reopen outlives it).
    private let supervision = Mutex<Task<Void, Never>?>(nil)

    /// Opens `capture` for an engine of `engine`'s rate and period, following `settings`.
    /// Throws in one line (`capture DEVICE: why`) when it cannot be opened.
    init(_ capture: LiveFollower.Capture, settings: FollowSettings, engine: HapticEngine.Configuration) throws(LivePlayerError) {
        let input: any InputDevice
        switch capture {
        case .alsa(let name):
            var options = ALSACaptureInput.Options()
            // A device narrower than asked (a mono input) is taken as it is, if it has the channels followed.
            let highest = (settings.inputChannels.max() ?? 0) + 1
            options.fallbackChannelCounts = Array(Set([highest, 2, 1])).filter { $0 >= highest }.sorted(by: >)
            input = ALSACaptureInput(name: name, options: options)
        case .device(let make):
            input = make()
        }
        let follower = CaptureFollower(
            input: input, settings: settings, sampleRate: engine.sampleRate, periodFrames: engine.periodFrames)
        self.follower = follower
        // The sound server plugin's I/O thread, started by the open, runs just below the render
        // thread (as the output's does).
        ioPriority = engine.realtimePriority.map { max(1, $0 - 1) }
        do {
            try HapticEngine.withInheritedRealtimeScheduling(priority: ioPriority) { () throws(DeviceOpenError) in
                try follower.open()
            }
        } catch {
            throw LivePlayerError(description: "capture \(error)")
        }
    }

    deinit { done.set() }

    /// Starts reopening the capture whenever it is lost, until `stop`.
    func supervise(events: @escaping @Sendable (Event) -> Void) {
        let follower = follower, ioPriority = ioPriority, done = done
        let task = Task.detached {
            await Self.supervise(follower, ioPriority: ioPriority, while: { !done.isSet }, events: events)
        }
        supervision.withLock { $0 = task }
    }

    /// Ends the supervision (waiting for a reopen under way) and closes the capture. Call it
    /// once the engine no longer renders the follower, or the render side reads a closed device
    /// (harmless: it reads nothing and counts the capture lost).
    func stop() async {
        done.set()
        await supervision.withLock { $0 }?.value
        follower.input.close()
    }

    /// Reopens a lost capture, trying every 250 ms, while `running` holds. Each reopen runs
    /// at `ioPriority` as the first open did: the sound server plugin's I/O thread, started by
    /// the open, inherits it (opened from this task's pool thread at normal priority, a loaded
    /// machine starved it after a server restart: the capture came in late bursts, hits 35–100
    /// ms late and one missed).
    private static func supervise(
        _ follower: CaptureFollower, ioPriority: Int32?, while running: @escaping @Sendable () -> Bool,
        events: @escaping @Sendable (Event) -> Void
    ) async {
        var lostAt: Double? = nil
        while running() {
            try? await Task.sleep(for: .milliseconds(lostAt == nil ? 50 : 250))
            guard running(), follower.isLost else { continue }
            let now = HapticEngine.currentMonotonicTime
            if lostAt == nil {
                lostAt = now
                events(.lost)
            }
            let reopened = HapticEngine.withInheritedRealtimeScheduling(priority: ioPriority) { follower.reopenIfLost() }
            if reopened, let since = lostAt {
                events(.back(seconds: HapticEngine.currentMonotonicTime - since))
                lostAt = nil
            }
        }
    }
}
