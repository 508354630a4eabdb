/// The follower's jitter buffer: captured (mono) frames wait here between the capture's
/// arrivals and the output's periods, which the same clock paces but not in step (a sound
/// server hands a monitor's frames over in its own fragments).
///
/// After an empty spell it hands out a period only once it holds a period plus the larger of
/// `reserve` and the largest recent arrival (`noteArrival`: a sound server's fragments may be
/// larger than a period and come in bursts), so that the arrivals' jitter does not tear every
/// period. An underrun (fewer frames than a period) is counted and grows the reserve by a
/// quarter period (to at most four periods); after `calmWindows` windows without one it shrinks
/// again by a sixteenth of a period every `calmStepWindows` (to its first size): a loaded spell
/// would otherwise leave its latency for good (an hour's run in the rig grew 19 → 27 ms). Latency is kept from creeping: when over a whole
/// `window` the queue never fell below the reserve plus an eighth of a period after a period
/// was taken, the excess is dropped and counted (an eighth, not more: what stands above the
/// reserve is latency the jitter did not need), as is what lies beyond the priming threshold
/// when it primes (a backlog from the capture's start).
///
/// Drift (the capture's clock against the output's): with `correctsDrift`, the queue is read
/// at a ratio of captured frames per output frame (linear interpolation between captured
/// frames), and a servo sets that ratio from the lowest fill after a take over each window
/// (what the trims watch too): a capture running fast fills the queue, the ratio rises until
/// the lowest fill stands at `targetFill` (the reserve plus an eighth of a period) again, and
/// stays where the two clocks' rates meet. The servo is a proportional-integral loop: the
/// proportional term corrects a fifth of the fill's error per window (a 500 ppm drift holds
/// the fill about 30 frames off until the integral has learnt it), the integral learns the
/// rate over about 20 s (the lowest fill jitters with a sound server's scheduling), and the
/// ratio is held within ±0.2 %; trims then only take a standing excess of more than a period
/// (a stall's backlog), which the servo would take seconds to slew away.
///
/// A ring of preallocated storage; every method is allocation-free and runs in steps bounded
/// by the frames it is given. Render thread only (or the control side while it is stopped).
struct CaptureQueue {
    private let storage: UnsafeMutablePointer<Float>
    /// Capacity in frames.
    let capacity: Int
    private var head = 0  // next frame to take
    private(set) var count = 0
    private let period: Int
    /// Frames kept after a period is taken (the jitter's margin; underruns grow it).
    private(set) var reserve: Int
    /// The reserve's first size, to which calm spells bring it back.
    private let minimumReserve: Int
    /// Windows since the last underrun; the reserve shrinks after `calmWindows` (30 s for the
    /// follower's quarter-second windows), then a step every `calmStepWindows` (10 s).
    private var windowsWithoutUnderrun = 0
    static let calmWindows = 120
    static let calmStepWindows = 40
    /// The largest arrival of the last whole window, and of this one so far (a backlog at the
    /// start is forgotten after two windows).
    private var largestArrival = 0
    private var windowLargestArrival = 0
    private let maximumReserve: Int
    /// How far above the reserve the lowest fill may stand over a window before it is trimmed.
    private let trimSlack: Int
    private let window: Int
    private var primed = false
    private var lowest = Int.max
    private var windowFrames = 0
    /// Periods that found fewer than a period's frames.
    private(set) var underruns = 0
    /// Frames dropped to keep the latency down, and frames that found the queue full.
    private(set) var trimmedFrames = 0
    private(set) var overflowFrames = 0
    /// Every frame the queue dropped, trimmed or overflowed (where the followed stream was cut).
    var droppedFrames: Int { trimmedFrames + overflowFrames }
    /// Whether the read ratio follows the fill (drift correction).
    let correctsDrift: Bool
    /// Captured frames taken per output frame (1 without drift correction).
    private(set) var ratio: Double = 1
    /// The rate difference the servo has learnt: its integral term (the capture's clock
    /// against the output's, without the fill's correction on top), averaged over about 20
    /// windows (the term wanders with the arrivals' jitter).
    private(set) var learntRateDifference: Double = 0
    /// The read position's fraction of a frame past `head`, 0 ..< 1.
    private var phase: Double = 0
    /// The servo's integral term (the rate difference it has learnt).
    private var integral: Double = 0
    /// The servo's gains per window, per frame of fill error (proportional: a fifth of the
    /// error corrected per window; integral: an eightieth of that, so that the rate it learns
    /// averages a sound server's jitter over about 20 s).
    private let proportionalGain: Double
    private let integralGain: Double
    /// The ratio stays within 1 ± this (a sound card's clock is off by far less).
    static let maximumCorrection = 0.002

    /// - Parameters: `period`: frames taken each time; `window`: frames over which the lowest
    ///   fill is watched (the follower: a quarter second).
    init(period: Int, capacityPeriods: Int = 16, window: Int, correctsDrift: Bool = false) {
        self.period = max(1, period)
        capacity = self.period * max(4, capacityPeriods)
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
        reserve = self.period / 4
        minimumReserve = reserve
        maximumReserve = 4 * self.period
        self.window = max(self.period, window)
        self.correctsDrift = correctsDrift
        // With the servo, only a stall's backlog is trimmed; the servo slews the rest away.
        trimSlack = correctsDrift ? self.period : max(1, self.period / 8)
        proportionalGain = 0.2 / Double(self.window)
        integralGain = 0.0025 / Double(self.window)
    }

