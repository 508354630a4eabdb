#if canImport(Glibc)
import Glibc
#endif
import CLiblo
import HapticEngine
import HapticKit

/// What plays the server's commands (the HapticManager in `serve`; a recorder in tests).
public protocol OSCCommandTarget: Sendable {
    /// Plays `command` (never blocks for long, never throws: unknown names are the target's
    /// to count). For `.status` and `.clock`, returns the reply: an address and arguments.
    func perform(_ command: OSCCommand, counters: OSCServerCounters.Snapshot) -> OSCReply?
}

/// A reply message to a client.
public struct OSCReply: Sendable, Equatable {
    public enum Argument: Sendable, Equatable {
        case string(String)
        case double(Double)
        case int64(Int64)
    }
    public var address: String
    public var arguments: [Argument]
    public init(address: String, arguments: [Argument]) {
        self.address = address
        self.arguments = arguments
    }

    /// The clock reply (same for every target): monotonic now, wall clock now.
    public static func clock() -> OSCReply {
        OSCReply(address: "/hapticsynth/clock", arguments: [.double(MonotonicClock.now()), .double(OSCTimetag.wallNow())])
    }
}

/// Plays the commands on a ``HapticRemoteControl`` (its manager's engine or engines).
public final class ManagerCommandTarget: OSCCommandTarget {
    public let remote: HapticRemoteControl
    public init(remote: HapticRemoteControl) { self.remote = remote }

    public func perform(_ command: OSCCommand, counters: OSCServerCounters.Snapshot) -> OSCReply? {
        let manager = remote.manager
        switch command {
        case .play(let name, let time): remote.play(name, atTime: time)
        case .cue(let name, let time): remote.play(cue: name, atTime: time)
        case .transient(let intensity, let sharpness, let time):
            manager.playTransientEvent(intensity: intensity, sharpness: sharpness, atTime: time)
        case .loopStart(let id, let pattern, let intensity, let time):
            remote.startLoop(id: id, pattern: pattern, intensity: intensity, atTime: time)
        case .loopIntensity(let id, let value): remote.setIntensity(id: id, value)
        case .loopSharpness(let id, let value): remote.setSharpness(id: id, value)
        case .loopCurve(let id, let parameter, let points, let time):
            remote.sendCurve(id: id, parameter: parameter, points: points.map { ($0.time, $0.value) }, atTime: time)
        case .loopStop(let id, let time): remote.stopLoop(id: id, atTime: time)
        case .stopAll(let time): remote.stopAll(atTime: time)
        case .clock: return .clock()
        case .status: return status(counters)
        // Nothing when the server follows no capture (`serve` without --follow).
        case .followGain(let decibels): _ = try? manager.setFollowGain(decibels: Float(decibels))
        case .followMute(let muted): manager.setFollowMuted(muted)
        case .followMode(let name): if let mode = FollowMode(rawValue: name) { manager.setFollowMode(mode) }
        case .followDucking(let decibels): try? manager.followControls?.setDucking(decibels: Float(decibels))
        }
        return nil
    }

    /// `/hapticsynth/status ,sddhhhhhhhhhhhhsh` (README lists the fields; then where the
    /// channels went, `ChannelRouting.summary`, and its warning when the haptic is lost; last,
    /// whether the haptic is carried).
    func status(_ c: OSCServerCounters.Snapshot) -> OSCReply {
        let manager = remote.manager
        let stats = manager.statistics, remoteStats = remote.statistics
        let values: [Int] = [c.datagrams, c.executed, c.malformed, c.oversized, c.unknownAddress, c.badArguments, c.dropped,
                             stats.unknownNames, remoteStats.unknownLoopIDs, stats.voicesStarted, manager.engineGeneration,
                             c.socketDrops]
        return OSCReply(address: "/hapticsynth/status", arguments:
            [.string(manager.status.description), .double(MonotonicClock.now()), .double(manager.currentEngine?.outputLatency ?? 0)]
            + values.map { .int64(Int64($0)) } + [.string(Self.channels(manager.channelRouting)),
                                                  .int64(Self.hapticCarried(manager.channelRouting))])
    }

    /// The status's field after the channels (appended, the fields before keep their places):
    /// 1 when the haptic reaches the actuator, 0 when the device drops it or mixes it into the
    /// speakers, -1 when it cannot say or no device is open.
    static func hapticCarried(_ routing: ChannelRouting?) -> Int64 {
        routing?.hapticCarried.map { $0 ? 1 : 0 } ?? -1
    }

    /// The status's channels field: `L→FL R→FR H→LFE via sink ...`, then the warning if any.
    static func channels(_ routing: ChannelRouting?) -> String {
        guard let routing else { return "unknown" }
        return routing.summary + (routing.warning.map { "; warning: \($0)" } ?? "")
    }
}

extension OSCReply {
    /// The reply as an OSC datagram (built by liblo, as the client builds its messages).
    func serialised() -> [UInt8]? {
        let datagram = OSCClient.datagram(address, arguments.map { argument -> OSCClient.Argument in
            switch argument {
            case .string(let s): .string(s)
            case .double(let d): .double(d)
            case .int64(let h): .int64(h)
            }
        })
        return datagram.isEmpty ? nil : datagram
    }
}
