#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The kinds of handle the C API gives out; each has its own table, and a handle's tag byte
/// says which kind it is (an `hs_pattern*` passed as an `hs_engine*` is told apart).
enum HandleKind: UInt64 {
    case engine = 0xE5
    case pattern = 0xA7
    case player = 0x9C
}

/// Why a handle was refused.
enum HandleProblem {
    /// NULL.
    case null
    /// Not a handle of this kind (another kind, or not a handle at all).
    case wrongKind
    /// Of this kind, but closed or freed (its slot's generation has moved on).
    case stale
}

/// The objects behind one kind of C handle, found again without a lock (the real-time
/// `hs_engine_render` goes through here).
///
/// A handle is a token, never an address: `generation << 32 | kind << 24 | (index + 1)`.
/// Each slot holds an atomic word `generation << 32 | users`: a live slot's generation is odd;
/// freeing it makes it even (and the next object in the slot takes the odd one after), so a
/// freed handle is refused for as long as its slot has not been reused two billion times.
/// A call "uses" the object by raising the users count with a compare-exchange against its
/// handle's generation (lock-free, no allocation), and lowers it when done; freeing first moves
/// the generation on (no new use can start) and then waits for the users to leave, so an object
/// is never released under a call that is using it.
///
/// Slots come in chunks allocated on demand and never freed (a handle is 16 bytes of table).
/// `@unchecked Sendable`: the slot words are atomics; an object pointer is written before the
/// release store that publishes its generation and read after the acquiring exchange that
/// checks it; the free list is behind a mutex.
final class HandleTable<Object: AnyObject>: @unchecked Sendable {
    let kind: HandleKind
    static var chunkBits: Int { 10 }
    static var chunkSize: Int { 1 << chunkBits }
    private let maxChunks: Int
    /// Chunk base pointers as bit patterns (0: not allocated).
    private let chunks: UnsafeMutablePointer<Atomic<Int>>
    private struct Allocation {
        var free: [Int] = []
        var used = 0
    }
    private let allocation = Mutex(Allocation())

    /// A table of at most `capacity` live handles (rounded up to whole chunks).
    init(kind: HandleKind, capacity: Int) {
        self.kind = kind
        maxChunks = max(1, (capacity + Self.chunkSize - 1) / Self.chunkSize)
        chunks = .allocate(capacity: maxChunks)
        for i in 0..<maxChunks { (chunks + i).initialize(to: Atomic(0)) }
    }

    /// The most handles that can live at once.
    var capacity: Int { maxChunks * Self.chunkSize }

    private func slot(_ index: Int) -> (state: UnsafeMutablePointer<Atomic<UInt64>>, object: UnsafeMutablePointer<UnsafeMutableRawPointer?>)? {
        let chunk = index >> Self.chunkBits
        guard chunk < maxChunks else { return nil }
        let base = chunks[chunk].load(ordering: .acquiring)
        guard base != 0, let raw = UnsafeMutableRawPointer(bitPattern: base) else { return nil }
        let states = raw.assumingMemoryBound(to: Atomic<UInt64>.self)
        let objects = (raw + Self.chunkSize * MemoryLayout<Atomic<UInt64>>.stride)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let i = index & (Self.chunkSize - 1)
        return (states + i, objects + i)
    }

    /// Stores `object` under a new handle; nil when the table is full.
    func insert(_ object: Object) -> UInt64? {
        let index: Int? = allocation.withLock { a in
            if let reused = a.free.popLast() { return reused }
            guard a.used < capacity else { return nil }
            let index = a.used
            if index & (Self.chunkSize - 1) == 0 {
                // A new chunk: the slot words, then the object pointers, in one block.
                let bytes = Self.chunkSize * (MemoryLayout<Atomic<UInt64>>.stride + MemoryLayout<UnsafeMutableRawPointer?>.stride)
                let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
                let states = raw.bindMemory(to: Atomic<UInt64>.self, capacity: Self.chunkSize)
                for i in 0..<Self.chunkSize { (states + i).initialize(to: Atomic(0)) }
                let objects = (raw + Self.chunkSize * MemoryLayout<Atomic<UInt64>>.stride)
                    .bindMemory(to: UnsafeMutableRawPointer?.self, capacity: Self.chunkSize)
                objects.initialize(repeating: nil, count: Self.chunkSize)
                chunks[index >> Self.chunkBits].store(Int(bitPattern: raw), ordering: .releasing)
            }
            a.used += 1
            return index
        }
        guard let index, let (state, pointer) = slot(index) else { return nil }
        let generation = (state.pointee.load(ordering: .acquiring) >> 32) &+ 1  // even (free) → odd (live)
        pointer.pointee = Unmanaged.passRetained(object).toOpaque()
        state.pointee.store(generation << 32, ordering: .releasing)
        return generation << 32 | kind.rawValue << 24 | UInt64(index + 1)
    }

