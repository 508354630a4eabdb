// The batch runner of `render`, `convert` and `plot`: a batch's files are worked on by up to
// `--jobs` threads at a time, and each file's result is handed back on the calling thread in
// input order, as soon as it and every file before it are done. The verbs print from there, so
// what a batch prints, writes and returns is the same for every --jobs; only the time differs.

import ArgumentParser
import Foundation

/// `-j N` / `--jobs N`: how many files of a batch are worked on at once.
struct BatchOptions: ParsableArguments {
    @Option(name: [.customShort("j"), .long], parsing: .unconditional, help: ArgumentHelp(
        "Files worked on at once (1-\(BatchRunner.maximumJobs); default: the processors this process may use). Output is the same for any value.",
        valueName: "n"))
    var jobs: Int?

    func validate() throws {
        if let jobs, !(1...BatchRunner.maximumJobs).contains(jobs) {
            throw ValidationError("--jobs \(jobs): expected 1 to \(BatchRunner.maximumJobs) files at a time")
        }
    }

    var runner: BatchRunner { BatchRunner(jobs: jobs ?? BatchRunner.defaultJobs) }
}

/// Runs `work` for each index of a batch on up to `jobs` threads; `deliver` gets the results
/// on the calling thread, in index order. `work` must be safe to run on several threads at
/// once (the verbs' per-file work shares only caches that lock: the render tables, the sound
/// libraries); `deliver` runs on the calling thread only, one result at a time.
struct BatchRunner {
    /// The most files at once: each holds a temporary output file, and the signal handler's
    /// registry of them has 64 slots (`TemporaryFiles.capacity`), with room to spare.
    static let maximumJobs = 32

    /// The processors this process may run on (Foundation's count: its affinity mask, as
    /// `taskset` sets it, on Linux), at most `maximumJobs`.
    static var defaultJobs: Int {
        min(max(ProcessInfo.processInfo.activeProcessorCount, 1), maximumJobs)
    }

    let jobs: Int

    /// Works on indices 0..<count; `deliver(index, result)` returns false to stop the batch
    /// (the files not yet started are not started; those running finish, their results dropped).
    func run<Value>(_ count: Int, work: (Int) -> Value, deliver: (Int, Value) -> Bool) {
        let threads = min(jobs, count)
        guard threads > 1 else {
            // One at a time, on this thread: the behaviour before there were jobs.
            for index in 0..<count where !deliver(index, work(index)) { return }
            return
        }
        // `work` is not @Sendable (the verbs capture themselves); the contract above is what
        // makes sharing it sound.
        withoutActuallyEscaping(work) { escapable in
            let batch = SharedBatch<Value>(count: count, work: Unchecked(escapable))
            var workers: [pthread_t] = []
            for _ in 0..<threads {
                if let thread = batch.startWorker() { workers.append(thread) }
            }
            if workers.isEmpty {
                // No thread could be made (a process limit): the calling thread does the work.
                for index in 0..<count where !deliver(index, work(index)) { break }
            } else {
                for index in 0..<count {
                    let result = batch.waitForResult(index)
                    if !deliver(index, result) { break }
                }
            }
            batch.stop()
            for worker in workers { pthread_join(worker, nil) }
        }
    }
}

/// A value shared with the worker threads under the runner's contract.
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A worker thread's loop, behind a non-generic class (a C thread function cannot name a
/// generic type).
private class BatchWorker: @unchecked Sendable {
    func workLoop() {}

    /// A thread running `workLoop`, with the main thread's stack size (the pattern reader
    /// recurses; a secondary thread's default stack is smaller on some systems).
    func startWorker() -> pthread_t? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20)
        var thread = pthread_t()
        let context = Unmanaged<BatchWorker>.passRetained(self).toOpaque()
        let started = pthread_create(&thread, &attributes, { context in
            let worker = Unmanaged<BatchWorker>.fromOpaque(context!).takeRetainedValue()
            worker.workLoop()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<BatchWorker>.fromOpaque(context).release()
            return nil
        }
        return thread
    }
}

/// The state the calling thread and the workers share: the next index to take, the results
/// not yet delivered, and whether to stop; all under one condition lock.
private final class SharedBatch<Value>: BatchWorker, @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private let work: Unchecked<(Int) -> Value>
    private var next = 0
    private var stopped = false
    private var results: [Int: Value] = [:]

    init(count: Int, work: Unchecked<(Int) -> Value>) {
        self.count = count
        self.work = work
    }

    override func workLoop() {
        while true {
            condition.lock()
            guard !stopped, next < count else {
                condition.unlock()
                return
            }
            let index = next
            next += 1
            condition.unlock()
            let result = work.value(index)
            condition.lock()
            results[index] = result
            condition.broadcast()
            condition.unlock()
        }
    }

    func waitForResult(_ index: Int) -> Value {
        condition.lock()
        defer { condition.unlock() }
        while results[index] == nil { condition.wait() }
        return results.removeValue(forKey: index)!
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.unlock()
    }
}
