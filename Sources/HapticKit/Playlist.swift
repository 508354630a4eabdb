import HapticEngine
import HapticRender

/// Several patterns looped back to back (`play --loop` with more than one file): the rounds
/// are scheduled one at a time, `leadSeconds` ahead on the monotonic clock, until stopped.
struct Playlist: Sendable {
    /// How far ahead of its start a round is scheduled.
    static let leadSeconds = 0.5

    let patterns: [PreparedPattern]
    /// When the first round the playlist schedules starts (the caller played the one before).
    let firstRound: Double

    /// One round's length.
    var roundSeconds: Double { patterns.reduce(0) { $0 + $1.duration } }

    /// Starts one round at `time`: every pattern after the one before.
    func scheduleRound(on engine: HapticEngine, at time: Double) throws(HapticEngineError) {
        var t = time
        for pattern in patterns {
            try engine.makePlayer(with: pattern).start(atTime: t)
            t += pattern.duration
        }
    }

    /// Schedules round after round while `keepGoing` says so. A round the engine refuses (its
    /// command queue full, the engine stopped...) ends the playlist: `failed` hears why, once.
    func run(on engine: HapticEngine, while keepGoing: @Sendable () -> Bool, failed: @Sendable (String) -> Void) async {
        var next = firstRound
        while keepGoing() {
            let wait = next - engine.currentTime - Self.leadSeconds
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            if !keepGoing() { break }
            do { try scheduleRound(on: engine, at: next) } catch {
                failed("\(error)")
                return
            }
            next += roundSeconds
        }
    }
}
