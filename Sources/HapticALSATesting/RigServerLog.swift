import Glibc

/// The rig's PulseAudio log (scripts/rig.sh runs the server at debug level into
/// `$HAPTICSYNTH_RIG_DIR/pulse.log`), read for what only the server knows: that a playback
/// stream underran. The ALSA pulse plugin reports no xrun for it, the server plays silence in
/// the stream's place, and everything after it reaches the sink's monitor that much later: a
/// gap the engine never made (a loaded machine starves the server's main thread). Tests that
/// compare recorded frames with the frames the engine applied tell such a run apart by this
/// count, rather than fail on a server's hiccup or widen their bounds for it.
public enum RigServerLog {
    /// The log's path, or nil outside a rig.
    public static var path: String? {
        getenv("HAPTICSYNTH_RIG_DIR").map { String(cString: $0) + "/pulse.log" }
    }

    /// How many playback-stream underruns the server has logged ("Underrun of '…'" and
    /// "Implicit underrun of '…'"; not "end of underrun", which a stream's start logs); nil
    /// without a rig or a readable log. Compare two counts taken around a measurement.
    public static func underrunCount() -> Int? {
        guard let path, let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var count = 0
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            if let line, strstr(line, "nderrun of '") != nil { count += 1 }
        }
        return count
    }
}
