import Foundation
import Testing

@testable import HapticALSA

/// The DualSense lookup, on fake /proc/asound and sysfs trees (no controller needed).
@Suite struct SoundCardDirectoryTests {
    /// A fake root: card 0 a PC's codec, card 1 a DualSense (usbid in /proc), card 2 a DualSense
    /// Edge known only through sysfs, card 3 another USB card.
    static func fakeRoot() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sysroot-\(UUID().uuidString)").path
        func write(_ path: String, _ text: String) throws {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("proc/asound/cards", """
             0 [PCH            ]: HDA-Intel - HDA Intel PCH
                                  HDA Intel PCH at 0xf7f10000 irq 32
             1 [Controller     ]: USB-Audio - Wireless Controller
                                  Sony Interactive Entertainment Wireless Controller at usb-0000:00:14.0-2, full speed
             2 [Edge           ]: USB-Audio - DualSense Edge Wireless Controller
             3 [Headset        ]: USB-Audio - USB Headset

            """)
        try write("proc/asound/card0/id", "PCH\n")
        try write("proc/asound/card1/id", "Controller\n")
        try write("proc/asound/card1/usbid", "054c:0ce6\n")
        try write("proc/asound/card2/id", "Edge\n")
        try write("sys/class/sound/card2/device/placeholder", "")
        try write("sys/class/sound/card2/idVendor", "054c\n")
        try write("sys/class/sound/card2/idProduct", "0DF2\n")
        try write("proc/asound/card3/id", "Headset\n")
        try write("proc/asound/card3/usbid", "0d8c:0014\n")
        return root
    }

    @Test func findsDualSenseAndEdgeByUSBID() throws {
        let root = try Self.fakeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let directory = SoundCardDirectory(root: root)
        let cards = directory.cards()
        #expect(cards.map(\.id) == ["PCH", "Controller", "Edge", "Headset"])
        #expect(cards.map(\.usbID) == [nil, "054c:0ce6", "054c:0df2", "0d8c:0014"])
        #expect(cards[1].name == "Wireless Controller")
        let pads = directory.dualSenses()
        #expect(pads.map(\.index) == [1, 2])
        #expect(pads.map(\.gamepadName) == ["DualSense", "DualSense Edge"])
        #expect(SoundCardDirectory(root: root + "/nothing-here").cards().isEmpty)
    }
}
