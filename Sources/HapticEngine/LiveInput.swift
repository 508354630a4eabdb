import HapticRender

/// A live source of haptic drive that the render thread adds into the mix every period, after
/// the voices and before the output stage, so that it passes through the same protection
/// chain, layout and actuator buses as every pattern (the follower of issue 21: drive made
/// from captured sound).
///
/// `prepare` runs on the control side whenever the engine (re)configures its render side for
/// an opened device, while the render side is not running; `render` runs on the render thread
/// and must not allocate, lock, log, use Foundation, or loop for a number of steps that
/// anything but the block's length chooses.
public protocol LiveInput: AnyObject, Sendable {
    /// Sizes the input's buffers for blocks of at most `periodFrames` frames at `sampleRate`,
    /// with one haptic bus per profile of `actuators` (the output stage's actuators, in bus order).
    func prepare(sampleRate: Int, periodFrames: Int, actuators: [ActuatorProfile])

    /// Adds `bus.frames` frames of drive into the haptic buses of `bus` (which already hold the
    /// voices' mix). Render thread.
    func render(into bus: MixBus)
}
