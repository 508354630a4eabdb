import Synchronization

/// A bounded multi-producer / single-consumer queue (Dmitry Vyukov's bounded
/// queue): producers claim a cell with a compare-exchange, the consumer never
/// waits. Storage is allocated once, at init; `push` and `pop` never allocate or
/// lock. A producer that was preempted between claiming and publishing a cell
/// makes the consumer see "empty" until it finishes: the render thread just picks
/// the rest up next period instead of waiting.
///
/// `@unchecked Sendable`: the cells are handed between threads by the
/// acquire/release sequence numbers; `dequeuePosition` is only touched by the one
/// consumer (callers guarantee a single consumer at a time).
final class LockFreeQueue<Element>: @unchecked Sendable {
    let capacity: Int
    private let mask: Int
    private let sequences: UnsafeMutablePointer<Atomic<Int>>
    private let cells: UnsafeMutablePointer<Element>
    private let enqueuePosition = Atomic<Int>(0)
    private var dequeuePosition = 0

    /// `minimumCapacity` is rounded up to a power of two.
    init(minimumCapacity: Int) {
        var size = 2
        while size < minimumCapacity { size <<= 1 }
        capacity = size
        mask = size - 1
        sequences = .allocate(capacity: size)
        for i in 0..<size { (sequences + i).initialize(to: Atomic(i)) }
        cells = .allocate(capacity: size)
    }

    deinit {
        while pop() != nil {}
        sequences.deinitialize(count: capacity)
        sequences.deallocate()
        cells.deallocate()
    }

    /// Appends `element`; false when the queue is full.
    func push(_ element: consuming Element) -> Bool {
        var position = enqueuePosition.load(ordering: .relaxed)
        while true {
            let sequence = sequences[position & mask].load(ordering: .acquiring)
            let difference = sequence &- position
            if difference == 0 {
                let (exchanged, original) = enqueuePosition.weakCompareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if exchanged { break }
                position = original
            } else if difference < 0 {
                return false
            } else {
                position = enqueuePosition.load(ordering: .relaxed)
            }
        }
        (cells + (position & mask)).initialize(to: element)
        sequences[position & mask].store(position &+ 1, ordering: .releasing)
        return true
    }

    /// Takes the oldest published element, or nil. Single consumer only.
    func pop() -> Element? {
        let position = dequeuePosition
        let sequence = sequences[position & mask].load(ordering: .acquiring)
        guard sequence &- (position &+ 1) >= 0 else { return nil }
        let element = (cells + (position & mask)).move()
        sequences[position & mask].store(position &+ mask &+ 1, ordering: .releasing)
        dequeuePosition = position &+ 1
        return element
    }

}
