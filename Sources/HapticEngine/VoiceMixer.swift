import HapticRender
import Synchronization

/// The voices of the render side and their mix: takes commands in from the queue, holds them
/// until their frame, applies them at their exact offset inside a block, renders every voice
/// into the mix bus (with 2 ms gain ramps for mute, pause and cancel) and hands finished voices
/// back through the event queue. All tables are preallocated (`maxVoices`, the command capacity).
///
/// `@unchecked Sendable`: touched by the render side while it runs and by the control side only
/// while it is stopped (RenderCore's contract); the counters other threads read are atomics.
final class VoiceMixer: @unchecked Sendable {
    let maxVoices: Int
    private let commands: LockFreeQueue<Command>
    private let events: LockFreeQueue<RenderEvent>
    let lateCommandCount = Atomic<Int>(0)
    let droppedCommandCount = Atomic<Int>(0)

    private let slots: UnsafeMutablePointer<VoiceSlot>
    private let active: UnsafeMutablePointer<Int32>
    private var activeCount = 0
    private let pendingCapacity: Int
    private let pending: UnsafeMutablePointer<Command>
    private var pendingCount = 0
    private let due: UnsafeMutablePointer<Command>
    private var dueCount = 0
    private var sequenceCounter: UInt64 = 0

    private var buffers: UnsafeMutablePointer<Float>? = nil
    /// The block's mix (the output stage's input).
    private(set) var mix = MixBus(haptic: .allocate(capacity: 1), audioLeft: .allocate(capacity: 1), audioRight: .allocate(capacity: 1), frames: 0)
    private var scratch = MixBus(haptic: .allocate(capacity: 1), audioLeft: .allocate(capacity: 1), audioRight: .allocate(capacity: 1), frames: 0)
    private var voiceFadeStep: Float = 1.0 / 96

    /// Test support: when set, every applied command is recorded (preallocated ring).
    struct AppliedCommand: Equatable {
        var kind: CommandKind
        var slot: Int32
        var frame: Int64
    }
    private let traceCapacity: Int
    private let trace: UnsafeMutablePointer<AppliedCommand>
    private var traceCount = 0

    init(maxVoices: Int, commandCapacity: Int, commands: LockFreeQueue<Command>, events: LockFreeQueue<RenderEvent>,
         traceCapacity: Int) {
        self.maxVoices = maxVoices
        self.commands = commands
        self.events = events
        slots = .allocate(capacity: maxVoices)
        slots.initialize(repeating: VoiceSlot(), count: maxVoices)
        active = .allocate(capacity: maxVoices)
        pendingCapacity = max(commandCapacity, 16)
        pending = .allocate(capacity: pendingCapacity)
        due = .allocate(capacity: pendingCapacity)
        self.traceCapacity = traceCapacity
        trace = .allocate(capacity: max(traceCapacity, 1))
    }

    deinit {
        // Voices still held (engine dropped while playing) are released here, off the render thread.
        for i in 0..<maxVoices { slots[i].box?.release() }
        for i in 0..<pendingCount { pending[i].box?.release() }
        slots.deinitialize(count: maxVoices)
        slots.deallocate()
        active.deallocate()
        pending.deallocate()
        due.deallocate()
        trace.deallocate()
        freeBuffers()
    }

    // MARK: control side (render side not running)

    /// Sizes the mix for `periodFrames` and `hapticBuses` actuators (one haptic bus each) and
    /// sets the voice fades for `sampleRate`.
    func configure(periodFrames n: Int, sampleRate: Int, hapticBuses k: Int = 1) {
        let k = max(1, k)
        if n != mix.frames || k != mix.hapticBusCount || buffers == nil {
            freeBuffers()
            // Per bus set: k haptic buses, then left and right.
            let set = n * (k + 2)
            let storage = UnsafeMutablePointer<Float>.allocate(capacity: 2 * set)
            storage.initialize(repeating: 0, count: 2 * set)
            buffers = storage
            func buses(_ base: UnsafeMutablePointer<Float>) -> MixBus {
                var bus = MixBus(haptic: base, audioLeft: base + k * n, audioRight: base + (k + 1) * n, frames: n)
                bus.hapticBusCount = k
                bus.hapticStride = n
                return bus
            }
            mix = buses(storage)
            scratch = buses(storage + set)
        }
        voiceFadeStep = 1 / Float(max(1, sampleRate / 500))  // 2 ms voice fades (mute, pause, cancel)
    }

