// The control side's internals, under the control lock: opening a device and starting the
// render side on it, ending rendering, taking back finished voices.

#if canImport(Glibc)
import Glibc
#endif
import HapticPattern
import HapticRender
import Logging
import Synchronization

extension HapticEngine {
    // MARK: - internals (control side, under the control lock)

    /// Applies a lifecycle change (``EngineLifecycle``), logging the state change it makes.
    @discardableResult
    func lifecycle<R>(_ c: inout Control, _ change: (inout EngineLifecycle) -> R) -> R {
        let before = c.lifecycle.state
        let result = change(&c.lifecycle)
        if c.lifecycle.state != before { logger.debug("haptic engine: \(before) -> \(c.lifecycle.state)") }
        return result
    }

    func formatProblem(_ granted: DeviceFormat, channels: Int) -> String? {
        if granted.channels != channels {
            return "device granted \(granted.channels) channels, the layout needs \(channels)"
        }
        if granted.sampleRate != configuration.sampleRate {
            return "device granted \(granted.sampleRate) Hz, the engine renders \(configuration.sampleRate) Hz"
        }
        if granted.periodFrames <= 0 { return "device granted a period of \(granted.periodFrames) frames" }
        return nil
    }

    /// Places the layout on the device's channel maps, opens `handle` and checks the granted
    /// format (closing it again when unusable).
    func open(_ handle: DeviceRef) throws(HapticEngineError) -> Opened {
        let plan: ChannelPlan
        do {
            plan = try ChannelPlan(
                layout: configuration.layout, described: handle.describeChannels(), device: handle.device.name)
        } catch {
            throw .formatMismatch(error.description)
        }
        var requested = configuration.requestedFormat
        requested.channels = plan.layout.channels
        requested.channelMap = plan.requestedMap
        let granted: DeviceFormat
        // Threads the device starts while opening (a sound server plugin's I/O thread) get a
        // real-time priority just below the render thread's, as the render thread does.
        let ioPriority = configuration.drive == .renderThread ? configuration.realtimePriority.map { max(1, $0 - 1) } : nil
        do {
            granted = try EngineThread.withInheritedRealtimeScheduling(priority: ioPriority) { () throws(DeviceOpenError) in
                try handle.device.open(requested: requested)
            }
        } catch {
            throw .deviceUnavailable(error)
        }
        if let problem = formatProblem(granted, channels: plan.layout.channels) {
            handle.device.close()
            throw .formatMismatch(problem)
        }
        return Opened(format: granted, plan: plan)
    }

    /// Opens `handle` and starts the render side on it.
    @discardableResult
    func openAndRun(_ handle: DeviceRef, _ c: inout Control, resuming: Bool = false) throws(HapticEngineError) -> RenderCore.Resumption? {
        try run(handle, opened: open(handle), &c, resuming: resuming)
    }

    /// Starts the render side on an open handle; `resuming` keeps voices, schedule and clock
    /// (a reconnection, ``RenderCore/resume(device:lateWindowSeconds:)``).
    @discardableResult
    func run(_ handle: DeviceRef, opened: Opened, _ c: inout Control,
             resuming: Bool = false) throws(HapticEngineError) -> RenderCore.Resumption? {
        let granted = opened.format
        c.format = granted
        noteRouting(
            ChannelRouting(
                device: handle.device.name, layout: opened.plan.layout, positions: handle.device.channelMap,
                described: handle.describeChannels()), &c)
        core.configure(format: granted, layout: opened.plan.layout, profile: configuration.profile,
                       stopFadeSeconds: configuration.stopFadeSeconds,
                       latencyCompensationSeconds: configuration.latencyCompensationSeconds,
                       gridThresholdSeconds: configuration.scheduleDriftToleranceSeconds,
                       gridSettleSeconds: configuration.scheduleSettleSeconds,
                       stallLimitSeconds: configuration.stallLimitSeconds, liveInput: configuration.liveInput)
        var resumption: RenderCore.Resumption? = nil
        if resuming {
            resumption = core.resume(device: handle.device, lateWindowSeconds: configuration.lateOnsetWindowSeconds)
        } else if configuration.drive == .pull {
            core.beginPulled(device: handle.device)
        } else {
            core.begin(device: handle.device)
        }
        if configuration.drive == .pull { core.openPullGate() }
        guard configuration.drive == .renderThread else { return resumption }
        if configuration.lockMemory {
            let (locked, code) = EngineThread.lockMemoryOnce()
            c.memoryLocked = locked
            if !locked && code != 0 { logger.warning("haptic engine: mlockall refused (errno \(code)); memory not locked") }
        }
        let core = self.core
        let hook = configuration.renderThreadDidStart
        let started = EngineThread.spawn(name: "haptic-render", realtimePriority: configuration.realtimePriority) {
            hook?()
            // A pattern, not `==`: Equatable through its witness table instantiates that table
            // (an allocation) on first use, here on the render thread.
            while case .rendered = core.renderOnePeriod() {}
        }
        guard let started else {
            core.end()
            handle.device.close()
            throw .deviceUnavailable(DeviceOpenError(device: handle.device.name, message: "cannot create the render thread"))
        }
        c.renderThread = started.thread
        c.realtimeGranted = started.realtime
        if configuration.realtimePriority != nil && !started.realtime {
            logger.warning("haptic engine: SCHED_FIFO refused (errno \(started.realtimeError)); render thread runs with normal scheduling")
        }
        return resumption
    }

    /// Keeps the routing of the last open; logs its warning when it is new (not at every reconnection).
    func noteRouting(_ routing: ChannelRouting, _ c: inout Control) {
        if configuration.logsChannelRouting, let warning = routing.warning, warning != c.routing?.warning {
            logger.warning("haptic engine: \(warning)")
        }
        logger.debug("haptic engine: \(routing.device) channels: \(routing.summary)")
        c.routing = routing
    }

    /// Ends rendering: with `fade`, the render side fades out and plays a buffer of silence first.
    func haltRendering(_ c: inout Control, fade: Bool) {
        core.stopRequested.store(true, ordering: .releasing)
        if let thread = c.renderThread {
            EngineThread.join(thread)  // bounded: every device write is bounded by its timeout
            c.renderThread = nil
        } else if configuration.drive == .manual {
            // The caller drives the device: render the fade (and its tail) here.
            var guardPeriods = 100_000
            while fade && core.renderOnePeriod() == .rendered && guardPeriods > 0 { guardPeriods -= 1 }
        } else if configuration.drive == .pull {
            // The caller pulls (no one here to hear a fade: `finishPulling()` asks for one).
            core.closePullGate()
        }
        core.end()
    }

    /// Takes back finished voices; returns the callbacks to run outside the lock.
    func drainEvents(_ c: inout Control) -> [() -> Void] {
        var calls: [() -> Void] = []
        while let event = core.events.pop() {
            switch event.kind {
            case .finished:
                c.freeSlots.append(event.slot)
                c.voicesInUse -= 1
                c.lifecycle.lastActivityNanos = clock.nanos()
                if let box = event.box?.takeRetainedValue(), let onFinish = box.onFinish {
                    let reason = event.reason
                    calls.append { onFinish(reason) }
                }
            case .deviceLost:
                c.lifecycle.deviceLostPending = true
            }
        }
        return calls
    }

    /// Reopens the device after auto-shutdown (a playback asked for it).
    func wakeFromIdle(_ c: inout Control) throws(HapticEngineError) {
        guard let handle = c.device else { throw .engineNotRunning(c.lifecycle.state) }
        try openAndRun(handle, &c)
        lifecycle(&c) { $0.wokeUp() }
    }
}
