import Foundation
import HapticPattern
import Testing
@testable import HapticRender

@Suite("Layouts by position and per-channel profile")
struct NamedLayoutTests {
    func message(_ text: String) -> String? {
        do { _ = try ChannelLayout.parse(text); return nil } catch { return error.description }
    }

    @Test func positionsPlaceEntriesByName() throws {
        let layout = try ChannelLayout.parse("FL,FR,LFE=H")
        #expect(layout.sources == [.audioLeft(gain: 1), .audioRight(gain: 1), .haptic(gain: 1)])
        #expect(layout.positions == [.frontLeft, .frontRight, .lfe])
        #expect(layout.mapDescription == "FL=L,FR=R,LFE=H")
        #expect(try ChannelLayout.parse(layout.mapDescription) == layout)
        // Both spellings, any case, and the preset.
        #expect(try ChannelLayout.parse("fl=L, FR=r, H@lfe") == layout)
        #expect(try ChannelLayout.parse("2.1") == layout)
        let one = try ChannelLayout.parse("H@LFE")
        #expect(one.channels == 1 && one.position(ofChannel: 0) == .lfe)
        #expect(try ChannelLayout.parse("RL=H*0.5,RR=H*-6dB,AUX0=0").positions == [.rearLeft, .rearRight, .aux(0)])
    }

    @Test func layoutsByColumnStayAsTheyWere() throws {
        let layout = try ChannelLayout.parse("0,0,H,H*0.5")
        #expect(layout.positions.isEmpty && layout.profiles.isEmpty && !layout.namesPositions)
        #expect(layout == ChannelLayout([.silence, .silence, .haptic(gain: 1), .haptic(gain: 0.5)]))
    }

    @Test func perChannelProfilesAndGains() throws {
        let layout = try ChannelLayout.parse("FL=H:bass-shaker,FR=H:voice-coil*0.5")
        #expect(layout.sources == [.haptic(gain: 1), .haptic(gain: 0.5)])
        #expect(layout.profiles == [.bassShaker, .voiceCoil])
        #expect(layout.actuators(default: .lra) == [.bassShaker, .voiceCoil])
        #expect(layout.actuatorIndices(default: .lra) == [0, 1])
        #expect(layout.mapDescription == "FL=H:bass-shaker,FR=H:voice-coil*0.5")
        // The gain may come before the profile; channels without one use the default.
        let mixed = try ChannelLayout.parse("H*0.5:voice-coil,H,H:voice-coil")
        #expect(mixed.profiles == [.voiceCoil, nil, .voiceCoil])
        #expect(mixed.actuators(default: .bassShaker) == [.voiceCoil, .bassShaker])
        #expect(mixed.actuatorIndices(default: .bassShaker) == [0, 1, 0])
    }

    @Test func dualsensePresetDrivesChannelsThreeAndFour() throws {
        let layout = try ChannelLayout.parse("dualsense")
        #expect(layout.sources == [.silence, .silence, .haptic(gain: 1), .haptic(gain: 1)])
        #expect(layout.profiles == [nil, nil, .dualsense, .dualsense])
        #expect(!layout.namesPositions)
        let withSound = try ChannelLayout.parse("dualsense+sound")
        #expect(withSound.sources == [.audioLeft(gain: 1), .audioRight(gain: 1), .haptic(gain: 1), .haptic(gain: 1)])
    }

    @Test func mistakesGetOneLine() {
        #expect(message("FL,R,LFE=H")
            == #"layout "FL,R,LFE=H": channel 2 names no position while channel 1 does (name every channel's position, e.g. FL,FR,LFE=H, or none)"#)
        #expect(message("FL=H,H@FL") == #"layout "FL=H,H@FL": channels 1 and 2 both name position FL"#)
        #expect(message("XY=H") == #"layout "XY=H": channel 1: unknown position "XY" (expected FL, FR, FC, LFE, RL, RR, SL, SR, MONO, AUX0... )"#)
        #expect(message("LFE") == #"layout "LFE": channel 1: position LFE needs a source (e.g. LFE=H or LFE=0)"#)
        #expect(message("L:voice-coil") == #"layout "L:voice-coil": channel 1: only a haptic channel (H) takes a profile"#)
        #expect(message("H:nope") == #"layout "H:nope": channel 1: unknown profile "nope" (known: bass-shaker, voice-coil, lra, dualsense)"#)
        #expect(message("FL=H@FR") == #"layout "FL=H@FR": channel 1: "FL=H@FR" names its position twice"#)
        #expect(message("AUX64=H")?.contains("unknown position \"AUX64\"") == true)
        #expect(message("H:") == #"layout "H:": channel 1: "H:": empty profile name"#)
    }

