// One check for a number option within its range, so that every verb refuses a value the same
// way: "--min-gap 5.0: expected 10–10000 ms" (NaN and infinities are outside every range).

import ArgumentParser

/// Throws the parser's error naming `flag`, its value and the range when `value` is not a
/// finite number within `range`; `unit` follows the range (" ms", " %", or "").
func requireWithin(_ flag: String, _ value: Double, _ range: ClosedRange<Double>, _ unit: String) throws(ValidationError) {
    guard value.isFinite, range.contains(value) else {
        func bound(_ v: Double) -> String { String(format: "%g", v) }
        throw ValidationError("\(flag) \(value): expected \(bound(range.lowerBound))–\(bound(range.upperBound))\(unit)")
    }
}