    private func decode(_ handle: UInt64) -> (index: Int, generation: UInt64)? {
        guard (handle >> 24) & 0xFF == kind.rawValue, handle & 0xFF_FFFF != 0 else { return nil }
        let generation = handle >> 32
        guard generation & 1 == 1 else { return nil }
        return (Int(handle & 0xFF_FFFF) - 1, generation)
    }

    /// Moves the slot `handle` names from its word to `change(word)`, if the word still holds
    /// the handle's generation (retrying when another thread changed the users count meanwhile);
    /// the slot, or why `handle` names no live object. Lock-free and allocation-free.
    private func exchange(_ handle: UInt64, _ change: (UInt64) -> UInt64)
        -> Result<(index: Int, object: UnsafeMutablePointer<UnsafeMutableRawPointer?>, state: UnsafeMutablePointer<Atomic<UInt64>>), HandleProblemBox>
    {
        guard handle != 0 else { return .failure(HandleProblemBox(.null)) }
        guard let (index, generation) = decode(handle), let (state, pointer) = slot(index) else {
            return .failure(HandleProblemBox(.wrongKind))
        }
        var seen = state.pointee.load(ordering: .acquiring)
        while true {
            guard seen >> 32 == generation else { return .failure(HandleProblemBox(.stale)) }
            let (done, now) = state.pointee.weakCompareExchange(
                expected: seen, desired: change(seen), successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring)
            if done { return .success((index, pointer, state)) }
            seen = now
        }
    }

    /// Runs `body` with the object of `handle` while no one can free it (the users count is
    /// raised around it); the problem when `handle` names no live object. Lock-free and
    /// allocation-free.
    func withObject<R>(_ handle: UInt64, _ body: (Object) -> R) -> Result<R, HandleProblemBox> {
        switch exchange(handle, { $0 &+ 1 }) {
        case .failure(let problem): return .failure(problem)
        case .success(let slot):
            defer { slot.state.pointee.wrappingSubtract(1, ordering: .releasing) }
            return .success(body(Unmanaged<Object>.fromOpaque(slot.object.pointee!).takeUnretainedValue()))
        }
    }

    /// Ends `handle`: no new use can start (the generation moves on); waits for the uses in
    /// progress to end, then hands the object back (the table's reference is dropped).
    func remove(_ handle: UInt64) -> Result<Object, HandleProblemBox> {
        let slot: (index: Int, object: UnsafeMutablePointer<UnsafeMutableRawPointer?>, state: UnsafeMutablePointer<Atomic<UInt64>>)
        switch exchange(handle, { ((($0 >> 32) &+ 1) << 32) | ($0 & 0xFFFF_FFFF) }) {
        case .failure(let problem): return .failure(problem)
        case .success(let found): slot = found
        }
        // Uses in progress end in bounded time (a call's own work; none waits for this one).
        var rounds = 0
        while slot.state.pointee.load(ordering: .acquiring) & 0xFFFF_FFFF != 0 {
            rounds += 1
            var pause = timespec(tv_sec: 0, tv_nsec: rounds < 100 ? 10_000 : 1_000_000)
            nanosleep(&pause, nil)
        }
        let object = Unmanaged<Object>.fromOpaque(slot.object.pointee!).takeRetainedValue()
        slot.object.pointee = nil
        allocation.withLock { $0.free.append(slot.index) }
        return .success(object)
    }
}

/// ``HandleProblem`` as an `Error` (for `Result`).
struct HandleProblemBox: Error {
    let problem: HandleProblem
    init(_ problem: HandleProblem) { self.problem = problem }
}
