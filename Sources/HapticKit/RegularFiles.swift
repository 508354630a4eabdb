// Reading the library's files (patterns, the cue sheet) with plain POSIX calls. The folders
// are the user's, and anything can sit in them under a pattern's name: only regular files
// are opened, so a named pipe called `x.ahap` or a FIFO `cues.json` is skipped at once
// instead of blocking the load (and with it `rhythm`, `serve`, and every later SIGHUP).

#if canImport(Glibc)
import Glibc
#endif
import HapticPattern
import HapticSoundFile

/// A one-line reason a file could not be used.
struct FileProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The entries of `folder` whose names end in `suffix` (hidden ones left out), sorted, or why
/// the folder cannot be read (the reason only: the caller names the folder).
func listFiles(_ folder: String, suffix: String) -> Result<[String], FileProblem> {
    guard let dir = opendir(folder) else {
        return .failure(FileProblem("cannot open the folder (\(String(cString: strerror(errno))))"))
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        if name.hasSuffix(suffix) && name.count > suffix.count && !name.hasPrefix(".") { names.append(name) }
    }
    return .success(names.sorted())
}

/// What a file that is not a regular one is, in words.
func fileKind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: "a folder"
    case S_IFIFO: "a named pipe"
    case S_IFCHR, S_IFBLK: "a device"
    case S_IFSOCK: "a socket"
    default: "not a regular file"
    }
}

/// Reads a whole regular file (bounded by `Limits.maxFileBytes`: a pattern or cue sheet is
/// small). Anything else is refused before it is opened (`stat`, symbolic links followed),
/// and the file is opened without blocking and checked again (`fstat`), so one swapped for
/// a pipe in between is refused too, never waited on.
func readWholeFile(_ path: String) -> Result<[UInt8], FileProblem> {
    var info = stat()
    guard stat(path, &info) == 0 else { return .failure(FileProblem("cannot open (\(fileSystemReason(errno)))")) }
    guard info.st_mode & S_IFMT == S_IFREG else { return .failure(FileProblem("\(fileKind(info.st_mode)), not a regular file")) }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard fd >= 0 else { return .failure(FileProblem("cannot open (\(fileSystemReason(errno)))")) }
    defer { close(fd) }
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
        return .failure(FileProblem("\(fileKind(info.st_mode)), not a regular file"))
    }
    guard info.st_size <= Limits.maxFileBytes else { return .failure(FileProblem("larger than the \(Limits.maxFileBytes >> 20) MiB limit")) }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
            return .failure(FileProblem(n == 0 ? "file shrank while reading" : "read failed (\(String(cString: strerror(errno))))"))
        }
        done += n
    }
    return .success(bytes)
}
