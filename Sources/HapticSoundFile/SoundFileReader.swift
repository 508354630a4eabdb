import CSndFile
import HapticRender

/// What libsndfile reports about a file without decoding it.
public struct SoundFileInfo: Sendable, Equatable {
    public var frames: Int
    public var channels: Int
    public var sampleRate: Int
    /// libsndfile's format code (major | subtype), e.g. `SF_FORMAT_WAV | SF_FORMAT_PCM_24`.
    public var format: Int32
    /// Whether the file says how long it is. A damaged or truncated Ogg does not: libsndfile
    /// gives SF_COUNT_MAX frames (taken as a length, 192 million years at 48 kHz); `frames`
    /// is then 0 and the length is what decodes.
    public var framesKnown = true

    /// libsndfile's frame count, with its "unknown" (SF_COUNT_MAX, or anything negative) as such.
    public static func frames(fromLibrary count: Int64) -> Int? {
        count >= 0 && count < Int64.max ? Int(count) : nil
    }
    /// Seconds of audio.
    public var duration: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
}

/// Reads any file libsndfile can decode (WAV, FLAC, AIFF, CAF, Ogg…; integer or
/// float samples) into interleaved `Float` in [-1, 1].
public enum SoundFileReader {
    /// Decodes the whole file at `path`.
    /// Integer samples map to value / 2^(bits−1), so 16- and 24-bit data round-trip exactly
    /// with `SoundFileWriter`. A file longer than `maxSeconds` is refused: from its header
    /// before anything is decoded, or as soon as the frames read pass it (some formats do not
    /// know their length, and a header can under-report it).
    public static func read(_ path: String, maxSeconds: Double = .infinity) throws(SoundFileError) -> SoundBuffer {
        var info = SF_INFO()
        guard let file = DecoderMessages.quiet(if: DecoderMessages.isMPEG(path: path), { sf_open(path, Int32(SFM_READ), &info) }) else {
            throw SoundFileError(path: path, operation: .open, message: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        let talks = DecoderMessages.isMPEG(format: info.format)
        let channels = Int(info.channels)
        guard channels > 0, info.samplerate > 0 else {
            throw SoundFileError(path: path, operation: .format, message: "no channels or no sample rate in the file")
        }
        let maxFrames = maxSeconds * Double(info.samplerate)
        func tooLong() -> SoundFileError {
            SoundFileError(path: path, operation: .read, message: "longer than the \(maxSeconds) s limit for sounds")
        }
        // (A length the file does not know is checked as the frames are read.)
        if let frames = SoundFileInfo.frames(fromLibrary: info.frames), Double(frames) > maxFrames { throw tooLong() }
        var samples = [Float]()
        if info.frames > 0, info.frames < Int64(Int32.max) { samples.reserveCapacity(Int(info.frames) * channels) }
        // Read in chunks until end of file: some formats do not know their length up front.
        let chunkFrames = 16_384
        var chunk = [Float](repeating: 0, count: chunkFrames * channels)
        while true {
            let got = chunk.withUnsafeMutableBufferPointer { buffer in
                DecoderMessages.quiet(if: talks) { sf_readf_float(file, buffer.baseAddress, sf_count_t(chunkFrames)) }
            }
            if got < 0 || (got == 0 && sf_error(file) != Int32(SF_ERR_NO_ERROR)) {
                throw SoundFileError(path: path, operation: .read, message: String(cString: sf_strerror(file)))
            }
            if got == 0 { break }
            samples.append(contentsOf: chunk[0 ..< Int(got) * channels])
            if Double(samples.count / channels) > maxFrames { throw tooLong() }
        }
        if sf_error(file) != Int32(SF_ERR_NO_ERROR) {
            throw SoundFileError(path: path, operation: .read, message: String(cString: sf_strerror(file)))
        }
        return SoundBuffer(channels: channels, sampleRate: Double(info.samplerate), samples: samples)
    }

    /// Reads the header of `path` (length, channels, rate, format).
    public static func info(_ path: String) throws(SoundFileError) -> SoundFileInfo {
        var info = SF_INFO()
        guard let file = DecoderMessages.quiet(if: DecoderMessages.isMPEG(path: path), { sf_open(path, Int32(SFM_READ), &info) }) else {
            throw SoundFileError(path: path, operation: .open, message: String(cString: sf_strerror(nil)))
        }
        sf_close(file)
        let frames = SoundFileInfo.frames(fromLibrary: info.frames)
        return SoundFileInfo(
            frames: frames ?? 0, channels: Int(info.channels), sampleRate: Int(info.samplerate),
            format: info.format, framesKnown: frames != nil)
    }
}
