import CSndFile

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes interleaved `Float` frames to any format libsndfile writes (WAV, FLAC, AIFF, CAF…),
/// block by block. Data goes to a temporary file in the destination folder that is renamed
/// onto the destination by `finish()`; an error, `cancel()`, or dropping the writer before
/// `finish()` removes the temporary file, so no half-written file is ever left behind.
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

        /// The format for a file name or bare extension (`out.flac`, `flac`, `AIF`), as listed by
        /// libsndfile itself (`SFC_GET_FORMAT_MAJOR`), or nil if libsndfile has none.
        public init?(extensionOf name: String) {
            let ext = (name.split(separator: "/").last.map(String.init) ?? name)
                .split(separator: ".", omittingEmptySubsequences: false).last.map { $0.lowercased() } ?? ""
            let aliases = ["aif": "aiff", "aifc": "aiff", "wave": "wav", "snd": "au", "oga": "ogg"]
            let wanted = aliases[ext] ?? ext
            guard !wanted.isEmpty else { return nil }
            for format in FileFormat.all where format.fileExtension == wanted {
                self = format
                return
            }
            return nil
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
    private let temporaryPath: String
    private var finished = false
    private let blockFrames = 4096
    private var intBlock: [Int32]

    /// Creates the temporary file next to `path`. `format` nil: inferred from the extension.
    public init(
        path: String, channels: Int, sampleRate: Int, format: FileFormat? = nil,
        sampleFormat: SampleFormat = .int16
    ) throws(SoundFileError) {
        guard channels > 0, sampleRate > 0 else {
            throw SoundFileError(
                path: path, operation: .format, message: "invalid \(channels) channel(s) at \(sampleRate) Hz")
        }
        guard let fileFormat = format ?? FileFormat(extensionOf: path) else {
            throw SoundFileError(
                path: path, operation: .format,
                message: "cannot infer a sound file format from the extension (known: "
                    + FileFormat.all.map(\.fileExtension).joined(separator: ", ") + ")")
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
        if fileFormat.code == Int32(SF_FORMAT_OGG) { subtype = Int32(SF_FORMAT_VORBIS) }
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

        // The temporary file lives in the destination folder so the final rename is atomic.
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array((folder + "." + base + ".partial-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SoundFileError(
                path: path, operation: .open,
                message: "cannot create a file in \(folder.isEmpty ? "." : folder): \(reason)")
        }
        temporaryPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        guard let handle = sf_open_fd(fd, Int32(SFM_WRITE), &info, 1) else {
            let message = String(cString: sf_strerror(nil))
            Glibc.close(fd)
            unlink(temporaryPath)
            throw SoundFileError(path: path, operation: .open, message: message)
        }
        file = handle
        // Float data beyond ±1 is clipped rather than wrapped when libsndfile converts it.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, 1)
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
        file = nil
        let closeResult = sf_close(handle)
        if closeResult != 0 {
            let message = String(cString: sf_error_number(closeResult))
            discard()
            throw SoundFileError(path: path, operation: .finish, message: message)
        }
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            discard()
            throw SoundFileError(path: path, operation: .finish, message: "cannot move the finished file into place: \(reason)")
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
            unlink(temporaryPath)
            finished = true
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
