import HapticDSP
import HapticRender

/// The follower's level per sample, render side: the controls' gain (0 when muted) reached
/// smoothly, times the ducking, which comes down while an authored voice sounds on the same
/// engine and goes back up after it (attack and release, so neither clicks).
///
/// An authored voice sounds when the haptic buses the follower is about to add into already
/// hold drive: the engine renders its voices into the mix first (``LiveInput``), so the render
/// side knows without a lock, a flag or a message, to the sample. A hold bridges a voice's
/// zero crossings and the short gaps inside a pattern.
struct FollowLevel {
    /// A sample above this (-80 dBFS) is an authored voice sounding.
    static let soundingThreshold: Float = 1e-4
    private let gainCoefficient: Float
    private let attackCoefficient: Float
    private let releaseCoefficient: Float
    private let holdFrames: Int
    private var gain: Float
    private var ducking: Float = 1
    private var holdLeft = 0

    /// Gain changes settle in about 15 ms (a 2 ms time constant), ducking comes down in
    /// about 20 ms (5 ms) and goes back up in about 300 ms (60 ms) once no voice has sounded
    /// for `holdSeconds`.
    init(sampleRate: Int, startingGain: Float, holdSeconds: Double = 0.1) {
        func coefficient(_ seconds: Double) -> Float {
            Float(1 - exp2Double(-1.4426950408889634 / (seconds * Double(max(1, sampleRate)))))  // 1 - e^(-1/(τ·rate))
        }
        gainCoefficient = coefficient(0.002)
        attackCoefficient = coefficient(0.005)
        releaseCoefficient = coefficient(0.060)
        holdFrames = max(1, Int(holdSeconds * Double(max(1, sampleRate))))
        gain = startingGain
    }

    /// Writes the level of `n` samples into `levels`, from the voices already in `bus` at
    /// `offset` and the controls read this render call. Render thread.
    @inline(__always)
    mutating func fill(_ levels: UnsafeMutablePointer<Float>, _ n: Int, voicesIn bus: MixBus, at offset: Int,
                       controls: FollowControls.Snapshot) {
        let buses = bus.hapticBusCount
        for i in 0..<n {
            var sounding = false
            for k in 0..<buses where abs(bus.hapticBus(k)[offset + i]) > Self.soundingThreshold { sounding = true }
            if sounding { holdLeft = holdFrames } else if holdLeft > 0 { holdLeft -= 1 }
            let duckTarget = holdLeft > 0 ? controls.ducking : 1
            ducking += (duckTarget - ducking) * (duckTarget < ducking ? attackCoefficient : releaseCoefficient)
            gain += (controls.gain - gain) * gainCoefficient
            if abs(controls.gain - gain) < 1e-7 { gain = controls.gain }  // settled (and no denormals)
            if abs(duckTarget - ducking) < 1e-7 { ducking = duckTarget }
            levels[i] = gain * ducking
        }
    }
}
