// Text from outside in a message line. File names, JSON keys and values, OSC addresses,
// pattern and cue names are chosen by whoever made the file or sent the datagram; printed
// raw, a newline in one forges a line of its own and an escape sequence recolours or
// rewrites the terminal. Every message that includes such a string goes through
// `printable(_:)` (the error types' descriptions, the CLI's lines, the logs).

/// `text` with every control character shown as an escape, so that it stays on its line and
/// cannot drive the terminal: `\n`, `\r`, `\t`, `\x1B` for the other C0 controls and DEL,
/// `\u{85}` for C1 controls, the bidirectional overrides and isolates (which reorder what
/// follows them on screen) and the line and paragraph separators. Everything else, other
/// languages and emoji included, is kept as it is.
public func printable(_ text: some StringProtocol) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
    var out = ""
    out.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
        guard needsEscape(scalar) else {
            out.unicodeScalars.append(scalar)
            continue
        }
        switch scalar {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            out += scalar.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{" + hex + "}"
        }
    }
    return out
}

/// Whether `scalar` is one `printable(_:)` escapes.
private func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1
    case 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional embeddings, overrides, isolates
    case 0x2028, 0x2029: true  // line and paragraph separators
    default: false
    }
}
