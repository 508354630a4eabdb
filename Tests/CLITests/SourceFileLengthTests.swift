import Foundation
import Testing

/// The code's rule that a source file holds one idea and stays under 500 lines, kept by a test:
/// a file that grows past it fails here, naming it, and is split by idea (as
/// `HapticEngine+Frames.swift` is split from the engine).
@Suite("Source files: each under 500 lines")
struct SourceFileLengthTests {
    static let limit = 500

    /// Files allowed past the limit, each with its reason and its own bound (it must not grow on).
    static let exceptions: [String: (bound: Int, reason: String)] = [
        "CHapticSynth/include/hapticsynth.h": (
            560, "the C library's one public header: installed, parsed by the library's tests and scripts as one file, mostly documentation"),
    ]

    @Test("no file under Sources/ has more than 500 lines")
    func everyFileUnderTheLimit() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: [.isRegularFileKey]))
        var files = 0
        for case let url as URL in enumerator {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let data = try Data(contentsOf: url)
            let lines = data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } + (data.last.map { $0 == UInt8(ascii: "\n") ? 0 : 1 } ?? 0)
            let relative = String(url.standardizedFileURL.path.dropFirst(sources.standardizedFileURL.path.count + 1))
            let bound = Self.exceptions[relative]?.bound ?? Self.limit
            #expect(lines <= bound, "Sources/\(relative): \(lines) lines (at most \(bound)): split it into files of one idea each")
            files += 1
        }
        #expect(files > 100, "the sources were found (\(files) files)")
    }
}
