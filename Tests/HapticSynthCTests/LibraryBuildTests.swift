import Foundation
import HapticKit
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
