import HapticEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The sound cards as the kernel lists them in `/proc/asound` (and sysfs), read from a root
/// folder so that tests can hand it a fake tree: `<root>/proc/asound/cardN/id`, `.../usbid`
/// (`054c:0ce6` for a USB card), `<root>/proc/asound/cards` (the long names), and for a USB card
/// without `usbid`, `<root>/sys/class/sound/cardN/device/../idVendor` and `idProduct`.
public struct SoundCardDirectory: Sendable {
    /// One card.
    public struct Card: Sendable, Equatable {
        public var index: Int
        /// ALSA's card id (`Controller`): `hw:CARD=Controller,DEV=0` names its first PCM.
        public var id: String
        /// The card's name from /proc/asound/cards (`Wireless Controller`), when listed.
        public var name: String?
        /// `vendor:product` of a USB card (lowercase hex), else nil.
        public var usbID: String?

        /// A Sony DualSense or DualSense Edge (by USB id).
        public var isDualSense: Bool { usbID.map { DualSenseIDs.all.contains($0) } ?? false }

        /// `DualSense Edge` / `DualSense` / nil.
        public var gamepadName: String? {
            switch usbID {
            case DualSenseIDs.dualSense: return "DualSense"
            case DualSenseIDs.dualSenseEdge: return "DualSense Edge"
            default: return nil
            }
        }
    }

    public let root: String

    public init(root: String = "/") { self.root = root.hasSuffix("/") ? root : root + "/" }

    /// Every card, by index.
    public func cards() -> [Card] {
        let names = longNames()
        var result: [Card] = []
        for index in 0..<64 {
            guard let id = Self.read(root + "proc/asound/card\(index)/id") else { continue }
            result.append(Card(index: index, id: id, name: names[index], usbID: usbID(ofCard: index)))
        }
        return result
    }

    /// The cards that are DualSense controllers.
    public func dualSenses() -> [Card] { cards().filter(\.isDualSense) }

    /// `vendor:product` of card `index` when it is a USB card.
    public func usbID(ofCard index: Int) -> String? {
        if let id = Self.read(root + "proc/asound/card\(index)/usbid"), id.count == 9 { return id.lowercased() }
        let device = root + "sys/class/sound/card\(index)/device/../"
        guard let vendor = Self.read(device + "idVendor"), let product = Self.read(device + "idProduct") else {
            return nil
        }
        return "\(vendor):\(product)".lowercased()
    }

    /// `/proc/asound/cards` lines ` 1 [Controller     ]: USB-Audio - Wireless Controller`.
    func longNames() -> [Int: String] {
        guard let text = Self.read(root + "proc/asound/cards") else { return [:] }
        var names: [Int: String] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard let space = trimmed.firstIndex(of: " "), let index = Int(trimmed[..<space]),
                let dash = trimmed.firstRange(of: " - ")
            else { continue }
            names[index] = String(trimmed[dash.upperBound...])
        }
        return names
    }

    /// A small text file's contents without the trailing newline (nil when absent).
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 16 {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }
}
