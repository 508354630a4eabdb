import CHapticSynth
import HapticKit

// hs_pattern_*: loading (AHAP and .haptic), freeing, and what a pattern holds.

@c(hs_pattern_load_file)
public func hs_pattern_load_file(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ path: UnsafePointer<CChar>?) -> Int32 {
    run("hs_pattern_load_file") { () throws(Failure) in
        let out = try required(out, "out")
        out.pointee = nil
        let path = try requiredString(path, "path")
        let decoded: DecodedAHAP
        do throws(PatternLoadError) { decoded = try AHAPPattern.load(file: path) } catch { throw error.failure(path) }
        try patternTable.give(CPattern(decoded, path: path), to: out)
    }
}

@c(hs_pattern_load_json)
public func hs_pattern_load_json(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ json: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
    run("hs_pattern_load_json") { () throws(Failure) in
        let out = try required(out, "out")
        out.pointee = nil
        guard let json else { throw .invalidArgument("json is NULL") }
        // size_t arrives as Int: SIZE_MAX and the like are negative here.
        guard length >= 0, length <= Limits.maxFileBytes else {
            throw Failure(HS_ERR_LIMIT, "length \(UInt(bitPattern: length)) is over the \(Limits.maxFileBytes >> 20) MiB limit")
        }
        let bytes = Array(UnsafeRawBufferPointer(start: json, count: length))
        let decoded: DecodedAHAP
        do throws(PatternLoadError) { decoded = try AHAPPattern.load(from: bytes) } catch { throw error.failure("json") }
        try patternTable.give(CPattern(decoded, path: nil), to: out)
    }
}

@c(hs_pattern_free)
public func hs_pattern_free(_ pattern: OpaquePointer?) {
    runVoid("hs_pattern_free") { () throws(Failure) in
        guard pattern != nil else { return }  // free(NULL) is nothing, as in C
        _ = try patternTable.take(pattern, "pattern")
    }
}

@c(hs_pattern_duration)
public func hs_pattern_duration(_ pattern: OpaquePointer?, _ seconds: UnsafeMutablePointer<Double>?) -> Int32 {
    run("hs_pattern_duration") { () throws(Failure) in
        let out = try required(seconds, "seconds")
        out.pointee = try patternTable.with(pattern, "pattern") { $0.pattern.duration }
    }
}

@c(hs_pattern_event_count)
public func hs_pattern_event_count(_ pattern: OpaquePointer?, _ count: UnsafeMutablePointer<Int32>?) -> Int32 {
    run("hs_pattern_event_count") { () throws(Failure) in
        let out = try required(count, "count")
        out.pointee = try patternTable.with(pattern, "pattern") { Int32(clamping: $0.pattern.events.count) }
    }
}

@c(hs_pattern_warning_count)
public func hs_pattern_warning_count(_ pattern: OpaquePointer?, _ count: UnsafeMutablePointer<Int32>?) -> Int32 {
    run("hs_pattern_warning_count") { () throws(Failure) in
        let out = try required(count, "count")
        out.pointee = try patternTable.with(pattern, "pattern") { Int32(clamping: $0.warnings.count) }
    }
}

@c(hs_pattern_warning)
public func hs_pattern_warning(_ pattern: OpaquePointer?, _ index: Int32, _ text: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    run("hs_pattern_warning") { () throws(Failure) in
        let out = try required(text, "text")
        out.pointee = try patternTable.with(pattern, "pattern") { (p: CPattern) throws(Failure) -> UnsafePointer<CChar> in
            guard index >= 0, Int(index) < p.warnings.count else {
                throw .invalidArgument("index \(index) is outside 0..<\(p.warnings.count)")
            }
            return UnsafePointer(p.warnings[Int(index)])
        }
    }
}

extension PatternLoadError {
    /// The C status and message of a pattern that did not load (`source`: its path, or "json").
    func failure(_ source: String) -> Failure {
        switch self {
        case .invalid, .soundFile: Failure(HS_ERR_PARSE, "\(source): \(self)")
        case .unsupported: Failure(HS_ERR_UNSUPPORTED, "\(source): \(self)")
        case .unreadable: Failure(HS_ERR_IO, "\(source): \(self)")
        }
    }
}
