#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Dedicated POSIX threads for the render loop and the control-side service loop.
enum EngineThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// How a thread was started.
    struct Started {
        var thread: pthread_t
        /// True when SCHED_FIFO was granted.
        var realtime: Bool
        /// errno of the refused SCHED_FIFO request (0 when not asked or granted).
        var realtimeError: Int32
    }

    /// Starts `body` on a new joinable thread, with SCHED_FIFO at `priority` when the
    /// system permits (falls back to normal scheduling; never fails for that reason).
    /// The policy is set on the new thread's attributes only: the process's and the caller's
    /// scheduling are left as they were.
    static func spawn(name: String, realtimePriority: Int32?, body: @escaping () -> Void) -> Started? {
        var refused: Int32 = 0
        if let priority = realtimePriority {
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_EXPLICIT_SCHED))
            pthread_attr_setschedpolicy(&attributes, SCHED_FIFO)
            var parameters = sched_param()
            parameters.sched_priority = min(max(priority, sched_get_priority_min(SCHED_FIFO)), sched_get_priority_max(SCHED_FIFO))
            pthread_attr_setschedparam(&attributes, &parameters)
            if let thread = create(&attributes, name: name, body: body, error: &refused) {
                return Started(thread: thread, realtime: true, realtimeError: 0)
            }
        }
        var ignored: Int32 = 0
        guard let thread = create(nil, name: name, body: body, error: &ignored) else { return nil }
        return Started(thread: thread, realtime: false, realtimeError: refused)
    }

    private static func create(_ attributes: UnsafePointer<pthread_attr_t>?, name: String, body: @escaping () -> Void,
                               error: inout Int32) -> pthread_t? {
        let context = Unmanaged.passRetained(Body({ touchStack(); body() })).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            error = result
            return nil
        }

        return thread
    }

    static func join(_ thread: pthread_t) { pthread_join(thread, nil) }

    /// Runs `body` with the calling thread at SCHED_FIFO `priority` (when permitted; nil: as it
    /// is), then puts its scheduling back. Threads that `body` starts inherit it: that is how
    /// a device's own I/O thread (the ALSA pulse plugin's mainloop, started in `snd_pcm_open`)
    /// runs at real-time priority too, instead of being starved on a loaded machine while the
    /// render thread waits for it (the xruns of a busy desktop).
    static func withInheritedRealtimeScheduling<T, E: Error>(priority: Int32?, _ body: () throws(E) -> T) throws(E) -> T {
        guard let priority else { return try body() }
        let thread = pthread_self()
        var policy: Int32 = 0
        var saved = sched_param()
        pthread_getschedparam(thread, &policy, &saved)
        var raised = sched_param()
        raised.sched_priority = min(max(priority, sched_get_priority_min(SCHED_FIFO)), sched_get_priority_max(SCHED_FIFO))
        let changed = pthread_setschedparam(thread, SCHED_FIFO, &raised) == 0
        defer { if changed { pthread_setschedparam(thread, policy, &saved) } }
        return try body()
    }

    static func sleep(seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private static let memoryLocked = Atomic<Int>(0)  // 0 not tried, 1 locked, 2 refused

    /// 1 KiB chunks of stack each engine thread writes before its loop (256 KiB, far deeper than
    /// the render loop goes): with the memory locked as pages are first touched (below), the
    /// loop's stack is resident and locked before the first period, and never faults.
    private static let prefaultStackChunks = 256
    private static let stackTouched = Atomic<UInt>(0)  // keeps the touches from being optimized away

    /// Touches the first 256 KiB of the calling thread's stack (see `prefaultStackChunks`).
    static func touchStack() {
        stackTouched.add(UInt(prefaultStack(chunks: prefaultStackChunks)), ordering: .relaxed)
    }

    /// Writes one byte in each of `chunks` nested 1 KiB stack allocations (1 KiB is always
    /// allocated on the stack); returns the bytes read back.
    @inline(never)
    private static func prefaultStack(chunks: Int) -> UInt8 {
        withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 16) { chunk in
            chunk.storeBytes(of: UInt8(truncatingIfNeeded: chunks), as: UInt8.self)
            let deeper = chunks > 1 ? prefaultStack(chunks: chunks - 1) : 0
            return chunk.load(as: UInt8.self) &+ deeper
        }
    }

    /// Locks the process's memory (once per process) so the render path never page-faults.
    /// Returns whether memory is locked.
    ///
    /// Process-wide and permanent: `MCL_FUTURE` pins every later allocation of the whole
    /// program too, and nothing unlocks it (other engines may still rely on it). Only reached
    /// when a configuration asks for it (`HapticEngine.Configuration.lockMemory`, off by default).
    ///
    /// `MCL_ONFAULT` (Linux 4.4 and later; without it where refused): pages are locked as they
    /// are first touched, not all at once. Without it the lock made every reserved page
    /// resident: the sound server's shared-memory pools (64 MiB each, mapped by the pulse plugin)
    /// and every thread's whole 8 MiB stack, 426 MiB for `play` of one transient. The process
    /// then took hundreds of milliseconds to end on a loaded machine, unlocking and freeing
    /// it. What the render path uses is touched before it runs: its buffers are written when
    /// made, and the engine threads touch their stacks first (`prefaultStack`).
    static func lockMemoryOnce() -> (locked: Bool, errno: Int32) {
        if memoryLocked.load(ordering: .acquiring) == 0 {
            var result = mlockall(Int32(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT))
            if result != 0 && errno == EINVAL { result = mlockall(Int32(MCL_CURRENT | MCL_FUTURE)) }
            let code = result == 0 ? 0 : errno
            memoryLocked.store(result == 0 ? 1 : 2, ordering: .releasing)
            return (result == 0, code)
        }
        return (memoryLocked.load(ordering: .acquiring) == 1, 0)
    }
}

extension HapticEngine {
    /// See ``EngineThread/withInheritedRealtimeScheduling(priority:_:)``: for recorders of the
    /// package's tests and benchmarks, whose capture devices start I/O threads the same way.
    package static func withInheritedRealtimeScheduling<T, E: Error>(priority: Int32?, _ body: () throws(E) -> T) throws(E) -> T {
        try EngineThread.withInheritedRealtimeScheduling(priority: priority, body)
    }

    /// Starts `body` on a detached thread, at SCHED_FIFO `realtimePriority` when the system
    /// permits (normal scheduling otherwise). For a program's watchdog that must get the CPU
    /// whatever a render thread does (give it a priority above `Configuration.realtimePriority`).
    /// Returns false when no thread could be made.
    @discardableResult
    public static func spawnDetachedThread(name: String, realtimePriority: Int32?, body: @escaping @Sendable () -> Void) -> Bool {
        guard let started = EngineThread.spawn(name: name, realtimePriority: realtimePriority, body: body) else { return false }
        pthread_detach(started.thread)
        return true
    }
}
