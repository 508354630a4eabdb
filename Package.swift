// swift-tools-version: 6.0
import PackageDescription
import Foundation

// Modules follow the data path: a pure model (HapticPattern), a pure renderer
// (HapticRender), the engine written against an output-device protocol
// (HapticEngine), thin C edges (HapticSoundFile over libsndfile + libsoxr,
// HapticALSA over alsa-lib), the app-facing facade (HapticKit) and the CLI.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]
// The pure kernels (DSP, render, analysis) optimized in debug builds too, when
// HAPTICSYNTH_OPTIMIZE_KERNELS=1 (`make test` sets it): the suite renders and analyses hours of
// sound, a third of the CPU time it takes unoptimized, and tests the code as it ships. Off by
// default, so that the package stays usable as a dependency (SwiftPM refuses a dependency's
// unsafe flags).
let kernels: [SwiftSetting] = strict
    + (ProcessInfo.processInfo.environment["HAPTICSYNTH_OPTIMIZE_KERNELS"] == "1" ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : [])

// The version, from one place: the VERSION file beside this manifest (also read by the Makefile,
// scripts/link-library.sh and the packaging). The git commit: $HAPTICSYNTH_COMMIT when set (the
// Makefile sets it, so that an install always names its commit), else asked of git here; SwiftPM
// reads a manifest again when it or the environment changes, so a plain `swift build` after a
// commit may keep naming the previous one. "unknown" outside a checkout.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
let version = ((try? String(contentsOfFile: packageRoot + "/VERSION", encoding: .utf8)) ?? "unknown")
    .trimmingCharacters(in: .whitespacesAndNewlines)
func gitCommit() -> String {
    if let given = ProcessInfo.processInfo.environment["HAPTICSYNTH_COMMIT"], !given.isEmpty { return given }
    let git = Process()
    git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
    git.arguments = ["-C", packageRoot, "rev-parse", "--short=12", "HEAD"]
    let pipe = Pipe()
    git.standardOutput = pipe
    git.standardError = FileHandle.nullDevice
    guard (try? git.run()) != nil else { return "unknown" }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    git.waitUntilExit()
    let commit = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return git.terminationStatus == 0 && !commit.isEmpty ? commit : "unknown"
}
let buildInfo: [CSetting] = [.define("HAPTICSYNTH_VERSION", to: "\"\(version)\""), .define("HAPTICSYNTH_COMMIT", to: "\"\(gitCommit())\"")]

