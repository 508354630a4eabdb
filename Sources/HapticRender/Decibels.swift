// HapticRender's public decibel conversion (the arithmetic lives in HapticDSP, which is not a product).

import HapticDSP

/// A linear gain to decibels (-inf for 0).
public func gainToDecibels(_ gain: Double) -> Double {
    HapticDSP.gainToDecibels(gain)
}
