import HapticEngineTesting
import HapticPattern
import HapticRender
import Testing
@testable import HapticEngine

/// Placing layouts on devices' channel maps, the default layout per device, and the check of
/// where the haptic went.
@Suite struct ChannelMapTests {
    static let pulseOffers = (1...8).map { ChannelMapOffer(.fixed, ChannelPosition.soundServerMap(channels: $0)) }
    static func server(_ sink: String, _ positions: [ChannelPosition]?, description: String? = nil) -> DeviceChannels {
        DeviceChannels(
            offers: pulseOffers,
            server: SoundServerSink(name: sink, description: description, positions: positions, via: "ALSA pulse plugin"))
    }
    static let stereo: [ChannelPosition] = [.frontLeft, .frontRight]
    static let twoOne: [ChannelPosition] = [.frontLeft, .frontRight, .lfe]
    static let fiveOne: [ChannelPosition] = [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lfe]
    static let sevenOne = fiveOne + [.sideLeft, .sideRight]
    static let quad: [ChannelPosition] = [.frontLeft, .frontRight, .rearLeft, .rearRight]
    static let aux: [ChannelPosition] = [.frontLeft, .frontRight, .aux(0)]

    @Test func namedLayoutsTakeTheSmallestMapThatHasTheirPositions() throws {
        let plan = try ChannelPlan(layout: ChannelLayout.parse("FL,FR,LFE=H"), described: Self.server("s", Self.twoOne), device: "d")
        // Through the pulse plugin LFE first appears at 6 channels: FL FR RL RR FC LFE.
        #expect(plan.layout.sources == [.audioLeft(gain: 1), .audioRight(gain: 1), .silence, .silence, .silence, .haptic(gain: 1)])
        #expect(plan.layout.positions == ChannelPosition.soundServerMap(channels: 6))
        #expect(plan.requestedMap == nil)
        let aux = try ChannelPlan(layout: ChannelLayout.parse("H@AUX0"), described: Self.server("s", Self.aux), device: "d")
        #expect(aux.layout.sources == [.silence, .silence, .haptic(gain: 1)])
        // A card whose map may be set in any order gets the layout's own order.
        let variable = DeviceChannels(offers: [ChannelMapOffer(.variable, Self.fiveOne)])
        let set = try ChannelPlan(layout: ChannelLayout.parse("LFE=H,FL"), described: variable, device: "d")
        #expect(set.requestedMap == [.lfe, .frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter])
        #expect(set.layout.sources.prefix(2) == [.haptic(gain: 1), .audioLeft(gain: 1)])
        // By column: as it is.
        let columns = try ChannelPlan(layout: .stereoPlusHaptic, described: nil, device: "d")
        #expect(columns.layout == .stereoPlusHaptic && columns.requestedMap == nil)
    }

