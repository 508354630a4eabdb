// `quality --plateau`: one more rule for choosing each clip's sensitivity from the sound alone,
// now that a ladder costs about two conversions. A designer moving the sensitivity slider might
// stop where the result holds still: the middle of the widest run of ladder rungs (5…100 %, every
// 5 %) with the same number of transients (or the same transients), the run nearest 50 % on a tie.
// Judged like the other rules: the median F50 on the dev and test halves, per family, and the
// clips at 0.7 or more, beside the default and each clip's best rung (the oracle).

import Foundation
import HapticKit

func plateauRule() {
    let levels = stride(from: 5.0, through: 100, by: 5).map { $0 / 100 }
    var rows: [(family: String, dev: Bool, f: [String: Double])] = []
    for pair in loadSet() where pair.kind == "tool" {
        do {
            let ref = try reference(setFolder + "/" + pair.reference)
            let ladder = try SoundConversion.sensitivityLadder(soundAt: setFolder + "/" + pair.sound, sensitivities: levels)
            let times = ladder.rungs.map(\.times)
            func f(_ k: Int) -> Double { TransientScore(found: times[k], reference: ref.transients, tolerance: 0.05).f }
            // Runs of equal count / equal times.
            func widest(_ same: (Int, Int) -> Bool, minCount: Int) -> Int {
                var best = (length: 0, mid: 9, distance: 100)
                var start = 0
                for k in 1...times.count {
                    if k == times.count || !same(k, start) {
                        let length = k - start
                        let mid = (start + k - 1) / 2
                        if times[start].count >= minCount {
                            let distance = abs(mid - 9)
                            if length > best.length || (length == best.length && distance < best.distance) { best = (length, mid, distance) }
                        }
                        start = k
                    }
                }
                return best.mid
            }
            var scores: [String: Double] = ["default": f(9)]
            scores["count plateau"] = f(widest({ times[$0].count == times[$1].count }, minCount: 0))
            scores["count plateau ≥1"] = f(widest({ times[$0].count == times[$1].count }, minCount: 1))
            scores["times plateau ≥1"] = f(widest({ times[$0] == times[$1] }, minCount: 1))
            scores["oracle"] = (0..<times.count).map(f).max()!
            rows.append((pair.family, isDev(pair.reference), scores))
        } catch {
            print("failed: \(pair.reference): \(error)")
        }
    }
    let rules = ["default", "count plateau", "count plateau ≥1", "times plateau ≥1", "oracle"]
    print("rule\tall\tdev\ttest\t≥0.7 (all)\t" + Array(Set(rows.map(\.family))).sorted().joined(separator: "\t"))
    for r in rules {
        let all = rows.map { $0.f[r]! }
        let dev = rows.filter(\.dev).map { $0.f[r]! }, test = rows.filter { !$0.dev }.map { $0.f[r]! }
        let fams = Array(Set(rows.map(\.family))).sorted().map { fam in format(median(rows.filter { $0.family == fam }.map { $0.f[r]! })) }
        print("\(r)\t\(format(median(all)))\t\(format(median(dev)))\t\(format(median(test)))\t\(all.filter { $0 >= 0.7 }.count)\t" + fams.joined(separator: "\t"))
    }
}
