// The reader's elements: events, their parameters, dynamic parameters and parameter curves.

extension AHAPReader {
    /// One element; nil when it is dropped (with a warning, e.g. an unknown parameter ID).
    /// Element indices in paths are file positions.
    mutating func readElement(_ i: Int) throws(AHAPError) -> PatternElement? {
        let kind = s.peekKind()
        guard kind == .object else {
            if kind == .invalid { throw s.expectedValueError() }
            throw error(.elementShape, "Pattern[\(i)]", "an element must be an object with one of Event, Parameter or ParameterCurve, found \(kind.noun)")
        }
        try s.beginObject()
        var result: PatternElement??
        var firstKey: String?
        var unknown: [String] = []
        var first = true
        while let key = try s.nextMember(&first) {
            let matched = Key.match(key, s)
            switch matched {
            case .event, .parameter, .parameterCurve:
                let name = s.string(key)
                if let firstKey {
                    throw error(.elementShape, "Pattern[\(i)]", "an element must have exactly one of Event, Parameter or ParameterCurve; this one has \(firstKey) and \(name)")
                }
                firstKey = name
                switch matched {
                case .event: result = .some(.event(try readEvent(i)))
                case .parameter: result = .some(try readParameter(i).map(PatternElement.parameter))
                default: result = .some(try readCurve(i).map(PatternElement.curve))
                }
            default:
                unknown.append(s.string(key))
                try s.skipValue()
            }
        }
        guard let result else {
            let found = unknown.isEmpty ? "it is empty" : "it has only " + unknown.map { "'\($0)'" }.joined(separator: ", ")
            throw error(.elementShape, "Pattern[\(i)]", "an element must have one of Event, Parameter or ParameterCurve; \(found)")
        }
        for name in unknown {
            try warn(.unknownKey, "Pattern[\(i)].\(name)", "unknown key '\(name)' ignored")
        }
        return result
    }

    mutating func readEvent(_ i: Int) throws(AHAPError) -> Event {
        try beginObject("Pattern[\(i)].Event", "Event")
        var time: Double?
        var type: EventType?
        var duration: Double?
        var parameters: [EventParameter] = []
        var waveformPath: String?
        var useVolumeEnvelope = true
        var loopEnabled = false
        var seenTime = false, seenType = false, seenParameters = false, seenPath = false, seenEnvelope = false, seenLoop = false
        var first = true
        while let key = try s.nextMember(&first) {
            switch Key.match(key, s) {
            case .time:
                try duplicate(&seenTime, key, "Pattern[\(i)].Event")
                time = try self.time("Pattern[\(i)].Event.Time", "Time")
            case .eventType:
                try duplicate(&seenType, key, "Pattern[\(i)].Event")
                let token = try string("Pattern[\(i)].Event.EventType", "EventType")
                guard let matched = matchEventType(token) else {
                    throw error(
                        .unknownEventType, "Pattern[\(i)].Event.EventType",
                        "unknown EventType '\(s.string(token))' (expected HapticTransient, HapticContinuous, AudioCustom or AudioContinuous)")
                }
                type = matched
            case .eventDuration:
                if duration != nil { try warn(.duplicate, "Pattern[\(i)].Event.EventDuration", "'EventDuration' given twice; the last one applies") }
                duration = try self.time("Pattern[\(i)].Event.EventDuration", "EventDuration")
            case .eventParameters:
                try duplicate(&seenParameters, key, "Pattern[\(i)].Event")
                parameters = try readEventParameters(i)
            case .waveformPath:
                try duplicate(&seenPath, key, "Pattern[\(i)].Event")
                waveformPath = s.string(try string("Pattern[\(i)].Event.EventWaveformPath", "EventWaveformPath"))
            case .useVolumeEnvelope:
                try duplicate(&seenEnvelope, key, "Pattern[\(i)].Event")
                useVolumeEnvelope = try bool("Pattern[\(i)].Event.EventWaveformUseVolumeEnvelope", "EventWaveformUseVolumeEnvelope")
            case .loopEnabled:
                try duplicate(&seenLoop, key, "Pattern[\(i)].Event")
                loopEnabled = try bool("Pattern[\(i)].Event.EventWaveformLoopEnabled", "EventWaveformLoopEnabled")
            default:
                try unknownKey(key, in: "Pattern[\(i)].Event")
            }
        }
        guard let time else { throw error(.missingValue, "Pattern[\(i)].Event", "Time is missing") }
        guard let type else { throw error(.missingValue, "Pattern[\(i)].Event", "EventType is missing") }
        var event = Event(
            time: time, type: type, duration: duration, parameters: parameters, waveformPath: waveformPath,
            useVolumeEnvelope: useVolumeEnvelope, loopEnabled: loopEnabled)

        if type.isHaptic {
            for id in [EventParameterID.hapticIntensity, .hapticSharpness] where event.value(of: id) == nil {
                try warn(
                    .defaultApplied, "Pattern[\(i)].Event.EventParameters",
                    "\(id.rawValue) is absent; the actuator profile's default applies")
            }
        }
        if type.isContinuous && event.isSustained {
            guard let d = duration, d > 0 else {
                throw error(
                    .missingDuration, duration == nil ? "Pattern[\(i)].Event" : "Pattern[\(i)].Event.EventDuration",
                    "a sustained \(type.rawValue) event needs a positive EventDuration"
                        + (duration == nil ? " (it has none)" : " (found \(formatNumber(duration!)))"))
            }
        }
        if type.isContinuous, let d = duration, d > ahapMaximumContinuousDuration {
            try warn(
                .capped, "Pattern[\(i)].Event.EventDuration",
                "EventDuration \(formatNumber(d)) s is longer than \(formatNumber(ahapMaximumContinuousDuration)) s; capped at \(formatNumber(ahapMaximumContinuousDuration)) s")
            event.duration = ahapMaximumContinuousDuration
        } else if let d = duration, d > Limits.maxTime {
            // An AudioCustom (or transient) duration: a looped sound would fill it, so render caps it.
            try warn(
                .capped, "Pattern[\(i)].Event.EventDuration",
                "EventDuration \(formatNumber(d)) s is longer than the \(formatNumber(Limits.maxTime)) s limit; capped at \(formatNumber(Limits.maxTime)) s")
            event.duration = Limits.maxTime
        }
        if type == .audioCustom {
            guard let path = waveformPath else {
                throw error(.missingWaveformPath, "Pattern[\(i)].Event", "an AudioCustom event needs an EventWaveformPath")
            }
            if path.isEmpty {
                throw error(.missingWaveformPath, "Pattern[\(i)].Event.EventWaveformPath", "an AudioCustom event needs an EventWaveformPath (it is empty)")
            }
        } else {
            if waveformPath != nil {
                try warn(.ignored, "Pattern[\(i)].Event.EventWaveformPath", "EventWaveformPath is only used by AudioCustom events; ignored for \(type.rawValue)")
            }
        }
        return event
    }

