import CSndFile

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes interleaved `Float` frames to any format libsndfile writes (WAV, FLAC, AIFF, CAF…),
/// block by block, through a `TemporaryOutputFile`: data goes to a temporary file in the destination
/// folder that is renamed onto the destination by `finish()`; an error, `cancel()`, or
/// dropping the writer before `finish()` removes the temporary file, so no half-written file
/// is ever left behind (and `TemporaryFiles.removeOnSignals()` extends that to SIGINT,
/// SIGTERM and SIGHUP).
///
/// The user's files are protected: the destination is refused when it is a symbolic link
/// or anything but a regular file, or when it is one of `inputs` (same device and inode,
/// however the path is spelt). The finished file gets the mode the umask gives a new file.
/// The path `-` is standard output (formats libsndfile can stream: WAV, AU, FLAC, raw...).
/// A WAV past 4 GiB is written as RF64 unless WAV was asked for explicitly (then refused).
public final class SoundFileWriter {
    /// Sample encoding in the file.
    public enum SampleFormat: String, Sendable, CaseIterable {
        case int16 = "16", int24 = "24", float32 = "32f"

        /// Parses the CLI spellings `16`, `24`, `32f` (also `32` and `float`).
        public init?(bits: String) {
            switch bits.lowercased() {
            case "16": self = .int16
            case "24": self = .int24
            case "32f", "32", "float", "f32": self = .float32
            default: return nil
            }
        }

        /// Bytes one sample takes in the file.
        var bytesPerSample: Int {
            switch self {
            case .int16: 2
            case .int24: 3
            case .float32: 4
            }
        }
    }

    /// A container format libsndfile knows (its major format code), e.g. `wav`, `flac`, `aiff`.
    public struct FileFormat: Sendable, Equatable, CustomStringConvertible {
        /// libsndfile's major format code (`SF_FORMAT_WAV`...).
        public var code: Int32
        /// The usual file extension libsndfile gives for it.
        public var fileExtension: String
        public var description: String { fileExtension }

        public static let wav = FileFormat(code: Int32(SF_FORMAT_WAV), fileExtension: "wav")
        public static let flac = FileFormat(code: Int32(SF_FORMAT_FLAC), fileExtension: "flac")
        public static let aiff = FileFormat(code: Int32(SF_FORMAT_AIFF), fileExtension: "aiff")
        /// RF64: WAV with 64-bit sizes, for outputs past 4 GiB.
        public static let rf64 = FileFormat(code: Int32(SF_FORMAT_RF64), fileExtension: "rf64")

        /// The format for a file name or bare extension (`out.flac`, `flac`, `AIF`), as listed by
        /// libsndfile itself (`SFC_GET_FORMAT_MAJOR`), or nil if libsndfile has none.
        public init?(extensionOf name: String) {
            let ext = (name.split(separator: "/").last.map(String.init) ?? name)
                .split(separator: ".", omittingEmptySubsequences: false).last.map { $0.lowercased() } ?? ""
            // (libsndfile lists Ogg as "oga"; ".ogg" is what Ogg Vorbis files are called.)
            let aliases = ["aif": "aiff", "aifc": "aiff", "wave": "wav", "snd": "au", "ogg": "oga"]
            func canonical(_ name: String) -> String { aliases[name] ?? name }
            let wanted = canonical(ext)
            guard !wanted.isEmpty else { return nil }
            for format in FileFormat.all where canonical(format.fileExtension) == wanted {
                self = format
                return
            }
            // Opus is a codec in the Ogg container (written as such: `isOpus`), when this
            // libsndfile has it.
            if wanted == "opus", FileFormat.hasOpus, let ogg = FileFormat.all.first(where: { $0.code == Int32(SF_FORMAT_OGG) }) {
                self = FileFormat(code: ogg.code, fileExtension: "opus")
                return
            }
            return nil
        }

        /// Ogg Opus (rather than Ogg Vorbis).
        var isOpus: Bool { code == Int32(SF_FORMAT_OGG) && fileExtension == "opus" }

