#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        guard let version = FileVersion(path: path) else { return nil }
        self = version.identity
    }
}

/// A file's identity and the state of its contents: a write in place (size, modification time,
/// or the change time no program can set back) or a replacement makes a new version. What a
/// cache of the file's contents is keyed by, so an edited sound is read again.
public struct FileVersion: Sendable, Hashable {
    public var identity: FileIdentity
    public var size: Int64
    /// Modification and status-change times, in nanoseconds.
    public var modified: Int64
    public var changed: Int64

    /// The version of the file at `path` now (symbolic links followed), or nil when there is none.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec)
    }
}
