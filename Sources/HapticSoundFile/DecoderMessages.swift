// What decoder libraries print themselves. libsndfile hands MP3 to libmpg123, which writes
// its own lines to file descriptor 2 ("[src/libmpg123/parse.c:...] error: Giving up resync")
// and offers no way to stop it through libsndfile (its handle is libsndfile's, made without
// MPG123_QUIET, with no command to change that). A library must leave a host's descriptor 2
// alone, so this is off unless the process turns it on: the `hapticsynth` tool does, and its
// decoder calls then run with descriptor 2 on /dev/null, the tool's own lines going to a
// duplicate of the original (`toolStandardError`). The one line the tool prints says what
// failed.

#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// Whether decoder libraries' own messages reach descriptor 2.
public enum DecoderMessages {
    private struct State {
        var silencing = false
        var depth = 0
        var saved: Int32 = -1
    }
    private static let state = Mutex(State())
    private static let original = Atomic<Int32>(-1)

    /// For the tool only (never a library host): from now on decoder calls run with descriptor 2
    /// on /dev/null. Returns the descriptor the tool writes its own diagnostics to (a duplicate
    /// of the original standard error), or 2 when none could be made (then nothing is silenced).
    @discardableResult
    public static func silenceInThisProcess() -> Int32 {
        let existing = original.load(ordering: .acquiring)
        if existing >= 0 { return existing }
        let copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { return STDERR_FILENO }
        original.store(copy, ordering: .releasing)
        state.withLock { $0.silencing = true }
        return copy
    }

    /// The descriptor the tool's own diagnostics go to: the original standard error.
    public static var toolStandardError: Int32 {
        let fd = original.load(ordering: .acquiring)
        return fd >= 0 ? fd : STDERR_FILENO
    }

    /// Runs a decoder call (`sf_open`, `sf_readf_float`...) with descriptor 2 on /dev/null when
    /// the process asked for it; calls on several threads share one redirection.
    static func quiet<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let silenced = state.withLock { s -> Bool in
            guard s.silencing else { return false }
            if s.depth == 0 {
                let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
                let saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
                guard null >= 0, saved >= 0 else {
                    if null >= 0 { close(null) }
                    if saved >= 0 { close(saved) }
                    return false
                }
                dup2(null, STDERR_FILENO)
                close(null)
                s.saved = saved
            }
            s.depth += 1
            return true
        }
        defer {
            if silenced {
                state.withLock { s in
                    s.depth -= 1
                    if s.depth == 0 {
                        dup2(s.saved, STDERR_FILENO)
                        close(s.saved)
                        s.saved = -1
                    }
                }
            }
        }
        return try body()
    }
}
