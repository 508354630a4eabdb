// The one folder the studio works in. Every name the page sends is relative to it and is
// checked here before any file is opened: no absolute path, no `..`, no hidden or empty
// component, no control character, and once resolved (symbolic links followed) it must still lie
// inside the folder. The studio reads and writes nothing else.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A refusal the page shows as it is: what was wrong, naming it. `status` is the HTTP status.
public struct StudioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var description: String
    public init(_ status: Int, _ description: String) {
        self.status = status
        self.description = description
    }
    static func bad(_ message: String) -> StudioError { StudioError(400, message) }
    static func notFound(_ message: String) -> StudioError { StudioError(404, message) }
}

/// The studio's folder: its sounds and patterns, and safe paths within it.
public struct StudioFolder: Sendable {
    /// The folder's real path (symbolic links resolved), without a trailing "/".
    public let root: String

    /// The extensions listed as sounds (what libsndfile reads) and as patterns.
    public static let soundExtensions: Set<String> = ["wav", "flac", "aif", "aiff", "ogg", "oga", "opus", "mp3", "au", "caf", "w64"]
    public static let patternExtensions: Set<String> = ["ahap", "haptic"]
    /// Bounds on the listing: how deep, and how many entries are looked at.
    static let maxDepth = 4
    static let maxEntries = 10_000

    public init(path: String) throws(StudioError) {
        guard let real = realpath(path, nil) else {
            throw .bad("\(path): \(String(cString: strerror(errno)))")
        }
        defer { free(real) }
        let resolved = String(cString: real)
        var status = stat()
        guard stat(resolved, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw .bad("\(path): not a folder")
        }
        root = resolved == "/" ? "" : resolved
    }

    /// The checked relative name (`sub/boom.wav`), or a refusal naming what is wrong with it.
    public static func checkedName(_ name: String) throws(StudioError) -> String {
        guard !name.isEmpty, name.utf8.count <= 1024 else { throw .bad("name: expected a file name within the folder (1-1024 bytes)") }
        guard !name.hasPrefix("/") else { throw .bad("\(quoted(name)): an absolute path; names are relative to the folder") }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) else {
            throw .bad("\(quoted(name)): a control character or backslash in the name")
        }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            if component == ".." { throw .bad("\(quoted(name)): `..` leads out of the folder") }
            if component.isEmpty || component == "." { throw .bad("\(quoted(name)): an empty or `.` component") }
            if component.hasPrefix(".") { throw .bad("\(quoted(name)): a hidden file or folder") }
        }
        return name
    }

    /// The absolute path of an existing file `name`, checked to resolve inside the folder.
    public func existingFile(_ name: String) throws(StudioError) -> String {
        let name = try Self.checkedName(name)
        let path = root + "/" + name
        guard let real = realpath(path, nil) else { throw .notFound("\(Self.quoted(name)): no such file in the folder") }
        defer { free(real) }
        guard isInside(String(cString: real)) else { throw .bad("\(Self.quoted(name)): leads out of the folder (a symbolic link)") }
        var status = stat()
        guard stat(real, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw .bad("\(Self.quoted(name)): not a regular file") }
        return path
    }

    /// The absolute path to write `name` at: its folder must resolve inside the folder (the
    /// writer itself refuses to replace a symbolic link or anything not a regular file).
    public func writablePath(_ name: String) throws(StudioError) -> String {
        let name = try Self.checkedName(name)
        let path = root + "/" + name
        let parent = (path as NSString).deletingLastPathComponent
        guard let real = realpath(parent, nil) else { throw .notFound("\(Self.quoted(name)): its folder does not exist") }
        defer { free(real) }
        let resolved = String(cString: real)
        guard resolved == root || isInside(resolved) else { throw .bad("\(Self.quoted(name)): leads out of the folder (a symbolic link)") }
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
            throw .bad("\(Self.quoted(name)): a symbolic link; the studio does not write through one")
        }
        return path
    }

    func isInside(_ realPath: String) -> Bool { realPath.hasPrefix(root + "/") }

    /// One listed file.
    public struct Entry: Sendable, Equatable {
        public enum Kind: String, Sendable { case sound, pattern }
        public var name: String
        public var kind: Kind
    }

    /// The sounds and patterns in the folder and its sub-folders (hidden ones and symbolic links
    /// that lead out left out), by name.
    public func entries() -> [Entry] {
        var found: [Entry] = []
        var looked = 0
        func walk(_ relative: String, depth: Int) {
            guard depth <= Self.maxDepth, let names = try? FileManager.default.contentsOfDirectory(atPath: root + "/" + relative) else { return }
            for file in names.sorted() where !file.hasPrefix(".") {
                looked += 1
                guard looked <= Self.maxEntries else { return }
                let name = relative.isEmpty ? file : relative + "/" + file
                guard let real = realpath(root + "/" + name, nil) else { continue }
                let resolved = String(cString: real)
                free(real)
                guard isInside(resolved) else { continue }
                var status = stat()
                guard stat(resolved, &status) == 0 else { continue }
                if status.st_mode & S_IFMT == S_IFDIR {
                    walk(name, depth: depth + 1)
                } else if status.st_mode & S_IFMT == S_IFREG {
                    let ext = (file as NSString).pathExtension.lowercased()
                    if Self.soundExtensions.contains(ext) { found.append(Entry(name: name, kind: .sound)) }
                    if Self.patternExtensions.contains(ext) { found.append(Entry(name: name, kind: .pattern)) }
                }
            }
        }
        walk("", depth: 0)
        return found
    }

    /// The name of the output written beside sound `name` (`sub/boom.wav` → `sub/boom.ahap`),
    /// as `convert` names it in a folder.
    public static func outputName(_ name: String, fileExtension: String) -> String {
        let stem = (name as NSString).deletingPathExtension
        return stem + "." + fileExtension
    }

    /// A name as the page shows it in a message (quoted; never longer than 200 characters).
    static func quoted(_ name: String) -> String {
        let shown = name.count > 200 ? String(name.prefix(200)) + "…" : name
        return "\"" + shown.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined() + "\""
    }
}
