// Named speaker positions: where a channel goes (ALSA's channel-map positions, plus the AUXn
// positions sound servers use for channels without a speaker name).

/// Where one output channel goes: a speaker position as ALSA's channel maps name them (`FL`,
/// `FR`, `FC`, `LFE`, `RL`, `RR`, `SL`, `SR`...), or an auxiliary channel `AUX0`…`AUX63` as
/// PulseAudio and PipeWire name channels that have no speaker position.
///
/// The cases from `unknown` to `brc` are in ALSA's order (`SND_CHMAP_UNKNOWN` = 0 …
/// `SND_CHMAP_BRC` = 36); HapticALSA converts by that order. ALSA itself has no AUX positions.
public enum ChannelPosition: Sendable, Hashable, CustomStringConvertible {
    case unknown, notAvailable, mono
    case frontLeft, frontRight, rearLeft, rearRight, frontCenter, lfe, sideLeft, sideRight, rearCenter
    case frontLeftCenter, frontRightCenter, rearLeftCenter, rearRightCenter
    case frontLeftWide, frontRightWide, frontLeftHigh, frontCenterHigh, frontRightHigh
    case topCenter, topFrontLeft, topFrontRight, topFrontCenter, topRearLeft, topRearRight, topRearCenter
    case topFrontLeftCenter, topFrontRightCenter, topSideLeft, topSideRight
    case leftLFE, rightLFE, bottomCenter, bottomLeftCenter, bottomRightCenter
    /// An auxiliary channel without a speaker position (0…63).
    case aux(Int)

    /// The most AUX channels a position can name.
    public static let auxCount = 64

    /// The named (non-AUX) positions in ALSA's order: `alsaOrder[i]` is ALSA's position `i`.
    public static let alsaOrder: [ChannelPosition] = [
        .unknown, .notAvailable, .mono, .frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lfe,
        .sideLeft, .sideRight, .rearCenter, .frontLeftCenter, .frontRightCenter, .rearLeftCenter, .rearRightCenter,
        .frontLeftWide, .frontRightWide, .frontLeftHigh, .frontCenterHigh, .frontRightHigh, .topCenter,
        .topFrontLeft, .topFrontRight, .topFrontCenter, .topRearLeft, .topRearRight, .topRearCenter,
        .topFrontLeftCenter, .topFrontRightCenter, .topSideLeft, .topSideRight, .leftLFE, .rightLFE,
        .bottomCenter, .bottomLeftCenter, .bottomRightCenter,
    ]

    /// ALSA's short names, in `alsaOrder` (what `snd_pcm_chmap_name` and `speaker-test` print).
    static let alsaNames: [String] = [
        "UNKNOWN", "NA", "MONO", "FL", "FR", "RL", "RR", "FC", "LFE", "SL", "SR", "RC", "FLC", "FRC", "RLC", "RRC",
        "FLW", "FRW", "FLH", "FCH", "FRH", "TC", "TFL", "TFR", "TFC", "TRL", "TRR", "TRC", "TFLC", "TFRC", "TSL",
        "TSR", "LLFE", "RLFE", "BC", "BLC", "BRC",
    ]

    /// The short name: `FL`, `LFE`, `AUX0`...
    public var name: String {
        if case .aux(let n) = self { return "AUX\(n)" }
        return Self.alsaNames[Self.alsaOrder.firstIndex(of: self)!]
    }

    public var description: String { name }

    /// The position a short name stands for (case-insensitive), or nil. `UNKNOWN` and `NA` are
    /// not accepted: they name no place a channel could be sent to.
    public init?(name: String) {
        let upper = name.uppercased()
        if upper.hasPrefix("AUX"), let n = Int(upper.dropFirst(3)), (0..<Self.auxCount).contains(n),
            String(n) == upper.dropFirst(3)
        {
            self = .aux(n)
            return
        }
        guard let i = Self.alsaNames.firstIndex(of: upper), i >= 2 else { return nil }
        self = Self.alsaOrder[i]
    }

    /// Which side a sound server treats the position as (PulseAudio's remixing groups positions
    /// this way: unmatched left channels are mixed into the left speakers, and so on).
    public enum Side: Sendable, Equatable { case left, right, center, lfe, mono, other }

    public var side: Side {
        switch self {
        case .frontLeft, .rearLeft, .frontLeftCenter, .sideLeft, .topFrontLeft, .topRearLeft, .rearLeftCenter,
            .frontLeftWide, .frontLeftHigh, .topFrontLeftCenter, .topSideLeft, .bottomLeftCenter:
            return .left
        case .frontRight, .rearRight, .frontRightCenter, .sideRight, .topFrontRight, .topRearRight, .rearRightCenter,
            .frontRightWide, .frontRightHigh, .topFrontRightCenter, .topSideRight, .bottomRightCenter:
            return .right
        case .frontCenter, .rearCenter, .topCenter, .topFrontCenter, .topRearCenter, .frontCenterHigh, .bottomCenter:
            return .center
        case .lfe, .leftLFE, .rightLFE: return .lfe
        case .mono: return .mono
        default: return .other
        }
    }

    /// True for `AUXn`.
    public var isAux: Bool {
        if case .aux = self { return true }
        return false
    }

    /// The channel map ALSA's `pulse` plugin (alsa-plugins 1.2.7.1, `pulse_prepare`) gives a
    /// stream of `channels` channels: PulseAudio's ALSA map for the largest count it defines
    /// (1 MONO; 2 FL FR; 4 + RL RR; 5 + FC; 6 + LFE; 8 + SL SR), the rest AUX0, AUX1...
    /// PipeWire's ALSA plugin offers the same maps for 1, 2, 4, 5, 6 and 8 channels.
    public static func soundServerMap(channels: Int) -> [ChannelPosition] {
        let known: [Int: [ChannelPosition]] = [
            1: [.mono], 2: [.frontLeft, .frontRight], 4: [.frontLeft, .frontRight, .rearLeft, .rearRight],
            5: [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter],
            6: [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lfe],
            8: [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lfe, .sideLeft, .sideRight],
        ]
        guard channels > 0 else { return [] }
        var c = channels
        while c > 0 && known[c] == nil { c -= 1 }
        let base = known[c] ?? []
        return base + (0..<(channels - base.count)).map { .aux(min($0, auxCount - 1)) }
    }
}

extension Array where Element == ChannelPosition {
    /// `FL FR LFE`.
    public var mapDescription: String { map(\.name).joined(separator: " ") }
}
