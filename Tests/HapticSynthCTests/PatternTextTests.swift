import CHapticSynth
import Foundation
import HapticKit
import Testing

/// The text calls: hs_pattern_to_json, hs_devices_json.
@Suite struct PatternTextTests {
    /// The text `call` writes, asked for its length first.
    func text(_ call: (UnsafeMutablePointer<CChar>?, Int, UnsafeMutablePointer<Int>) -> Int32) -> (Int32, String) {
        var length = 0
        let asked = call(nil, 0, &length)
        guard asked == HS_OK else { return (asked, "") }
        var buffer = [CChar](repeating: 1, count: length + 1)
        let status = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress, $0.count, &length) }
        return (status, String(cString: buffer))
    }

    @Test("a pattern as AHAP is its canonical encoding (what convert writes), and as .haptic what convert converts it to")
    func patternAsText() throws {
        for path in try bundledPatterns() {
            var pattern: OpaquePointer? = nil
            try #require(hs_pattern_load_file(&pattern, path) == HS_OK, "\(lastError())")
            defer { hs_pattern_free(pattern) }
            let decoded = try AHAPPattern.load(file: path)
            let (status, ahap) = text { hs_pattern_to_json(pattern, Int32(HS_FORMAT_AHAP), $0, $1, $2) }
            #expect(status == HS_OK && ahap == decoded.pattern.encoded(), "\(path)")
            let (hapticStatus, haptic) = text { hs_pattern_to_json(pattern, Int32(HS_FORMAT_HAPTIC), $0, $1, $2) }
            #expect(hapticStatus == HS_OK && haptic == HapticClip.converting(decoded.pattern).clip.encoded(), "\(path)")
        }
    }

    @Test("a buffer too small: HS_ERR_LIMIT with the length, nothing written; bad format, NULL length, freed pattern refused")
    func bufferRules() throws {
        var pattern: OpaquePointer? = nil
        try #require(hs_pattern_load_file(&pattern, repoRoot + "/Haptics/heartbeat.ahap") == HS_OK)
        var length = 0
        #expect(hs_pattern_to_json(pattern, 0, nil, 0, &length) == HS_OK && length > 100)
        var buffer = [CChar](repeating: 7, count: length)  // no room for the NUL
        #expect(hs_pattern_to_json(pattern, 0, &buffer, buffer.count, &length) == HS_ERR_LIMIT)
        #expect(lastError().contains("capacity is \(buffer.count)") && buffer.allSatisfy { $0 == 7 })
        #expect(hs_pattern_to_json(pattern, 2, nil, 0, &length) == HS_ERR_INVALID_ARGUMENT)
        #expect(lastError().contains("format 2"))
        #expect(hs_pattern_to_json(pattern, 0, nil, 0, nil) == HS_ERR_INVALID_ARGUMENT)
        hs_pattern_free(pattern)
        #expect(hs_pattern_to_json(pattern, 0, nil, 0, &length) == HS_ERR_INVALID_HANDLE)
    }

    @Test("the devices as JSON: an array naming default")
    func devices() throws {
        let (status, json) = text { hs_devices_json($0, $1, $2) }
        try #require(status == HS_OK, "\(lastError())")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(list.contains { $0["name"] as? String == "default" }, "\(json)")
        #expect(list.allSatisfy { ($0["opens_now"] as? Bool) == ($0["error"] is NSNull) })
    }
}
