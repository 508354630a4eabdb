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
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
