import Testing
import CAllocationCounter

@Test func allocationCounterSeesAllocations() {
    #expect(allocation_counter_is_active() == 1)
    allocation_counter_reset()
    allocation_counter_track_current_thread()
    let a = [Int](repeating: 1, count: 100)
    allocation_counter_untrack_current_thread()
    #expect(a.count == 100)
    #expect(allocation_counter_count() >= 1)
}
