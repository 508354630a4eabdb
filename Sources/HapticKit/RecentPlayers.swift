import HapticEngine
import Synchronization

/// The last one-shot players a client started (patterns, cues, sound effects, transients), so
/// that it can stop them all at once: the OSC server's `/hapticsynth/stop`, the C library's
/// `hs_engine_stop`. A ring of fixed size: a voice pushed out has long finished in practice.
public final class RecentPlayers: Sendable {
    private struct Ring {
        var players: [PatternPlayer?]
        var next = 0
    }
    private let ring: Mutex<Ring>

    /// A ring of `capacity` players (at least 1).
    public init(capacity: Int) {
        ring = Mutex(Ring(players: Array(repeating: nil, count: max(1, capacity))))
    }

    /// Remembers `player` (nil: nothing started, nothing to remember).
    public func remember(_ player: PatternPlayer?) {
        guard let player else { return }
        ring.withLock { r in
            r.players[r.next] = player
            r.next = (r.next + 1) % r.players.count
        }
    }

    /// Stops, at `time` (0: now), every remembered player that still plays or waits for its
    /// start, and forgets them all.
    public func stopAll(atTime time: Double) {
        let players: [PatternPlayer] = ring.withLock { r in
            defer {
                r.players = Array(repeating: nil, count: r.players.count)
                r.next = 0
            }
            return r.players.compactMap { $0 }
        }
        for player in players where player.isActive { try? player.stop(atTime: time) }
    }
}
