import HapticEngine
import HapticKit
import Testing

@testable import HapticOSC

/// `/hapticsynth/status` as `serve` replies it: the documented fields in their order, then
/// whether the haptic reaches the actuator (appended last, so a client reading by position
/// still finds every field where it was).
@Suite struct StatusReplyTests {
    @Test("the status reply: state, now, latency, 12 counters, the channels, then haptic carried (1, 0, -1)")
    func hapticCarriedIsTheLastField() throws {
        let f = try LoopControlTests.Fixture()
        let reply = try #require(f.target.perform(.status, counters: .init()))
        #expect(reply.address == "/hapticsynth/status")
        let types = String(reply.arguments.map { argument -> Character in
            switch argument {
            case .string: "s"
            case .double: "d"
            case .int64: "h"
            }
        })
        #expect(types == "sddhhhhhhhhhhhhsh")
        #expect(reply.arguments.last == .int64(ManagerCommandTarget.hapticCarried(f.manager.channelRouting)))

        // The value from the device's routing: carried, dropped by the server, unknown, none.
        let card = ChannelRouting(device: "hw:1", layout: .stereoPlusHaptic, positions: [.frontLeft, .frontRight, .aux(0)],
                                  described: DeviceChannels(offers: []))
        let stereoSink = DeviceChannels(offers: [], server: SoundServerSink(name: "s", description: nil, positions: [.frontLeft, .frontRight], via: "test"))
        let dropped = ChannelRouting(device: "default", layout: .stereoPlusHaptic, positions: ChannelPosition.soundServerMap(channels: 3),
                                     described: stereoSink)
        let unknown = ChannelRouting(device: "hw:9", layout: .stereoPlusHaptic, positions: nil, described: nil)
        #expect(ManagerCommandTarget.hapticCarried(card) == 1)
        #expect(ManagerCommandTarget.hapticCarried(dropped) == 0, "\(dropped.summary)")
        #expect(ManagerCommandTarget.hapticCarried(unknown) == -1)
        #expect(ManagerCommandTarget.hapticCarried(nil) == -1)
    }
}
