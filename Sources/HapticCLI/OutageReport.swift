import Foundation
import Synchronization

/// The one line a live verb prints when its device is lost and the one when it is back
/// (to standard error, from the engine's handler threads), and the outage's identity for the
/// --reconnect-timeout watch.
final class OutageReport: Sendable {
    let verb: String
    let device: String
    /// The loop's length (`play --loop` of one file): the back line says how many cycles the gap skipped.
    let loopSeconds: Double?
    private let state = Mutex<(count: Int, lost: Bool)>((0, false))

    init(verb: String, device: String, loopSeconds: Double? = nil) {
        self.verb = verb
        self.device = device
        self.loopSeconds = loopSeconds
    }

    /// Prints the lost line; returns the outage's number.
    func lost(_ why: String) -> Int {
        let number = state.withLock { s in
            s.count += 1
            s.lost = true
            return s.count
        }
        Self.printLine("\(verb): \(device) lost (\(why)); reconnecting")
        return number
    }

    /// Whether outage `number` is still going on.
    func stillLost(_ number: Int) -> Bool { state.withLock { $0.lost && $0.count == number } }

    /// Prints the back line.
    func back(outageSeconds: Double, gapSeconds: Double, droppedOnsets: Int, extra: String? = nil) {
        state.withLock { $0.lost = false }
        var line = "\(verb): \(device) is back after \(String(format: "%.2f", outageSeconds)) s: gap \(String(format: "%.2f", gapSeconds)) s, onsets dropped \(droppedOnsets)"
        if let loopSeconds, loopSeconds > 0 {
            line += String(format: ", loop cycles skipped %.1f", gapSeconds / loopSeconds)
        }
        if let extra { line += ", " + extra }
        Self.printLine(line)
    }

    static func printLine(_ line: String) {
        StandardStreamWriter.error(line + "\n")
    }
}