let package = Package(
    name: "hapticsynth",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hapticsynth", targets: ["hapticsynth"]),
        .library(name: "HapticPattern", targets: ["HapticPattern"]),
        .library(name: "HapticRender", targets: ["HapticRender"]),
        .library(name: "HapticEngine", targets: ["HapticEngine"]),
        .library(name: "HapticKit", targets: ["HapticKit"]),
        .library(name: "HapticAnalysis", targets: ["HapticAnalysis"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // `hapticsynth studio` only (its own executable: no other target links these).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // What the studio's server imports of Hummingbird's own dependencies, named (not reached
        // through Hummingbird): NIO, its HTTP types, the WebSocket frames, the service lifecycle.
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // The socket's refusals reuse swift-websocket's WebSocketHandler through its SPI
        // (StudioSocketChannel), which a minor release may change: held to 1.6.x.
        .package(url: "https://github.com/hummingbird-project/swift-websocket", .upToNextMinor(from: "1.6.2")),
    ],
    targets: [
        // MARK: C system libraries (Debian packages named for `swift build` hints)
        // alsa-lib, libsndfile, libsoxr, liblo and cairo are loaded on first use (the C*Loader
        // targets: scripts/make-lazy-libraries.sh), not at start-up: their module maps link nothing,
        // so a command that needs none of them (`--version`, `validate`, `info`) loads none.
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),
        .target(name: "CALSALoader", dependencies: ["CLazyLibrary"]),
        .target(name: "CLazyLibrary", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CSndFile", providers: [.apt(["libsndfile1-dev"])]),
        .target(name: "CSndFileLoader", dependencies: ["CLazyLibrary"]),
        .systemLibrary(name: "CSoxr", providers: [.apt(["libsoxr-dev"])]),
        .target(name: "CSoxrLoader", dependencies: ["CLazyLibrary"]),
        .systemLibrary(name: "CLiblo", providers: [.apt(["liblo-dev"])]),
        .target(name: "CLibloLoader", dependencies: ["CLazyLibrary"]),
        // alsa-lib's error handler is variadic, which Swift cannot implement.
        .target(name: "CALSASupport", dependencies: ["CALSA", "CALSALoader"]),
        // Channel maps (issue 22): a sound server's sink map, through libpulse loaded with dlopen at
        // run time (no build or link dependency; without libpulse the answer is "cannot say").
        .target(name: "CSoundServer", linkerSettings: [.linkedLibrary("dl")]),

        // MARK: pure core
        .target(name: "HapticPattern", swiftSettings: strict),
        // The render kernels: libm-free math, oscillators, the protection filter and limiter
        // (`@inlinable package`, so `@_noLocks` callers in HapticRender see their bodies).
        .target(name: "HapticDSP", swiftSettings: kernels),
        .target(name: "HapticRender", dependencies: ["HapticPattern", "HapticDSP"], swiftSettings: kernels),

        // MARK: sound analysis (issue 20): sound samples in, a pattern model out. Pure (no
        // Foundation, no I/O), beside the renderer; its streaming form runs on a render thread.
        .target(name: "HapticAnalysis", dependencies: ["HapticPattern", "HapticDSP"], swiftSettings: kernels),

        // MARK: edges and engine
        .target(
            name: "HapticSoundFile",
            dependencies: ["CSndFile", "CSndFileLoader", "CSoxr", "CSoxrLoader", "HapticRender"],
            swiftSettings: strict
        ),
        .target(
            name: "HapticEngine",
            dependencies: ["HapticRender", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "HapticALSA",
            dependencies: [
                "CALSA", "CALSALoader", "CALSASupport", "HapticEngine", .product(name: "Logging", package: "swift-log"),
                "CSoundServer",  // issue 22: the sink behind a sound server's ALSA plugin
            ],
            swiftSettings: strict
        ),
        .target(
            name: "HapticKit",
            dependencies: [
                "HapticPattern", "HapticRender", "HapticEngine", "HapticALSA", "HapticSoundFile",
                "HapticAnalysis",  // sound → haptics (`convert`)
                "HapticFollow",  // live sound → haptics (`follow`)
                "CBuildInfo",  // the version a converted file's metadata names
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // MARK: live audio → haptics (issue 21): the follower's render side (capture queue, the
        // modes' processing) over the engine's LiveInput and InputDevice contracts; pure of ALSA
        // (HapticKit gives it an ALSA capture).
        .target(
            name: "HapticFollow",
            dependencies: ["HapticEngine", "HapticRender", "HapticDSP", "HapticAnalysis"],
            swiftSettings: strict
        ),
        .testTarget(name: "HapticFollowTests", dependencies: ["HapticFollow", "HapticEngine", "HapticEngineTesting", "HapticRender", "HapticAnalysis", "CAllocationCounter"]),

        // OSC over UDP through liblo: the `serve` verb's server and the `send` verb's client.
        .target(
            name: "HapticOSC",
            dependencies: ["CLiblo", "CLibloLoader", "HapticKit", "HapticEngine", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // The CLI is a library (so help and parsing are testable) plus a one-line main: a thin
        // shell over HapticKit (which re-exports the model, renderer and sound-file types) and
        // HapticOSC. HapticEngine only until rhythm's offline render moves into HapticKit.
        .target(
            name: "HapticCLI",
            dependencies: [
                "HapticKit", "HapticOSC", "HapticPlot", "CBuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "hapticsynth", dependencies: ["HapticCLI"], swiftSettings: strict),
        // The version and commit compiled in (see `buildInfo` above).
        .target(name: "CBuildInfo", cSettings: buildInfo),

        // MARK: the studio (`hapticsynth studio`, docs/studio.md): a local web page to design
        // haptics from sounds. Its own executable, which `hapticsynth studio` execs, so that no
        // other verb loads the web server. HapticStudioCore is the studio without the server (a
        // folder's sounds, the designer's edits, saving; testable in process); HapticStudio is the
        // thin Hummingbird layer and the page (Web/: plain HTML, CSS and JavaScript).
        .target(name: "HapticStudioCore", dependencies: ["HapticCLI", "HapticKit", "HapticEngine"], swiftSettings: strict),
        .target(
            name: "HapticStudio",
            dependencies: [
                "HapticStudioCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Web")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "hapticsynth-studio",
            dependencies: ["HapticStudio", "HapticStudioCore", "HapticCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        .testTarget(name: "HapticStudioTests", dependencies: ["HapticStudioCore", "HapticStudio", "HapticKit", "HapticEngine", "HapticEngineTesting", "HapticALSATesting", "HapticTestSupport"]),

        // MARK: the C library, libhapticsynth (README "C library"; linked and installed by
        // `make lib` / `make install`: scripts/link-library.sh, scripts/install.sh)
        // The hand-written public header (include/hapticsynth.h, the whole C API) and what is plain
        // C behind it: version, status names, the clock, this thread's last error. The committed
        // list of exported symbols (the ABI; the link's version script is made from it) sits beside it.
        .target(name: "CHapticSynth", exclude: ["hapticsynth.symbols", "hapticsynth.prototypes"]),
        // The hs_ functions (`@c` exports) over HapticKit: opaque handles, int statuses, no Swift
        // type across the boundary.
        .target(
            name: "HapticSynthC",
            dependencies: ["CHapticSynth", "HapticKit", "HapticEngine", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),

        // MARK: plotting (issue 24): pictures of patterns, renders, sounds and rhythm timing through
        // cairo (LGPL-2.1/MPL-1.1, loaded at run time); at the edge, used by the CLI's `plot`.
        .systemLibrary(name: "CCairo", providers: [.apt(["libcairo2-dev"])]),
        .target(name: "CCairoLoader", dependencies: ["CLazyLibrary"]),
        .target(name: "HapticPlot", dependencies: ["CCairo", "CCairoLoader", "HapticRender", "HapticPattern"], swiftSettings: strict),
        .testTarget(name: "HapticPlotTests", dependencies: ["HapticPlot", "CCairo", "HapticRender", "HapticTestSupport"]),
        .executableTarget(name: "plot-bench", dependencies: ["HapticPlot", "HapticRender", "HapticPattern"], path: "bench/plot-bench"),

        // MARK: test harnesses, as NIOEmbedded is to NIO (used by tests and benchmarks only; offline
        // renders use the engine's own pull drive)
        // The virtual device, the manual clock and drive, a recording device, recording alignment.
        .target(name: "HapticEngineTesting", dependencies: ["HapticEngine"], swiftSettings: strict),
        // Records a capture PCM (a sound server's monitor); apart so the harness above has no ALSA.
        .target(
            name: "HapticALSATesting",
            dependencies: ["CALSA", "CALSASupport", "HapticALSA", "HapticEngine", "HapticRender"],
            swiftSettings: strict
        ),

        // MARK: test support: counts allocations per thread (malloc interposed in the test binary)
        .target(name: "CAllocationCounter"),

        // MARK: tests
        // Shared by the test targets: the public corpus locator (../shared/corpus) and small helpers.
        .target(name: "HapticTestSupport", dependencies: ["HapticPattern", "CSndFile", "CSndFileLoader"], path: "Tests/Support"),
        .testTarget(name: "HapticPatternTests", dependencies: ["HapticPattern", "HapticTestSupport"]),
        .testTarget(name: "HapticRenderTests", dependencies: ["HapticRender", "HapticDSP", "HapticSoundFile", "CAllocationCounter", "HapticTestSupport"]),
        .testTarget(name: "HapticSoundFileTests", dependencies: ["HapticSoundFile", "HapticTestSupport"]),
        .testTarget(name: "HapticEngineTests", dependencies: ["HapticEngine", "HapticEngineTesting", "CAllocationCounter", "HapticTestSupport"]),
        .testTarget(name: "HapticALSATests", dependencies: ["HapticALSA", "HapticALSATesting", "HapticEngine", "HapticEngineTesting", "HapticKit", "HapticSoundFile", "CAllocationCounter", "HapticTestSupport"]),
        .testTarget(name: "HapticKitTests", dependencies: ["HapticKit", "HapticEngineTesting", "HapticALSATesting", "HapticTestSupport", "CAllocationCounter"]),
        // The help goldens are read from the source folder (#filePath), not bundled.
        .testTarget(name: "CLITests", dependencies: ["HapticCLI", "HapticSoundFile", "HapticTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "HapticAnalysisTests", dependencies: ["HapticAnalysis", "HapticPattern", "HapticRender", "HapticKit", "CAllocationCounter", "HapticTestSupport"]),
        .testTarget(name: "HapticOSCTests", dependencies: ["HapticOSC", "HapticKit", "HapticALSA", "HapticEngineTesting", "HapticALSATesting", "HapticRender", "HapticTestSupport"]),
        // The C library through its header, in process and as built, installed and linked by C and Python programs.
        .testTarget(name: "HapticSynthCTests", dependencies: ["HapticSynthC", "CHapticSynth", "HapticKit", "HapticEngineTesting", "HapticALSATesting", "CAllocationCounter", "HapticTestSupport"]),

        // MARK: benchmarks (release builds; see bench/README.md)
        .executableTarget(
            name: "parse-bench",
            dependencies: ["HapticPattern"],
            path: "bench/parse-bench"
        ),
        .executableTarget(
            name: "render-bench",
            dependencies: ["HapticRender", "HapticPattern", "HapticSoundFile"],
            path: "bench/render-bench"
        ),
        // What latency-bench and osc-bench share (clock, recorder onsets, summaries).
        .target(name: "JACKRigSupport", path: "bench/JACKRigSupport"),
        .executableTarget(
            name: "latency-bench",
            dependencies: ["HapticEngine", "HapticALSA", "HapticRender", "HapticPattern", "JACKRigSupport"],
            path: "bench/latency-bench"
        ),
        .executableTarget(
            name: "osc-bench",
            dependencies: ["HapticOSC", "HapticKit", "HapticEngine", "HapticRender", "HapticPattern", "JACKRigSupport"],
            path: "bench/osc-bench"
        ),
        // Latency through the C library next to the Swift API (JACK rig).
        .executableTarget(
            name: "c-latency-bench",
            dependencies: ["HapticSynthC", "CHapticSynth", "HapticKit", "HapticEngine", "JACKRigSupport"],
            path: "bench/c-latency-bench"
        ),
        .executableTarget(
            name: "rhythm-bench",
            dependencies: ["HapticKit", "HapticEngine", "HapticALSA", "HapticEngineTesting", "HapticALSATesting"],
            path: "bench/rhythm-bench"
        ),
        // Sound → haptics (issue 20): quality against tool- and designer-made clips, speed, memory.
        .executableTarget(
            name: "convert-bench",
            dependencies: ["HapticKit", "HapticAnalysis"],
            path: "bench/convert-bench"
        ),
        .executableTarget(
            name: "reconnect-bench",
            dependencies: ["HapticALSA", "HapticALSATesting"],
            path: "bench/reconnect-bench"
        ),
        // Issue 25: the limiter's sub-band energy and DC on dense overlapping patterns (the
        // patterns: HapticTestSupport's DensePattern, shared with the tests).
        .executableTarget(
            name: "limiter-bench",
            dependencies: ["HapticRender", "HapticPattern", "HapticTestSupport"],
            path: "bench/limiter-bench"
        ),
        // Issue 21: `follow` end to end through the rig next to a plain ALSA low-pass loop
        // (bench/latency-floor/passthrough.c), and its long run.
        .executableTarget(
            name: "follow-bench",
            dependencies: ["HapticALSATesting", "HapticEngine", "HapticFollow", "HapticRender"],
            path: "bench/follow-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
