// Writing to standard output and standard error without ever trapping. Foundation's
// `FileHandle.write` traps when the write fails (`> /dev/full`, `>&-`): every verb died with
// SIGILL and a long backtrace, `render` after its file was written. As coreutils do, a
// failed write to standard output is remembered and reported once at the end, as
// "hapticsynth: write error: REASON", with a non-zero exit; what was written to files stays.

// @preconcurrency: stdio's `stdout` (a C global) is read once, at exit, when no other thread writes it.
@preconcurrency import Glibc
import HapticKit
import Synchronization

/// The tool's writes to file descriptors 1 and 2.
public enum StandardStreamWriter {
    /// errno of the first failed write to standard output (0: none).
    private static let outputFailure = Atomic<Int32>(0)

    /// Writes `text` to standard output; a failure is remembered (see ``writeFailure``).
    public static func output(_ text: String) {
        let error = write(STDOUT_FILENO, text)
        if error != 0 { _ = outputFailure.compareExchange(expected: 0, desired: error, ordering: .relaxed) }
    }

    /// Writes `text` to standard error (the original one while decoder calls have descriptor 2
    /// on /dev/null: `DecoderMessages`); a failure is dropped (there is nowhere left to say it).
    public static func error(_ text: String) { _ = write(DecoderMessages.toolStandardError, text) }

    /// The one line to print when a write to standard output failed (nil: none failed).
    public static var writeFailure: String? {
        let error = outputFailure.load(ordering: .relaxed)
        return error == 0 ? nil : "hapticsynth: write error: \(String(cString: strerror(error)))"
    }

    /// Writes all of `text` to `fd` (again after EINTR and short writes); errno on failure, else 0.
    static func write(_ fd: Int32, _ text: String) -> Int32 {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n < 0 ? errno : EIO }
            done += n
        }
        return 0
    }

    /// Called first thing by the tool (main.swift, before anything async opens a file): a standard descriptor that was closed (`>&-`) is held
    /// by /dev/null opened the other way round (so writing to it still fails, with EBADF, as
    /// on a closed one), and no file the tool opens later — a temporary output, a socket, a
    /// PCM — can take its number and receive what was meant for the terminal. Text printed
    /// through stdio (ArgumentParser's help, Swift's `print`) is checked at exit: a failed
    /// flush is reported like a failed write.
    public static func prepareStandardDescriptors() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let held = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY)
            if held >= 0 && held != fd {  // not the lowest free number: move it there
                _ = dup2(held, fd)
                close(held)
            }
        }
        // Decoder calls put descriptor 2 on /dev/null while they run (libmpg123's own lines are not
        // the tool's: one line of ours says what failed); the tool's lines go to a duplicate.
        DecoderMessages.separateToolStandardError()
        atexit {
            if fflush(stdout) != 0 || ferror(stdout) != 0 {
                let reason = errno == 0 ? EIO : errno
                _ = StandardStreamWriter.write(STDERR_FILENO, "hapticsynth: write error: \(String(cString: strerror(reason)))\n")
                _exit(1)
            }
        }
    }
}