    private func freeBuffers() {
        if let buffers {
            buffers.deallocate()
        } else {
            mix.haptic.deallocate(); mix.audioLeft.deallocate(); mix.audioRight.deallocate()
            scratch.haptic.deallocate(); scratch.audioLeft.deallocate(); scratch.audioRight.deallocate()
        }
        buffers = nil
    }

    /// Ends every voice (engine stop or reset): drains the command queue so that
    /// voices in flight come back too, and reports them all through `events`.
    func discardAllVoices(reason: FinishReason) {
        drainCommands(all: true)
        pendingCount = 0
        for i in 0..<activeCount {
            let s = Int(active[i])
            if slots[s].phase != .finished { finish(s, reason) }
        }
        retireFinished()
    }

    /// After a reconnection: scheduled starts that were to play before `frame` are dropped
    /// (and handed back); returns how many. A looping voice is not dropped: it starts now at
    /// the place its loop would have reached (it keeps its grid, as playing loops do), so a
    /// loop whose first start fell into the outage still sounds once the device is back.
    func dropStarts(before frame: Int64, resumingAt resume: Int64, clock: DeviceClockTracker, sampleRate: Int) -> Int {
        var dropped = 0
        var kept = 0
        for i in 0..<pendingCount {
            let command = pending[i]
            let s = Int(command.slot)
            var playFrame: Int64? = command.frame
            if playFrame == nil && command.timeNanos != 0 {
                playFrame = clock.frame(forScheduledNanos: command.timeNanos)
            }
            if command.kind == .start, let playFrame, playFrame < frame,
               slots[s].generation == command.generation, slots[s].phase == .scheduled {
                let joinedLoop = slots[s].box!._withUnsafeGuaranteedRef { box -> Bool in
                    guard let loopEnd = box.voice.loopEnd, loopEnd > 0 else { return false }
                    let late = Double(max(0, resume - playFrame)) / Double(max(1, sampleRate)) * box.voice.playbackRate
                    let to = late.truncatingRemainder(dividingBy: loopEnd)
                    box.forEachVoice { $0.seek(to: to.isFinite ? to : 0) }
                    return true
                }
                if joinedLoop {
                    slots[s].phase = .playing
                    continue
                }
                finish(s, .dropped)
                dropped += 1
                continue
            }
            pending[kept] = command
            kept += 1
        }
        pendingCount = kept
        return dropped
    }

    /// The applied-command trace (tests).
    func appliedCommands() -> [AppliedCommand] { Array(UnsafeBufferPointer(start: trace, count: traceCount)) }
    func clearTrace() { traceCount = 0 }

    // MARK: render side

    /// Takes the queued commands in. On the render thread it is bounded per period whatever the
    /// producers do (they may push as fast as this pops): what is left waits for the next
    /// period. `all`: the control side (render side stopped) takes everything.
    func drainCommands(all: Bool = false) {
        var budget = all ? Int.max : pendingCapacity + maxVoices
        while budget > 0, let incoming = commands.pop() {
            budget -= 1
            var command = incoming
            command.sequence = sequenceCounter
            sequenceCounter &+= 1
            let s = Int(command.slot)
            if command.kind == .start, let box = command.box {
                // The slot was reserved by the control side and is free here.
                command.box = nil
                slots[s] = VoiceSlot(box: box, generation: command.generation, phase: .scheduled,
                                     gain: 1, muted: command.value != 0)
                active[activeCount] = Int32(s)
                activeCount += 1
            }
            if pendingCount < pendingCapacity {
                pending[pendingCount] = command
                pendingCount += 1
            } else {
                droppedCommandCount.add(1, ordering: .relaxed)
                if command.kind == .start, slots[s].generation == command.generation { finish(s, .dropped) }
            }
        }
    }

