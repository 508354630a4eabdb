import CAllocationCounter
import Foundation
import HapticEngine
import Testing

@testable import HapticALSA

/// alsa-lib's own `null` and `file` PCMs: no server needed (the device paces the null PCM itself).
/// Parameter negotiation, format conversion, pacing and the no-allocation property.
@Suite("ALSA output against alsa-lib's null and file PCMs")
struct NullPCMTests {
    @Test("null PCM: float accepted, granted format reported, frames counted")
    func negotiation() throws {
        let device = ALSAOutputDevice(name: "null")
        defer { device.close() }
        let granted = try device.open(requested: DeviceFormat(channels: 3, sampleRate: 48000, periodFrames: 256, bufferFrames: 1024))
        #expect(granted.channels == 3)
        #expect(granted.sampleRate == 48000)
        #expect(granted.periodFrames == 256)
        #expect(granted.bufferFrames == 1024)
        #expect(device.sampleFormat == .float32)
        #expect(device.grantedFormat == granted)
        // 2 × 1024 / 48000 s is 43 ms, under the 200 ms floor (pulse's stream start waits ~50 ms).
        #expect(device.waitTimeoutMilliseconds == 200)
        let samples = [Float](repeating: 0.25, count: 3 * 5000)
        let fault = samples.withUnsafeBufferPointer { device.write($0.baseAddress!, frames: 5000) }
        #expect(fault == nil)
        #expect(device.framesWritten == 5000)
        device.close()
        #expect(device.grantedFormat == nil)
        let afterClose = samples.withUnsafeBufferPointer { device.write($0.baseAddress!, frames: 1) }
        #expect(afterClose == .gone("device is closed"))
        device.close()  // idempotent
    }

    /// The null PCM discards at once; a render thread writing to it must still keep real time
    /// (a spinning SCHED_FIFO thread holds a core and starves the machine's sound servers).
    @Test("null PCM: writes are paced at the sample rate, a buffer ahead; timestamps follow the pace")
    func nullIsPaced() throws {
        let device = ALSAOutputDevice(name: "null")
        defer { device.close() }
        let granted = try device.open(requested: DeviceFormat(channels: 1, sampleRate: 48000, periodFrames: 256, bufferFrames: 1024))
        let samples = [Float](repeating: 0.25, count: granted.periodFrames)
        let t0 = now()
        // A buffer plus half a second of periods: the buffer fills at once, the rest in real time.
        let periods = (granted.bufferFrames + 24_000) / granted.periodFrames
        var played: [Int64] = []
        for _ in 0 ..< periods {
            #expect(samples.withUnsafeBufferPointer { device.write($0.baseAddress!, frames: granted.periodFrames) } == nil)
            if let stamp = device.timestamp() { played.append(stamp.framesPlayed) }
        }
        let elapsed = now() - t0
        let paced = Double(periods * granted.periodFrames - granted.bufferFrames) / 48000
        print("null PCM paced: \(periods) periods written in \(String(format: "%.3f", elapsed)) s (the pace: \(String(format: "%.3f", paced)) s)")
        #expect(elapsed >= paced - 0.002, "writes kept the sample rate's pace")
        #expect(elapsed < 30, "no hang (generous bound)")
        #expect(zip(played, played.dropFirst()).allSatisfy { $0 <= $1 } && played.allSatisfy { $0 <= device.framesWritten })
    }

    @Test("the null PCM's pace converts frames and time without overflow for years of output")
    func paceArithmeticForYears() {
        for rate: Int64 in [8_000, 44_100, 48_000, 192_000, 768_000] {
            let tenYears = rate * 86_400 * 3_653
            #expect(ALSAOutputDevice.nanoseconds(ofFrames: tenYears, rate: rate) == 86_400 * 3_653 * 1_000_000_000)
            #expect(ALSAOutputDevice.frames(inNanoseconds: 86_400 * 3_653 * 1_000_000_000 + 500_000_000, rate: rate) == tenYears + rate / 2)
            #expect(ALSAOutputDevice.nanoseconds(ofFrames: tenYears + 1, rate: rate) == 86_400 * 3_653 * 1_000_000_000 + 1_000_000_000 / rate)
        }
    }

    @Test("odd period and buffer requests get the nearest values ALSA grants")
    func nearestValues() throws {
        let device = ALSAOutputDevice(name: "null")
        defer { device.close() }
        let granted = try device.open(requested: DeviceFormat(channels: 1, sampleRate: 44100, periodFrames: 300, bufferFrames: 1000))
        #expect(granted.sampleRate == 44100)
        #expect(granted.periodFrames > 0 && granted.periodFrames <= granted.bufferFrames)
        #expect(abs(granted.bufferFrames - 1000) <= 300)
    }

