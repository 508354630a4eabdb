import HapticEngine
import HapticRender
import Logging

// What a manager is made with: its output(s) and engine settings.
extension HapticManager {

    /// Where the engine's output goes.
    public enum Output: Sendable {
        /// An ALSA PCM by name (`default`, `hw:1,0`, a rig PCM...).
        case alsa(String)
        /// A device factory (called again for every new engine or handle).
        case device(@Sendable () -> any OutputDevice)
    }

    /// Everything a manager is made with.
    public struct Configuration: Sendable {
        /// The patterns folder (`Haptics/`: `*.ahap` and `*.haptic`; empty: none).
        public var hapticsFolder: String
        /// The assets folder (`Assets/`: `sfx/*.wav`, `cues.json`; empty: none).
        public var assetsFolder: String
        /// The output device.
        public var output: Output
        /// The engine's settings. The manager fills in `sounds` (the assets' sound library);
        /// `layout` is chosen from the device when `layoutFromDevice` (see `init`).
        public var engine: HapticEngine.Configuration
        /// Choose the haptic engine's layout from what its device says about its channels when
        /// the manager starts (`DefaultChannelLayout`: the sound on the fronts and the haptic on
        /// LFE where there is one...), replacing `engine.layout`. Set when `init` had no layout.
        public var layoutFromDevice: Bool
        /// Log (as a warning, through the haptic engine's logger) where the haptic went when it
        /// does not reach a channel of its own (`channelRouting`). An app that reports it itself
        /// turns this off (the CLI does).
        public var logsChannelRouting: Bool {
            get { engine.logsChannelRouting }
            set { engine.logsChannelRouting = newValue }
        }
        /// Transient voices from `playTransientEvent` that may sound at once; a newer one
        /// stops the oldest (so rapid calls never pile up).
        public var transientVoices: Int = 4
        /// Steps per unit of the intensity/sharpness quantisation of `playTransientEvent`
        /// (20: steps of 0.05), which bounds the prepared one-event patterns it keeps.
        public var transientSteps: Int = 20
        /// The manager's log (debug lines for no-ops; recovery at info/warning).
        public var logger = Logger(label: "hapticsynth.manager")
        /// Told of every engine lost, reconnected, rebuilt or given up (``HapticManager/EngineEvent``),
        /// on the engine's service thread, outside the manager's lock: it may call the manager.
        public var eventHandler: (@Sendable (HapticManager.EngineEvent) -> Void)? = nil
        /// Two-device mode: a separate output for the sound effects (a sound card for the
        /// speakers while `output` drives the shaker amplifier). nil: one stream carries both.
        public var audioOutput: Output? = nil
        /// The audio engine's settings in two-device mode (the manager fills in `sounds`).
        /// Defaults to a default engine configuration with a stereo layout and `engine`'s profile
        /// (set period and buffer here too when `engine`'s are changed).
        public var audioEngine: HapticEngine.Configuration

        /// - Parameters:
        ///   - layout: the haptic engine's channels; nil: chosen from the device when the manager
        ///     starts (sound and haptic in one stream, or the haptic only when `audioOutput`
        ///     carries the sound; by column L,R,H or H when the device cannot say).
        ///   - audioOutput: two-device mode (see ``audioOutput``).
        public init(
            hapticsFolder: String, assetsFolder: String, output: Output = .alsa("default"),
            layout: ChannelLayout? = nil, profile: ActuatorProfile = .bassShaker, audioOutput: Output? = nil
        ) {
            self.hapticsFolder = hapticsFolder
            self.assetsFolder = assetsFolder
            self.output = output
            self.audioOutput = audioOutput
            engine = HapticEngine.Configuration(
                layout: layout ?? (audioOutput == nil ? .stereoPlusHaptic : .hapticMono), profile: profile)
            audioEngine = HapticEngine.Configuration(layout: .stereoAudio, profile: profile)
            layoutFromDevice = layout == nil
            lockMemory = false
        }

        /// Whether the engines lock the process's memory (`mlockall(MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT)`)
        /// when they start. Off by default: it is a process-wide effect a library must not take
        /// on its own (a long session holds everything it ever allocated in RAM). An app that
        /// plays live and owns its process may turn it on (the CLI's live verbs do).
        public var lockMemory: Bool {
            get { engine.lockMemory }
            set {
                engine.lockMemory = newValue
                audioEngine.lockMemory = newValue
            }
        }
    }
}
