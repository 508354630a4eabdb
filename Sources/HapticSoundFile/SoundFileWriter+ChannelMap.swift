// Where each channel of a written file goes, in the file: WAV's channel mask
// (WAVE_FORMAT_EXTENSIBLE's dwChannelMask), so that a player knows a 2.1 file's third channel
// is the LFE. libsndfile writes it for WAVEX, RF64 and CAF (SFC_SET_CHANNEL_MAP_INFO); it has
// no way to write FLAC's channel mask (its WAVEFORMATEXTENSIBLE_CHANNEL_MASK comment), so a
// FLAC keeps FLAC's default order for its channel count.

import CSndFile
import HapticRender

extension SoundFileWriter {
    /// libsndfile's channel-map values for `positions` (one per channel), or nil when a channel
    /// has no position a WAV channel mask can hold (AUX channels, an unnamed one).
    /// (libsndfile's mask takes LEFT/RIGHT/CENTER for the front channels, not FRONT_LEFT...)
    public static func channelMap(_ positions: [ChannelPosition?]) -> [Int32]? {
        var map: [Int32] = []
        for position in positions {
            let value: Int
            switch position {
            case .frontLeft: value = Int(SF_CHANNEL_MAP_LEFT)
            case .frontRight: value = Int(SF_CHANNEL_MAP_RIGHT)
            case .frontCenter: value = Int(SF_CHANNEL_MAP_CENTER)
            case .lfe: value = Int(SF_CHANNEL_MAP_LFE)
            case .rearLeft: value = Int(SF_CHANNEL_MAP_REAR_LEFT)
            case .rearRight: value = Int(SF_CHANNEL_MAP_REAR_RIGHT)
            case .frontLeftCenter: value = Int(SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER)
            case .frontRightCenter: value = Int(SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER)
            case .rearCenter: value = Int(SF_CHANNEL_MAP_REAR_CENTER)
            case .sideLeft: value = Int(SF_CHANNEL_MAP_SIDE_LEFT)
            case .sideRight: value = Int(SF_CHANNEL_MAP_SIDE_RIGHT)
            case .topCenter: value = Int(SF_CHANNEL_MAP_TOP_CENTER)
            case .topFrontLeft: value = Int(SF_CHANNEL_MAP_TOP_FRONT_LEFT)
            case .topFrontCenter: value = Int(SF_CHANNEL_MAP_TOP_FRONT_CENTER)
            case .topFrontRight: value = Int(SF_CHANNEL_MAP_TOP_FRONT_RIGHT)
            case .topRearLeft: value = Int(SF_CHANNEL_MAP_TOP_REAR_LEFT)
            case .topRearCenter: value = Int(SF_CHANNEL_MAP_TOP_REAR_CENTER)
            case .topRearRight: value = Int(SF_CHANNEL_MAP_TOP_REAR_RIGHT)
            default: return nil
            }
            map.append(Int32(value))
        }
        return map.isEmpty ? nil : map
    }

    /// The channel map `file` holds (libsndfile's values), or nil when it holds none.
    public static func channelMap(ofFileAt path: String) -> [Int32]? {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else { return nil }
        defer { sf_close(file) }
        var map = [Int32](repeating: 0, count: Int(info.channels))
        let found = sf_command(file, Int32(SFC_GET_CHANNEL_MAP_INFO), &map, Int32(map.count * 4))
        return found != 0 ? map : nil
    }
}
