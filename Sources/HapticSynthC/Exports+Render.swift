import CHapticSynth
import HapticKit

// Offline rendering of a pattern without an engine: into the caller's buffer or a sound file,
// as `hapticsynth render` does (the same preparation, layout, profile, tail and ending).

@c(hs_render_options_init)
public func hs_render_options_init(_ options: UnsafeMutablePointer<hs_render_options>?) -> Int32 {
    run("hs_render_options_init") { () throws(Failure) in
        let options = try required(options, "options")
        options.pointee = hs_render_options()
        options.pointee.struct_size = MemoryLayout<hs_render_options>.size
    }
}

/// A pattern prepared and streamed the way the options say.
struct RenderRequest {
    var stream: OfflineRenderStream
    var sampleRate: Int
    var bits: SoundFileWriter.SampleFormat
    /// Files the render reads (the pattern, its sounds, the profile file): never written over.
    var inputs: [FileIdentity]

    init(_ pattern: CPattern, _ options: UnsafePointer<hs_render_options>?) throws(Failure) {
        var given = hs_render_options()
        if options != nil { given = try versioned(options, "options", hs_render_options()) }
        sampleRate = try HapticSynthC.sampleRate(Double(given.sample_rate), "options->sample_rate")
        let profileName = try string(given.profile, "options->profile")
        // No folder named: the one the CLI's render uses (DataFolders).
        let assets = try string(given.assets_folder, "options->assets_folder") ?? LibraryDataFolders.search.find(.assets)?.path
        let profile = try HapticSynthC.profile(profileName, assetsFolder: assets)
        let layout = try string(given.layout, "options->layout").map { (text: String) throws(Failure) in try HapticSynthC.layout(text, "options->layout") }
        guard given.tail_seconds.isFinite, (0...3600).contains(given.tail_seconds) else {
            throw .invalidArgument("options->tail_seconds \(given.tail_seconds) is outside 0...3600")
        }
        switch given.bits {
        case 0, 16: bits = .int16
        case 24: bits = .int24
        case 32: bits = .float32
        default: throw .invalidArgument("options->bits \(given.bits) is not 16, 24 or 32 (float)")
        }
        let sounds = pattern.path.map { SoundLibrary(patternFile: $0, assetsFolder: assets) } ?? SoundLibrary(assetsFolder: assets)
        let prepared: PreparedPattern
        do {
            prepared = try PreparedPattern(pattern.pattern, profile: profile, sampleRate: Double(sampleRate), sounds: sounds)
        } catch {
            throw Failure(HS_ERR_PARSE, "the pattern cannot be prepared: \(error)")
        }
        // As `render --max-duration`'s default: refused before anything is rendered.
        guard prepared.duration + given.tail_seconds <= Limits.defaultMaxOutputSeconds else {
            throw Failure(HS_ERR_LIMIT, "the output would last \(prepared.duration + given.tail_seconds) s, longer than \(Limits.defaultMaxOutputSeconds) s")
        }
        stream = OfflineRenderStream(pattern: prepared, layout: layout, tail: given.tail_seconds,
                                     ending: given.exact_length != 0 ? .exactLength : .silence)
        // Never written over: the pattern's source file (an AHAP, or the sound it was converted
        // from), the sounds it plays, the profile file.
        let profileFile = profileName.flatMap { name in
            ActuatorProfile.builtIn(named: name) != nil ? nil
                : ActuatorProfile.assetsFile(named: name, assetsFolder: assets) ?? name
        }
        inputs = ([pattern.path, profileFile].compactMap { $0 } + pattern.pattern.events.compactMap(\.waveformPath).compactMap(sounds.resolve))
            .compactMap(FileIdentity.init(path:))
    }
}

@c(hs_pattern_render)
public func hs_pattern_render(_ pattern: OpaquePointer?, _ options: UnsafePointer<hs_render_options>?,
                              _ out: UnsafeMutablePointer<Float>?, _ capacityFrames: Int,
                              _ frames: UnsafeMutablePointer<Int>?, _ channels: UnsafeMutablePointer<Int32>?) -> Int32 {
    run("hs_pattern_render") { () throws(Failure) in
        let framesOut = try required(frames, "frames")
        framesOut.pointee = 0
        let p = try patternTable.with(pattern, "pattern") { $0 }
        var request = try RenderRequest(p, options)
        let ch = request.stream.channels
        channels?.pointee = Int32(ch)
        // size_t arrives as Int: a huge capacity reads as negative; the buffer is what it is.
        let capacity = out == nil ? 0 : (capacityFrames < 0 ? Int.max / max(1, ch) : capacityFrames)
        var total = 0
        if let out {
            while total < capacity {
                let n = request.stream.render(into: out + total * ch, maxFrames: min(capacity - total, 1 << 16))
                if n == 0 { break }
                total += n
            }
        }
        // The rest (or all, for a length query) only counted.
        let block = 4096
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: block * ch)
        defer { scratch.deallocate() }
        var beyond = 0
        while true {
            let n = request.stream.render(into: scratch, maxFrames: block)
            if n == 0 { break }
            beyond += n
        }
        framesOut.pointee = total + beyond
        if out != nil && beyond > 0 {
            throw Failure(HS_ERR_LIMIT, "the render is \(total + beyond) frames; capacity_frames is \(capacityFrames)")
        }
    }
}

@c(hs_pattern_render_file)
public func hs_pattern_render_file(_ pattern: OpaquePointer?, _ options: UnsafePointer<hs_render_options>?,
                                   _ path: UnsafePointer<CChar>?) -> Int32 {
    run("hs_pattern_render_file") { () throws(Failure) in
        let path = try requiredString(path, "path")
        let p = try patternTable.with(pattern, "pattern") { $0 }
        var request = try RenderRequest(p, options)
        do throws(SoundFileError) {
            // As `hapticsynth render` makes it: the format chosen for the longest ring-out, and a
            // WAV header on a pipe holding the exact length that follows.
            let writer = try SoundFileWriter(path: path, for: request.stream, sampleFormat: request.bits, inputs: request.inputs)
            try writer.write(&request.stream)
        } catch {
            throw Failure(HS_ERR_IO, error.description)
        }
    }
}
