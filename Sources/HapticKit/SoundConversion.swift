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
    /// The noise gate (dBFS, after the gain): below it the sound counts as silence (no
    /// continuous event there), as `follow --gate` (``AnalysisSettings/gate``).
    public var gateDBFS = -60.0
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
        /// The options a note about a silent result suggests (nil: the caller has none of that name).
        public var normalize: String? = "--normalize", gate: String? = "--gate"
        public init() {}
    }

    public init() {}

    /// The range each option takes in the units `convert` and the C library give it in
    /// (percent, milliseconds, dB, dBFS, seconds): one statement of them for every caller.
    public enum Ranges {
        public static let sensitivityPercent: ClosedRange<Double> = 0...100
        public static let minimumGapMilliseconds: ClosedRange<Double> = 10...10_000
        public static let duckingPercent: ClosedRange<Double> = 0...100
        public static let breakpointsPerSecond: ClosedRange<Double> = 2...1000
        public static let gainDB: ClosedRange<Double> = -60...60
        public static let normalizeDBFS: ClosedRange<Double> = -60...0
        /// The noise gate, as `follow --gate` takes it.
        public static let gateDBFS: ClosedRange<Double> = -120...0
        /// `from` and `to`.
        public static let seconds: ClosedRange<Double> = 0...86_400
    }
}

/// The result of a conversion, with what was done.
public struct SoundConversionResult: Sendable {
    public var haptics: ConvertedHaptics
    public var info: SoundFileInfo
    /// The linear gain applied (1 when none).
    public var gain: Double
    /// The loudest sample of the converted range (of the analysed channel or mix, before the
    /// gain), in dBFS (-infinity for digital silence).
    public var peakDBFS = -Double.infinity
    /// What was changed to keep the result within the pattern limits (breakpoints per
    /// second lowered for a long sound, the weakest hits left out).
    public var notes: [String] = []
}

/// Sound files to `ConvertedHaptics`.
public enum SoundConversion {
    /// Converts the sound at `path` (any format libsndfile reads).
    public static func convert(soundAt path: String, options: SoundConversionOptions = .init()) throws(SoundFileError) -> SoundConversionResult {
        try convert(soundAt: path, options: options, sensitivities: [options.sensitivity])[0]
    }

    /// Converts the sound at `path` once per sensitivity (each 0…1; `options.sensitivity` is not
    /// used), reading, decoding and analysing it once: every result is what `convert` gives with
    /// that sensitivity. At least one sensitivity.
    static func convert(
        soundAt path: String, options: SoundConversionOptions, sensitivities: [Double]
    ) throws(SoundFileError) -> [SoundConversionResult] {
        precondition(!sensitivities.isEmpty, "at least one sensitivity")
        let plan = try Plan(path: path, options: options)
        let converter: SoundConverter
        do {
            converter = try SoundConverter(analysis: plan.analysis, conversion: plan.conversion, sensitivities: sensitivities)
        } catch {
            throw plan.refuse(error.description)
        }
        // Decoding (half the time of an MP3's conversion) on another core, ahead of the analysis.
        var peak: Float = 0
        try plan.stream.readMonoDecodingAhead(from: plan.first, to: plan.end, channel: options.channel) { block in
            for x in block { peak = max(peak, abs(x)) }
            block.withUnsafeBufferPointer { samples in converter.feed(samples.baseAddress!, count: samples.count) }
        }
        let peakDBFS = 20 * log10(Double(peak))
        return converter.finishEach().map { converted in
            var haptics = converted
            var notes = plan.notes
            if let note = fitTransients(&haptics) { notes.append(note) }
            if haptics.stretches.isEmpty && haptics.transients.isEmpty {
                notes.append(silenceNote(peakDBFS: peakDBFS, gainDB: 20 * log10(plan.analysis.gain), options: options))
            }
            var result = SoundConversionResult(haptics: haptics, info: plan.stream.info, gain: plan.analysis.gain, notes: notes)
            result.peakDBFS = peakDBFS
            return result
        }
    }

    /// Why a conversion gave no event, with the sound's level and what to change.
    static func silenceNote(peakDBFS: Double, gainDB: Double, options: SoundConversionOptions) -> String {
        guard peakDBFS.isFinite else { return "the sound is silent (every sample 0): the pattern is empty (its length kept)" }
        let level = decimalText(peakDBFS, places: 1)
        let after = gainDB.isFinite && abs(gainDB) > 0.05 ? " (\(decimalText(peakDBFS + gainDB, places: 1)) dBFS after the gain)" : ""
        var remedies: [String] = []
        if let normalize = options.names.normalize { remedies.append("\(normalize) -1 to raise it") }
        if let gate = options.names.gate { remedies.append("a \(gate) below its level") }
        let hint = remedies.isEmpty ? "" : "; try " + remedies.joined(separator: " or ")
        return "the sound peaks at \(level) dBFS\(after), nothing above the \(decimalText(options.gateDBFS, places: 0)) dBFS gate: "
            + "the pattern is empty (its length kept)\(hint)"
    }

