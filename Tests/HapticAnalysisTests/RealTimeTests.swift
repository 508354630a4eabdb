// The streaming analysis on a render thread: no allocation, whatever the sound.

import CAllocationCounter
import Foundation
import HapticAnalysis
import HapticTestSupport
import Testing

@Suite("Streaming analysis: no allocation on the render thread")
struct RealTimeTests {
    @Test func processingAllocatesNothing() throws {
        #expect(allocation_counter_is_active() == 1)
        // Clicks, a sweep, noise, silence and non-finite samples: every path is taken.
        let rate = Synth.rate
        var sound = Synth.clicks(at: stride(from: 4_800, to: 470_000, by: 9_000).map { $0 }, length: 480_000, shape: 2)
        let sweep = Synth.sweep(from: 30, to: 900, seconds: 10, amplitude: 0.3)
        let noise = Synth.noise(seconds: 10, level: 0.1, fade: 1)
        for i in sound.indices { sound[i] += sweep[i] + noise[i] }
        for i in 200_000..<260_000 { sound[i] = 0 }
        sound[300_000] = .nan
        let input = sound
        let settings = AnalysisSettings(sampleRate: rate)
        let hop = try StreamingAnalyzer(settings: settings).hopFrames
        let probe = Probe()
        let tally = allocation_tally_open()
        let thread = Thread {
            // Made on this thread, before counting starts (as a live engine does before running).
            // Several sensitivities at once (the ladder's analyser; the follower's has one).
            let analyzer = try! StreamingAnalyzer(settings: settings, sensitivities: [0.5, 0, 1])
            input.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                allocation_tally_track_current_thread(tally)
                var done = 0
                var hits = 0, none = 0, most = 0
                var frames = 0
                var block = 1
                while done < buffer.count {
                    done += analyzer.process(base + done, count: min(block, buffer.count - done))
                    hits += analyzer.hits.count
                    none += analyzer.hits(at: 1).count
                    most += analyzer.hits(at: 2).count
                    frames += analyzer.frames.count
                    block = block * 7 % 4099 + 1  // 1…4099: odd sizes and the largest
                }
                allocation_tally_track_current_thread(0)
                probe.allocations = allocation_tally_count(tally)
                probe.hits = hits
                probe.hitsPerLevel = [hits, none, most]
                probe.frames = frames
            }
            probe.done.signal()
        }
        thread.start()
        probe.done.wait()
        #expect(probe.hits > 20)
        #expect(probe.hitsPerLevel.count == 3 && probe.hitsPerLevel[1] == 0 && probe.hitsPerLevel[2] >= probe.hits)
        #expect(probe.frames == 480_000 / hop)
        #expect(probe.allocations == 0, "allocations on the render thread: \(probe.allocations)")
    }
}

final class Probe: @unchecked Sendable {
    // Written by the analysing thread before `done` is signalled, read after waiting.
    var allocations: Int64 = -1
    var hits = 0
    var hitsPerLevel: [Int] = []
    var frames = 0
    let done = DispatchSemaphore(value: 0)
}