    mutating func readEventParameters(_ i: Int) throws(AHAPError) -> [EventParameter] {
        try beginArray("Pattern[\(i)].Event.EventParameters", "EventParameters")
        var list: [EventParameter] = []
        var first = true
        var j = 0
        while try s.nextElement(&first) {
            defer { j += 1 }
            // Built only when reported (a String per entry would cost on large files).
            func base() -> String { "Pattern[\(i)].Event.EventParameters[\(j)]" }
            try beginObject(base(), "an event parameter")
            var id: EventParameterID?
            var idText: String?
            var value: Double?
            var firstKey = true
            while let key = try s.nextMember(&firstKey) {
                switch Key.match(key, s) {
                case .parameterID:
                    let token = try string(base() + ".ParameterID", "ParameterID")
                    id = matchEventParameterID(token)
                    idText = id == nil ? s.string(token) : nil
                case .parameterValue:
                    value = try number(base() + ".ParameterValue", "ParameterValue")
                default:
                    try unknownKey(key, in: base())
                }
            }
            guard let id else {
                if let idText {
                    try warn(.unknownParameter, base() + ".ParameterID", "unknown event parameter '\(idText)' ignored")
                } else {
                    try warn(.defaultApplied, base(), "event parameter without ParameterID ignored")
                }
                continue
            }
            guard let raw = value else {
                try warn(.defaultApplied, base(), "\(id.rawValue) has no ParameterValue; ignored, so its default applies")
                continue
            }
            let clamped = try clamp(raw, id.range, id.rawValue, base() + ".ParameterValue")
            if list.contains(where: { $0.id == id }) {
                try warn(.duplicate, base(), "\(id.rawValue) given twice in this event; the last one applies")
            }
            list.append(EventParameter(id, clamped))
        }
        return list
    }