    /// The fill the drift servo holds the window's lowest at.
    var targetFill: Int { reserve + max(1, period / 8) }

    func deallocate() { storage.deallocate() }

    /// Appends `frames` samples. When they do not fit, the oldest frames make room (the newest
    /// sound is what is to be felt); those are counted in `overflowFrames`.
    mutating func append(_ samples: UnsafePointer<Float>, _ frames: Int) {
        let skipped = max(0, frames - capacity)  // more than the whole queue: only its last part
        let kept = frames - skipped
        let excess = count + kept - capacity
        if excess > 0 {
            head = (head + excess) % capacity
            count -= excess
        }
        overflowFrames += skipped + max(0, excess)
        var tail = (head + count) % capacity
        for i in skipped..<frames {
            storage[tail] = samples[i]
            tail += 1
            if tail == capacity { tail = 0 }
        }
        count += kept
    }

    /// Takes `frames` (at most a period) into `out`, silence where there is none. Returns the
    /// frames of captured sound it gave (the rest is silence).
    mutating func take(into out: UnsafeMutablePointer<Float>, _ frames: Int) -> Int {
        guard frames > 0 else { return 0 }
        if !primed {
            let needed = frames + max(reserve, largestArrival, windowLargestArrival)
            guard count >= needed else {
                out.update(repeating: 0, count: frames)
                return 0
            }
            // What piled up beyond it (the capture's start, a stall) would be latency for good.
            if count > needed { drop(count - needed) }
            primed = true
            phase = 0
            lowest = Int.max
            windowFrames = 0
        }
        // The captured frames these output frames read: up to the last one's position, and the
        // one after it when that position falls between two.
        let end = phase + Double(frames) * ratio
        let last = phase + Double(frames - 1) * ratio
        let required = max(Int(end), Int(last) + (last > Double(Int(last)) ? 2 : 1))
        if count < required {
            // An underrun: what there is, as it is, then silence; primed again before the next.
            let given = min(frames, count)
            for i in 0..<given {
                out[i] = storage[head]
                head += 1
                if head == capacity { head = 0 }
            }
            count -= given
            (out + given).update(repeating: 0, count: frames - given)
            underruns += 1
            primed = false
            phase = 0
            reserve = min(maximumReserve, reserve + max(1, period / 4))
            windowsWithoutUnderrun = 0
            return given
        }
        if ratio == 1 && phase == 0 {
            for i in 0..<frames {
                var index = head + i
                if index >= capacity { index -= capacity }
                out[i] = storage[index]
            }
        } else {
            var position = phase
            for i in 0..<frames {
                let k = Int(position)
                let fraction = Float(position - Double(k))
                var index = head + k
                if index >= capacity { index -= capacity }
                let a = storage[index]
                if fraction > 0 {
                    var next = index + 1
                    if next == capacity { next = 0 }
                    out[i] = a + fraction * (storage[next] - a)
                } else {
                    out[i] = a
                }
                position += ratio
            }
        }
        let consumed = Int(end)
        phase = end - Double(consumed)
        head = (head + consumed) % capacity
        count -= consumed
        lowest = min(lowest, count)
        windowFrames += frames
        if windowFrames >= window {
            if correctsDrift { steer(lowest) }
            if lowest > reserve + trimSlack { drop(lowest - reserve) }
            windowsWithoutUnderrun += 1
            if windowsWithoutUnderrun >= Self.calmWindows && reserve > minimumReserve {
                reserve = max(minimumReserve, reserve - max(1, period / 16))
                windowsWithoutUnderrun = Self.calmWindows - Self.calmStepWindows
            }
            largestArrival = windowLargestArrival
            windowLargestArrival = 0
            lowest = Int.max
            windowFrames = 0
        }
        return frames
    }

    /// One step of the drift servo: the window's lowest fill against the target sets the ratio.
    /// An error beyond a quarter period is no drift (a start-up backlog, a stall, an underrun's
    /// new reserve: the trims and the priming deal with those): it is steered at a quarter
    /// period and not integrated, so that it does not wind up the rate learnt.
    private mutating func steer(_ lowestFill: Int) {
        let limit = max(1, period / 4)
        let error = Double(min(limit, max(-limit, lowestFill - targetFill)))
        let bound = Self.maximumCorrection
        if abs(lowestFill - targetFill) < limit {
            integral = min(bound, max(-bound, integral + integralGain * error))
        }
        ratio = 1 + min(bound, max(-bound, proportionalGain * error + integral))
        learntRateDifference += (integral - learntRateDifference) / 20
    }

    /// Frames that arrived together (one read round of the capture): the reserve covers bursts
    /// of this size. At most four periods are believed (a stall's backlog is no fragment size).
    mutating func noteArrival(_ frames: Int) {
        windowLargestArrival = max(windowLargestArrival, min(frames, maximumReserve + period))
    }

    /// Forgets everything queued and waits to be primed again (a capture that restarted); the
    /// servo's ratio is kept (the same device's clock).
    mutating func reset() {
        head = 0
        count = 0
        phase = 0
        primed = false
        lowest = Int.max
        windowFrames = 0
    }

    private mutating func drop(_ frames: Int) {
        let n = min(frames, count)
        head = (head + n) % capacity
        count -= n
        trimmedFrames += n
    }
}
