import HapticEngine
import HapticSoundFile

/// A rhythm session rendered to a sound file as fast as the machine goes (`hapticsynth rhythm
/// -o`): a ``HapticManager`` on an engine in pull drive (HapticEngine's `render(into:frames:)`),
/// whose clock moves as the periods written to a `SoundFileWriter` are pulled.
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
        var config = configuration
        config.output = .device({ PulledOutput(name: "offline file") })
        config.engine = .pulled(config.engine)
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
        let period = max(1, engine.configuration.periodFrames)
        var block = [Float](repeating: 0, count: period * channels)
        var writeError: String? = nil
        /// One period pulled and written; false when the file fails or the engine has finished.
        func pull() -> Bool {
            guard writeError == nil else { return false }
            let outcome = block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: period) }
            do {
                try block.withUnsafeBufferPointer { try writer.write($0) }
            } catch {
                writeError = String(describing: error)
            }
            engine.serviceStep()  // finished voices back (the pull drive has no service thread)
            return outcome == .rendered && writeError == nil
        }
        // The clock moves as periods are pulled. No settling needed: a pulled engine's mapping is exact.
        session.run(settle: 0, tail: 0.5, wait: { time in while engine.currentTime < time && pull() {} })
        let report = session.report(sampleRate: rate)
        // The engine's stop fade and a buffer of silence end the file (bounded: a fade of at most
        // 60 s and a buffer).
        engine.finishPulling()
        var periods = 0
        while periods < 1_000_000 && pull() { periods += 1 }
        manager.shutDown()
        if let error = writeError {
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
        let folders = PatternLibrary.fileSuffixes.map { (configuration.hapticsFolder, $0) } + [(configuration.assetsFolder + "/sfx", ".wav")]
        let files = folders.flatMap { folder, suffix in
            ((try? listFiles(folder, suffix: suffix).get()) ?? []).map { folder + "/" + $0 }
        }
        return (files + [configuration.assetsFolder + "/cues.json"]).compactMap(FileIdentity.init(path:))
    }
}
