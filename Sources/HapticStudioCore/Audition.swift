// The studio's audition: a selection of a sound played with its haptic, in lockstep, through
// HapticManager (the engines the CLI's live verbs use; `playTogether`: one device frame for
// both in one stream). A loop is a grid of passes on the haptic device's frames, each scheduled
// with the haptic as the studio has it then (AuditionLoop, on its own thread), so an edit made
// during a pass is felt on the next one. Nothing here runs on the render thread: the engine
// plays prepared patterns; the server's requests only start, stop or read a playback.

import HapticEngine
import HapticKit

/// What `GET /api/transport` answers.
public struct AuditionTransport: Encodable, Sendable, Equatable {
    public var playing: Bool
    public var loop: Bool
    /// The sound auditioned, and the selection (seconds of the sound); nil when stopped.
    public var name: String?
    public var start: Double?
    public var end: Double?
    /// Where the playhead is (seconds of the sound), from the engine's clock; nil when stopped.
    public var position: Double?
    /// Passes scheduled so far (a loop schedules each one a fraction of a second ahead).
    public var passes: Int
    /// The devices are open and their clocks settled (``Audition/devicesSettled``): an audition
    /// started now is in lockstep as measured.
    public var devicesSettled: Bool = false
}

public actor Audition {
    /// Where the audition plays: a manager configuration (the CLI's options), and the devices
    /// named as the user gave them (for error lines).
    public struct Output: Sendable {
        public var configuration: HapticManager.Configuration
        public var device: String
        public var hapticDevice: String?
        public init(configuration: HapticManager.Configuration, device: String, hapticDevice: String? = nil) {
            self.configuration = configuration
            self.device = device
            self.hapticDevice = hapticDevice
        }
    }

    static let stoppedTransport = AuditionTransport(playing: false, loop: false, passes: 0)

    let studio: Studio
    let output: Output
    /// Made at the first play (the studio starts without a sound card); kept while it works.
    var manager: HapticManager?
    var playing: AuditionLoop?

    public init(studio: Studio, output: Output) {
        self.studio = studio
        self.output = output
    }

    /// Plays `start`…`end` of `name` (nil: the converted range), once or looping; a playback
    /// under way stops first. Throws a 503 naming the device when it cannot be opened.
    public func play(_ name: String, start: Double?, end: Double?, loop: Bool) async throws(StudioError) -> AuditionTransport {
        let selection = try await studio.auditionSelection(name, start: start, end: end)
        stopPlaying()
        let manager = try openManager()
        // A pattern file has no sound: its haptic plays alone.
        var sound: PreparedPattern? = nil
        if selection.hasSound {
            let source = SoundSelection(path: selection.path, start: selection.start, end: selection.end)
            let prepared: PreparedPattern
            do { prepared = try manager.prepareSound(source.pattern, sounds: source) } catch {
                throw StudioError(500, "\(StudioFolder.quoted(name)): the sound cannot be played (\(error))")
            }
            guard prepared.hasAudio else {
                throw StudioError(400, "\(StudioFolder.quoted(name)): the selection's sound cannot be played (\(prepared.warnings.joined(separator: "; ")))")
            }
            sound = prepared
        }
        let haptic: PreparedPattern?
        do { haptic = try studio.auditionHaptics(selection).map { try manager.prepare($0) } } catch {
            throw StudioError(500, "\(StudioFolder.quoted(name)): the haptic cannot be played (\(error))")
        }
        guard let engine = manager.currentEngine, let first = manager.soonestTogetherFrame(margin: Self.firstPassMargin(manager)),
            let started = AuditionLoop(
                manager: manager, studio: studio, selection: selection, loop: loop, sound: sound, haptic: haptic, firstFrame: first,
                sampleRate: Double(engine.configuration.sampleRate))
        else { throw unavailable(manager) }
        playing = started
        return transport()
    }

    /// Stops what plays (a 2 ms fade) and every pass already scheduled.
    public func stop() -> AuditionTransport {
        stopPlaying()
        return transport()
    }

    public func transport() -> AuditionTransport {
        var transport = playing?.transport ?? Self.stoppedTransport
        transport.devicesSettled = devicesSettled
        return transport
    }

    /// Device seconds two devices through a sound server take to agree on where their frames
    /// play: each stream's latency estimate (PulseAudio's timing smoother, which the ALSA
    /// plugin's delay reports) wanders by up to a few ms between the streams (6.7 ms once) for
    /// about 10 s after they open, while the card plays both to the sample, and the engines'
    /// mappings follow the estimates (bench/RESULTS.md). One device needs none: both voices
    /// share its frames.
    static let twoDeviceSettleSeconds = 10.0

    /// The devices are open and their clock mappings settled; with two devices, both have also
    /// run ``twoDeviceSettleSeconds`` since they locked.
    var devicesSettled: Bool {
        guard let manager, let haptic = manager.currentEngine else { return false }
        guard manager.isTwoDevice else { return haptic.frameMapping.isSettled }
        guard let sound = manager.currentAudioEngine else { return false }
        return [haptic, sound].allSatisfy { $0.frameMapping.isSettled && $0.frameMapping.lockedSeconds >= Self.twoDeviceSettleSeconds }
    }

    /// Two devices: opens them now (at the studio's start), so that their clocks have settled
    /// by the time a designer auditions (``twoDeviceSettleSeconds``). One device opens at the
    /// first play, as before: it needs no settling, and the studio starts without a sound card.
    /// A device that cannot be opened now is tried again at the first play; the line says why.
    public func openTwoDevicesEarly() -> String? {
        guard output.hapticDevice != nil else { return nil }
        do { _ = try openManager() } catch { return "studio: \(error.description); tried again at the first play" }
        return nil
    }

    /// The haptic engine's measurements (latency, xruns, render time), once it was opened.
    public func engineReport() -> String? { manager?.currentEngine.map { EngineReport($0).description } }

    /// Shuts the engines (at the studio's exit).
    public func shutDown() {
        stopPlaying()
        manager?.shutDown()
        manager = nil
    }

    // MARK: parts

    func stopPlaying() {
        playing?.stop()
        playing = nil
    }

    func openManager() throws(StudioError) -> HapticManager {
        if let manager, manager.engineAvailable, manager.audioAvailable { return manager }
        manager?.shutDown()
        manager = nil
        let made = HapticManager(configuration: output.configuration)
        guard made.engineAvailable else {
            let error = unavailable(made)  // the status says why before the shutdown replaces it
            made.shutDown()
            throw error
        }
        if made.isTwoDevice && !made.audioAvailable {
            let status = made.audioStatus.map { "\($0)" } ?? "unavailable"
            made.shutDown()
            throw StudioError(503, "audition: cannot open the sound device \(output.device): \(status)")
        }
        manager = made
        return made
    }

    /// Seconds beyond the engines' latency the first pass starts. Two devices just opened: after
    /// their clock mappings have had a second to settle, as `rhythm` waits before its first beat
    /// (each device's start is placed by its own mapping; the first timestamps through a sound
    /// server are the least reliable: a first pass at once was 1–8 ms off between the devices).
    static func firstPassMargin(_ manager: HapticManager) -> Double {
        let engines = [manager.currentEngine, manager.currentAudioEngine].compactMap { $0 }
        guard manager.isTwoDevice, engines.contains(where: { !$0.frameMapping.isSettled }) else { return 0.05 }
        return 1.0
    }

    func unavailable(_ manager: HapticManager) -> StudioError {
        StudioError(503, "audition: cannot open the playback device \(output.hapticDevice ?? output.device): \(manager.status)")
    }
}
