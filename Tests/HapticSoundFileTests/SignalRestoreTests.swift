import Glibc
import Testing

@testable import HapticSoundFile

/// The handler a signal has now, as a number (SIG_DFL 0, SIG_IGN 1, else a function's address).
func currentHandler(_ signal: Int32) -> UInt {
    var action = sigaction()
    sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: UInt.self)
}

@Suite("Temporary files: signal handlers")
struct SignalRestoreTests {
    @Test("removeOnSignals installs its handler and restore() puts back the disposition the signal had")
    func restoresPreviousDisposition() {
        // SIGUSR2: no other test touches it (render's signals would race with renders in parallel).
        let before = signal(SIGUSR2, { _ in })
        defer { signal(SIGUSR2, before) }
        let own = currentHandler(SIGUSR2)
        let saved = TemporaryFiles.removeOnSignals([SIGUSR2])
        #expect(currentHandler(SIGUSR2) != own, "no handler installed")
        saved.restore()
        #expect(currentHandler(SIGUSR2) == own, "the previous handler not restored")
    }

    @Test("a signal inherited as ignored (nohup) stays ignored: no handler is installed over SIG_IGN")
    func ignoredStaysIgnored() {
        let before = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, before) }
        let saved = TemporaryFiles.removeOnSignals([SIGUSR2])
        #expect(currentHandler(SIGUSR2) == 1, "SIG_IGN replaced")
        saved.restore()
        #expect(currentHandler(SIGUSR2) == 1)
    }
}
