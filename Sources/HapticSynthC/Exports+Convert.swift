import CHapticSynth
import HapticKit

// hs_pattern_from_sound_file: a sound turned into a pattern, as `hapticsynth convert` does it,
// so that an engine can make the haptics of its own sound effects when it loads them.

/// `convert`'s defaults, in its units (percent, ms), for fields a caller's struct does not have.
private let convertDefaults: hs_convert_options = {
    var o = hs_convert_options()
    o.struct_size = MemoryLayout<hs_convert_options>.size
    o.sensitivity = 50
    o.min_gap_ms = 50
    o.ducking = 50
    o.breakpoints_per_second = 40
    o.gate_dbfs = ConversionRequest().gateDBFS
    return o
}()

@c(hs_convert_options_init)
public func hs_convert_options_init(_ options: UnsafeMutablePointer<hs_convert_options>?) -> Int32 {
    run("hs_convert_options_init") { () throws(Failure) in
        try required(options, "options").pointee = convertDefaults
    }
}

@c(hs_pattern_from_sound_file)
public func hs_pattern_from_sound_file(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ path: UnsafePointer<CChar>?,
                                       _ options: UnsafePointer<hs_convert_options>?) -> Int32 {
    run("hs_pattern_from_sound_file") { () throws(Failure) in
        let out = try required(out, "out")
        out.pointee = nil
        let path = try requiredString(path, "path")
        let given = options == nil ? convertDefaults : try versioned(options, "options", convertDefaults)
        let request = try conversionRequest(given)
        var settings = request.options
        settings.names.channel = "options->channel"
        settings.names.from = "options->from_seconds"
        settings.names.to = "options->to_seconds"
        settings.names.normalize = "options->normalize"
        settings.names.gate = "options->gate_dbfs"
        let conversion: SoundConversionResult
        do throws(SoundFileError) {
            conversion = try SoundConversion.convert(soundAt: path, options: settings)
        } catch {
            throw Failure(error.operation == .open || error.operation == .read ? HS_ERR_IO : HS_ERR_UNSUPPORTED, error.description)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        // (The metadata `convert` writes: the same options make the same file through each door.)
        let pattern = conversion.ahapPattern(metadata: request.ahapMetadata(source: name))  // (a silent sound keeps its length)
        try patternTable.give(CPattern(DecodedAHAP(pattern: pattern, warnings: []), path: path), to: out)
    }
}

/// The C options checked (every number finite and within `convert`'s ranges), as `convert`'s request.
private func conversionRequest(_ given: hs_convert_options) throws(Failure) -> ConversionRequest {
    typealias Ranges = SoundConversionOptions.Ranges
    let ranges: [(value: Double, range: ClosedRange<Double>, name: String)] = [
        (given.sensitivity, Ranges.sensitivityPercent, "sensitivity"), (given.min_gap_ms, Ranges.minimumGapMilliseconds, "min_gap_ms"),
        (given.ducking, Ranges.duckingPercent, "ducking"), (given.breakpoints_per_second, Ranges.breakpointsPerSecond, "breakpoints_per_second"),
        (given.gain_db, Ranges.gainDB, "gain_db"), (given.normalize_dbfs, Ranges.normalizeDBFS, "normalize_dbfs"),
        (given.from_seconds, Ranges.seconds, "from_seconds"), (given.to_seconds, Ranges.seconds, "to_seconds"),
        (given.gate_dbfs, Ranges.gateDBFS, "gate_dbfs"),
    ]
    for (value, range, name) in ranges where !(value.isFinite && range.contains(value)) {
        throw .invalidArgument("options->\(name) \(value) is outside \(range.lowerBound)...\(range.upperBound)")
    }
    guard given.channel >= 0 else { throw .invalidArgument("options->channel \(given.channel) is negative (0: the mean of all)") }
    if given.normalize != 0 && given.gain_db != 0 {
        throw .invalidArgument("options->normalize and options->gain_db \(given.gain_db): give one of them")
    }
    if given.to_seconds != 0 && given.to_seconds <= given.from_seconds {
        throw .invalidArgument("options->to_seconds \(given.to_seconds) is not after options->from_seconds \(given.from_seconds)")
    }
    var r = ConversionRequest()
    r.sensitivityPercent = given.sensitivity
    r.minimumGapMilliseconds = given.min_gap_ms
    r.duckingPercent = given.ducking
    r.breakpointsPerSecond = given.breakpoints_per_second
    r.gainDB = given.gain_db
    r.normalizeDBFS = given.normalize != 0 ? given.normalize_dbfs : nil
    r.gateDBFS = given.gate_dbfs
    r.channel = given.channel == 0 ? nil : Int(given.channel)
    r.from = given.from_seconds
    r.to = given.to_seconds == 0 ? nil : given.to_seconds
    return r
}
