import HapticPattern
import HapticRender

// The wire between the control side and the render side: commands in, events out, and the
// voices handed over with them (through the lock-free queues of RenderCore).

/// What a control call asks the render thread to do.
enum CommandKind: UInt8 {
    case start, stop, cancel, control, pause, resume, seek, rate, loop, mute
}

/// One timed command. Fixed size; curves are sent as one command per segment.
struct Command {
    var kind: CommandKind
    var slot: Int32
    var generation: UInt32
    /// Monotonic nanoseconds at which it takes effect; 0 = the next block rendered.
    var timeNanos: Int64
    /// When set, the device frame that is to PLAY the command's effect (it is applied the
    /// output stage's look-ahead earlier), instead of `timeNanos`: a start on the device's
    /// own clock, independent of the frame ↔ monotonic mapping. A frame already past when
    /// the command is collected takes effect at the next block (counted as late).
    var frame: Int64? = nil
    var value: Double = 0
    var ramp: Double = 0
    var parameter: DynamicParameterID = .hapticIntensityControl
    /// The voice (start only): +1 retained; ownership passes to the render side.
    var box: Unmanaged<VoiceBox>? = nil
    /// Render side: arrival order (stable ordering of same-frame commands).
    var sequence: UInt64 = 0
    /// Render side: frame offset inside the current block.
    var offset: Int32 = 0
}

/// Why a voice ended (reported to the control side with the voice).
enum FinishReason: UInt8 {
    case completed, cancelled, engineStopped, dropped
}

/// A message from the render side to the control side.
struct RenderEvent {
    enum Kind: UInt8 { case finished, deviceLost }
    var kind: Kind
    var slot: Int32 = -1
    var generation: UInt32 = 0
    var box: Unmanaged<VoiceBox>? = nil
    var reason: FinishReason = .completed
}

/// One playback's voice, allocated on the control side, owned by the render side
/// between its start command and its return in a `.finished` event.
/// `@unchecked Sendable`: `voice` is touched by exactly one side at a time (the
/// hand-over is ordered by the lock-free queues' acquire/release).
final class VoiceBox: @unchecked Sendable {
    /// The voice of the first actuator profile (it renders the sound too).
    var voice: PatternVoice
    /// One voice per further actuator profile of the layout (the pattern rendered once per
    /// distinct profile, each into its own haptic bus); empty for one profile.
    var actuatorVoices: [PatternVoice]
    /// Control side only: what to tell when the voice comes back (set before the start command
    /// hands the box over).
    var onFinish: (@Sendable (FinishReason) -> Void)? = nil
    init(voice: PatternVoice, actuatorVoices: [PatternVoice] = []) {
        self.voice = voice
        self.actuatorVoices = actuatorVoices
    }

    /// Applies `change` to every voice of the playback (render side; allocation-free).
    @inline(__always)
    func forEachVoice(_ change: (inout PatternVoice) -> Void) {
        change(&voice)
        for k in actuatorVoices.indices { change(&actuatorVoices[k]) }
    }

    /// Renders every voice into its actuator's bus of `bus`.
    @inline(__always)
    func render(into bus: MixBus) {
        voice.render(into: bus.actuator(0))
        for k in actuatorVoices.indices { actuatorVoices[k].render(into: bus.actuator(k + 1)) }
    }

    var isFinished: Bool {
        if !voice.isFinished { return false }
        for k in actuatorVoices.indices where !actuatorVoices[k].isFinished { return false }
        return true
    }
}