    /// Picks the commands due in `blockStart..<blockEnd` (applied `advanceFrames` before the
    /// frame that plays them) and sorts them by voice and offset.
    func collectDue(blockStart: Int64, blockEnd: Int64, clock: DeviceClockTracker, advanceFrames: Int64) {
        dueCount = 0
        var kept = 0
        for i in 0..<pendingCount {
            var command = pending[i]
            let slot = slots[Int(command.slot)]
            if slot.generation != command.generation || slot.phase == .empty || slot.phase == .finished {
                continue  // the voice is gone: stale command
            }
            var offset: Int64 = 0
            let target: Int64?
            if let playFrame = command.frame {
                target = playFrame - advanceFrames
            } else if command.timeNanos != 0 {
                target = clock.frame(forScheduledNanos: command.timeNanos) - advanceFrames
            } else {
                target = nil
            }
            if let frame = target {
                if frame >= blockEnd {
                    pending[kept] = command
                    kept += 1
                    continue
                }
                offset = frame - blockStart
                if offset < 0 {
                    offset = 0
                    lateCommandCount.add(1, ordering: .relaxed)
                }
            }
            command.offset = Int32(offset)
            due[dueCount] = command
            dueCount += 1
        }
        pendingCount = kept
        Self.sort(due, count: dueCount)
        for i in 0..<activeCount {
            let s = Int(active[i])
            slots[s].dueStart = 0
            slots[s].dueEnd = 0
        }
        var i = 0
        while i < dueCount {
            let s = Int(due[i].slot)
            var j = i + 1
            while j < dueCount && due[j].slot == due[i].slot { j += 1 }
            slots[s].dueStart = Int32(i)
            slots[s].dueEnd = Int32(j)
            i = j
        }
    }

    /// Shell sort by (slot, offset, sequence): in place, no allocation.
    @_noLocks
    static func sort(_ items: UnsafeMutablePointer<Command>, count: Int) {
        @inline(__always) func less(_ a: Command, _ b: Command) -> Bool {
            if a.slot != b.slot { return a.slot < b.slot }
            if a.offset != b.offset { return a.offset < b.offset }
            return a.sequence < b.sequence
        }
        var gap = 1
        while gap < count / 3 { gap = gap * 3 + 1 }
        while gap >= 1 {
            if gap < count {
                for i in gap..<count {
                    let item = items[i]
                    var j = i
                    while j >= gap && less(item, items[j - gap]) {
                        items[j] = items[j - gap]
                        j -= gap
                    }
                    items[j] = item
                }
            }
            gap /= 3
        }
    }

    /// Renders every voice for the block into the (zeroed) mix, applying due commands at their offsets.
    func renderVoices(frames n: Int, blockStart: Int64) {
        for i in 0..<activeCount {
            let s = Int(active[i])
            var position = 0
            var k = Int(slots[s].dueStart)
            let end = Int(slots[s].dueEnd)
            while k < end {
                let command = due[k]
                let at = Int(command.offset)
                if at > position {
                    renderSlot(s, from: position, to: at)
                    position = at
                }
                apply(command, to: s, frame: blockStart + Int64(at))
                k += 1
            }
            if position < n { renderSlot(s, from: position, to: n) }
        }
    }

    /// After an xrun the frames already rendered for playing voices were heard late:
    /// moving them on by the lost time keeps their later events on the clock.
    func skipPlayingVoices(byNanos gap: Double) {
        guard gap > 0 else { return }
        for i in 0..<activeCount {
            let s = Int(active[i])
            switch slots[s].phase {
            case .playing, .pausing, .cancelling:
                slots[s].box!._withUnsafeGuaranteedRef { box in
                    let to = box.voice.position + gap / 1e9 * box.voice.playbackRate
                    box.forEachVoice { $0.seek(to: to) }
                }
            default: break
            }
        }
    }

