import HapticTestSupport
import Testing
import Synchronization
@testable import HapticEngine

@Suite struct LockFreeQueueTests {
    @Test func fullQueueRefusesAndEmptyReturnsNil() {
        let queue = LockFreeQueue<Int>(minimumCapacity: 4)
        #expect(queue.capacity == 4)
        for i in 0..<4 { #expect(queue.push(i)) }
        #expect(!queue.push(99))
        for i in 0..<4 { #expect(queue.pop() == i) }
        #expect(queue.pop() == nil)
        #expect(queue.push(5))
        #expect(queue.pop() == 5)
    }

    @Test func manyProducersOneConsumerLoseNothingAndKeepEachProducersOrder() async {
        let queue = LockFreeQueue<Int>(minimumCapacity: 1024)
        let producers = 4, perProducer = 50_000
        let done = Counter()
        var received = Array(repeating: [Int](), count: producers)
        await withTaskGroup(of: Void.self) { group in
            for p in 0..<producers {
                group.addTask {
                    for i in 0..<perProducer {
                        while !queue.push(p * 1_000_000 + i) { await Task.yield() }  // full: let the consumer run
                    }
                    done.bump()
                }
            }
            // Consumer on this task.
            var total = 0
            while total < producers * perProducer {
                if let v = queue.pop() {
                    received[v / 1_000_000].append(v % 1_000_000)
                    total += 1
                } else {
                    await Task.yield()
                }
            }
            await group.waitForAll()
        }
        #expect(done.count == producers)
        for p in 0..<producers { #expect(received[p] == Array(0..<perProducer)) }
        #expect(queue.pop() == nil)
    }
}