    @Test func soundServerMapsFollowThePulsePlugin() {
        #expect(ChannelPosition.soundServerMap(channels: 1) == [.mono])
        #expect(ChannelPosition.soundServerMap(channels: 3) == [.frontLeft, .frontRight, .aux(0)])
        #expect(ChannelPosition.soundServerMap(channels: 6).last == .lfe)
        #expect(ChannelPosition.soundServerMap(channels: 7) == ChannelPosition.soundServerMap(channels: 6) + [.aux(0)])
        #expect(ChannelPosition.soundServerMap(channels: 10).suffix(2) == [.aux(0), .aux(1)])
        for name in ["FL", "LFE", "AUX7", "TFLC", "MONO"] { #expect(ChannelPosition(name: name)?.name == name) }
        #expect(ChannelPosition(name: "NA") == nil && ChannelPosition(name: "AUX07") == nil)
    }

    /// Each channel of a layout naming two profiles is exactly what that profile renders on
    /// its own, and a profile used twice is rendered once (a gain apart, bit for bit).
    @Test func eachProfileIsRenderedOnceIntoItsOwnChannels() throws {
        let elements: [PatternElement] = [
            .event(.transient(at: 0.02, intensity: 1, sharpness: 0.5)),
            .event(.continuous(at: 0.1, duration: 0.3, intensity: 0.8, sharpness: 0.3)),
        ]
        let pattern = try prepare(elements, profile: .bassShaker)
        let layout = try ChannelLayout.parse("H:bass-shaker,H:voice-coil,H:voice-coil*0.5")
        #expect(OutputStage(profile: .bassShaker, sampleRate: fs, layout: layout).actuators.count == 2)
        // Rendered until silent: the longer of the two profiles' renders sets the length.
        let both = OfflineRenderer.render(pattern, layout: layout)
        let shaker = OfflineRenderer.render(pattern, layout: .hapticMono)
        let coil = OfflineRenderer.render(try prepare(elements, profile: .voiceCoil), profile: .voiceCoil, layout: .hapticMono)
        #expect(both.channels == 3 && both.frames >= max(shaker.frames, coil.frames))
        var coilEnergy: Float = 0
        for i in 0..<min(shaker.frames, coil.frames) {
            #expect(both.samples[i * 3] == shaker.samples[i])
            #expect(both.samples[i * 3 + 1] == coil.samples[i])
            #expect(both.samples[i * 3 + 2] == coil.samples[i] * 0.5)
            coilEnergy += coil.samples[i] * coil.samples[i]
        }
        #expect(coilEnergy > 1)
        #expect(shaker.samples != coil.samples)
    }

    /// A variant for another profile plays no sound (the first actuator's voice does).
    @Test func variantsKeepTheSoundOnce() throws {
        let sound = SoundBuffer(channels: 1, sampleRate: fs, samples: (0..<4800).map { Float(sin(Double($0) * 0.05)) * 0.5 })
        let pattern = try prepare(
            [.event(.transient(at: 0, intensity: 1, sharpness: 0.5)), .event(Event(time: 0, type: .audioCustom, waveformPath: "s.wav", useVolumeEnvelope: false))],
            sounds: MemorySounds(sounds: ["s.wav": sound]))
        let haptic = pattern.variant(for: .voiceCoil)
        #expect(!haptic.hasAudio && haptic.eventCount == 1)
        #expect(pattern.variant(for: .voiceCoil) === haptic)
        #expect(pattern.variant(for: .voiceCoil, withSound: true).hasAudio)
        #expect(pattern.variant(for: .bassShaker) === pattern)
        let layout = try ChannelLayout.parse("L,H:bass-shaker,H:voice-coil")
        let out = OfflineRenderer.render(pattern, layout: layout, ending: .exactLength)
        let alone = OfflineRenderer.render(pattern, layout: try ChannelLayout.parse("L"), ending: .exactLength)
        for i in 0..<min(out.frames, alone.frames) { #expect(out.samples[i * 3] == alone.samples[i]) }
    }
}
