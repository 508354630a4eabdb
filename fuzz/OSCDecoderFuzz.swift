// libFuzzer target: the OSC decoder of `serve` on arbitrary datagrams — liblo's parsing of
// messages and bundles, then the exact address space, the argument types and the value
// checks. A crash, trap or sanitizer report is a finding, and so is a command that breaks
// the decoder's contract: a name outside 1...256 bytes, a time not finite, negative or more
// than an hour ahead, a curve past 64 points or with a point out of range, a follower level out
// of its range or a mode the decoder was not told of. Built by
// scripts/fuzz.sh together with the decoder's own source files (which read no clock: the
// time is given, so a run is repeatable).

/// One decoder for the whole run, as the server's receiver keeps one.
let fuzzDecoder: OSCDecoder = {
    do { return try OSCDecoder(followModes: fuzzFollowModes) } catch { fatalError("cannot make the decoder: \(error)") }
}()

/// The follower's modes the decoder is told of (as the server tells it `FollowMode`'s).
let fuzzFollowModes = ["lowpass", "analysis"]

/// The monotonic "now" of every datagram, and the wall clock's offset from it.
let fuzzNow = 1_000.0
let fuzzWallOffset = 1.7e9

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOSCDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    // The server parses at most 8 KiB (its default maxDatagramBytes; longer ones are counted unread).
    guard size <= 8192 else { return 0 }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 8)
    defer { buffer.deallocate() }
    if let data, size > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(start: data, count: size)) }
    let (outcome, _) = fuzzDecoder.decode(
        UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]), now: fuzzNow, wallMinusMonotonic: { fuzzWallOffset })
    if case .commands(let commands) = outcome {
        for command in commands { checkContract(command) }
    }
    return 0
}

/// Traps (a finding) when a decoded command holds what the decoder promises to refuse.
func checkContract(_ command: OSCCommand) {
    func name(_ text: String) { precondition((1...OSCDecoder.maxNameLength).contains(text.utf8.count), "name of \(text.utf8.count) bytes") }
    func time(_ t: Double) { precondition(t.isFinite && t >= 0 && t <= fuzzNow + OSCDecoder.maxLeadSeconds, "time \(t)") }
    switch command {
    case .play(let pattern, let t): name(pattern); time(t)
    case .cue(let cue, let t): name(cue); time(t)
    case .transient(_, _, let t): time(t)
    case .loopStart(let id, let pattern, _, let t): name(id); name(pattern); time(t)
    case .loopIntensity(let id, _), .loopSharpness(let id, _): name(id)
    case .loopCurve(let id, _, let points, let t):
        name(id)
        time(t)
        precondition((1...OSCDecoder.maxCurvePoints).contains(points.count), "\(points.count) points")
        for p in points { precondition(p.time.isFinite && p.time >= 0 && p.time <= OSCDecoder.maxLeadSeconds && p.value.isFinite, "point \(p)") }
    case .loopStop(let id, let t): name(id); time(t)
    case .stopAll(let t): time(t)
    case .status, .clock: break
    case .followGain(let dB): precondition(dB.isFinite && (-60...40).contains(dB), "follow gain \(dB) dB")
    case .followDucking(let dB): precondition(dB.isFinite && (-60...0).contains(dB), "follow ducking \(dB) dB")
    case .followMute: break
    case .followMode(let name): precondition(fuzzFollowModes.contains(name), "follow mode \(name)")
    }
}