    @Test("S16 and S32 fallbacks convert float exactly (file PCM captures the bytes)", arguments: [ALSASampleFormat.s16, .s32])
    func integerFallback(format: ALSASampleFormat) throws {
        let path = NSTemporaryDirectory() + "hs-alsa-file-\(UUID().uuidString).raw"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = ALSAOutputDevice.Options()
        options.sampleFormats = [format]
        let device = ALSAOutputDevice(name: "file:FILE=\(path),FORMAT=raw", options: options)
        let granted = try device.open(requested: DeviceFormat(channels: 2, sampleRate: 48000, periodFrames: 256, bufferFrames: 1024))
        #expect(device.sampleFormat == format)
        #expect(granted.channels == 2)
        // More frames than the conversion buffer holds, values across the range including clipping.
        let frames = 3000
        var input = [Float](repeating: 0, count: frames * 2)
        for i in 0 ..< input.count { input[i] = Float(i % 4001 - 2000) / 1900 }  // -1.05 ... 1.05
        input[0] = .nan
        let fault = input.withUnsafeBufferPointer { device.write($0.baseAddress!, frames: frames) }
        #expect(fault == nil)
        device.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == frames * 2 * format.bytes)
        data.withUnsafeBytes { raw in
            var mismatches = 0
            for i in 0 ..< frames * 2 {
                let x = input[i].isNaN ? 0 : input[i]
                if format == .s16 {
                    let expected = Int16(max(-32768, min(32767, (x * 32768).rounded())))
                    if raw.load(fromByteOffset: i * 2, as: Int16.self) != expected { mismatches += 1 }
                } else {
                    let expected = Int32(max(-2_147_483_648, min(2_147_483_647, (Double(x) * 2_147_483_648).rounded())))
                    if raw.load(fromByteOffset: i * 4, as: Int32.self) != expected { mismatches += 1 }
                }
            }
            #expect(mismatches == 0)
        }
    }

    @Test("an unknown PCM name fails at snd_pcm_open with -ENOENT, naming the device")
    func unknownName() {
        let device = ALSAOutputDevice(name: "hs_no_such_pcm")
        let t0 = now()
        do {
            _ = try device.open(requested: DeviceFormat(channels: 2, sampleRate: 48000, periodFrames: 256, bufferFrames: 1024))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == -ENOENT)
            #expect(error.device == "hs_no_such_pcm")
            #expect(error.description.hasPrefix("hs_no_such_pcm: snd_pcm_open failed: "))
            #expect(error.message.contains("No such file or directory"))
        }
        #expect(now() - t0 < 2)  // no hang (generous bound)
    }

    @Test("invalid requests are refused before ALSA is asked")
    func invalidRequest() {
        let device = ALSAOutputDevice(name: "null")
        #expect(throws: DeviceOpenError.self) {
            try device.open(requested: DeviceFormat(channels: 0, sampleRate: 48000, periodFrames: 256, bufferFrames: 1024))
        }
    }

    @Test("write, timestamp and recover allocate nothing on the writing thread")
    func noAllocation() throws {
        #expect(allocation_counter_is_active() == 1)
        for format in [ALSASampleFormat.float32, .s16] {
            var options = ALSAOutputDevice.Options()
            options.sampleFormats = [format]
            let device = ALSAOutputDevice(name: "null", options: options)
            defer { device.close() }
            let granted = try device.open(requested: DeviceFormat(channels: 3, sampleRate: 48000, periodFrames: 256, bufferFrames: 1024))
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: granted.periodFrames * 3)
            buffer.initialize(repeating: 0.1, count: granted.periodFrames * 3)
            defer { buffer.deallocate() }
            // Warm up once (first-use paths inside alsa-lib), then count.
            _ = device.write(buffer, frames: granted.periodFrames)
            _ = device.timestamp()
            let tally = allocation_tally_open()
            allocation_tally_track_current_thread(tally)
            var faults = 0
            var stamps = 0
            // 400 periods: 2 s, as the device paces the null PCM at the sample rate.
            for _ in 0 ..< 400 {
                if device.write(buffer, frames: granted.periodFrames) != nil { faults += 1 }
                if device.timestamp() != nil { stamps += 1 }
            }
            _ = device.recover(from: .xrun)
            _ = device.recover(from: .gone("x"))
            allocation_tally_track_current_thread(0)
            #expect(allocation_tally_count(tally) == 0, "\(format)")
            #expect(faults == 0)
            print("null PCM \(format): state \(device.stateName), timestamps \(stamps)")
        }
    }

    @Test("device listing includes alsa-lib's null PCM with its ranges; no cards here is an empty list")
    func listing() {
        let pcms = ALSADevices.list(probeBudgetMilliseconds: 2000)
        let null = pcms.first { $0.name == "null" }
        #expect(null != nil)
        #expect(null?.description?.isEmpty == false)
        if let channels = null?.channels {
            #expect(channels.lowerBound >= 1)
        } else {
            Issue.record("null PCM was not probed: \(null?.probeError ?? "?")")
        }
        let probe = ALSADevices.probe("null")
        #expect(probe.channels != nil && probe.rates != nil)
        let missing = ALSADevices.probe("hs_no_such_pcm")
        #expect(missing.channels == nil)
        #expect(missing.probeError?.contains("No such file") == true)
        let cards = ALSADevices.cards()
        if !FileManager.default.fileExists(atPath: "/dev/snd") { #expect(cards.isEmpty) }
    }
}
