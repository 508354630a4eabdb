// Decoding on a thread of its own, a few blocks ahead of the consumer: converting an MP3 is
// about half decoding (libsndfile's mpg123) and half analysis, and the two can run on two
// cores at once. The queue holds a fixed number of blocks, so memory stays bounded whatever
// the file's length; the blocks, their order and any error are exactly `readMono`'s.

#if canImport(Glibc)
    import Glibc
#endif

extension SoundFileStream {
    /// `readMono(from:to:channel:_:)` with the decoding on another thread, up to eight blocks
    /// ahead of `body` (which runs on the calling thread, block by block, in order). An error
    /// is thrown after `body` has had every block before it, as `readMono` would. When no
    /// thread can be started, it decodes on the calling thread.
    public func readMonoDecodingAhead(from first: Int, to end: Int, channel: Int?, _ body: ([Float]) -> Void) throws(SoundFileError) {
        let queue = BlockQueue(slots: 8)
        let decoder = DecodeThread {
            do throws(SoundFileError) {
                try self.readMono(from: first, to: end, channel: channel) { queue.put(.block($0)) }
                queue.put(.end(nil))
            } catch {
                queue.put(.end(error))
            }
        }
        guard let decoder else {
            return try readMono(from: first, to: end, channel: channel, body)
        }
        defer { decoder.join() }
        while true {
            switch queue.take() {
            case .block(let block): body(block)
            case .end(let error):
                if let error { throw error }
                return
            }
        }
    }
}

/// A bounded single-producer, single-consumer queue of blocks (two POSIX semaphores: free
/// slots and filled ones; each slot is touched by one side at a time, in the order the
/// semaphores give).
private final class BlockQueue {
    enum Item {
        case block([Float])
        case end(SoundFileError?)
    }

    private let slots: UnsafeMutablePointer<Item>
    private let count: Int
    private let free = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private let filled = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var putIndex = 0
    private var takeIndex = 0

    init(slots count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: .end(nil), count: count)
        sem_init(free, 0, UInt32(count))
        sem_init(filled, 0, 0)
    }

    deinit {
        sem_destroy(free)
        sem_destroy(filled)
        free.deallocate()
        filled.deallocate()
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Producer side: waits for a free slot.
    func put(_ item: Item) {
        while sem_wait(free) != 0 {}  // (EINTR: wait again)
        slots[putIndex] = item
        putIndex = (putIndex + 1) % count
        sem_post(filled)
    }

    /// Consumer side: waits for a filled slot.
    func take() -> Item {
        while sem_wait(filled) != 0 {}
        let item = slots[takeIndex]
        slots[takeIndex] = .end(nil)  // the block's memory goes now, not when the slot is reused
        takeIndex = (takeIndex + 1) % count
        sem_post(free)
        return item
    }
}

/// A joinable POSIX thread running one closure.
private final class DecodeThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private let thread: pthread_t

    /// Starts `run`; nil when the system cannot start a thread.
    init?(_ run: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        self.thread = thread
    }

    func join() { pthread_join(thread, nil) }
}
