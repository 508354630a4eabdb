import CHapticSynth
import Foundation
import HapticKit
@testable import HapticSynthC
import Synchronization
import Testing

/// What the C callbacks below reach through their user pointer: the relay under test, and
/// counts of the callbacks inside it at once.
private final class RelayProbe: Sendable {
    let relay = CallbackRelay()
    let inside = Atomic<Int>(0)
    let mostInside = Atomic<Int>(0)
    let calls = Atomic<Int>(0)
    private let template: CallbackRelay.Callbacks
    /// The callbacks, their user pointer this probe.
    var armed: hs_callbacks {
        var c = template.value
        c.user = Unmanaged.passUnretained(self).toOpaque()
        return c
    }

    init() {
        var c = hs_callbacks()
        c.struct_size = MemoryLayout<hs_callbacks>.size
        // Inside: count, linger so that the other role's delivery arrives meanwhile, and set the
        // callbacks again (the application re-arming them: two of these used to wait for each other).
        c.stopped = { user, _, _, _ in
            let probe = Unmanaged<RelayProbe>.fromOpaque(user!).takeUnretainedValue()
            let now = probe.inside.add(1, ordering: .sequentiallyConsistent).newValue
            probe.mostInside.max(now, ordering: .sequentiallyConsistent)
            usleep(300)
            probe.relay.set(probe.armed)
            probe.inside.subtract(1, ordering: .sequentiallyConsistent)
            probe.calls.add(1, ordering: .sequentiallyConsistent)
        }
        template = CallbackRelay.Callbacks(value: c)
    }
}

@Suite("The C callbacks' relay")
struct CallbackRelayTests {
    @Test("two roles' events at once are delivered one at a time, and callbacks that set the callbacks on both threads finish")
    func deliveriesComeOneAtATime() throws {
        let probe = RelayProbe()
        probe.relay.set(probe.armed)
        let perRole = 200
        let done = DispatchGroup()
        for role in [HapticManager.EngineRole.haptic, .audio] {
            done.enter()
            Thread.detachNewThread {
                for _ in 0..<perRole { probe.relay.deliver(.gaveUp(role, reason: "test")) }
                done.leave()
            }
        }
        // Bounded: the old relay deadlocked here for good.
        try #require(done.wait(timeout: .now() + 30) == .success, "both service threads finished")
        #expect(probe.calls.load(ordering: .sequentiallyConsistent) == 2 * perRole)
        #expect(probe.mostInside.load(ordering: .sequentiallyConsistent) == 1, "one callback at a time")
        // After close, a delivery calls nothing.
        probe.relay.close()
        probe.relay.deliver(.gaveUp(.haptic, reason: "after close"))
        #expect(probe.calls.load(ordering: .sequentiallyConsistent) == 2 * perRole)
    }
}
