#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes text and picture files (patterns, clips, plots) with the same safety as sound files.
public enum TextFileWriter {
    /// Writes `text` to `path` through a temporary file (`-`: standard output), never over one
    /// of `inputs` nor anything that is not a regular file.
    public static func write(_ text: String, to path: String, inputs: [FileIdentity] = []) throws(SoundFileError) {
        let bytes = Array(text.utf8)
        if SoundFileWriter.isStandardOutput(path) {
            try writeStandardOutput(bytes, inputs: inputs)
            return
        }
        let file = try TemporaryOutputFile(path: path, inputs: inputs)
        try file.write(bytes)
        try file.commit()
    }

    /// Writes all of `bytes` to standard output, unless it is a regular file that is one of
    /// `inputs` (`-o - >> input`).
    public static func writeStandardOutput(_ bytes: [UInt8], inputs: [FileIdentity] = []) throws(SoundFileError) {
        try SoundFileWriter.checkStandardOutput(inputs: inputs)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw SoundFileError(path: "-", operation: .write, message: "cannot write to standard output: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }
}
