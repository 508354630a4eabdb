// An output file written the way every verb must write one: to a temporary file beside the
// destination (registered with `TemporaryFiles` before it exists, so a signal removes it),
// renamed onto the destination only when complete, given the mode the umask gives a new file,
// never over an input, a symbolic link or anything but a regular file. `SoundFileWriter`
// writes sound files through it; `plot` writes pictures through it.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an output file could not be created, written or put in place: names the file.
public struct OutputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// A file being written safely (see the file's comment). `-` is standard output (written
/// directly). Dropping it before `finish()` removes the temporary file.
public final class OutputFile {
    /// The destination.
    public let path: String
    /// Where to write: the temporary file, or standard output.
    public let descriptor: Int32
    public var isStandardOutput: Bool { temporaryPath.isEmpty }

    private let temporaryPath: String
    private var temporarySlot = -1
    private var finished = false

    /// Whether `path` means standard output.
    public static func isStandardOutput(_ path: String) -> Bool { path == "-" }

    /// Creates the temporary file next to `path` (nothing for `-`).
    /// - Parameter inputs: files that must never be written over (compared by device and inode).
    public init(path: String, inputs: [FileIdentity] = []) throws(OutputFileError) {
        self.path = path
        if Self.isStandardOutput(path) {
            descriptor = STDOUT_FILENO
            temporaryPath = ""
            return
        }
        try Self.checkDestination(path, inputs: inputs)
        // The temporary file lives in the destination folder so the final rename is atomic.
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // The name is registered for removal on signals *before* the file exists (a signal
        // between creating and registering would leave it), then created exclusively.
        var fd: Int32 = -1
        var name = ""
        var slot = -1
        var attempts = 0
        var random = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        repeat {
            attempts += 1
            let suffix = String((0..<6).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
            name = folder + "." + base + ".partial-" + suffix
            slot = TemporaryFiles.register(name)
            fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                let saved = errno
                TemporaryFiles.unregister(slot)
                errno = saved
            }
        } while fd < 0 && errno == EEXIST && attempts < 100
        guard fd >= 0 else {
            throw OutputFileError(path: path, message: "cannot create a file in \(folder.isEmpty ? "." : folder): \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        temporaryPath = name
        temporarySlot = slot
        // Created 0600 (private while written); a finished file gets what the umask gives a new one.
        fchmod(fd, 0o666 & ~Self.currentUmask())
    }

    deinit {
        if !finished { cancel() }
    }

    /// Writes all of `bytes` (retrying short writes).
    public func write(_ bytes: [UInt8]) throws(OutputFileError) {
        guard !finished else { throw OutputFileError(path: path, message: "already finished or cancelled") }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                cancel()
                throw OutputFileError(path: path, message: isStandardOutput ? "cannot write to standard output: \(reason)" : "cannot write: \(reason)")
            }
            done += n
        }
    }

    /// Closes the temporary file and renames it onto `path` (replacing an existing regular file,
    /// checked again now: the destination may have changed while it was written).
    public func finish() throws(OutputFileError) {
        guard !finished else { throw OutputFileError(path: path, message: "already finished or cancelled") }
        if isStandardOutput {
            finished = true
            return
        }
        guard close(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw OutputFileError(path: path, message: "cannot write: \(reason)")
        }
        do {
            try Self.checkDestination(path, inputs: [])
        } catch {
            discard()
            throw error
        }
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            discard()
            throw OutputFileError(path: path, message: "cannot move the finished file into place: \(reason)")
        }
        finished = true
        TemporaryFiles.unregister(temporarySlot)
    }

    /// Abandons the file: nothing is left at `path` or in the temporary location.
    public func cancel() {
        guard !finished else { return }
        if !isStandardOutput { close(descriptor) }
        discard()
    }

    /// Removes the temporary file (its descriptor already closed).
    private func discard() {
        guard !finished else { return }
        if !temporaryPath.isEmpty { unlink(temporaryPath) }
        TemporaryFiles.unregister(temporarySlot)
        finished = true
    }

    /// Refuses a destination that is a symbolic link or not a regular file, or is one of `inputs`.
    public static func checkDestination(_ path: String, inputs: [FileIdentity]) throws(OutputFileError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // does not exist yet: fine
        let type = info.st_mode & S_IFMT
        let what: String? =
            switch type {
            case S_IFREG: nil
            case S_IFLNK: "a symbolic link"
            case S_IFDIR: "a folder"
            case S_IFCHR, S_IFBLK: "a device"
            case S_IFIFO: "a pipe"
            case S_IFSOCK: "a socket"
            default: "not a regular file"
            }
        if let what { throw OutputFileError(path: path, message: "is \(what), not a regular file; not replaced") }
        let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        if inputs.contains(identity) { throw OutputFileError(path: path, message: "is one of the inputs; not written over") }
    }

    /// The process's umask (read from /proc, else by setting and restoring it).
    static func currentUmask() -> mode_t {
        if let fp = fopen("/proc/self/status", "r") {
            defer { fclose(fp) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), fp) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if text.hasPrefix("Umask:") {
                    let digits = text.dropFirst(6).drop { $0 == " " || $0 == "\t" }.prefix { $0 != "\n" && $0 != " " }
                    if let value = mode_t(digits, radix: 8) { return value }
                }
            }
        }
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}

/// A file's identity: device and inode, the same however its path is spelt (hard links,
/// `a/../a/./p.ahap`, symbolic links followed).
public struct FileIdentity: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity of the file at `path` (symbolic links followed), or nil when there is none.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
