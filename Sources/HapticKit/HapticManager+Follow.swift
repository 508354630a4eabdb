import HapticEngine
import HapticFollow
import Synchronization

// Following live sound on the manager's haptic engine (`serve --follow`): the follower is one
// more voice, mixed before the protection chain, ducked while the manager's patterns sound.
extension HapticManager {
    /// The manager's follower, if any, and the slot its haptic engines render it through.
    final class Following: Sendable {
        let slot = FollowSlot()
        let capture = Mutex<(supervised: SupervisedCapture, name: String)?>(nil)
        /// A `stopSoon` under way (awaited by `stop`, so that a capture is closed when it returns).
        let stopping = Mutex<Task<Void, Never>?>(nil)

        /// Stops rendering the follower, ends its supervision and closes the capture; returns
        /// when it is closed (also when `stopSoon` took it first).
        func stop() async {
            if let (supervised, _) = capture.withLock({ c in defer { c = nil }; return c }) {
                _ = slot.remove()
                await supervised.stop()
            }
            await stopping.withLock { $0 }?.value
        }

        /// `stop` in the background (from the manager's synchronous paths: shut down, gave up).
        func stopSoon() {
            guard let (supervised, _) = capture.withLock({ c in defer { c = nil }; return c }) else { return }
            let slot = slot
            let task = Task.detached {
                _ = slot.remove()
                await supervised.stop()
            }
            stopping.withLock { $0 = task }
        }
    }

    /// Starts following `capture` on the haptic engine, while it runs and plays patterns: the
    /// capture is read every period on the render thread and mixed, as `follow` does, into the
    /// haptic buses (`settings`: mode, linear gain, channels followed), its drive ducked by
    /// `duckingDecibels` (-60…0) while a pattern of the manager sounds. A lost capture is
    /// reopened by itself while the output keeps running; ``Configuration/eventHandler`` hears
    /// ``EngineEvent/captureLost(_:)`` and ``EngineEvent/captureBack(_:seconds:)``.
    ///
    /// The capture must run at the engine's rate. Throws, in one line, when it cannot be
    /// opened, when a value is out of range (NaN, infinite or negative gain), when the manager
    /// already follows a capture (``stopFollowing()`` first), is unavailable, or its engine
    /// configuration brought a ``LiveInput`` of its own.
    public func startFollowing(
        _ capture: LiveFollower.Capture, settings: FollowSettings = FollowSettings(),
        duckingDecibels: Float = FollowControls.defaultDuckingDecibels
    ) throws(LivePlayerError) {
        guard configuration.engine.liveInput == nil else {
            throw LivePlayerError(description: "the engine configuration has a live input of its own; the manager cannot follow")
        }
        let controls: FollowControls
        do { controls = try FollowControls(mode: settings.mode, gain: settings.gain, duckingDecibels: duckingDecibels) } catch {
            throw LivePlayerError(description: "\(error)")
        }
        guard !hasGivenUp else { throw LivePlayerError(description: "the manager is unavailable (\(status))") }
        if let name = following.capture.withLock({ $0?.name }) {
            throw LivePlayerError(description: "already following \(name); stop following first")
        }
        let supervised = try SupervisedCapture(capture, settings: settings, engine: configuration.engine)
        let follower = supervised.follower
        // The checked values (the follower took `settings` as they are).
        try? follower.controls.setGain(controls.gain)
        try? follower.controls.setDucking(decibels: duckingDecibels)
        let installed = following.capture.withLock { c -> Bool in
            guard c == nil, following.slot.install(follower) else { return false }
            c = (supervised, capture.name)
            return true
        }
        guard installed else {
            follower.input.close()
            throw LivePlayerError(description: "already following; stop following first")
        }
        let name = capture.name, handler = configuration.eventHandler, logger = logger
        supervised.supervise { event in
            switch event {
            case .lost:
                logger.info("haptic manager: capture \(name) lost; reopening")
                handler?(.captureLost(name))
            case .back(let seconds):
                logger.info("haptic manager: capture \(name) is back after \(seconds) s")
                handler?(.captureBack(name, seconds: seconds))
            }
        }
    }

    /// Stops following (the follower's drive ends at the next period) and closes the capture;
    /// returns when it is closed. Nothing when not following.
    public func stopFollowing() async {
        await following.stop()
    }

    /// Whether the manager follows a capture now.
    public var isFollowing: Bool { following.capture.withLock { $0 != nil } }

    /// The follower's gain, mute, mode and ducking, changeable from any thread while it runs
    /// (nil when not following). Each change takes effect at the engine's next period, ramped.
    public var followControls: FollowControls? { following.capture.withLock { $0?.supervised.follower.controls } }

    /// What the follower has counted (frames followed, overruns, capture losses...); nil when not following.
    public var followStatistics: FollowStatistics? { following.capture.withLock { $0?.supervised.follower.statistics } }

    /// The follower's gain in dB (up to +40; -inf silences). False when not following; throws
    /// for NaN or above +40 dB (the gain is left as it was).
    @discardableResult
    public func setFollowGain(decibels: Float) throws(FollowControlError) -> Bool {
        guard let controls = followControls else { return false }
        try controls.setGain(decibels: decibels)
        return true
    }

    /// Mutes or unmutes the follower (the capture goes on being read). False when not following.
    @discardableResult
    public func setFollowMuted(_ muted: Bool) -> Bool {
        guard let controls = followControls else { return false }
        controls.muted = muted
        return true
    }

    /// Switches the follower's mode (cross-faded over 5 ms). False when not following.
    @discardableResult
    public func setFollowMode(_ mode: FollowMode) -> Bool {
        guard let controls = followControls else { return false }
        controls.mode = mode
        return true
    }
}
