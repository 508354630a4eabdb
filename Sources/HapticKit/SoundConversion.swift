// A sound file to haptics: the file streamed a block at a time through the converter (so an
// hour of sound takes the memory of a block plus the result), one channel or their mix, a
// time range, gain or normalisation. Everything from the file is checked first and refused
// with one line naming the file: no channels, a sample rate outside what the analysis takes,
// no frames, a length past what a pattern can hold, NaN or infinite samples, truncated data.

#if canImport(Glibc)
    import Glibc
#endif

/// What `SoundConversion.convert` does to a sound, besides the analysis settings.
public struct SoundConversionOptions: Sendable, Equatable {
    /// Hit sensitivity 0…1, shortest gap between hits (s), breakpoints per second, ducking 0…1
    /// (the share of the continuous layer's amplitude taken under a transient, ``ConversionSettings/ducking``).
    public var sensitivity = 0.5
    public var minimumGap = 0.05
    public var breakpointsPerSecond = 40.0
    public var ducking = 0.5
    /// Gain in dB applied before the analysis (ignored when `normalizeTo` is set).
    public var gainDB = 0.0
    /// Normalise the analysed range's peak to this level (dBFS) instead of a fixed gain.
    public var normalizeTo: Double?
    /// The channel to analyse, 1-based; nil mixes them all (their mean).
    public var channel: Int?
    /// The part of the sound to convert (s); the pattern starts at `from`.
    public var from = 0.0
    public var to: Double?
    /// What the caller calls `channel`, `from` and `to` in its messages (`convert`'s flags by
    /// default; the C library's fields).
    public var names = Names()

    public struct Names: Sendable, Equatable {
        public var channel = "--channel", from = "--from", to = "--to"
        public init() {}
    }

    public init() {}
}

/// The result of a conversion, with what was done.
public struct SoundConversionResult: Sendable {
    public var haptics: ConvertedHaptics
    public var info: SoundFileInfo
    /// The linear gain applied (1 when none).
    public var gain: Double
    /// What was changed to keep the result within the pattern limits (breakpoints per
    /// second lowered for a long sound, the weakest hits left out).
    public var notes: [String] = []
}

/// Sound files to `ConvertedHaptics`.
public enum SoundConversion {
    /// Converts the sound at `path` (any format libsndfile reads).
    public static func convert(soundAt path: String, options: SoundConversionOptions = .init()) throws(SoundFileError) -> SoundConversionResult {
        func refuse(_ message: String) -> SoundFileError { SoundFileError(path: path, operation: .format, message: message) }
        let stream = try SoundFileStream(path: path)
        let info = stream.info
        let rate = Double(info.sampleRate)
        guard Limits.sampleRates.contains(info.sampleRate) else {
            throw refuse(
                "sample rate \(info.sampleRate) Hz is outside the \(Limits.sampleRates.lowerBound)–\(Limits.sampleRates.upperBound) Hz the analysis takes")
        }
        if let channel = options.channel, !(1...info.channels).contains(channel) {
            throw refuse("\(options.names.channel) \(channel): the file has \(info.channels) channel\(info.channels == 1 ? "" : "s")")
        }
        guard info.frames > 0 else { throw refuse("no audio: the file has 0 frames") }
        let first = Int((options.from * rate).rounded())
        guard first < info.frames else {
            throw refuse("\(options.names.from) \(options.from) s is at or past the end of the sound (\(decimalText(info.duration, places: 3)) s)")
        }
        let end = min(info.frames, options.to.map { Int(($0 * rate).rounded()) } ?? Int.max)
        guard end > first else { throw refuse("\(options.names.to) \(options.to ?? 0) s is not after \(options.names.from) \(options.from) s") }
        let length = Double(end - first) / rate
        guard length <= Limits.maxTime else {
            throw refuse(
                "\(decimalText(length, places: 1)) s of sound is past the \(Int(Limits.maxTime)) s a pattern can hold; convert a part of it with \(options.names.from) and \(options.names.to)")
        }

        var gain = pow(10, options.gainDB / 20)
        if let level = options.normalizeTo {
            var peak: Float = 0
            try stream.readMono(from: first, to: end, channel: options.channel) { block in
                for x in block { peak = max(peak, abs(x)) }
            }
            gain = peak > 0 ? pow(10, level / 20) / Double(peak) : 1
        }
        var analysis = AnalysisSettings(sampleRate: rate)
        analysis.gain = gain
        analysis.sensitivity = options.sensitivity
        analysis.minimumGap = options.minimumGap
        var conversion = ConversionSettings()
        conversion.breakpointsPerSecond = options.breakpointsPerSecond
        conversion.ducking = options.ducking
        // Two curves of at most this many points per second must stay within the pattern's
        // control points (a long sound gets fewer per second; 10 % is left for the hits' points).
        var notes: [String] = []
        let affordable = (0.45 * Double(Limits.maxControlPoints) / length).rounded(.down)
        if affordable < conversion.breakpointsPerSecond {
            conversion.breakpointsPerSecond = max(2, affordable)
            notes.append(
                "at most \(Int(conversion.breakpointsPerSecond)) breakpoints per second (not \(Int(options.breakpointsPerSecond))): \(decimalText(length, places: 0)) s of sound must fit the pattern limit of \(Limits.maxControlPoints) control points")
        }
        let converter: SoundConverter
        do {
            converter = try SoundConverter(analysis: analysis, conversion: conversion)
        } catch {
            throw refuse(error.description)
        }
        // Decoding (half the time of an MP3's conversion) on another core, ahead of the analysis.
        try stream.readMonoDecodingAhead(from: first, to: end, channel: options.channel) { block in
            block.withUnsafeBufferPointer { converter.feed($0.baseAddress!, count: $0.count) }
        }
        var haptics = converter.finish()
        // Hits beyond the pattern's element limit (with the events and the curves): the weakest go.
        let points = haptics.stretches.reduce(0) { $0 + $1.intensity.count + $1.sharpness.count }
        let room = Limits.maxElements - 16 - points / 15 - haptics.stretches.reduce(0) { $0 + Int($1.end - $1.start) / 30 + 1 }
        if haptics.transients.count > room {
            let kept = haptics.transients.enumerated().sorted { $0.element.intensity > $1.element.intensity }.prefix(max(0, room))
            notes.append("kept the \(kept.count) strongest of \(haptics.transients.count) hits (the pattern limit of \(Limits.maxElements) elements)")
            haptics.transients = kept.sorted { $0.offset < $1.offset }.map(\.element)
        }
        return SoundConversionResult(haptics: haptics, info: info, gain: gain, notes: notes)
    }
}
