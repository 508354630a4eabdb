/// Per-voice render state, in a preallocated table indexed by slot.
struct VoiceSlot {
    enum Phase: UInt8 { case empty, scheduled, playing, pausing, paused, cancelling, finished }
    var box: Unmanaged<VoiceBox>? = nil
    var generation: UInt32 = 0
    var phase: Phase = .empty
    var gain: Float = 1
    var muted = false
    var reason: FinishReason = .completed
    var dueStart: Int32 = 0
    var dueEnd: Int32 = 0
}
