// The safe way to replace a user's file, shared by the sound writer and the text writer:
// the destination is checked (never a symbolic link or anything but a regular file, never
// one of the inputs), data goes to a temporary file beside it (registered for removal on
// signals before it exists, created exclusively, private while written, then given the mode
// the umask gives a new file), and the finished file is renamed into place after checking
// the destination again. Dropping it unfinished removes the temporary file.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A temporary file that becomes `path` when committed.
public final class TemporaryOutputFile {
    /// The destination.
    public let path: String
    /// The temporary file's path (in the destination's folder, so the rename is atomic).
    public let temporaryPath: String
    /// The open descriptor (write-only). `commit` and `discard` close it unless `release()`
    /// handed it to someone else (libsndfile, which closes it itself).
    public private(set) var descriptor: Int32
    private let slot: Int
    private var done = false
    private var owned = true

    /// Checks `path` against `inputs` and creates the temporary file beside it.
    public init(path: String, inputs: [FileIdentity]) throws(SoundFileError) {
        try TemporaryOutputFile.checkDestination(path, inputs: inputs)
        self.path = path
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // The name is registered for removal on signals *before* the file exists (a signal
        // between creating and registering would leave it), then created exclusively.
        // (Counted as being made, so that a signal's handler on another thread waits for it.)
        guard TemporaryFiles.beginCreating() else {
            throw SoundFileError(path: path, operation: .open, message: "interrupted")
        }
        defer { TemporaryFiles.endCreating() }
        var fd: Int32 = -1
        var name = ""
        var slot = -1
        var attempts = 0
        var random = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let stem = TemporaryOutputFile.temporaryStem(base, folder: folder)
        repeat {
            attempts += 1
            let suffix = String((0..<6).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
            name = folder + "." + stem + ".partial-" + suffix
            slot = TemporaryFiles.register(name)
            fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                let saved = errno
                TemporaryFiles.unregister(slot)
                errno = saved
            }
        } while fd < 0 && errno == EEXIST && attempts < 100
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SoundFileError(
                path: path, operation: .open, message: "cannot create a file in \(folder.isEmpty ? "." : folder): \(reason)")
        }
        temporaryPath = name
        self.slot = slot
        descriptor = fd
        // Created 0600 (private while written); a finished file gets what the umask gives a new one.
        fchmod(fd, 0o666 & ~TemporaryOutputFile.currentUmask())
    }

    deinit {
        if !done { discard() }
    }

    /// The descriptor now belongs to the caller (who closes it); `commit` and `discard` leave it.
    public func release() -> Int32 {
        owned = false
        return descriptor
    }

    /// Writes all of `bytes` to the temporary file.
    public func write(_ bytes: [UInt8]) throws(SoundFileError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                discard()
                throw SoundFileError(path: path, operation: .write, message: "cannot write: \(reason)")
            }
            offset += n
        }
    }

    /// Closes the temporary file (unless released) and renames it onto `path`, after
    /// checking the destination again (it may have changed while the file was written).
    public func commit() throws(SoundFileError) {
        guard !done else { throw SoundFileError(path: path, operation: .finish, message: "already finished or cancelled") }
        if owned {
            owned = false
            if close(descriptor) != 0 {
                let reason = String(cString: strerror(errno))
                discard()
                throw SoundFileError(path: path, operation: .finish, message: "cannot finish writing: \(reason)")
            }
        }
        do {
            try TemporaryOutputFile.checkDestination(path, inputs: [])
        } catch {
            discard()
            throw error
        }
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            discard()
            throw SoundFileError(path: path, operation: .finish, message: "cannot move the finished file into place: \(reason)")
        }
        done = true
        TemporaryFiles.unregister(slot)
    }

    /// Abandons the file: nothing is left at `path` or in the temporary location.
    public func discard() {
        guard !done else { return }
        if owned {
            owned = false
            close(descriptor)
        }
        unlink(temporaryPath)
        TemporaryFiles.unregister(slot)
        done = true
    }

    /// The part of the temporary name taken from the destination's name `base`: all of it,
    /// or for a long name (a legal one of up to NAME_MAX bytes) as many of its first
    /// characters as leave room for `.` and `.partial-XXXXXX`.
    static func temporaryStem(_ base: String, folder: String) -> String {
        let limit = pathconf(folder.isEmpty ? "." : folder, Int32(_PC_NAME_MAX))
        let room = (limit > 0 ? limit : 255) - ".".utf8.count - ".partial-XXXXXX".utf8.count
        guard base.utf8.count > room else { return base }
        var stem = "", bytes = 0
        for character in base {
            bytes += character.utf8.count
            guard bytes <= room else { break }
            stem.append(character)
        }
        return stem
    }

    /// Refuses a destination that is a symbolic link or not a regular file, or is one of `inputs`.
    public static func checkDestination(_ path: String, inputs: [FileIdentity]) throws(SoundFileError) {
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
        if let what {
            throw SoundFileError(path: path, operation: .open, message: "is \(what), not a regular file; not replaced")
        }
        let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        if inputs.contains(identity) {
            throw SoundFileError(path: path, operation: .open, message: "is one of the inputs; not written over")
        }
    }

    /// The process's umask (read from /proc, else by setting and restoring it).
    static func currentUmask() -> mode_t {
        if let fp = fopen("/proc/self/status", "r") {
            defer { fclose(fp) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), fp) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if text.hasPrefix("Umask:") {
                    let digits = text.dropFirst(6).drop(while: { $0 == " " || $0 == "\t" }).prefix(while: { $0.isNumber })
                    if let value = mode_t(digits, radix: 8) { return value }
                }
            }
        }
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}
