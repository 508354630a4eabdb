import HapticEngine
import HapticEngineTesting
import HapticSoundFile

/// A rhythm session rendered to a sound file as fast as the machine goes (`hapticsynth rhythm
/// -o`): a manually driven ``HapticManager`` on a ``RecordingOutputDevice`` whose frames go to
/// a `SoundFileWriter`, on a simulated clock that moves as periods are rendered.
public enum OfflineRhythmRender {
    /// Why nothing (or no complete file) was written; the partial file is removed.
    public enum Failure: Error, Sendable, Equatable {
        /// The file could not be created (the writer's message).
        case cannotCreate(String)
        /// The manager has no engine (its status).
        case engineUnavailable(String)
        /// The caller's check of the loaded manager refused it (its line).
        case refused(String)
        /// Writing the samples failed part-way (the writer's message).
        case writeFailed(String)
        /// The file could not be completed (the writer's message).
        case cannotFinish(String)
    }

    /// Renders `map`'s beats of `cue`, each scheduled `lead` seconds ahead, into `path`, with the
    /// engine format of `configuration.engine` (its channels and rate are the file's; its
    /// `output` is replaced by the file, its engine made manual), and returns where every part
    /// landed. `check` sees the manager after its patterns are loaded and may refuse it with a
    /// line. The file is never written over what the session reads — the patterns folder's
    /// `*.ahap`, the cue sheet, the sound effects, and `inputs` (a beat map) — compared by
    /// device and inode, as `render` compares its inputs.
    public static func render(
        map: BeatMap, cue: String, lead: Double, configuration: HapticManager.Configuration, to path: String,
        sampleFormat: SoundFileWriter.SampleFormat, inputs: [FileIdentity] = [], check: (HapticManager) -> String? = { _ in nil }
    ) -> Result<RhythmReport, Failure> {
        let clock = ManualClock()
        let rate = configuration.engine.sampleRate
        let channels = configuration.engine.layout.channels
        let writer: SoundFileWriter
        do {
            writer = try SoundFileWriter(
                path: path, channels: channels, sampleRate: rate,
                format: SoundFileWriter.FileFormat(extensionOf: path), sampleFormat: sampleFormat,
                inputs: inputs + libraryFiles(configuration))
        } catch {
            return .failure(.cannotCreate(error.description))
        }
        let device = RecordingOutputDevice(name: "offline file", clock: clock, channels: channels, sampleRate: rate) {
            try writer.write($0)
        }
        var config = configuration
        config.output = .device({ device })
        config.engine = .manual(clock: clock, base: config.engine)
        let manager = HapticManager(configuration: config)
        guard manager.engineAvailable, let engine = manager.currentEngine else {
            writer.cancel()
            return .failure(.engineUnavailable("\(manager.status)"))
        }
        manager.preloadPatterns()
        if let line = check(manager) {
            manager.shutDown()
            writer.cancel()
            return .failure(.refused(line))
        }
        let session = RhythmSession(manager: manager, cue: cue, map: map, lead: lead)
        // The simulated clock moves as periods are rendered (the device waits for room).
        let advance = { (time: Double) in
            while clock.seconds < time && device.error == nil { engine.renderOnePeriod() }
        }
        // No settling needed: the simulated device's timestamps are exact from the first.
        session.run(settle: 0, tail: 0.5, wait: advance)
        let report = session.report(sampleRate: rate)
        manager.shutDown()  // renders the fade and the buffer's tail
        if let error = device.error {
            writer.cancel()
            return .failure(.writeFailed(error))
        }
        do { try writer.finish() } catch {
            writer.cancel()
            return .failure(.cannotFinish(error.description))
        }
        return .success(report)
    }

    /// Every file of the library a session may read: the patterns, the cue sheet, the sound effects.
    static func libraryFiles(_ configuration: HapticManager.Configuration) -> [FileIdentity] {
        let folders = [(configuration.hapticsFolder, ".ahap"), (configuration.assetsFolder + "/sfx", ".wav")]
        let files = folders.flatMap { folder, suffix in
            ((try? listFiles(folder, suffix: suffix).get()) ?? []).map { folder + "/" + $0 }
        }
        return (files + [configuration.assetsFolder + "/cues.json"]).compactMap(FileIdentity.init(path:))
    }
}
