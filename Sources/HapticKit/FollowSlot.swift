import HapticEngine
import HapticFollow
import HapticRender
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The manager's haptic engine's ``LiveInput``: renders the follower the manager follows
/// with now, if any, so that following can start and stop while the engine runs (an engine's
/// live input is fixed when it is made).
///
/// The render side finds the follower through one atomic pointer, without a lock or a
/// retain; the control side installs a follower (prepared first) and removes it, waiting
/// until no render call can still be using it before it lets go of it.
///
/// `@unchecked Sendable`: the follower pointer and the render flag are atomics; the rest is
/// behind `control`.
final class FollowSlot: LiveInput, @unchecked Sendable {
    private let current = Atomic<UnsafeMutableRawPointer?>(nil)
    /// True while a render call may be using `current`'s follower.
    private let rendering = Atomic<Bool>(false)
    /// The follower held (it owns the reference `current` points at) and the engine's last
    /// render format, for a follower installed later.
    private let control = Mutex<(held: CaptureFollower?, format: (sampleRate: Int, periodFrames: Int, actuators: [ActuatorProfile])?)>((nil, nil))
    /// Followers a render call still held when `remove` stopped waiting: kept, never freed
    /// under a render call.
    private let retired = Mutex<[CaptureFollower]>([])

    // MARK: LiveInput

    func prepare(sampleRate: Int, periodFrames: Int, actuators: [ActuatorProfile]) {
        control.withLock { c in
            c.format = (sampleRate, periodFrames, actuators)
            c.held?.prepare(sampleRate: sampleRate, periodFrames: periodFrames, actuators: actuators)
        }
    }

    func render(into bus: MixBus) {
        // Sequentially consistent with `remove`: a render that sets the flag after `remove`
        // read it clear also reads the pointer after `remove` cleared it.
        rendering.store(true, ordering: .sequentiallyConsistent)
        if let pointer = current.load(ordering: .sequentiallyConsistent) {
            Unmanaged<CaptureFollower>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.render(into: bus) }
        }
        rendering.store(false, ordering: .releasing)
    }

    // MARK: control side

    /// Prepares `follower` for the engine's format and makes it the one rendered; false when
    /// another follower is installed.
    func install(_ follower: CaptureFollower) -> Bool {
        control.withLock { c in
            guard c.held == nil else { return false }
            if let format = c.format {
                follower.prepare(sampleRate: format.sampleRate, periodFrames: format.periodFrames, actuators: format.actuators)
            }
            c.held = follower
            current.store(Unmanaged.passUnretained(follower).toOpaque(), ordering: .sequentiallyConsistent)
            return true
        }
    }

    /// Stops rendering the installed follower and returns it once no render call uses it
    /// (a render call takes at most a period; after 2 s of a stalled machine the follower is
    /// kept here for good rather than freed under a render call).
    func remove() -> CaptureFollower? {
        let follower: CaptureFollower? = control.withLock { c in
            current.store(nil, ordering: .sequentiallyConsistent)
            defer { c.held = nil }
            return c.held
        }
        var waits = 0
        while rendering.load(ordering: .sequentiallyConsistent) && waits < 2000 {
            waits += 1
            usleep(1000)
        }
        if rendering.load(ordering: .sequentiallyConsistent), let follower { retired.withLock { $0.append(follower) } }
        return follower
    }

    /// The follower installed now.
    var follower: CaptureFollower? { control.withLock { $0.held } }
}
