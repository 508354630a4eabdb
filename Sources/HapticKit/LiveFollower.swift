import HapticALSA
import HapticEngine
import HapticFollow
import HapticRender

/// Follows live sound with haptics on an engine it assembles (what the `follow` verb does): a
/// capture stream (a sound card's input, a sound server's monitor) is read on the engine's
/// render thread and made into drive (``FollowSettings``) that goes through the same protection
/// chain, layout and actuator buses as every pattern.
///
/// The output is recovered as for `play` (the engine reconnects by itself); a lost capture is
/// reopened by the follower's own supervision while the output keeps running. What happens is
/// reported to `events`; the follower never prints.
public final class LiveFollower: Sendable {
    /// Where the sound to follow comes from.
    public enum Capture: Sendable {
        /// An ALSA capture PCM by name (`hw:1,0`, a `pulse` PCM on a monitor source...).
        case alsa(String)
        /// A device factory (tests).
        case device(@Sendable () -> any InputDevice)

        var name: String {
            switch self {
            case .alsa(let name): name
            case .device: "the capture device"
            }
        }
    }

    /// What a live follower is made with.
    public struct Configuration: Sendable {
        /// The output side: device, layout, profile, rate, period (as for `play`).
        public var output: LivePlayer.Configuration
        /// The capture.
        public var capture: Capture
        /// What is followed and how.
        public var follow: FollowSettings

        public init(output: LivePlayer.Configuration, capture: Capture, follow: FollowSettings) {
            self.output = output
            self.capture = capture
            self.follow = follow
        }
    }

    /// What a follower reports (from the engine's threads or its supervision task).
    public enum Event: Sendable {
        /// The output was lost; the engine reconnects by itself.
        case outputLost(String)
        /// The output is back after an outage (`gapSeconds` of output were not played).
        case outputBack(outageSeconds: Double, gapSeconds: Double)
        /// The engine gave up reconnecting the output.
        case gaveUp(String)
        /// The capture was lost; it is reopened as soon as it can be (the output keeps running).
        case captureLost
        /// The capture is back after `seconds`.
        case captureBack(seconds: Double)
    }

    /// The follower's configuration.
    public let configuration: Configuration
    let engine: HapticEngine
    private let capture: SupervisedCapture
    var follower: CaptureFollower { capture.follower }

    /// Opens the capture, then the output, and starts following; `events` hears what happens
    /// from then on. Throws, in one line, when either cannot be opened.
    public init(configuration: Configuration, events: @escaping @Sendable (Event) -> Void) throws(LivePlayerError) {
        self.configuration = configuration
        let engineConfiguration = configuration.output.engine
        let capture = try SupervisedCapture(configuration.capture, settings: configuration.follow, engine: engineConfiguration)
        self.capture = capture
        var withInput = engineConfiguration
        withInput.liveInput = capture.follower
        let output = configuration.output.output
        engine = HapticEngine(configuration: withInput) {
            switch output {
            case .alsa(let name): ALSAOutputDevice(name: name)
            case .device(let make): make()
            }
        }
        engine.stoppedHandler = { reason in
            switch reason {
            case .recoveryFailed(let why): events(.gaveUp(why))
            case .deviceLost(let message): events(.outputLost(message))
            case .deviceTimeout: events(.outputLost("no progress within the bounded wait"))
            }
        }
        engine.reconnectedHandler = { info in events(.outputBack(outageSeconds: info.outageSeconds, gapSeconds: info.gapSeconds)) }
        do { try engine.start() } catch {
            capture.follower.input.close()
            throw LivePlayerError(description: "\(error)")
        }
        capture.supervise { event in
            switch event {
            case .lost: events(.captureLost)
            case .back(let seconds): events(.captureBack(seconds: seconds))
            }
        }
    }

    deinit { engine.stop() }

    /// Where the channels went when the output opened; nil before it opened.
    public var channelRouting: ChannelRouting? { engine.channelRouting }

    /// The capture's granted format (channels, rate, period, buffer).
    public var captureFormat: DeviceFormat? { follower.captureFormat }

    /// What the follower has counted so far.
    public var statistics: FollowStatistics { follower.statistics }

    /// The engine's measurements now, for `--verbose`.
    public var report: EngineReport { EngineReport(engine) }
    /// The engine's render time per period (the follower's capture reads included; see
    /// `statistics.captureReads`).
    public var renderStatistics: RenderStatistics { engine.renderStatistics }

    /// Fades out, closes the output and the capture, and returns when they are closed.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            engine.stop { _ in continuation.resume() }
        }
        await capture.stop()
    }

    /// Gain, mute and mode, changeable while the follower runs.
    public var controls: FollowControls { capture.follower.controls }
}
