// The folder's `--per-sound` file as the studio keeps it: on save, a sound's own line (its name,
// glob characters escaped, and every option of its conversion, as `convert` describes them) goes
// to the end, where it wins over any earlier line that also names the sound, so that `convert
// --per-sound` on the folder converts it exactly as the studio did. Other lines and comments
// stay as the designer wrote them.

import HapticCLI

enum PerSoundFile {
    /// The file's text with `name`'s line replaced by one giving `arguments`.
    static func updated(_ existing: String?, name: String, arguments: [String]) throws(StudioError) -> String {
        let pattern = escapedPattern(name)
        let line = try ([quotedWord(pattern)] + arguments.map(quotedWord)).joined(separator: " ")
        var lines: [Substring] = []
        if let existing {
            lines = existing.split(separator: "\n", omittingEmptySubsequences: false)
            if lines.last == "" { lines.removeLast() }
            lines.removeAll { raw in (try? PerSoundOptions.split(raw))?.first == pattern }
        } else {
            lines = ["# Analysis settings per sound for `hapticsynth convert --per-sound` (kept by hapticsynth studio)."]
        }
        return (lines.map(String.init) + [line]).joined(separator: "\n") + "\n"
    }

    /// `name` as a glob naming just that file (`*`, `?` and `[` escaped).
    static func escapedPattern(_ name: String) -> String {
        var out = ""
        for c in name {
            if c == "*" || c == "?" || c == "[" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    /// A word as the file's reader takes it back: quoted when it holds a space, a `#` or a quote.
    static func quotedWord(_ word: String) throws(StudioError) -> String {
        guard word.contains(where: { $0 == " " || $0 == "#" || $0 == "\"" || $0 == "'" }) else { return word }
        if !word.contains("\"") { return "\"" + word + "\"" }
        if !word.contains("'") { return "'" + word + "'" }
        throw .bad("\(StudioFolder.quoted(word)): a name with both kinds of quote cannot be written to the --per-sound file")
    }
}