        /// Whether this libsndfile encodes and decodes Opus (one of its listed subtypes).
        static var hasOpus: Bool {
            var count: Int32 = 0
            sf_command(nil, Int32(SFC_GET_FORMAT_SUBTYPE_COUNT), &count, Int32(MemoryLayout<Int32>.size))
            for index in 0 ..< count {
                var info = SF_FORMAT_INFO()
                info.format = index
                sf_command(nil, Int32(SFC_GET_FORMAT_SUBTYPE), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
                if info.format == Int32(SF_FORMAT_OPUS) { return true }
            }
            return false
        }

        init(code: Int32, fileExtension: String) {
            self.code = code
            self.fileExtension = fileExtension
        }

        /// Every major format this libsndfile build supports.
        public static var all: [FileFormat] {
            var count: Int32 = 0
            sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR_COUNT), &count, Int32(MemoryLayout<Int32>.size))
            var result: [FileFormat] = []
            for index in 0 ..< count {
                var info = SF_FORMAT_INFO()
                info.format = index
                sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
                guard let ext = info.extension else { continue }
                // libsndfile names WAVEX "wav" too; keep the first (plain WAV) for that extension.
                let name = String(cString: ext).lowercased()
                if !result.contains(where: { $0.fileExtension == name }) {
                    result.append(FileFormat(code: info.format, fileExtension: name))
                }
            }
            return result
        }
    }

    /// The destination path.
    public let path: String
    public let channels: Int
    public let sampleRate: Int
    public let fileFormat: FileFormat
    public let sampleFormat: SampleFormat
    /// Frames written so far.
    public private(set) var framesWritten: Int = 0
    /// Largest absolute sample value written so far (before quantisation).
    public private(set) var peak: Float = 0
    /// `peak` in dB relative to full scale (−inf for silence).
    public var peakDBFS: Double { peak > 0 ? 20 * log10(Double(peak)) : -Double.infinity }

    private var file: OpaquePointer?
    /// The temporary file (nil when writing to standard output).
    private var temporary: TemporaryOutputFile?
    private var finished = false
    private let blockFrames = 4096
    private var intBlock: [Int32]
    /// Frames a plain WAV may still take (nil: no such limit for this format).
    private var plainWAVFramesLeft: Int64?
    /// WAV on a pipe: the frames its header announced (exactly these must be written).
    private var announcedFrames: Int?

    /// The most data a plain WAV file holds: its sizes are 32-bit (4 GiB less the header).
    public static let plainWAVByteLimit: Int64 = 0xFFFF_FFFF - 1024

    /// Whether `path` means standard output.
    public static func isStandardOutput(_ path: String) -> Bool { path == "-" }

    /// Creates the temporary file next to `path` (nothing for `-`, standard output).
    /// - Parameters:
    ///   - format: nil: inferred from the extension (WAV for `-`). A WAV that would pass
    ///     `plainWAVByteLimit` is written as RF64 when inferred, refused when given.
    ///   - inputs: files that must never be written over (compared by device and inode).
    ///   - expectedFrames: the most frames that will be written, when known (chooses RF64 up
    ///     front); for WAV on a pipe, exactly the frames that will be written (the header's
    ///     length, written first: a different count is an error).
    ///   - plainWAVByteLimit: the data bytes a plain WAV may hold (tests lower it).
    ///   - channelMap: where each channel goes (`channelMap(_:)`), written as the channel mask of
    ///     a WAV (then WAVE_FORMAT_EXTENSIBLE), RF64 or CAF file; other formats cannot hold it.
    public init(
        path: String, channels: Int, sampleRate: Int, format: FileFormat? = nil,
        sampleFormat: SampleFormat = .int16, inputs: [FileIdentity] = [], expectedFrames: Int? = nil,
        plainWAVByteLimit: Int64 = SoundFileWriter.plainWAVByteLimit, channelMap: [Int32]? = nil
    ) throws(SoundFileError) {
        guard channels > 0, sampleRate > 0 else {
            throw SoundFileError(
                path: path, operation: .format, message: "invalid \(channels) channel(s) at \(sampleRate) Hz")
        }
        let toStandardOutput = SoundFileWriter.isStandardOutput(path)
        if !toStandardOutput { try TemporaryOutputFile.checkDestination(path, inputs: inputs) }
        guard var fileFormat = format ?? (toStandardOutput ? .wav : FileFormat(extensionOf: path)) else {
            throw SoundFileError(
                path: path, operation: .format,
                message: "cannot infer a sound file format from the extension (known: "
                    + FileFormat.all.map(\.fileExtension).joined(separator: ", ") + ")")
        }
        // Plain WAV has 32-bit sizes: past them RF64 (when WAV was only inferred) or a refusal.
        let bytesPerFrame = Int64(channels * sampleFormat.bytesPerSample)
        if fileFormat == .wav {
            let expectedBytes = expectedFrames.map { Int64($0) * bytesPerFrame } ?? 0
            if expectedBytes > plainWAVByteLimit {
                guard format == nil else {
                    throw SoundFileError(
                        path: path, operation: .format,
                        message: "\(expectedBytes) bytes of samples do not fit a plain WAV file (4 GiB at most); "
                            + "use --format rf64 or w64 (or a .rf64/.w64 name), or a shorter output")
                }
                fileFormat = .rf64
            } else {
                plainWAVFramesLeft = plainWAVByteLimit / bytesPerFrame
            }
        }
        self.path = path
        self.channels = channels
        self.sampleRate = sampleRate
        self.fileFormat = fileFormat
        self.sampleFormat = sampleFormat
        self.intBlock = [Int32](repeating: 0, count: blockFrames * channels)

        var subtype: Int32
        switch sampleFormat {
        case .int16: subtype = Int32(SF_FORMAT_PCM_16)
        case .int24: subtype = Int32(SF_FORMAT_PCM_24)
        case .float32: subtype = Int32(SF_FORMAT_FLOAT)
        }
        if fileFormat.code == Int32(SF_FORMAT_OGG) { subtype = Int32(fileFormat.isOpus ? SF_FORMAT_OPUS : SF_FORMAT_VORBIS) }
        var info = SF_INFO()
        info.channels = Int32(channels)
        info.samplerate = Int32(sampleRate)
        info.format = fileFormat.code | subtype
        guard sf_format_check(&info) != 0 else {
            throw SoundFileError(
                path: path, operation: .format,
                message: "libsndfile cannot write \(sampleFormat.rawValue)-bit samples, \(channels) channel(s) "
                    + "at \(sampleRate) Hz to a \(fileFormat.fileExtension) file")
        }

        if toStandardOutput {
            // `-o - >> input.ahap`: standard output may be a regular file, and one of the inputs.
            try SoundFileWriter.checkStandardOutput(inputs: inputs)
            // libsndfile cannot write WAV headers to a pipe (it would seek back to fill in the
            // sizes); the sizes are known up front here, so the header is written first and
            // the samples follow as raw little-endian data.
            let toPipe = SoundFileWriter.standardOutputIsPipe()
            if fileFormat == .wav && toPipe {
                guard let frames = expectedFrames else {
                    throw SoundFileError(path: path, operation: .open, message: "WAV to a pipe needs the length up front")
                }
                announcedFrames = frames
                let header = SoundFileWriter.wavHeader(
                    frames: Int64(frames), channels: channels, sampleRate: sampleRate, sampleFormat: sampleFormat)
                let written = header.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                guard written == header.count else {
                    throw SoundFileError(path: path, operation: .write, message: "cannot write to standard output: \(String(cString: strerror(errno)))")
                }
                info.format = Int32(SF_FORMAT_RAW) | subtype | Int32(SF_ENDIAN_LITTLE)
            } else if toPipe && !SoundFileWriter.canStream(info) {
                // Asked first on a private pipe: libsndfile may write part of a header
                // before it finds it cannot finish it on a pipe.
                throw SoundFileError(
                    path: path, operation: .open,
                    message: "cannot write \(fileFormat.fileExtension) to standard output: libsndfile cannot stream it to a pipe (wav, flac, au and raw can)")
            }
            guard let handle = sf_open_fd(STDOUT_FILENO, Int32(SFM_WRITE), &info, 0) else {
                throw SoundFileError(
                    path: path, operation: .open,
                    message: "cannot write \(fileFormat.fileExtension) to standard output: \(String(cString: sf_strerror(nil)))")
            }
            file = handle
            sf_command(handle, Int32(SFC_SET_CLIPPING), nil, 1)
            return
        }

        // A channel mask needs WAVE_FORMAT_EXTENSIBLE: the same .wav, the WAVEX header.
        let map = channelMap.flatMap { $0.count == channels ? $0 : nil }
        if map != nil && fileFormat == .wav { info.format = Int32(SF_FORMAT_WAVEX) | subtype }
        // The temporary file lives in the destination folder so the final rename is atomic.
        let output = try TemporaryOutputFile(path: path, inputs: [])
        temporary = output
        guard let handle = sf_open_fd(output.release(), Int32(SFM_WRITE), &info, 1) else {
            let message = String(cString: sf_strerror(nil))
            Glibc.close(output.descriptor)
            output.discard()
            throw SoundFileError(path: path, operation: .open, message: message)
        }
        file = handle
        // Float data beyond ±1 is clipped rather than wrapped when libsndfile converts it.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, 1)
        // (Before any sample: the header is rewritten with it. Formats without a mask say no.)
        if var map { _ = sf_command(handle, Int32(SFC_SET_CHANNEL_MAP_INFO), &map, Int32(map.count * MemoryLayout<Int32>.size)) }
    }

    deinit {
        if !finished { discard() }
    }

    /// Appends interleaved frames (`samples.count` must be a multiple of `channels`).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(SoundFileError) {
        guard let file, !finished else {
            throw SoundFileError(path: path, operation: .write, message: "writer already finished or cancelled")
        }
        guard samples.count % channels == 0 else {
            throw SoundFileError(
                path: path, operation: .write,
                message: "\(samples.count) samples is not a whole number of \(channels)-channel frames")
        }
        guard let base = samples.baseAddress else { return }
        var localPeak = peak
        for sample in samples { localPeak = max(localPeak, abs(sample)) }
        peak = localPeak

        let frames = samples.count / channels
        if let announcedFrames, framesWritten + frames > announcedFrames {
            discard()
            throw SoundFileError(path: path, operation: .write, message: "more frames than the \(announcedFrames) the WAV header on the pipe announced")
        }
        if let left = plainWAVFramesLeft {
            guard Int64(frames) <= left else {
                discard()
                throw SoundFileError(
                    path: path, operation: .write,
                    message: "the output passed the 4 GiB a plain WAV file can hold; use --format rf64 or w64, or a shorter output")
            }
            plainWAVFramesLeft = left - Int64(frames)
        }
        var done = 0
        while done < frames {
            let count = min(blockFrames, frames - done)
            let source = base + done * channels
            let written: sf_count_t
            switch sampleFormat {
            case .float32:
                written = sf_writef_float(file, source, sf_count_t(count))
            case .int16, .int24:
                // Quantise ourselves (x · 2^(bits−1), rounded, clipped) so that k / 2^(bits−1)
                // written and read back is exact; libsndfile scales float writes by 2^(bits−1) − 1.
                let bits: Float = sampleFormat == .int16 ? 32768 : 8_388_608
                let shift: Int32 = sampleFormat == .int16 ? 16 : 8
                written = intBlock.withUnsafeMutableBufferPointer { block in
                    for i in 0 ..< count * channels {
                        let scaled = (source[i] * bits).rounded()
                        let clipped = scaled.isNaN ? 0 : min(max(scaled, -bits), bits - 1)
                        block[i] = Int32(clipped) << shift
                    }
                    return sf_writef_int(file, block.baseAddress, sf_count_t(count))
                }
            }
            if written != sf_count_t(count) {
                let message = String(cString: sf_strerror(file))
                discard()
                throw SoundFileError(path: path, operation: .write, message: message)
            }
            done += count
        }
        framesWritten += frames
    }

    /// Appends interleaved frames.
    public func write(_ samples: [Float]) throws(SoundFileError) {
        try samples.withUnsafeBufferPointer { (buffer) throws(SoundFileError) in try write(buffer) }
    }

    /// Closes the file and renames it onto `path` (replacing an existing file).
    public func finish() throws(SoundFileError) {
        guard let handle = file, !finished else {
            throw SoundFileError(path: path, operation: .finish, message: "writer already finished or cancelled")
        }
        if let announcedFrames, framesWritten != announcedFrames {
            discard()
            throw SoundFileError(path: path, operation: .finish, message: "\(framesWritten) frames written, the WAV header on the pipe announced \(announcedFrames)")
        }
        file = nil
        let closeResult = sf_close(handle)
        if closeResult != 0 {
            let message = String(cString: sf_error_number(closeResult))
            discard()
            throw SoundFileError(path: path, operation: .finish, message: message)
        }
        guard let temporary else {  // standard output
            finished = true
            return
        }
        do { try temporary.commit() } catch {
            finished = true
            throw error
        }
        finished = true
    }

    /// Abandons the file: nothing is left at `path` or in the temporary location.
    public func cancel() {
        discard()
    }

    private func discard() {
        if let handle = file {
            sf_close(handle)
            file = nil
        }
        if !finished {
            temporary?.discard()
            finished = true
        }
    }

    /// Whether libsndfile can write `info`'s format to a pipe: tried on a private pipe.
    static func canStream(_ info: SF_INFO) -> Bool {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return false }
        defer { Glibc.close(fds[0]) }
        // The read end is never read: a header is far below the pipe's buffer.
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        var probe = info
        guard let handle = sf_open_fd(fds[1], Int32(SFM_WRITE), &probe, 1) else {
            Glibc.close(fds[1])
            return false
        }
        sf_close(handle)
        return true
    }

    /// A canonical 44-byte WAV header (PCM, or IEEE float for 32f) for `frames` frames.
    static func wavHeader(frames: Int64, channels: Int, sampleRate: Int, sampleFormat: SampleFormat) -> [UInt8] {
        let bytesPerSample = sampleFormat.bytesPerSample
        let dataBytes = UInt32(clamping: frames * Int64(channels * bytesPerSample))
        var header: [UInt8] = []
        func text(_ s: String) { header += Array(s.utf8) }
        func u32(_ v: UInt32) { header += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        func u16(_ v: UInt16) { header += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        text("RIFF"); u32(dataBytes &+ 36); text("WAVE")
        text("fmt "); u32(16); u16(sampleFormat == .float32 ? 3 : 1); u16(UInt16(channels))
        u32(UInt32(sampleRate)); u32(UInt32(sampleRate * channels * bytesPerSample))
        u16(UInt16(channels * bytesPerSample)); u16(UInt16(bytesPerSample * 8))
        text("data"); u32(dataBytes)
        return header
    }

    /// Whether standard output is a pipe (or anything else that cannot seek back to a header).
    public static func standardOutputIsPipe() -> Bool { lseek(STDOUT_FILENO, 0, SEEK_CUR) < 0 }

    /// Refuses standard output when it is a regular file that is one of `inputs` (`>> input`).
    static func checkStandardOutput(inputs: [FileIdentity]) throws(SoundFileError) {
        var info = stat()
        guard fstat(STDOUT_FILENO, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        if inputs.contains(FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))) {
            throw SoundFileError(path: "-", operation: .open, message: "standard output is one of the inputs; not written over")
        }
    }
}

extension SoundFileWriter {
    /// Writes a whole buffer in one go (temporary file + rename). Returns the peak.
    @discardableResult
    public static func write(
        _ samples: [Float], channels: Int, sampleRate: Int, to path: String, format: FileFormat? = nil,
        sampleFormat: SampleFormat = .int16
    ) throws(SoundFileError) -> Float {
        let writer = try SoundFileWriter(
            path: path, channels: channels, sampleRate: sampleRate, format: format, sampleFormat: sampleFormat)
        try writer.write(samples)
        try writer.finish()
        return writer.peak
    }
}
