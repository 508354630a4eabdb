// The keys of an AHAP document, matched on the scanner's raw bytes.

/// The keys the reader knows, matched on raw bytes (no String per key).
enum Key {
    case version, metadata, pattern
    case event, parameter, parameterCurve
    case time, eventType, eventDuration, eventParameters
    case waveformPath, useVolumeEnvelope, loopEnabled
    case parameterID, parameterValue, controlPoints
    case unknown

    static func match(_ token: JSONStringToken, _ s: JSONScanner) -> Key {
        switch token.end - token.start {
        case 4: return s.equals(token, "Time") ? .time : .unknown
        case 5: return s.equals(token, "Event") ? .event : .unknown
        case 7:
            if s.equals(token, "Pattern") { return .pattern }
            return s.equals(token, "Version") ? .version : .unknown
        case 8: return s.equals(token, "Metadata") ? .metadata : .unknown
        case 9:
            if s.equals(token, "EventType") { return .eventType }
            return s.equals(token, "Parameter") ? .parameter : .unknown
        case 11: return s.equals(token, "ParameterID") ? .parameterID : .unknown
        case 13: return s.equals(token, "EventDuration") ? .eventDuration : .unknown
        case 14:
            if s.equals(token, "ParameterValue") { return .parameterValue }
            return s.equals(token, "ParameterCurve") ? .parameterCurve : .unknown
        case 15: return s.equals(token, "EventParameters") ? .eventParameters : .unknown
        case 17: return s.equals(token, "EventWaveformPath") ? .waveformPath : .unknown
        case 24: return s.equals(token, "EventWaveformLoopEnabled") ? .loopEnabled : .unknown
        case 27: return s.equals(token, "ParameterCurveControlPoints") ? .controlPoints : .unknown
        case 30: return s.equals(token, "EventWaveformUseVolumeEnvelope") ? .useVolumeEnvelope : .unknown
        default:
            // Escaped keys have a different raw length; compare their decoded text.
            if token.hasEscapes { return matchDecoded(s.string(token)) }
            return .unknown
        }
    }

    private static func matchDecoded(_ text: String) -> Key {
        switch text {
        case "Version": .version
        case "Metadata": .metadata
        case "Pattern": .pattern
        case "Event": .event
        case "Parameter": .parameter
        case "ParameterCurve": .parameterCurve
        case "Time": .time
        case "EventType": .eventType
        case "EventDuration": .eventDuration
        case "EventParameters": .eventParameters
        case "EventWaveformPath": .waveformPath
        case "EventWaveformUseVolumeEnvelope": .useVolumeEnvelope
        case "EventWaveformLoopEnabled": .loopEnabled
        case "ParameterID": .parameterID
        case "ParameterValue": .parameterValue
        case "ParameterCurveControlPoints": .controlPoints
        default: .unknown
        }
    }
}
