import CAllocationCounter
import CHapticSynth
import Foundation
import HapticTestSupport
import Testing

/// Threads through the C API: the real-time pull counts no allocation; two pullers, and a close
/// while another thread pulls, end in statuses, not crashes.
@Suite(.serialized) struct ThreadTests {
    @Test("hs_engine_render allocates nothing on the pulling thread, on its success and error paths")
    func renderNeverAllocates() throws {
        var status: Int32 = 0
        let pattern = loadJSON(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3}}, {"Event": {"Time": 0.1, "EventType": "HapticTransient"}}]}"#, status: &status)
        defer { hs_pattern_free(pattern) }
        let (engine, _) = openOffline(channels: 3, layout: "L,R,H")
        defer { hs_engine_close(engine) }
        var live: OpaquePointer? = nil
        try #require(hs_engine_open(&live, "null", nil, 0) == HS_OK)
        defer { hs_engine_close(live) }
        var buffer = [Float](repeating: 0, count: 4096 * 3)
        let tally = allocation_tally_open()
        #expect(tally > 0)
        var failures = 0
        // Round 0 goes uncounted: the first calls of a process instantiate the runtime's type
        // metadata of each path, and a thread's first call its error slot (the header says so).
        for i in 0...200 {
            if i % 4 == 0 { hs_engine_play(engine, pattern, 0) }
            if i % 9 == 0 { hs_engine_transient(engine, 0.7, 0.3, 0) }
            let frames = Int32([1, 64, 480, 4096][i % 4])
            allocation_tally_track_current_thread(i == 0 ? 0 : tally)
            let ok = buffer.withUnsafeMutableBufferPointer { hs_engine_render(engine, $0.baseAddress, frames) }
            var now = 0.0
            let clock = hs_engine_now(engine, &now)
            // The error paths: NULL buffer, negative frames, a bad handle, a live engine.
            let noBuffer = hs_engine_render(engine, nil, 16)
            let negative = buffer.withUnsafeMutableBufferPointer { hs_engine_render(engine, $0.baseAddress, -1) }
            let badHandle = buffer.withUnsafeMutableBufferPointer { hs_engine_render(OpaquePointer(bitPattern: 0xBAD), $0.baseAddress, 16) }
            let notPulled = buffer.withUnsafeMutableBufferPointer { hs_engine_render(live, $0.baseAddress, 16) }
            _ = hs_last_error()
            allocation_tally_track_current_thread(0)
            if ok != HS_OK || clock != HS_OK || noBuffer == HS_OK || negative == HS_OK || badHandle == HS_OK || notPulled == HS_OK {
                failures += 1
            }
        }
        #expect(failures == 0)
        #expect(allocation_tally_count(tally) == 0, "allocations in hs_engine_render: \(allocation_tally_count(tally))")
    }

    @Test("two threads pulling one engine: one renders, the other is told HS_ERR_BUSY and gets silence")
    func twoPullers() async throws {
        let (engine, _) = openOffline()
        defer { hs_engine_close(engine) }
        let handle = UInt(bitPattern: Int(bitPattern: engine))
        let busy = Counter(), rendered = Counter(), other = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    let engine = OpaquePointer(bitPattern: handle)
                    var buffer = [Float](repeating: 1, count: 48_000)
                    for _ in 0..<60 {
                        let status = buffer.withUnsafeMutableBufferPointer { hs_engine_render(engine, $0.baseAddress, 48_000) }
                        switch status {
                        case Int32(HS_OK): rendered.bump()
                        case Int32(HS_ERR_BUSY):
                            busy.bump()
                            if buffer.contains(where: { $0 != 0 }) { other.bump() }
                        default: other.bump()
                        }
                    }
                }
            }
        }
        #expect(other.count == 0, "an unexpected status, or a busy pull that was not silence")
        #expect(rendered.count + busy.count == 120)
        var s = hs_engine_status()
        s.struct_size = MemoryLayout<hs_engine_status>.size
        hs_engine_get_status(engine, &s)
        #expect(s.frames_rendered == Int64(rendered.count) * 48_000, "the clock moved by the rendered pulls only")
        print("two pullers: \(rendered.count) rendered, \(busy.count) busy")
    }

    @Test("closing an engine while another thread pulls it: the pull ends, then the handle is refused")
    func closeWhilePulling() async throws {
        for _ in 0..<5 {
            let (engine, _) = openOffline()
            let handle = UInt(bitPattern: Int(bitPattern: engine))
            let started = Counter()
            let puller = Task.detached { () -> [Int32] in
                let engine = OpaquePointer(bitPattern: handle)
                var buffer = [Float](repeating: 0, count: 9600)
                var statuses: [Int32] = []
                while statuses.count < 100_000 {
                    let status = buffer.withUnsafeMutableBufferPointer { hs_engine_render(engine, $0.baseAddress, 9600) }
                    statuses.append(status)
                    started.bump()
                    if status != HS_OK { break }
                }
                return statuses
            }
            while started.count < 3 { usleep(100) }
            hs_engine_close(engine)
            #expect(lastError() == "")
            let statuses = await puller.value
            #expect(statuses.last == Int32(HS_ERR_INVALID_HANDLE))
            #expect(statuses.dropLast().allSatisfy { $0 == HS_OK })
        }
    }
}
