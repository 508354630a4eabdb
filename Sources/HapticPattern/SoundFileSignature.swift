// What kind of sound file some bytes are, from their first bytes (not the name): so that a
// sound handed where a pattern is wanted (a verb, the C library's hs_pattern_load_file) is named
// as a sound, not parsed as broken JSON.

/// The container a file's first bytes announce, when it is a sound file.
public enum SoundFileSignature {
    /// "WAV", "FLAC", "Ogg", "MP3", "AIFF", "AU", "CAF" or "W64", or nil when `bytes` do not start like a sound file.
    public static func kind(of bytes: some Collection<UInt8>) -> String? {
        let head = Array(bytes.prefix(16))
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let magic = Array(text.utf8)
            return head.count >= offset + magic.count && Array(head[offset..<(offset + magic.count)]) == magic
        }
        if starts("RIFF") || starts("RF64") || starts("RIFX") { return "WAV" }
        if starts("fLaC") { return "FLAC" }
        if starts("OggS") { return "Ogg" }
        if starts("ID3") { return "MP3" }
        if starts("FORM") && (starts("AIFF", at: 8) || starts("AIFC", at: 8)) { return "AIFF" }
        if starts(".snd") { return "AU" }
        if starts("caff") { return "CAF" }
        if starts("riff") { return "W64" }
        // An MPEG audio frame: 11 sync bits, a layer (not the reserved 00), a bitrate index not 1111.
        if head.count >= 3, head[0] == 0xFF, head[1] & 0xE0 == 0xE0, head[1] & 0x06 != 0, head[2] & 0xF0 != 0xF0 { return "MP3" }
        return nil
    }

    /// What a sound file of `kind` given for a pattern is, and how to make one of it (one line).
    public static func notAPattern(kind: String) -> String {
        "\(["Ogg", "MP3", "AIFF", "AU"].contains(kind) ? "an" : "a") \(kind) sound file, not a pattern; `hapticsynth convert` makes a pattern of it"
    }
}
