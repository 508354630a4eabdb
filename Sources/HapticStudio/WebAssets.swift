// The page's files (Web/: index.html, studio.js, timeline.js, transport.js, socket.js, studio.css), read once at start from the
// target's resource folder beside the executable (or, in a source checkout, from the source
// folder). Only these names are served: no path from a request reaches the file system here.

import Foundation

struct WebAssets: Sendable {
    struct File: Sendable {
        var bytes: [UInt8]
        var contentType: String
    }

    static let names: [String: String] = [
        "index.html": "text/html; charset=utf-8", "studio.js": "text/javascript; charset=utf-8",
        "timeline.js": "text/javascript; charset=utf-8", "transport.js": "text/javascript; charset=utf-8",
        "socket.js": "text/javascript; charset=utf-8", "studio.css": "text/css; charset=utf-8",
    ]

    let files: [String: File]

    /// The files from the first folder that holds them all.
    static func load() throws -> WebAssets {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [
            executable.appendingPathComponent("hapticsynth_HapticStudio.resources/Web").path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Web").path,
        ]
        for folder in candidates {
            var files: [String: File] = [:]
            for (name, type) in names {
                guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { break }
                files[name] = File(bytes: [UInt8](data), contentType: type)
            }
            if files.count == names.count { return WebAssets(files: files) }
        }
        throw StudioStartError("the page's files (index.html, studio.js, timeline.js, transport.js, socket.js, studio.css) are not beside the executable; looked in: \(candidates.joined(separator: ", "))")
    }
}

struct StudioStartError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
