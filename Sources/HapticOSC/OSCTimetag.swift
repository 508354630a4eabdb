/// OSC timetags (NTP format: seconds since 1900 and a 2^-32 fraction, on the sender's wall
/// clock) and the engine's CLOCK_MONOTONIC seconds. A bundle's timetag is converted with
/// the offset between the two clocks read at the moment the bundle is decoded, so a
/// client whose wall clock agrees with the server's (the same machine, or NTP) gets the
/// monotonic time it meant. The conversions here are pure; reading the clocks is in
/// `OSCTimetag+Clock.swift`.
public enum OSCTimetag {
    /// Seconds from the NTP epoch (1900) to the Unix epoch (1970).
    public static let ntpToUnixSeconds: Double = 2_208_988_800

    /// The "immediately" timetag (0 s, fraction 1).
    public static func isImmediate(seconds: UInt32, fraction: UInt32) -> Bool { seconds == 0 && fraction <= 1 }

    /// A timetag as Unix wall-clock seconds.
    public static func wallSeconds(seconds: UInt32, fraction: UInt32) -> Double {
        Double(seconds) - ntpToUnixSeconds + Double(fraction) / 4_294_967_296
    }

    /// Unix wall-clock seconds as a timetag (clamped to what 32 bits of NTP seconds hold).
    public static func timetag(wallSeconds wall: Double) -> (seconds: UInt32, fraction: UInt32) {
        let ntp = wall.isFinite ? min(max(wall + ntpToUnixSeconds, 0), 4_294_967_295) : 0
        let whole = ntp.rounded(.down)
        return (UInt32(whole), UInt32(min((ntp - whole) * 4_294_967_296, 4_294_967_295)))
    }

    /// The monotonic time of a timetag; 0 (as soon as possible) for the immediate one.
    public static func monotonicSeconds(seconds: UInt32, fraction: UInt32, wallMinusMonotonic offset: Double) -> Double {
        if isImmediate(seconds: seconds, fraction: fraction) { return 0 }
        return wallSeconds(seconds: seconds, fraction: fraction) - offset
    }
}
