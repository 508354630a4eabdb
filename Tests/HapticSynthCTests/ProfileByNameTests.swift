import CHapticSynth
import Foundation
import Testing

/// A profile named by name that is not built in: actuators/NAME.json in the assets folder, as
/// the CLI's --profile takes it (ActuatorProfile.named(orPath:assetsFolder:), one rule for both).
@Suite("C library: profiles by name in the assets folder")
struct ProfileByNameTests {
    /// An assets folder whose actuators/my-coil.json is the bundled voice-coil profile.
    func assetsWithProfile() throws -> (folder: String, file: String) {
        let folder = NSTemporaryDirectory() + "hs-profile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/actuators", withIntermediateDirectories: true)
        let file = folder + "/actuators/my-coil.json"
        try FileManager.default.copyItem(atPath: repoRoot + "/Assets/actuators/voice-coil.json", toPath: file)
        return (folder, file)
    }

    func render(_ pattern: OpaquePointer?, profile: String, assets: String?) -> (status: Int32, samples: [Float], error: String) {
        var options = hs_render_options()
        hs_render_options_init(&options)
        options.profile = permanent(profile)
        options.assets_folder = assets.map(permanent)
        var frames = 0
        let status = hs_pattern_render(pattern, &options, nil, 0, &frames, nil)
        guard status == HS_OK else { return (status, [], lastError()) }
        var samples = [Float](repeating: .nan, count: frames)
        let rendered = samples.withUnsafeMutableBufferPointer { hs_pattern_render(pattern, &options, $0.baseAddress, frames, &frames, nil) }
        return (rendered, samples, "")
    }

    @Test("hs_pattern_render and hs_engine_open_with find my-coil in the assets folder; the same samples as its path")
    func byName() throws {
        let (folder, file) = try assetsWithProfile()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pattern: OpaquePointer? = nil
        #expect(hs_pattern_load_file(&pattern, repoRoot + "/Haptics/heartbeat.ahap") == HS_OK)
        defer { hs_pattern_free(pattern) }

        let named = render(pattern, profile: "my-coil", assets: folder)
        let path = render(pattern, profile: file, assets: nil)
        let bassShaker = render(pattern, profile: "bass-shaker", assets: folder)
        #expect(named.status == HS_OK && path.status == HS_OK, "\(named.error)")
        #expect(!named.samples.isEmpty && differingSamples(named.samples, path.samples) == 0)
        #expect(differingSamples(named.samples, bassShaker.samples) > 0, "the profile was used")

        var options = hs_engine_options()
        hs_engine_options_init(&options)
        options.offline = 1
        options.profile = permanent("my-coil")
        options.assets_folder = permanent(folder)
        var engine: OpaquePointer? = nil
        #expect(hs_engine_open_with(&engine, &options) == HS_OK, "\(lastError())")
        hs_engine_close(engine)

        // A name found nowhere: refused, saying where it looked.
        let missing = render(pattern, profile: "no-such-coil", assets: folder)
        #expect(missing.status == HS_ERR_PARSE)
        #expect(missing.error.contains("no-such-coil") && missing.error.contains(folder + "/actuators"), "\(missing.error)")
    }
}
