import Synchronization

/// The clock of an engine in pull drive: the frames its caller has pulled, read as seconds
/// from the first pulled frame (time 0). It moves only when the caller pulls, so an offline
/// render runs as fast as the machine goes and a caller's audio thread sets the pace live.
final class PulledClock: ManualTimeSource, Sendable {
    let sampleRate: Double
    private let pulled = Atomic<Int64>(0)

    init(sampleRate: Int) { self.sampleRate = Double(max(1, sampleRate)) }

    /// Frames pulled so far (the next frame to be pulled).
    var frames: Int64 { pulled.load(ordering: .acquiring) }

    /// Render side: `frames` have now been pulled.
    func store(frames: Int64) { pulled.store(frames, ordering: .releasing) }

    /// The time of the next frame to be pulled, in nanoseconds. Real-time safe.
    var nanos: Int64 { Int64((Double(frames) * 1e9 / sampleRate).rounded()) }
}
