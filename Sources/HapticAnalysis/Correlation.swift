/// Pearson correlation of two series over their common length: how well one envelope follows
/// the shape of another, whatever their scales (the conversion's quality measure against a
/// reference clip, and the synthetic cases' check).
///
/// - Returns: nil when the common length is under two or either series is constant over it
///   (no shape to compare).
public func pearsonCorrelation(_ a: [Double], _ b: [Double]) -> Double? {
    let n = min(a.count, b.count)
    guard n > 1 else { return nil }
    let a = a.prefix(n), b = b.prefix(n)
    let ma = a.reduce(0, +) / Double(n), mb = b.reduce(0, +) / Double(n)
    var sab = 0.0, saa = 0.0, sbb = 0.0
    for (x, y) in zip(a, b) {
        sab += (x - ma) * (y - mb)
        saa += (x - ma) * (x - ma)
        sbb += (y - mb) * (y - mb)
    }
    guard saa > 1e-12, sbb > 1e-12 else { return nil }
    return sab / (saa * sbb).squareRoot()
}
