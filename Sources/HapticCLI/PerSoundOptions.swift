// `convert --per-sound FILE`: the options chosen for particular sounds, kept in a file beside
// them. The sensitivity is a choice for each sound (the tools' clips set it clip by clip), and a
// designer who chose it for twenty sounds out of two hundred wants the batch conversion to keep
// those choices run after run, as Meta Haptics Studio's project keeps each clip's analysis
// settings. One line per sound or group of sounds:
//
//     # sfx/haptics.txt
//     explosion.wav        --sensitivity 70 --min-gap 30
//     steps_*.wav          --sensitivity 20
//     "rain loop.ogg"      --sensitivity 0 --gain 6
//     ambience/*.ogg       --sensitivity 0     # every ambience
//
// A name is a shell glob, matched against the end of the input's path: as many of its last
// components as the name has (`boom.wav` the file name, `ambience/*.ogg` the folder and file), or
// the whole path for a name that starts with "/". Every line that matches applies, in the file's
// order, over the command line's options: a later value wins. Only the options of one conversion may appear
// (not -o, --format and the like); every line is checked before anything is converted.

#if canImport(Glibc)
    import Glibc
#endif

/// The lines of a `--per-sound` file.
package struct PerSoundOptions {
    /// One line: which inputs it names, and their options (as `convert` takes them).
    package struct Line: Equatable {
        package var number: Int
        package var pattern: String
        package var arguments: [String]
    }

    /// The file's path, as given (it names the file in messages).
    package var path: String
    package var lines: [Line]

    /// The options a line may give: those of one conversion (the ones `Convert.soundArguments`
    /// writes, which a line is applied over).
    package static let perSoundOptions: Set<String> = [
        "--sensitivity", "--min-gap", "--ducking", "--breakpoints-per-second", "--gain", "--normalize",
        "--gate", "--channel", "--from", "--to", "--audio",
    ]

    /// Reads and splits the file (its options are checked by the caller, in context).
    package static func read(_ path: String) throws(CLIError) -> PerSoundOptions {
        let bytes: [UInt8]
        do { bytes = try PatternFile.readBytes(path) } catch { throw CLIError(error.description) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError("\(path): not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// The lines of `text` (blank lines and `#` comments, whole lines or after the options, skipped).
    /// A line ends at LF, CRLF or a lone CR (a file saved on Windows or an old Mac); a UTF-8 byte
    /// order mark at the start is not part of the first name.
    package static func parse(_ text: String, path: String) throws(CLIError) -> PerSoundOptions {
        var lines: [Line] = []
        // ("\r\n" is one Character in Swift: splitting on "\n" alone would leave a CRLF file one line.)
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        let rawLines = body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for (index, raw) in rawLines.enumerated() {
            let number = index + 1
            let words: [String]
            do { words = try split(raw) } catch { throw CLIError("\(path) line \(number): \(error.description)") }
            guard let first = words.first else { continue }
            if first.hasPrefix("-") {
                throw CLIError("\(path) line \(number): starts with \(first); a line starts with the sound it is for")
            }
            var valueDue = false
            for word in words.dropFirst() {
                if valueDue {
                    valueDue = false
                    continue
                }
                guard word.hasPrefix("-") else {
                    throw CLIError("\(path) line \(number): \(word): expected an option (one sound's name per line, first)")
                }
                let name = optionName(word)
                guard perSoundOptions.contains(name) else {
                    throw CLIError(
                        "\(path) line \(number): \(name) is not an option of one sound (these are: \(perSoundOptions.sorted().joined(separator: " ")))")
                }
                valueDue = name != "--audio" && !word.contains("=")
            }
            if valueDue, let last = words.last { throw CLIError("\(path) line \(number): \(last) needs a value") }
            lines.append(Line(number: number, pattern: first, arguments: Array(words.dropFirst())))
        }
        return PerSoundOptions(path: path, lines: lines)
    }

    /// The line's words: separated by spaces or tabs, a quoted word ('...' or "...") taken whole,
    /// up to a word that starts with `#` (a comment).
    package static func split(_ line: Substring) throws(CLIError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { word.append(c) }
            } else if c == " " || c == "\t" || c == "\r" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else if c == "#" && !inWord {
                break
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else {
                word.append(c)
                inWord = true
            }
        }
        if let quote { throw CLIError("a quote (\(quote)) is not closed") }
        if inWord { words.append(word) }
        return words
    }

    /// The option a word gives: `--gain` for `--gain` and `--gain=-6`.
    package static func optionName(_ word: String) -> String { String(word.prefix { $0 != "=" }) }

    /// Whether `line` names `input`: the end of its path, as many components as the line's name
    /// has (all of it for a name that starts with "/").
    package static func matches(_ line: Line, _ input: String) -> Bool {
        if line.pattern.hasPrefix("/") { return fnmatch(line.pattern, input, FNM_PATHNAME) == 0 }
        let depth = line.pattern.split(separator: "/", omittingEmptySubsequences: false).count
        let end = input.split(separator: "/", omittingEmptySubsequences: false).suffix(depth).joined(separator: "/")
        return fnmatch(line.pattern, end, FNM_PATHNAME) == 0
    }

    /// The options of every line that names `input`, in the file's order, folded so that each
    /// option appears once with its last value (--gain and --normalize are one choice): what
    /// applying them one after another gives, in time linear in the lines (a parser handed every
    /// repeat takes time quadratic in them).
    package func arguments(for input: String) -> [String] {
        Self.overlay(lines.filter { Self.matches($0, input) }.flatMap(\.arguments))
    }

    /// `words` (checked options, as `parse` leaves them) with each option once, at its first
    /// place, holding its last value.
    static func overlay(_ words: [String]) -> [String] {
        var options: [[String]] = []
        var place: [String: Int] = [:]
        var k = 0
        while k < words.count {
            let name = optionName(words[k])
            let takesNext = name != "--audio" && !words[k].contains("=") && k + 1 < words.count
            let option = takesNext ? [words[k], words[k + 1]] : [words[k]]
            k += option.count
            let slot = name == "--normalize" ? "--gain" : name
            if let at = place[slot] { options[at] = option } else {
                place[slot] = options.count
                options.append(option)
            }
        }
        return options.flatMap { $0 }
    }

    /// The lines that name none of `inputs`.
    func unmatched(by inputs: [String]) -> [Line] {
        lines.filter { line in !inputs.contains { Self.matches(line, $0) } }
    }
}
