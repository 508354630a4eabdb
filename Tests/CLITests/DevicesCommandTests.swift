import Foundation
import HapticCLI
import Testing

/// `devices` names a DualSense plugged in over USB and prints the command that drives it
/// (read from a fake /proc/asound tree).
@Suite struct DevicesCommandTests {
    @Test func aDualSenseIsNamedWithItsCommand() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("devices-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (path, text) in [("proc/asound/card3/id", "Controller\n"), ("proc/asound/card3/usbid", "054c:0ce6\n")] {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let devices = try #require(try Hapticsynth.parseAsRoot(["devices", "--sysroot", root]) as? Devices)
        var output = CapturedOutput()
        _ = try devices.execute(into: &output)
        #expect(output.standardOutput.contains(
            "DualSense (USB 054c:0ce6) on card 3 (Controller): its actuators are channels 3-4 of hw:CARD=Controller,DEV=0"))
        #expect(output.standardOutput.contains("  hapticsynth play -D hw:CARD=Controller,DEV=0 --layout dualsense FILE.ahap"))
        #expect(output.standardOutput.contains("USB only"))
        let json = try #require(try Hapticsynth.parseAsRoot(["devices", "--sysroot", root, "--json"]) as? Devices)
        var jsonOutput = CapturedOutput()
        _ = try json.execute(into: &jsonOutput)
        #expect(jsonOutput.standardOutput.contains("\"command\" : \"hapticsynth play -D hw:CARD=Controller,DEV=0 --layout dualsense FILE.ahap\""))
    }
}