    @Test func aPositionNoMapHasIsOneLine() {
        let card = DeviceChannels(offers: [ChannelMapOffer(.fixed, Self.stereo)])
        #expect(throws: ChannelPlanError("hw:1: no channel map of the device has LFE (it offers: FL FR)")) {
            try ChannelPlan(layout: ChannelLayout.parse("2.1"), described: card, device: "hw:1")
        }
        #expect(throws: ChannelPlanError.self) {
            try ChannelPlan(layout: ChannelLayout.parse("H@LFE"), described: nil, device: "hw:1")
        }
    }

    @Test func defaultsFollowTheSinkBehindTheServer() throws {
        func choice(_ positions: [ChannelPosition]?, sound: Bool, description: String? = nil) -> DefaultChannelLayout {
            DefaultChannelLayout(for: Self.server("sink", positions, description: description), sound: sound, device: "default")
        }
        #expect(choice(Self.twoOne, sound: true).layout == (try ChannelLayout.parse("FL,FR,LFE=H")))
        #expect(choice(Self.fiveOne, sound: true).layout == (try ChannelLayout.parse("FL,FR,LFE=H")))
        #expect(choice(Self.sevenOne, sound: false).layout == (try ChannelLayout.parse("LFE=H")))
        #expect(choice(Self.quad, sound: true).layout == (try ChannelLayout.parse("FL,FR,RL=H,RR=H")))
        #expect(choice(Self.aux, sound: true).layout == (try ChannelLayout.parse("FL,FR,AUX0=H")))
        let stereo = choice(Self.stereo, sound: true)
        #expect(stereo.layout == (try ChannelLayout.parse("L,H")))
        #expect(stereo.note?.hasPrefix("default is stereo and carries sound and haptic: the sound's left channel on FL, the haptic on FR") == true)
        #expect(choice(Self.stereo, sound: false).layout == (try ChannelLayout.parse("H,H")))
        #expect(choice(Self.stereo, sound: false).note == nil)
        let dualsense = choice(Self.quad, sound: false, description: "DualSense Wireless Controller Analog Surround 4.0")
        #expect(dualsense.layout == (try ChannelLayout.parse("dualsense")))
        // The sink's map unknown: LFE, which 2.1/5.1/7.1 sinks keep (AUX0 no ordinary sink keeps).
        #expect(choice(nil, sound: true).layout == (try ChannelLayout.parse("2.1")))
        // Nothing known at all: by column, as before.
        #expect(DefaultChannelLayout(for: nil, sound: true, device: "x").layout == .stereoPlusHaptic)
        // Every choice places on the server's maps.
        for positions in [Self.stereo, Self.twoOne, Self.fiveOne, Self.sevenOne, Self.quad, Self.aux, [.mono]] {
            for sound in [false, true] {
                let described = Self.server("sink", positions)
                let chosen = DefaultChannelLayout(for: described, sound: sound, device: "d").layout
                let plan = try ChannelPlan(layout: chosen, described: described, device: "d")
                let routing = ChannelRouting(
                    device: "d", layout: plan.layout, positions: ChannelPosition.soundServerMap(channels: plan.layout.channels),
                    described: described)
                #expect(routing.warning == nil, "\(positions.mapDescription) sound=\(sound): \(routing.warning ?? "")")
                #expect(!routing.channels.filter { if case .haptic = $0.source { true } else { false } }.isEmpty)
            }
        }
    }

    @Test func theHapticOnAUX0OfAnOrdinarySinkIsReportedLostWithTheFix() throws {
        let described = Self.server("alsa_output.analog-stereo", Self.twoOne)
        let routing = ChannelRouting(
            device: "default", layout: .stereoPlusHaptic, positions: ChannelPosition.soundServerMap(channels: 3),
            described: described)
        #expect(routing.channels.map(\.fate) == [
            .delivered(.frontLeft), .delivered(.frontRight),
            .dropped("sink alsa_output.analog-stereo (FL FR LFE) has no AUX0: the server drops it"),
        ])
        #expect(routing.warning
            == "default: the haptic on channel 3 (AUX0) does not reach the actuator: sink alsa_output.analog-stereo (FL FR LFE) has no AUX0: the server drops it; use --layout FL=L,FR=R,LFE=H, or --haptic-device for a card of its own")
        #expect(routing.summary == "L→FL R→FR H→AUX0 (dropped) via sink alsa_output.analog-stereo (FL FR LFE)")
        // LFE on a stereo sink is dropped; a rear channel is mixed into the speakers.
        let stereo = Self.server("s", Self.stereo)
        let lfe = ChannelRouting(
            device: "d", layout: try ChannelPlan(layout: ChannelLayout.parse("2.1"), described: stereo, device: "d").layout,
            positions: ChannelPosition.soundServerMap(channels: 6), described: stereo)
        #expect(lfe.lostHaptic.map(\.position) == [.lfe])
        #expect(lfe.warning?.contains("use --layout L,H") == true)
        let rear = ChannelRouting(
            device: "d", layout: try ChannelLayout.parse("0,0,H,H"), positions: Self.quad, described: stereo)
        #expect(rear.lostHaptic.count == 2)
        if case .mixedIntoSpeakers = rear.lostHaptic[0].fate {} else { Issue.record("RL should be mixed into the speakers") }
        // A device that cannot say.
        let mute = ChannelRouting(device: "hw:9", layout: .stereoPlusHaptic, positions: nil, described: nil)
        #expect(mute.warning?.hasPrefix("hw:9: the haptic on channel 3 may not reach the actuator: the device reports no channel map") == true)
        // A card plays its channels where its map says.
        let card = ChannelRouting(device: "hw:1", layout: .stereoPlusHaptic, positions: Self.aux, described: DeviceChannels(offers: []))
        #expect(card.warning == nil)
        // hapticCarried: delivered, dropped or mixed, unknown.
        #expect(card.hapticCarried == true && routing.hapticCarried == false && rear.hapticCarried == false)
        #expect(mute.hapticCarried == nil)
    }

    /// Two actuator profiles on one engine: each channel carries its own profile's render of
    /// the pattern (as an engine with that one profile plays it), and a named layout lands on
    /// the columns of the device's map.
    @Test func twoProfilesOnOneEngineEachInItsOwnChannel() throws {
        var options = VirtualOutputDevice.Options()
        options.describedChannels = Self.server("s", Self.fiveOne)
        let elements: [PatternElement] = [.event(.continuous(at: 0, duration: 0.2, intensity: 1, sharpness: 0.5))]
        func run(_ layout: String, profile: ActuatorProfile) throws -> (VirtualOutputDevice, HapticEngine) {
            let (engine, factory, clock) = makeManualEngine(period: 256, options: options) {
                $0.layout = try! ChannelLayout.parse(layout)
                $0.profile = profile
            }
            try engine.start()
            let start = clock.seconds + 0.05
            try engine.makePlayer(with: engine.prepare(AHAPPattern(elements: elements))).start(atTime: start)
            renderUntil(engine) { clock.seconds > start + 0.5 }
            return (factory.first, engine)
        }
        let (both, engine) = try run("FL=H:bass-shaker,LFE=H:voice-coil", profile: .lra)
        #expect(engine.deviceFormat?.channels == 6)
        #expect(engine.channelRouting?.warning == nil)
        let (shaker, _) = try run("LFE=H", profile: .bassShaker)
        let (coil, _) = try run("LFE=H", profile: .voiceCoil)
        let fl = both.recordedSamples(channel: 0), lfe = both.recordedSamples(channel: 5)
        let refShaker = shaker.recordedSamples(channel: 5), refCoil = coil.recordedSamples(channel: 5)
        #expect(fl.contains { abs($0) > 0.1 } && lfe.contains { abs($0) > 0.1 })
        #expect(zip(fl, refShaker).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(zip(lfe, refCoil).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(both.recordedSamples(channel: 2).allSatisfy { $0 == 0 })
    }
}
