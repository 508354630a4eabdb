/// `value` with `places` decimals (as `%.Nf` prints it, without Foundation): messages about
/// times and lengths in the library modules, which keep Foundation out of libhapticsynth.
public func decimalText(_ value: Double, places: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    let places = min(max(places, 0), 9)
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return "\(value)" }  // past exact integers: Swift's own spelling
    let units = UInt64(scaled)
    let whole = units / UInt64(scale)
    let sign = value < 0 && units != 0 ? "-" : ""
    guard places > 0 else { return "\(sign)\(whole)" }
    let fraction = String(units % UInt64(scale))
    return "\(sign)\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
}
