import HapticPattern
import Testing
@testable import HapticRender

@Suite("Control tables: named rows, sizes that fit every dynamic parameter")
struct ControlTableTests {
    /// `ControlIndex` repeats `DynamicParameterID.index` as constants; a mismatch would route
    /// one parameter's values to another's row.
    @Test func namedRowsAreTheParameterIndices() {
        let named: [(DynamicParameterID, Int)] = [
            (.hapticIntensityControl, ControlIndex.hapticIntensity),
            (.hapticSharpnessControl, ControlIndex.hapticSharpness),
            (.hapticAttackTimeControl, ControlIndex.hapticAttackTime),
            (.hapticDecayTimeControl, ControlIndex.hapticDecayTime),
            (.hapticReleaseTimeControl, ControlIndex.hapticReleaseTime),
            (.audioVolumeControl, ControlIndex.audioVolume),
            (.audioPanControl, ControlIndex.audioPan),
            (.audioPitchControl, ControlIndex.audioPitch),
            (.audioBrightnessControl, ControlIndex.audioBrightness),
            (.audioAttackTimeControl, ControlIndex.audioAttackTime),
            (.audioDecayTimeControl, ControlIndex.audioDecayTime),
            (.audioReleaseTimeControl, ControlIndex.audioReleaseTime),
        ]
        #expect(Set(named.map(\.0)) == Set(DynamicParameterID.allCases))
        for (id, row) in named {
            #expect(row == id.index, "\(id.rawValue)")
            #expect(ControlIndex.multiplies(row) == (id.combination == .multiply), "\(id.rawValue)")
        }
    }
}

extension ControlTableTests {
    /// The control tables (`voiceControlCount` rows) are written for every case of
    /// `DynamicParameterID` (by `index`); both counts were once a hard-coded 12, which a
    /// 13th case would have overrun.
    @Test func everyDynamicParameterFitsTheControlTables() {
        let cases = DynamicParameterID.allCases
        #expect(DynamicParameterID.count == cases.count)
        #expect(voiceControlCount == cases.count)
        #expect(Set(cases.map(\.index)) == Set(0..<cases.count), "indices are dense and distinct")
        for id in cases { #expect(id.index >= 0 && id.index < voiceControlCount, "\(id.rawValue)") }
        // Every parameter set live on a voice lands in its own row (and nowhere else).
        let pattern = try! PreparedPattern(AHAPPattern(elements: []), profile: .voiceCoil, sampleRate: 48_000)
        var voice = PatternVoice(pattern: pattern)
        for id in cases { voice.setControl(id, value: id.range.lowerBound, ramp: 0) }
        let state = voice.state
        for id in cases { #expect(state.liveTo[id.index] == id.range.lowerBound, "\(id.rawValue)") }
    }
}
