import CHapticSynth
import HapticKit

// Text out of the library: a pattern as AHAP or .haptic JSON (what `convert` writes), and the
// playback devices as JSON. One copying rule for both (the caller's buffer, as hs_pattern_render
// fills its: a length query with NULL, HS_ERR_LIMIT when it is too small).

@c(hs_pattern_to_json)
public func hs_pattern_to_json(_ pattern: OpaquePointer?, _ format: Int32, _ buffer: UnsafeMutablePointer<CChar>?,
                               _ capacity: Int, _ length: UnsafeMutablePointer<Int>?) -> Int32 {
    run("hs_pattern_to_json") { () throws(Failure) in
        let lengthOut = try required(length, "length")
        lengthOut.pointee = 0
        let p = try patternTable.with(pattern, "pattern") { $0 }
        let text: String
        switch Int(format) {
        case HS_FORMAT_AHAP: text = p.pattern.encoded()
        case HS_FORMAT_HAPTIC: text = HapticClip.converting(p.pattern).clip.encoded()
        default: throw .invalidArgument("format \(format) is not HS_FORMAT_AHAP (0) or HS_FORMAT_HAPTIC (1)")
        }
        try copyText(text, to: buffer, capacity: capacity, length: lengthOut)
    }
}

@c(hs_devices_json)
public func hs_devices_json(_ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ length: UnsafeMutablePointer<Int>?) -> Int32 {
    run("hs_devices_json") { () throws(Failure) in
        let lengthOut = try required(length, "length")
        lengthOut.pointee = 0
        let survey = PlaybackDevices.survey()
        var pcms = survey.pcms
        if !pcms.contains(where: { $0.name == "default" }) { pcms.insert(survey.defaultPCM, at: 0) }
        func range(_ r: ClosedRange<Int>?) -> JSONValue {
            r.map { .array([.number(Double($0.lowerBound)), .number(Double($0.upperBound))]) } ?? .null
        }
        let list = JSONValue.array(pcms.map { pcm in
            .object([
                ("name", .string(pcm.name)), ("description", pcm.description.map(JSONValue.string) ?? .null),
                ("opens_now", .bool(pcm.probeError == nil)), ("error", pcm.probeError.map(JSONValue.string) ?? .null),
                ("channels", range(pcm.channels)), ("rates", range(pcm.rates)),
            ])
        })
        try copyText(list.jsonText, to: buffer, capacity: capacity, length: lengthOut)
    }
}

/// `text` into the caller's `buffer` of `capacity` bytes with its NUL; `length` receives its
/// length in bytes (without the NUL). `buffer` NULL: the length only. Too small: HS_ERR_LIMIT,
/// nothing written, the length given.
func copyText(_ text: String, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int,
              length: UnsafeMutablePointer<Int>) throws(Failure) {
    var text = text
    let count = text.utf8.count
    length.pointee = count
    guard let buffer else { return }
    // size_t arrives as Int: a huge capacity reads as negative, and is large enough.
    guard capacity < 0 || count < capacity else {
        throw Failure(HS_ERR_LIMIT, "the text is \(count) bytes and its NUL; capacity is \(UInt(bitPattern: capacity))")
    }
    if count > 0 {
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { buffer.update(from: $0.baseAddress!, count: count) }
        }
    }
    buffer[count] = 0
}
