/// The follower's jitter buffer: captured (mono) frames wait here between the capture's
/// arrivals and the output's periods, which the same clock paces but not in step (a sound
/// server hands a monitor's frames over in its own fragments).
///
/// After an empty spell it hands out a period only once it holds a period plus the larger of
/// `reserve` and the largest recent arrival (`noteArrival`: a sound server's fragments may be
/// larger than a period and come in bursts), so that the arrivals' jitter does not tear every
/// period. An underrun (fewer frames than a period) is counted and grows the reserve by a
/// quarter period (to at most four periods). Latency is kept from creeping: when over a whole
/// `window` the queue never fell below the reserve plus an eighth of a period after a period
/// was taken, the excess is dropped and counted (an eighth, not more: what stands above the
/// reserve is latency the jitter did not need), as is what lies beyond the priming threshold when
/// it primes (a backlog from the capture's start) (the capture's drift against the output is to be corrected by
/// resampling later; this bounds what it can add meanwhile).
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

    /// - Parameters: `period`: frames taken each time; `window`: frames over which the lowest
    ///   fill is watched (the follower: a quarter second).
    init(period: Int, capacityPeriods: Int = 16, window: Int) {
        self.period = max(1, period)
        capacity = self.period * max(4, capacityPeriods)
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
        reserve = self.period / 4
        maximumReserve = 4 * self.period
        trimSlack = max(1, self.period / 8)
        self.window = max(self.period, window)
    }

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
        if !primed {
            let needed = frames + max(reserve, largestArrival, windowLargestArrival)
            guard count >= needed else {
                out.update(repeating: 0, count: frames)
                return 0
            }
            // What piled up beyond it (the capture's start, a stall) would be latency for good.
            if count > needed { drop(count - needed) }
            primed = true
            lowest = Int.max
            windowFrames = 0
        }
        let given = min(frames, count)
        for i in 0..<given {
            out[i] = storage[head]
            head += 1
            if head == capacity { head = 0 }
        }
        count -= given
        if given < frames {
            (out + given).update(repeating: 0, count: frames - given)
            underruns += 1
            primed = false
            reserve = min(maximumReserve, reserve + max(1, period / 4))
            return given
        }
        lowest = min(lowest, count)
        windowFrames += frames
        if windowFrames >= window {
            if lowest > reserve + trimSlack { drop(lowest - reserve) }
            largestArrival = windowLargestArrival
            windowLargestArrival = 0
            lowest = Int.max
            windowFrames = 0
        }
        return given
    }

    /// Frames that arrived together (one read round of the capture): the reserve covers bursts
    /// of this size. At most four periods are believed (a stall's backlog is no fragment size).
    mutating func noteArrival(_ frames: Int) {
        windowLargestArrival = max(windowLargestArrival, min(frames, maximumReserve + period))
    }

    /// Forgets everything queued and waits to be primed again (a capture that restarted).
    mutating func reset() {
        head = 0
        count = 0
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
