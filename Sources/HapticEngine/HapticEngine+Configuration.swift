import HapticRender
import Logging

extension HapticEngine {
    /// Everything an engine is created with.
    public struct Configuration: Sendable {
        /// Output channels and what each carries.
        public var layout: ChannelLayout = .hapticMono
        /// The actuator the haptic channel drives.
        public var profile: ActuatorProfile = ActuatorProfile(name: "default")
        /// Frames per second.
        public var sampleRate: Int = 48_000
        /// Frames per period (render block and device write). Default 256 × 3 (16 ms of buffer):
        /// measured through the PulseAudio rig (release, 20 s each, SCHED_FIFO granted), 256 × 3
        /// ran without xruns idle and with a busy loop on the other core, while 128 × 3 (4
        /// xruns) and 256 × 2 (2 xruns) did not survive the loaded case; render time per period
        /// is ≈ 10 µs of 5333 µs (bench/RESULTS.md, "Live latency and timing").
        public var periodFrames: Int = 256
        /// Periods in the device buffer.
        public var bufferPeriods: Int = 3
        /// Voices that can play (or wait for a scheduled start) at once; a start beyond it throws
        /// ``HapticEngineError/voiceLimitReached(_:)``.
        public var maxVoices: Int = 4096
        /// Commands in flight to the render thread; a call beyond it throws ``HapticEngineError/commandQueueFull``.
        public var commandCapacity: Int = 16_384
        /// Render thread or manual stepping (HapticEngineTesting's `Configuration.manual(clock:)`).
        package var drive: Drive = .renderThread
        /// The time base (CLOCK_MONOTONIC, or a manual clock for tests).
        public var clock: EngineClock = .monotonic
        /// SCHED_FIFO priority of the render thread (nil: normal scheduling).
        public var realtimePriority: Int32? = 70
        /// Lock the process's memory (`mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)`) when permitted, so the
        /// render path never page-faults. Off by default: it is process-wide and never undone (a
        /// library must not pin its host's memory on its own; a 5-minute `play --loop` held 400 MB
        /// locked). A program that wants it turns it on (the CLI's live verbs do).
        public var lockMemory: Bool = false
        /// Fade-out length of `stop()`.
        public var stopFadeSeconds: Double = 0.005
        /// Idle time before auto-shutdown closes the device (when enabled).
        public var autoShutdownIdleSeconds: Double = 5
        /// First delay before a reconnection attempt after the device was lost; doubles up to the
        /// maximum. A PulseAudio server accepts connections again about 0.1 s after it is back, so
        /// attempts every 0.5 s at most bring the sound back within about 0.6 s of the server's return (the 1 s bound, with room).
        public var restartBackoffSeconds: Double = 0.05
        public var maxRestartBackoffSeconds: Double = 0.5
        /// Give up (state `unavailable`, `stoppedHandler(.recoveryFailed)`) after this many failed
        /// attempts; nil (default) = keep trying for as long as the engine lives.
        public var maxRestartAttempts: Int? = nil
        /// A device that makes no progress for this long is treated as lost (closed and reopened
        /// with backoff); shorter stalls (a paused server, a suspended device) are waited out in
        /// place and counted (`stallCount`). A dead JACK server gives no error at all: this bound
        /// is how its death is noticed.
        public var stallLimitSeconds: Double = 0.5
        /// After a reconnection, a scheduled start whose time passed while the device was away
        /// still plays (late) when it is at most this late; older ones are dropped and counted
        /// (`droppedOnsetCount`). Default 0: an onset that missed its time is dropped.
        public var lateOnsetWindowSeconds: Double = 0
        /// How often the control-side service thread collects finished voices and runs recovery.
        public var servicePollSeconds: Double = 0.005
        /// A live source mixed into the haptic buses every period, before the protection chain
        /// (the follower: haptics from captured sound). nil: none.
        public var liveInput: (any LiveInput)? = nil
        /// Sound files for AudioCustom events in patterns prepared by the engine.
        public var sounds: (any SoundSource)? = nil
        /// Latency the device adds beyond what it reports (seconds; default 0). Scheduled
        /// events are rendered this much earlier and `outputLatency` includes it. The ALSA
        /// `jack` plugin leaves about one server period out of its reported delay: set it to
        /// that period to bring the scheduled-onset error's median to zero (see
        /// bench/RESULTS.md, "Live latency and timing").
        public var latencyCompensationSeconds: Double = 0
        /// How far the schedule grid may drift from the filtered device clock before it is moved
        /// (seconds). Onsets scheduled Δ apart land exactly round(Δ·fs) frames apart unless a
        /// correction falls between them; the absolute error stays within this bound plus the
        /// filter's own error. 0 makes the grid follow the filter every period (no exact spacing).
        public var scheduleDriftToleranceSeconds: Double = 0.002
        /// After a (re)lock the grid follows the filter for this long (device time) before it
        /// holds its anchor: the first timestamps through a sound server are the least reliable.
        public var scheduleSettleSeconds: Double = 0.5
        /// Called first thing on the render thread (tests register it with the allocation counter).
        public var renderThreadDidStart: (@Sendable () -> Void)? = nil
        /// Log (as a warning) where the haptic went when it does not reach a channel of its own
        /// (`channelRouting.warning`), once per change. An app that reports it itself turns it off.
        public var logsChannelRouting = true
        /// Control-side log (never used on the render thread).
        public var logger = Logger(label: "hapticsynth.engine")
        /// Test support: how many applied commands the render side records.
        var commandTraceCapacity = 0

        public init(layout: ChannelLayout = .hapticMono, profile: ActuatorProfile = ActuatorProfile(name: "default"),
                    sampleRate: Int = 48_000, periodFrames: Int = 256, bufferPeriods: Int = 3) {
            self.layout = layout
            self.profile = profile
            self.sampleRate = sampleRate
            self.periodFrames = periodFrames
            self.bufferPeriods = bufferPeriods
        }

        var requestedFormat: DeviceFormat {
            DeviceFormat(channels: layout.channels, sampleRate: sampleRate, periodFrames: periodFrames,
                         bufferFrames: periodFrames * bufferPeriods)
        }
    }
}