    /// Leaves out the weakest hits beyond the pattern's element limit (with the events and the
    /// curves); says so when it does.
    static func fitTransients(_ haptics: inout ConvertedHaptics) -> String? {
        let points = haptics.stretches.reduce(0) { $0 + $1.intensity.count + $1.sharpness.count }
        let room = Limits.maxElements - 16 - points / 15 - haptics.stretches.reduce(0) { $0 + Int($1.end - $1.start) / 30 + 1 }
        guard haptics.transients.count > room else { return nil }
        let kept = haptics.transients.enumerated().sorted { $0.element.intensity > $1.element.intensity }.prefix(max(0, room))
        let note = "kept the \(kept.count) strongest of \(haptics.transients.count) hits (the pattern limit of \(Limits.maxElements) elements)"
        haptics.transients = kept.sorted { $0.offset < $1.offset }.map(\.element)
        return note
    }

    /// What a conversion decides before it reads the samples: the file checked and opened, the
    /// range, the gain, the analysis and conversion settings (a long sound's lower breakpoint
    /// budget, with its note).
    struct Plan {
        let path: String
        let stream: SoundFileStream
        let first: Int
        let end: Int
        var analysis: AnalysisSettings
        var conversion = ConversionSettings()
        var notes: [String] = []

        /// A refusal naming the file.
        func refuse(_ message: String) -> SoundFileError { Self.refuse(path, message) }
        static func refuse(_ path: String, _ message: String) -> SoundFileError {
            SoundFileError(path: path, operation: .format, message: message)
        }

        init(path: String, options: SoundConversionOptions) throws(SoundFileError) {
            func refuse(_ message: String) -> SoundFileError { Self.refuse(path, message) }
            self.path = path
            stream = try SoundFileStream(path: path)
            let info = stream.info
            let rate = Double(info.sampleRate)
            guard Limits.sampleRates.contains(info.sampleRate) else {
                throw refuse(
                    "sample rate \(info.sampleRate) Hz is outside the \(Limits.sampleRates.lowerBound)–\(Limits.sampleRates.upperBound) Hz the analysis takes")
            }
            if let channel = options.channel, !(1...info.channels).contains(channel) {
                throw refuse("\(options.names.channel) \(channel): the file has \(info.channels) channel\(info.channels == 1 ? "" : "s")")
            }
            // A file that does not say its length (a truncated Ogg) is as long as what decodes:
            // counted first (one more decoding pass, for such files only), up to past the limit.
            var frames = info.frames
            if !info.framesKnown {
                frames = try stream.countDecodableFrames(upTo: Int(Limits.maxTime * rate) + 1)
                guard frames > 0 else { throw refuse("no audio decodes (the file is truncated or damaged)") }
                notes.append(
                    "the file does not say how long it is (truncated or damaged?): converted the \(decimalText(Double(frames) / rate, places: 3)) s that decode")
            }
            guard frames > 0 else { throw refuse("no audio: the file has 0 frames") }
            first = Int((options.from * rate).rounded())
            guard first < frames else {
                throw refuse("\(options.names.from) \(options.from) s is at or past the end of the sound (\(decimalText(Double(frames) / rate, places: 3)) s)")
            }
            end = min(frames, options.to.map { Int(($0 * rate).rounded()) } ?? Int.max)
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
            analysis = AnalysisSettings(sampleRate: rate)
            analysis.gain = gain
            analysis.gate = pow(10, options.gateDBFS / 20)
            analysis.sensitivity = options.sensitivity
            analysis.minimumGap = options.minimumGap
            conversion.breakpointsPerSecond = options.breakpointsPerSecond
            conversion.ducking = options.ducking
            // Two curves of at most this many points per second must stay within the pattern's
            // control points (a long sound gets fewer per second; 10 % is left for the hits' points).
            let affordable = (0.45 * Double(Limits.maxControlPoints) / length).rounded(.down)
            if affordable < conversion.breakpointsPerSecond {
                conversion.breakpointsPerSecond = max(2, affordable)
                notes.append(
                    "at most \(Int(conversion.breakpointsPerSecond)) breakpoints per second (not \(Int(options.breakpointsPerSecond))): \(decimalText(length, places: 0)) s of sound must fit the pattern limit of \(Limits.maxControlPoints) control points")
            }
        }
    }
}

extension SoundConversionResult {
    /// The AHAP pattern of the conversion (`ConvertedHaptics.ahapPattern`). One with no event
    /// keeps the sound's length: AHAP has no length field, so it gets silent continuous events
    /// (intensity 0) from 0 to the sound's end, which `info` reports and the renderer plays as
    /// that long, as Core Haptics does.
    public func ahapPattern(audio: String? = nil, metadata: JSONValue? = nil) -> AHAPPattern {
        let pattern = haptics.ahapPattern(audio: audio, metadata: metadata)
        guard haptics.stretches.isEmpty, haptics.transients.isEmpty, haptics.duration > 0 else { return pattern }
        return .assembled(
            events: pattern.events + Event.continuousSpan(from: 0, to: haptics.duration, intensity: 0, sharpness: 0),
            curves: [], metadata: metadata)
    }
}
