// libFuzzer target: the cue-sheet decoder (`Assets/cues.json`, read by rhythm and serve) on
// arbitrary bytes. A crash, trap or sanitizer report is a finding, and so is a sheet that
// decodes with a value its schema refuses: an intensity or sharpness outside 0…1, a buzz
// whose times do not ascend or lie outside 0…3600 s, a sound offset outside 0…3600 s, an
// explicit alignment past ±2000 ms or not finite, a cue that fires nothing. Built by
// scripts/fuzz.sh together with CueSheet.swift and the file helpers it uses.

import HapticPattern

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCueSheet(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let sheet = try? CueSheet.decode(from: bytes, source: "fuzz") else { return 0 }
    for (name, cue) in sheet.cues {
        precondition(cue.name == name, "cue \(name) named \(cue.name)")
        precondition(cue.haptic != nil || cue.sfx != nil, "cue \(name) fires nothing")
        func transient(_ t: CueSheet.Transient) {
            precondition((0...1).contains(t.intensity) && (0...1).contains(t.sharpness) && (0...3600).contains(t.time), "\(t)")
        }
        switch cue.haptic {
        case .transient(let t): transient(t)
        case .buzz(let list):
            precondition(!list.isEmpty, "an empty buzz")
            list.forEach(transient)
            precondition(zip(list, list.dropFirst()).allSatisfy { $0.time < $1.time }, "buzz times do not ascend")
        case .pattern(let pattern): precondition(!pattern.isEmpty, "an empty pattern name")
        case nil: break
        }
        if let sfx = cue.sfx { precondition(!sfx.name.isEmpty && (0...3600).contains(sfx.offset), "\(sfx)") }
        if case .hapticOffsetMs(let ms) = cue.alignment {
            precondition(ms.isFinite && abs(ms) <= CueSheet.maximumHapticOffsetMs, "hapticOffsetMs \(ms)")
        }
    }
    return 0
}