    mutating func readParameter(_ i: Int) throws(AHAPError) -> DynamicParameter? {
        func base() -> String { "Pattern[\(i)].Parameter" }
        try beginObject(base(), "Parameter")
        var id: DynamicParameterID?
        var idText: String?
        var time: Double?
        var value: Double?
        var first = true
        while let key = try s.nextMember(&first) {
            switch Key.match(key, s) {
            case .parameterID:
                let token = try string(base() + ".ParameterID", "ParameterID")
                id = matchDynamicParameterID(token)
                idText = s.string(token)
            case .time: time = try self.time(base() + ".Time", "Time")
            case .parameterValue: value = try number(base() + ".ParameterValue", "ParameterValue")
            default: try unknownKey(key, in: base())
            }
        }
        guard let idText else { throw error(.missingValue, base(), "ParameterID is missing") }
        guard let time else { throw error(.missingValue, base(), "Time is missing") }
        guard let id else {
            try warn(.unknownParameter, base() + ".ParameterID", "unknown dynamic parameter '\(idText)'; element ignored")
            return nil
        }
        let v: Double
        if let value {
            v = try clamp(value, id.range, id.rawValue, base() + ".ParameterValue")
        } else {
            try warn(.defaultApplied, base(), "ParameterValue is missing; the neutral value \(formatNumber(id.defaultValue)) applies")
            v = id.defaultValue
        }
        return DynamicParameter(id, time: time, value: v)
    }

    mutating func readCurve(_ i: Int) throws(AHAPError) -> ParameterCurve? {
        func base() -> String { "Pattern[\(i)].ParameterCurve" }
        try beginObject(base(), "ParameterCurve")
        var id: DynamicParameterID?
        var idText: String?
        var time: Double?
        var rawPoints: [(time: Double, value: Double?)]?
        var first = true
        while let key = try s.nextMember(&first) {
            switch Key.match(key, s) {
            case .parameterID:
                let token = try string(base() + ".ParameterID", "ParameterID")
                id = matchDynamicParameterID(token)
                idText = s.string(token)
            case .time: time = try self.time(base() + ".Time", "Time")
            case .controlPoints: rawPoints = try readControlPoints(base)
            default: try unknownKey(key, in: base())
            }
        }
        guard let idText else { throw error(.missingValue, base(), "ParameterID is missing") }
        guard let time else { throw error(.missingValue, base(), "Time is missing") }
        guard let id else {
            try warn(.unknownParameter, base() + ".ParameterID", "unknown dynamic parameter '\(idText)'; curve ignored")
            return nil
        }
        if rawPoints == nil {
            try warn(.defaultApplied, base(), "ParameterCurveControlPoints is missing; the curve has no points")
        }
        var points: [ParameterCurve.ControlPoint] = []
        var previous = -Double.infinity
        var warnedOrder = false
        for (k, point) in (rawPoints ?? []).enumerated() {
            func pointPath() -> String { "\(base()).ParameterCurveControlPoints[\(k)]" }
            let v: Double
            if let value = point.value {
                v = try clamp(value, id.range, id.rawValue, pointPath() + ".ParameterValue")
            } else {
                try warn(.defaultApplied, pointPath(), "ParameterValue is missing; the neutral value \(formatNumber(id.defaultValue)) applies")
                v = id.defaultValue
            }
            if point.time < previous && !warnedOrder {
                warnedOrder = true
                try warn(.unsorted, pointPath() + ".Time", "control point at \(formatNumber(point.time)) s comes before the previous one at \(formatNumber(previous)) s")
            }
            previous = max(previous, point.time)
            points.append(.init(point.time, v))
        }
        return ParameterCurve(id, time: time, points: points)
    }

    mutating func readControlPoints(_ base: () -> String) throws(AHAPError) -> [(time: Double, value: Double?)] {
        try beginArray(base() + ".ParameterCurveControlPoints", "ParameterCurveControlPoints")
        var points: [(time: Double, value: Double?)] = []
        var first = true
        var k = 0
        while try s.nextElement(&first) {
            defer { k += 1 }
            func pointPath() -> String { "\(base()).ParameterCurveControlPoints[\(k)]" }
            try beginObject(pointPath(), "a control point")
            var time: Double?
            var value: Double?
            var firstKey = true
            while let key = try s.nextMember(&firstKey) {
                switch Key.match(key, s) {
                case .time: time = try self.time(pointPath() + ".Time", "Time")
                case .parameterValue: value = try number(pointPath() + ".ParameterValue", "ParameterValue")
                default: try unknownKey(key, in: pointPath())
                }
            }
            guard let time else { throw error(.missingValue, pointPath(), "Time is missing") }
            points.append((time, value))
        }
        return points
    }
}
