import Glibc
import HapticSoundFile
import Testing

@testable import HapticCLI

/// The handler a signal has now, as a number (SIG_DFL 0, SIG_IGN 1, else a function's address).
private func currentHandler(_ signal: Int32) -> UInt {
    var action = sigaction()
    sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: UInt.self)
}

/// The live verbs' signal handling leaves the process as it found it. SIGUSR1 stands in for
/// SIGINT/SIGTERM/SIGHUP, which other tests running in parallel may be using.
@Suite("Signal dispositions are restored", .serialized)
struct SignalDispositionTests {
    @Test("SignalWatch (play, rhythm, serve): cancel() puts back the disposition the signal had, not SIG_DFL")
    func signalWatchRestores() {
        let before = signal(SIGUSR1, { _ in })
        defer { signal(SIGUSR1, before) }
        let own = currentHandler(SIGUSR1)
        let watch = SignalWatch(verb: "test", signals: [SIGUSR1]) {}
        #expect(currentHandler(SIGUSR1) != own, "no handler installed")
        watch.cancel()
        #expect(currentHandler(SIGUSR1) == own, "the previous handler not restored")
    }

    @Test("a signal inherited as ignored (nohup, a background job) stays ignored: SignalWatch and the temporary-file handlers leave it")
    func ignoredStaysIgnored() {
        let before = signal(SIGUSR1, SIG_IGN)
        defer { signal(SIGUSR1, before) }
        let ignored = currentHandler(SIGUSR1)
        #expect(ignored == 1 && signalIsIgnored(SIGUSR1))
        let watch = SignalWatch(verb: "test", signals: [SIGUSR1]) {}
        #expect(currentHandler(SIGUSR1) == ignored, "SignalWatch replaced SIG_IGN")
        watch.cancel()
        let saved = TemporaryFiles.removeOnSignals([SIGUSR1])
        #expect(currentHandler(SIGUSR1) == ignored, "removeOnSignals replaced SIG_IGN")
        saved.restore()
        #expect(currentHandler(SIGUSR1) == ignored)
    }

    @Test("SignalListener (serve's SIGHUP reload): cancel() puts back the disposition the signal had")
    func signalListenerRestores() {
        let before = signal(SIGUSR1, SIG_DFL)
        defer { signal(SIGUSR1, before) }
        let listener = SignalListener(signals: [SIGUSR1]) {}
        #expect(currentHandler(SIGUSR1) != 0, "still SIG_DFL")
        listener.cancel()
        #expect(currentHandler(SIGUSR1) == 0, "SIG_DFL not restored")
    }
}
