// What decoder libraries print themselves. libsndfile hands MP3 to libmpg123, which writes
// its own lines to file descriptor 2 ("[src/libmpg123/parse.c:...] error: Giving up resync")
// and offers no way to stop it through libsndfile (its handle is libsndfile's, made without
// MPG123_QUIET, with no command to change that). Those lines are not the caller's to read (the
// failure comes back as one error of ours), in the tool or in a program using the library, so
// every call into that decoder (opening an MP3, reading or seeking it) runs with descriptor 2
// on /dev/null for as long as it lasts. The price, in a host program: what another of its
// threads writes to descriptor 2 during such a call is lost too (other formats' decoders do not
// talk, and their calls leave descriptor 2 alone). The tool writes its own lines to a duplicate of the original standard error
// (`toolStandardError`), which decoder calls on other threads do not touch.

#if canImport(Glibc)
    import Glibc
#endif
import CSndFile
import HapticPattern
import Synchronization

/// Keeps decoder libraries' own messages off descriptor 2.
public enum DecoderMessages {
    private struct State {
        var depth = 0
        var saved: Int32 = -1
    }
    private static let state = Mutex(State())
    private static let original = Atomic<Int32>(-1)

    /// For the tool: from now on its own diagnostics go to a duplicate of the original standard
    /// error, which decoder calls leave alone. Returns that descriptor (2 when none could be made).
    @discardableResult
    public static func separateToolStandardError() -> Int32 {
        let existing = original.load(ordering: .acquiring)
        if existing >= 0 { return existing }
        let copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { return STDERR_FILENO }
        original.store(copy, ordering: .releasing)
        return copy
    }

    /// The descriptor the tool's own diagnostics go to: the original standard error.
    public static var toolStandardError: Int32 {
        let fd = original.load(ordering: .acquiring)
        return fd >= 0 ? fd : STDERR_FILENO
    }

    /// Whether the file at `path` is one libsndfile hands to libmpg123: its first bytes are an
    /// MP3's (ID3 tag or frame sync: libsndfile's own test).
    static func isMPEG(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 16)
        let got = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
        return got > 0 && SoundFileSignature.kind(of: head[..<got]) == "MP3"
    }

    /// Whether a file libsndfile opened as `format` (major | subtype) is decoded by libmpg123.
    static func isMPEG(format: Int32) -> Bool { format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_MPEG) }

    /// Runs a decoder call (`sf_open`, `sf_readf_float`...) with descriptor 2 on /dev/null when
    /// the decoder is one that talks (`talks`); calls on several threads share one redirection.
    static func quiet<T, E: Error>(if talks: Bool, _ body: () throws(E) -> T) throws(E) -> T {
        guard talks else { return try body() }
        let silenced = state.withLock { s -> Bool in
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
