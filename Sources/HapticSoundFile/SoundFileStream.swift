import CSndFile

#if canImport(Glibc)
    import Glibc
#endif

/// A sound file read a block at a time (any format libsndfile decodes), so that a file of any
/// length is read in bounded memory. Samples are interleaved `Float` in [-1, 1] (integer
/// formats scale by 2^(bits−1), as `SoundFileReader` does).
///
/// Bad files are refused with the file named: one that cannot be opened or decoded, one
/// without channels or sample rate, and one whose data ends before its header says
/// (truncated): a read that stops short of the header's frame count is an error.
public final class SoundFileStream {
    public let path: String
    public let info: SoundFileInfo
    private var file: OpaquePointer?
    /// Frames read (or skipped by `seek`) so far.
    public private(set) var position: Int = 0

    /// Opens `path` for reading.
    public init(path: String) throws(SoundFileError) {
        self.path = path
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw SoundFileError(path: path, operation: .open, message: fileSystemReason(errno))
        }
        if status.st_mode & S_IFMT == S_IFDIR { throw SoundFileError(path: path, operation: .open, message: "is a directory, not a file") }
        // A pipe or FIFO cannot be read twice (`--normalize` reads the sound twice) nor seeked
        // to `--from`, and opening a FIFO nobody writes to would wait for good.
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw SoundFileError(path: path, operation: .open, message: "is not a regular file (a pipe, FIFO or device); save the sound to a file first")
        }
        var raw = SF_INFO()
        guard let handle = DecoderMessages.quiet(if: DecoderMessages.isMPEG(path: path), { sf_open(path, Int32(SFM_READ), &raw) }) else {
            throw SoundFileError(path: path, operation: .open, message: "cannot read as a sound file: \(String(cString: sf_strerror(nil)))")
        }
        file = handle
        let frames = SoundFileInfo.frames(fromLibrary: raw.frames)
        info = SoundFileInfo(
            frames: frames ?? 0, channels: Int(raw.channels), sampleRate: Int(raw.samplerate), format: raw.format, framesKnown: frames != nil)
        guard raw.channels > 0 else {
            sf_close(handle)
            file = nil
            throw SoundFileError(path: path, operation: .format, message: "the file has no channels")
        }
        guard raw.samplerate > 0 else {
            sf_close(handle)
            file = nil
            throw SoundFileError(path: path, operation: .format, message: "the file has no sample rate")
        }
        // libsndfile reads a file whose data ends early as if it were whole, noting the chunk
        // size it found in its log ("data : 192000 (should be 9600)"): that file is truncated.
        var log = [CChar](repeating: 0, count: 8192)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("data :") || line.hasPrefix("SSND :") {
            let numbers = line.split { !$0.isNumber }.compactMap { Int($0) }
            if line.contains("should be"), numbers.count >= 2, numbers[1] + max(1, Int(raw.channels) * 4) <= numbers[0] {
                sf_close(handle)
                file = nil
                throw SoundFileError(
                    path: path, operation: .read,
                    message: "truncated: its header promises \(numbers[0]) bytes of samples, the file holds \(numbers[1])")
            }
        }
    }

    deinit {
        if let file { sf_close(file) }
    }

    /// Whether the header's frame count is exact (PCM containers), so that less data is a
    /// truncated file. Compressed formats (MP3, Vorbis, Opus) only estimate their length.
    private var knowsItsLength: Bool {
        let major = info.format & Int32(SF_FORMAT_TYPEMASK), subtype = info.format & Int32(SF_FORMAT_SUBMASK)
        if major == Int32(SF_FORMAT_OGG) || major == Int32(SF_FORMAT_MPEG) { return false }
        return ![Int32(SF_FORMAT_VORBIS), Int32(SF_FORMAT_OPUS), Int32(SF_FORMAT_MPEG_LAYER_I), Int32(SF_FORMAT_MPEG_LAYER_II),
            Int32(SF_FORMAT_MPEG_LAYER_III)].contains(subtype)
    }

    /// For a file that does not say its length: decodes it to its end (or `limit` frames) to
    /// count its frames, then goes back to its start.
    public func countDecodableFrames(upTo limit: Int) throws(SoundFileError) -> Int {
        let blockFrames = 4096
        var scratch = [Float](repeating: 0, count: blockFrames * info.channels)
        var total = 0
        while total < limit {
            let got = try scratch.withUnsafeMutableBufferPointer { (b) throws(SoundFileError) in
                try read(into: b.baseAddress!, frames: min(blockFrames, limit - total))
            }
            if got == 0 { break }
            total += got
        }
        guard seek(to: 0) else {
            throw SoundFileError(path: path, operation: .read, message: "cannot go back to the start after counting its frames")
        }
        return total
    }

    /// Moves to frame `frame` (from the start); returns false when the format cannot seek
    /// (then the frames are read and dropped by the caller instead).
    public func seek(to frame: Int) -> Bool {
        guard let file else { return false }
        let result = DecoderMessages.quiet(if: DecoderMessages.isMPEG(format: info.format)) { sf_seek(file, sf_count_t(frame), SEEK_SET) }
        guard result >= 0 else { return false }
        position = Int(result)
        return true
    }

    /// Reads up to `frames` frames into `buffer` (room for `frames × channels` samples);
    /// returns the frames read, 0 at the end of the file.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(SoundFileError) -> Int {
        guard let file else { return 0 }
        let got = DecoderMessages.quiet(if: DecoderMessages.isMPEG(format: info.format)) { sf_readf_float(file, buffer, sf_count_t(frames)) }
        if got < 0 || (got == 0 && sf_error(file) != Int32(SF_ERR_NO_ERROR)) {
            throw SoundFileError(path: path, operation: .read, message: "cannot decode: \(String(cString: sf_strerror(file)))")
        }
        if got == 0, info.frames > 0, position < info.frames, knowsItsLength {
            throw SoundFileError(
                path: path, operation: .read,
                message: "truncated: the header promises \(info.frames) frames, the data ends after \(position)")
        }
        position += Int(got)
        return Int(got)
    }

    /// Reads frames `first..<end` as mono blocks (one channel, 1-based, or the mean of all),
    /// refusing NaN and infinite samples with where they are; `body` gets each block (at most
    /// 4096 frames). A file that cannot seek is read from its start.
    public func readMono(from first: Int, to end: Int, channel: Int?, _ body: ([Float]) -> Void) throws(SoundFileError) {
        let channels = info.channels
        if let channel, !(1...channels).contains(channel) {
            throw SoundFileError(path: path, operation: .format, message: "channel \(channel): the file has \(channels)")
        }
        let blockFrames = 4096
        var interleaved = [Float](repeating: 0, count: blockFrames * channels)
        var mono = [Float](repeating: 0, count: blockFrames)
        if !seek(to: first) || position != first { _ = seek(to: 0) }
        while position < end {
            let start = position
            let want = min(blockFrames, end - start)
            let got = try interleaved.withUnsafeMutableBufferPointer { (b) throws(SoundFileError) in
                try read(into: b.baseAddress!, frames: want)
            }
            if got == 0 { break }
            var count = 0
            // Frames before `first` (read and dropped when the file could not seek there).
            for frame in min(got, max(0, first - start))..<got {
                let base = frame * channels
                var value: Float
                if let channel {
                    value = interleaved[base + channel - 1]
                } else {
                    value = 0
                    for c in 0..<channels { value += interleaved[base + c] }
                    value /= Float(channels)
                }
                guard value.isFinite else {
                    let bad = channel.map { $0 - 1 } ?? (0..<channels).first { !interleaved[base + $0].isFinite } ?? 0
                    throw SoundFileError.nonFiniteSample(
                        path: path, frame: start + frame, sampleRate: info.sampleRate, channel: bad, value: interleaved[base + bad])
                }
                mono[count] = value
                count += 1
            }
            if count > 0 { body(Array(mono[0..<count])) }
        }
    }
}
