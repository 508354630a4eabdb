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