    private func apply(_ command: Command, to s: Int, frame: Int64) {
        let phase = slots[s].phase
        if phase == .finished || phase == .empty { return }
        if traceCount < traceCapacity {
            trace[traceCount] = AppliedCommand(kind: command.kind, slot: command.slot, frame: frame)
            traceCount += 1
        }
        switch command.kind {
        case .start:
            if phase == .scheduled { slots[s].phase = .playing }
        case .stop:
            switch phase {
            case .scheduled, .paused, .pausing: finish(s, .completed)
            case .playing: slots[s].box!._withUnsafeGuaranteedRef { $0.forEachVoice { $0.stop() } }
            default: break
            }
        case .cancel:
            switch phase {
            case .scheduled, .paused: finish(s, .cancelled)
            case .playing, .pausing: slots[s].phase = .cancelling
            default: break
            }
        case .control:
            let id = command.parameter, value = command.value, ramp = command.ramp
            slots[s].box!._withUnsafeGuaranteedRef { $0.forEachVoice { $0.setControl(id, value: value, ramp: ramp) } }
        case .pause:
            if phase == .playing { slots[s].phase = .pausing }
        case .resume:
            if phase == .paused || phase == .pausing { slots[s].phase = .playing }
        case .seek:
            let offset = command.value
            slots[s].box!._withUnsafeGuaranteedRef { $0.forEachVoice { $0.seek(to: offset) } }
        case .rate:
            let rate = command.value
            slots[s].box!._withUnsafeGuaranteedRef { $0.forEachVoice { $0.playbackRate = rate } }
        case .loop:
            let end = command.value
            slots[s].box!._withUnsafeGuaranteedRef { $0.forEachVoice { $0.loopEnd = end < 0 ? nil : end } }
        case .mute:
            slots[s].muted = command.value != 0
        }
    }

    private func renderSlot(_ s: Int, from a: Int, to b: Int) {
        let phase = slots[s].phase
        guard phase == .playing || phase == .pausing || phase == .cancelling else { return }
        let count = b - a
        let target: Float = (slots[s].muted || phase != .playing) ? 0 : 1
        let gain = slots[s].gain
        let box = slots[s].box!
        if gain == 1 && target == 1 {
            let bus = mix.slice(from: a, count: count)
            box._withUnsafeGuaranteedRef { $0.render(into: bus) }
        } else if gain == 0 && target == 0 {
            if phase == .pausing {
                slots[s].phase = .paused
                return
            }
            if phase == .cancelling {
                finish(s, .cancelled)
                return
            }
            // Muted: the voice keeps its time; its output is discarded.
            let bus = scratch.slice(from: 0, count: count)
            Self.clear(bus)
            box._withUnsafeGuaranteedRef { $0.render(into: bus) }
        } else {
            let bus = scratch.slice(from: 0, count: count)
            Self.clear(bus)
            box._withUnsafeGuaranteedRef { $0.render(into: bus) }
            slots[s].gain = Self.addRamped(bus, into: mix, at: a, gain: gain, target: target, step: voiceFadeStep)
        }
        if box._withUnsafeGuaranteedRef({ $0.isFinished }) {
            finish(s, slots[s].phase == .cancelling ? .cancelled : .completed)
        }
    }

    /// Adds `source` into `mix` at `offset`, moving the gain linearly toward `target`.
    @_noLocks
    static func addRamped(_ source: MixBus, into mix: MixBus, at offset: Int, gain start: Float, target: Float, step: Float) -> Float {
        var gain = start
        let buses = min(source.hapticBusCount, mix.hapticBusCount)
        for i in 0..<source.frames {
            if gain < target { gain = min(target, gain + step) } else if gain > target { gain = max(target, gain - step) }
            for k in 0..<buses { mix.hapticBus(k)[offset + i] += gain * source.hapticBus(k)[i] }
            mix.audioLeft[offset + i] += gain * source.audioLeft[i]
            mix.audioRight[offset + i] += gain * source.audioRight[i]
        }
        return gain
    }

    /// Zeroes every bus of `bus` (its haptic buses and the audio buses).
    @_noLocks
    static func clear(_ bus: MixBus) {
        for k in 0..<bus.hapticBusCount { bus.hapticBus(k).update(repeating: 0, count: bus.frames) }
        bus.audioLeft.update(repeating: 0, count: bus.frames)
        bus.audioRight.update(repeating: 0, count: bus.frames)
    }

    private func finish(_ s: Int, _ reason: FinishReason) {
        slots[s].phase = .finished
        slots[s].reason = reason
    }

    /// Hands finished voices back to the control side (which frees them).
    func retireFinished() {
        var i = 0
        while i < activeCount {
            let s = Int(active[i])
            if slots[s].phase == .finished {
                let event = RenderEvent(kind: .finished, slot: Int32(s), generation: slots[s].generation,
                                        box: slots[s].box, reason: slots[s].reason)
                if events.push(event) {
                    slots[s].box = nil
                    slots[s].phase = .empty
                    activeCount -= 1
                    active[i] = active[activeCount]
                    continue
                }
                // Event queue full (cannot happen with its sizing): retry next period.
            }
            i += 1
        }
    }
}
