// Temporary files that must not outlive the process: `SoundFileWriter` registers each
// one here, and `TemporaryFiles.removeOnSignals()` (called by the CLI's `render`)
// installs handlers so that SIGINT, SIGTERM and SIGHUP remove them before the process
// dies as the signal would have made it die; the dispositions it replaced are put back
// through the `SavedSignalActions` it returns.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// The registry of live temporary files, readable from a signal handler: a fixed array of
/// C strings (allocated outside the handler), which the handler only reads and unlinks.
public enum TemporaryFiles {
    static let capacity = 64
    /// Slots of malloc'ed path copies; nil = free. Written only under `lock` by ordinary
    /// code; the signal handler reads them without the lock (a pointer store is atomic on
    /// the platforms we build for, and a path is unlinked at most twice, which is harmless).
    nonisolated(unsafe) static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
        return slots
    }()
    nonisolated(unsafe) static var lock = pthread_mutex_t()
    nonisolated(unsafe) static var lockReady: Bool = {
        pthread_mutex_init(&lock, nil)
        return true
    }()

    /// Set by the signal handler before it looks at the slots; files being made are counted in
    /// `creating`. With several files made at once (`--jobs`), a file created on another
    /// thread while the handler ran would otherwise outlive the process: the handler waits for
    /// those being made, and none is begun once it has started (both atomics sequentially
    /// consistent, so one side always sees the other).
    static let ending = Atomic<Bool>(false)
    static let creating = Atomic<Int>(0)

    /// Counts a temporary file as being made; false once a signal is ending the process.
    static func beginCreating() -> Bool {
        creating.add(1, ordering: .sequentiallyConsistent)
        guard !ending.load(ordering: .sequentiallyConsistent) else {
            creating.subtract(1, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }

    /// The file begun with `beginCreating` is made (and registered) or failed.
    static func endCreating() { creating.subtract(1, ordering: .sequentiallyConsistent) }

    /// Remembers `path` (returns its slot, or -1 when every slot is taken: the file is then
    /// still removed on errors, only not on signals).
    static func register(_ path: String) -> Int {
        _ = lockReady
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        for i in 0..<capacity where slots[i] == nil {
            slots[i] = strdup(path)
            return i
        }
        return -1
    }

    /// Forgets the path in `slot` (after it was renamed into place or removed).
    static func unregister(_ slot: Int) {
        guard slot >= 0 else { return }
        pthread_mutex_lock(&lock)
        let old = slots[slot]
        slots[slot] = nil
        pthread_mutex_unlock(&lock)
        free(old)
    }

    /// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every registered
    /// temporary file, then let the signal take its default course (the process ends
    /// with the signal, so the shell sees 130, 143 or 129). A signal the process inherited
    /// as ignored (`nohup` ignores SIGHUP; a shell ignores SIGINT for background jobs) is
    /// left ignored: it would not have ended the process. A process-wide change: the
    /// caller puts the previous dispositions back with the result's `restore()` when its
    /// files are done (the CLI's `render` does, when it returns).
    /// (`signals`: tests use others, so as not to race with renders running beside them.)
    @discardableResult
    public static func removeOnSignals(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]) -> SavedSignalActions {
        var saved = SavedSignalActions()
        for signal in signals where !signalIsIgnored(signal) {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                TemporaryFiles.ending.store(true, ordering: .sequentiallyConsistent)
                // Files being made on other threads: waited for (a creation takes microseconds;
                // at most 0.2 s, in case a thread is stopped mid-way).
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                for _ in 0..<200 where TemporaryFiles.creating.load(ordering: .sequentiallyConsistent) > 0 {
                    nanosleep(&pause, nil)
                }
                for i in 0..<TemporaryFiles.capacity {
                    if let path = TemporaryFiles.slots[i] { unlink(path) }
                }
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            var previous = sigaction()
            sigaction(signal, &action, &previous)
            saved.actions.append((signal, previous))
        }
        return saved
    }
}

/// Whether `signal` is ignored (SIG_IGN) now — as a parent that ran us through `nohup`, or a
/// shell starting a background job, set it. Whoever installs a handler that would end the
/// process on `signal` leaves such a signal alone.
public func signalIsIgnored(_ signal: Int32) -> Bool {
    var current = sigaction()
    guard sigaction(signal, nil, &current) == 0 else { return false }
    return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
}

/// The dispositions signals had before a handler was installed over them, to put back.
public struct SavedSignalActions {
    var actions: [(Int32, sigaction)] = []

    /// Puts every saved disposition back (the latest installed first).
    public func restore() {
        for (signal, previous) in actions.reversed() {
            var action = previous
            sigaction(signal, &action, nil)
        }
    }
}
