// Why an input could not be opened, in the system's words: one place for every reader (patterns,
// profiles, option files, sounds), so that a symbolic-link loop or a name too long for the
// system says so instead of "no such file".

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The reason for `code` (an `errno` from `stat` or `open`) in lower case, to follow "path: ":
/// "no such file", "too many levels of symbolic links", "file name too long", "permission denied".
public func fileSystemReason(_ code: Int32) -> String {
    if code == ENOENT { return "no such file" }
    let text = String(cString: strerror(code))
    return text.prefix(1).lowercased() + text.dropFirst()
}

/// `stat` of `path` (symbolic links followed), or the system's reason it failed.
public func fileStatus(_ path: String) -> Result<stat, FileStatusFailure> {
    var info = stat()
    guard stat(path, &info) == 0 else { return .failure(FileStatusFailure(reason: fileSystemReason(errno))) }
    return .success(info)
}

/// Why `fileStatus` failed (the reason only: the caller names the file).
public struct FileStatusFailure: Error, Sendable {
    public var reason: String
}
