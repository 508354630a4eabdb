import Foundation
import HapticKit
import HapticTestSupport
import Testing

/// libhapticsynth as installed (InstalledLibrary): its ABI, what it needs, and the examples
/// (examples/c-library) built with `cc ... $(pkg-config ...)` and run with only the installed files.
@Suite(.serialized) struct LibraryBuildTests {
    func installed() throws -> InstalledLibrary.Install {
        switch InstalledLibrary.install {
        case .success(let install): return install
        case .failure(let failure): throw failure
        }
    }

    /// The committed list of exported symbols (Sources/CHapticSynth/hapticsynth.symbols).
    static func committedSymbols() throws -> [String] {
        try String(contentsOfFile: repoRoot + "/Sources/CHapticSynth/hapticsynth.symbols", encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    @Test("the shared library: SONAME libhapticsynth.so.0, RUNPATH to its runtime, and the committed hs_ symbols are all it exports")
    func abi() throws {
        let install = try installed()
        let dynamic = runTool("/usr/bin/readelf", ["-d", install.sharedLibrary])
        #expect(dynamic.output.contains("Library soname: [libhapticsynth.so.0]"))
        #expect(dynamic.output.contains("Library runpath: [$ORIGIN/hapticsynth]"))
        let nm = runTool("/usr/bin/nm", ["-D", "--defined-only", install.sharedLibrary])
        try #require(nm.status == 0, "\(nm.output)")
        // "0000… T hs_engine_open@@HAPTICSYNTH_0": the global names (upper-case types; local ones,
        // lower-case, bind nothing outside), without their version; the version node is no symbol of the API.
        let exported = nm.output.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let type = fields[1].first, type.isUppercase, type != "A" else { return nil }
            return String(fields[2].split(separator: "@").first ?? "")
        }.sorted()
        let committed = try Self.committedSymbols()
        #expect(exported == committed, """
            the exported symbols changed (a deliberate ABI change updates Sources/CHapticSynth/hapticsynth.symbols):
            added \(Set(exported).subtracting(committed).sorted()), removed \(Set(committed).subtracting(exported).sorted())
            """)
        #expect(exported.allSatisfy { $0.hasPrefix("hs_") })
        // The header declares exactly those functions.
        let header = try String(contentsOfFile: repoRoot + "/Sources/CHapticSynth/include/hapticsynth.h", encoding: .utf8)
        let declared = header.split(separator: "\n").compactMap { line -> String? in
            guard !line.hasPrefix(" "), !line.hasPrefix("/"), let open = line.firstIndex(of: "(") else { return nil }
            let name = line[..<open].split(whereSeparator: { $0 == " " || $0 == "*" }).last.map(String.init)
            return name.flatMap { $0.hasPrefix("hs_") ? $0 : nil }
        }.sorted()
        #expect(declared == committed, "hapticsynth.h declares \(Set(declared).symmetricDifference(committed).sorted()) differently")
    }

    @Test("what the shared library needs: system libraries and the Swift runtime installed beside it, all found")
    func dependencies() throws {
        let install = try installed()
        let ldd = runTool("/usr/bin/ldd", [install.sharedLibrary], environment: InstalledLibrary.cleanEnvironment(install))
        #expect(ldd.status == 0 && !ldd.output.contains("not found"), "\(ldd.output)")
        let runtime = try FileManager.default.contentsOfDirectory(atPath: install.lib + "/hapticsynth").sorted()
        print("libhapticsynth needs (ldd):\n\(ldd.output)runtime installed beside it: \(runtime.joined(separator: " "))")
        // Every Swift library it loads comes from the prefix, none from the toolchain.
        for line in ldd.output.split(separator: "\n") where line.contains("libswift") || line.contains("Foundation") {
            #expect(line.contains(install.prefix), "\(line)")
        }
        #expect(runtime.contains("swiftrt.o") && runtime.contains("libswiftCore.so"))
        #expect(!runtime.contains("libFoundation.so"), "Foundation is kept out of the C library")
    }

    @Test("a host program converting a damaged MP3: the library's status, and none of libmpg123's own lines on its standard error")
    func decoderKeepsQuietInAHost() throws {
        let install = try installed()
        let work = NSTemporaryDirectory() + "hs-mp3-host-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try writeDamagedMP3(work + "/damaged.mp3")
        let program = """
            #include <hapticsynth.h>
            #include <stdio.h>
            int main(int argc, char **argv) {
                hs_pattern *pattern = NULL;
                int status = argc > 1 ? hs_pattern_from_sound_file(&pattern, argv[1], NULL) : -1;
                fprintf(stderr, "host: %s\\n", hs_status_name(status));
                hs_pattern_free(pattern);
                return 0;
            }
            """
        try program.write(toFile: work + "/host.c", atomically: true, encoding: .utf8)
        let build = shell("cc -Wall -Werror host.c $(pkg-config --cflags --libs hapticsynth) -o host", install, directory: work)
        try #require(build.status == 0, "\(build.output)")
        let run = shell("./host damaged.mp3", install, directory: work)
        #expect(run.status == 0 && run.output.contains("host: HS_"), "\(run.output)")
        #expect(!run.output.contains("libmpg123") && !run.output.contains("[src/"), "the host's stderr: \(run.output)")
    }

    @Test("examples/c-library/pull.c, built with pkg-config from the prefix alone, writes what `hapticsynth render` writes, sample for sample")
    func pullExampleMatchesRender() throws {
        let install = try installed()
        let work = NSTemporaryDirectory() + "hs-pull-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.copyItem(atPath: repoRoot + "/examples/c-library/pull.c", toPath: work + "/pull.c")
        let build = shell("cc -Wall -Wextra -Werror pull.c $(pkg-config --cflags --libs hapticsynth) -o pull", install, directory: work)
        try #require(build.status == 0, "\(build.output)")
        let staticBuild = shell("cc pull.c $(pkg-config --cflags --libs hapticsynth-static) -o pull-static", install, directory: work)
        try #require(staticBuild.status == 0, "\(staticBuild.output)")
        #expect(!runTool("/usr/bin/readelf", ["-d", work + "/pull-static"]).output.contains("libhapticsynth.so"))
        let variants: [(rate: Int, layout: String, profile: String)] = [(48_000, "H", "bass-shaker"), (44_100, "L,R,H", "voice-coil")]
        for path in try bundledPatterns() {
            for (k, v) in variants.enumerated() {
                let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                let raw = "\(work)/\(name)-\(k).f32", wav = "\(work)/\(name)-\(k).wav"
                let binary = k == 0 ? "./pull" : "./pull-static"
                let pulled = shell("\(binary) '\(path)' '\(raw)' \(v.rate) '\(v.layout)' \(v.profile)", install, directory: work)
                try #require(pulled.status == 0, "\(name): \(pulled.output)")
                let rendered = shell("'\(install.cli)' render '\(path)' -o '\(wav)' --bits 32f --rate \(v.rate) --layout '\(v.layout)' --profile \(v.profile)",
                                     install, directory: work)
                try #require(rendered.status == 0, "\(name): \(rendered.output)")
                let reference = try SoundFileReader.read(wav).samples
                let data = try Data(contentsOf: URL(fileURLWithPath: raw))
                let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                #expect(samples.count == reference.count, "\(name): \(samples.count) samples pulled, render wrote \(reference.count)")
                let differing = differingSamples(samples, reference)
                #expect(differing == 0, "\(name) (\(v.layout) at \(v.rate) Hz): \(differing) samples differ")
            }
        }
    }

    /// hs_pattern_render_file to "-" with standard output a pipe: the WAV header must announce
    /// the whole render, ring-out included, because a pipe cannot be rewound to fix it.
    @Test("hs_pattern_render_file(\"-\") into a pipe: a WAV whose header holds what follows (every bundled pattern)")
    func renderFileToAPipe() throws {
        let install = try installed()
        for pattern in try bundledPatterns() { try renderToAPipe(pattern, install) }
    }

    func renderToAPipe(_ pattern: String, _ install: InstalledLibrary.Install) throws {
        let script = """
            import ctypes, sys
            lib = ctypes.CDLL(sys.argv[1])
            h = ctypes.c_void_p
            lib.hs_pattern_load_file.argtypes = [ctypes.POINTER(h), ctypes.c_char_p]
            lib.hs_pattern_render_file.argtypes = [h, ctypes.c_void_p, ctypes.c_char_p]
            lib.hs_last_error.restype = ctypes.c_char_p
            p = h()
            if lib.hs_pattern_load_file(ctypes.byref(p), sys.argv[2].encode()) != 0:
                sys.stderr.write(lib.hs_last_error().decode()); sys.exit(2)
            if lib.hs_pattern_render_file(p, None, b"-") != 0:
                sys.stderr.write(lib.hs_last_error().decode()); sys.exit(3)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, install.sharedLibrary, pattern]
        process.environment = InstalledLibrary.cleanEnvironment(install)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let bytes = [UInt8](out.fileHandleForReading.readDataToEndOfFile())  // to the end before waiting
        process.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let name = URL(fileURLWithPath: pattern).lastPathComponent
        #expect(process.terminationStatus == 0, "\(name): \(message)")
        try #require(bytes.count > 44, "\(name): \(bytes.count) bytes: \(message)")
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[8..<12]) == Array("WAVE".utf8))
        #expect(u32(4) == bytes.count - 8, "RIFF size \(u32(4)) for \(bytes.count) bytes")
        // The data chunk: its size is what follows it.
        var at = 12
        var dataSize: Int? = nil
        while at + 8 <= bytes.count {
            let size = u32(at + 4)
            if Array(bytes[at..<(at + 4)]) == Array("data".utf8) { dataSize = size; at += 8; break }
            at += 8 + size + (size & 1)
        }
        #expect(dataSize != nil && dataSize == bytes.count - at, "data \(String(describing: dataSize)) for \(bytes.count - at) bytes")
        print("hs_pattern_render_file(\"-\") into a pipe, \(name): \(bytes.count) bytes, data \(dataSize ?? -1)")
    }

    @Test("examples/c-library/offline.py through ctypes")
    func pythonExample() throws {
        let install = try installed()
        let run = runTool("/usr/bin/python3", [repoRoot + "/examples/c-library/offline.py", install.sharedLibrary],
                          environment: InstalledLibrary.cleanEnvironment(install), directory: NSTemporaryDirectory())
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.hasSuffix("ok\n"), "\(run.output)")
        print(run.output)
    }
}
