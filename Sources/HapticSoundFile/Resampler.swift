import CSoxr
import HapticRender

/// Sample-rate conversion and transposition with libsoxr.
public enum Resampler {
    /// libsoxr's quality recipes (SoX's `rate -q/-l/-m/-h/-v`).
    public enum Quality: Sendable {
        case quick, low, medium, high, veryHigh

        var recipe: UInt {
            switch self {
            case .quick: return 0  // SOXR_QQ
            case .low: return 1  // SOXR_LQ
            case .medium: return 2  // SOXR_MQ
            case .high: return 4  // SOXR_HQ = SOXR_20_BITQ
            case .veryHigh: return 6  // SOXR_VHQ = SOXR_28_BITQ
            }
        }
    }

    /// Converts interleaved `samples` (`channels` per frame) from `inputRate` to `outputRate`.
    /// The result has round(frames · outputRate / inputRate) frames, aligned in time with
    /// the input (soxr compensates its filter delay). `label` names the data in errors.
    public static func resample(
        _ samples: [Float], channels: Int, from inputRate: Double, to outputRate: Double,
        quality: Quality = .high, label: String = "<samples>"
    ) throws(SoundFileError) -> [Float] {
        guard channels > 0, inputRate > 0, outputRate > 0, inputRate.isFinite, outputRate.isFinite else {
            throw SoundFileError(
                path: label, operation: .resample,
                message: "invalid conversion: \(channels) channel(s), \(inputRate) Hz -> \(outputRate) Hz")
        }
        let inFrames = samples.count / channels
        if inputRate == outputRate || inFrames == 0 { return Array(samples[0 ..< inFrames * channels]) }
        let outFrames = Int((Double(inFrames) * outputRate / inputRate).rounded())
        var output = [Float](repeating: 0, count: outFrames * channels)
        var ioSpec = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var qSpec = soxr_quality_spec(quality.recipe, 0)
        var runtime = soxr_runtime_spec(1)
        var inDone = 0
        var outDone = 0
        let error: soxr_error_t? = samples.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                soxr_oneshot(
                    inputRate, outputRate, UInt32(channels), input.baseAddress, inFrames, &inDone,
                    out.baseAddress, outFrames, &outDone, &ioSpec, &qSpec, &runtime)
            }
        }
        if let error {
            throw SoundFileError(path: label, operation: .resample, message: "soxr: " + String(cString: error))
        }
        // soxr may deliver a frame less than the rounded length; keep the promised length (zero tail).
        return output
    }

    /// Converts `buffer` to `sampleRate`, transposed by `transposition` (a playback-speed ratio:
    /// 2 plays twice as fast, an octave up, in half the time).
    public static func convert(
        _ buffer: SoundBuffer, to sampleRate: Double, transposition: Double = 1,
        quality: Quality = .high, label: String = "<sound>"
    ) throws(SoundFileError) -> SoundBuffer {
        guard transposition > 0, transposition.isFinite else {
            throw SoundFileError(path: label, operation: .resample, message: "invalid transposition \(transposition)")
        }
        // Playing at speed t is the same as pretending the file was recorded at rate·t.
        let samples = try resample(
            buffer.samples, channels: buffer.channels, from: buffer.sampleRate * transposition, to: sampleRate,
            quality: quality, label: label)
        return SoundBuffer(channels: buffer.channels, sampleRate: sampleRate, samples: samples)
    }
}
