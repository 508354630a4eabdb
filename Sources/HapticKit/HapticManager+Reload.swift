import HapticEngine
import HapticRender
import Synchronization

// Reloading the pattern library and the cue sheet from disk while the engine plays (the
// serve verb's SIGHUP). The stream is never touched: the new patterns and cues are
// prepared for the running engine outside the lock and swapped into its caches in one step.

extension HapticManager {
    /// The library and cue sheet in use; replaced as a whole by ``reloadLibrary()``.
    struct Content: Sendable {
        var library: PatternLibrary
        var cueSheet: CueSheet
        var cueSheetError: CueSheetError?

        /// Reads the configuration's folders (the library is parsed by `preloadPatterns()`).
        static func load(_ configuration: Configuration) -> Content {
            let library = PatternLibrary(folder: configuration.hapticsFolder, strict: true, logger: configuration.logger)
            // No assets folder: no cue sheet (and none looked for at the root).
            if configuration.assetsFolder.isEmpty { return Content(library: library, cueSheet: CueSheet(), cueSheetError: nil) }
            do {
                let sheet = try CueSheet.load(path: configuration.assetsFolder + "/cues.json")
                return Content(library: library, cueSheet: sheet, cueSheetError: nil)
            } catch {
                configuration.logger.debug("haptic manager: no cue sheet: \(error)")
                return Content(library: library, cueSheet: CueSheet(), cueSheetError: error)
            }
        }
    }

    /// What one ``reloadLibrary()`` did.
    public struct ReloadReport: Sendable, Equatable {
        /// Patterns in the new library.
        public var patterns: Int
        /// Files of the folder that were skipped (by path: broken, unreadable, not a regular
        /// file; the folder itself when it cannot be listed), with the reason.
        public var skipped: [String: String]
        /// Cues in the cue sheet now in use.
        public var cues: Int
        /// Why the new cue sheet could not be read (the previous one is kept); nil when it was.
        public var cueSheetProblem: String?
        /// Whether the running engine's caches were replaced (false when no engine is running:
        /// the next engine prepares the new library).
        public var engineUpdated: Bool
    }

    /// Reads the patterns folder and the cue sheet again and makes them the ones played,
    /// without stopping the stream: sounding voices and loops play on; a name played after
    /// the call finds the new pattern or cue (a removed name becomes unknown). A cue sheet
    /// that no longer reads is reported and the previous one kept. Sound effects are not
    /// re-read. Never throws; safe from any thread.
    @discardableResult
    public func reloadLibrary() -> ReloadReport {
        var fresh = Content.load(configuration)
        let preload = fresh.library.preloadPatterns()
        let previous = content.withLock { $0 }
        var problem: String? = nil
        if let error = fresh.cueSheetError, previous.cueSheetError == nil {
            problem = error.description
            fresh.cueSheet = previous.cueSheet
            fresh.cueSheetError = nil
            logger.warning("haptic manager: reload: \(error); the previous cue sheet is kept")
        }
        content.withLock { $0 = fresh }
        // An engine never prepared (no preload yet) prepares everything from the new content.
        let current: (engine: HapticEngine, id: Int, prepared: Bool)? = state.withLock { s in
            s.wantsPreload = true
            return s.haptic.engine.map { ($0, s.haptic.engineID, s.haptic.caches.engineID == s.haptic.engineID) }
        }
        var updated = false
        if let current, !current.prepared {
            recache(.haptic)
            recache(.audio)
            updated = true
        } else if let (engine, id, _) = current {
            // Sound effects are unchanged: only the library's patterns and the cues are re-made.
            var caches = Caches(engineID: id)
            // The cues' alignment measures the sounds (unchanged by a reload: measured once).
            (caches.sounds, caches.soundFeltOnsets, caches.hapticFeltOnsets) = state.withLock {
                ($0.haptic.caches.sounds, $0.haptic.caches.soundFeltOnsets, $0.haptic.caches.hapticFeltOnsets)
            }
            preparePatternsAndCues(fresh.library, fresh.cueSheet, on: engine, into: &caches)
            updated = state.withLock { s in
                // Not when a reset replaced the engine meanwhile (it prepared the new content itself).
                guard s.haptic.engineID == id, s.haptic.engine != nil else { return false }
                s.haptic.caches.patterns = caches.patterns
                s.haptic.caches.cues = caches.cues
                s.haptic.caches.cueHaptics = caches.cueHaptics
                s.haptic.caches.cueAlignments = caches.cueAlignments
                s.haptic.caches.hapticFeltOnsets = caches.hapticFeltOnsets
                return true
            }
        }
        logger.info("haptic manager: reloaded \(fresh.library.patterns.count) patterns and \(fresh.cueSheet.cues.count) cues")
        return ReloadReport(patterns: fresh.library.patterns.count, skipped: preload.skipped, cues: fresh.cueSheet.cues.count,
                            cueSheetProblem: problem, engineUpdated: updated)
    }
}
