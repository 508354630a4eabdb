import Foundation
import HapticEngine
import HapticEngineTesting
import HapticRender
import Synchronization
import Testing

@testable import HapticKit

/// A virtual device that finds onsets in what is written to it, as it is written: the device
/// frame of every first sample above `threshold` on `channel` after at least `gap` frames
/// below it. (Keeping a 10-minute recording in memory is not needed for that.)
final class OnsetDevice: OutputDevice, @unchecked Sendable {
    let inner: VirtualOutputDevice
    let channel: Int
    let threshold: Float
    let gap: Int
    private var channels = 1
    private var frame = 0
    private var quietFrames = Int.max
    private(set) var onsets: [Int] = []

    init(_ inner: VirtualOutputDevice, channel: Int, threshold: Float = 0.01, gap: Int = 4_800) {
        self.inner = inner
        self.channel = channel
        self.threshold = threshold
        self.gap = gap
    }

    var name: String { inner.name }
    func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        let granted = try inner.open(requested: requested)
        channels = granted.channels
        return granted
    }
    func write(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault? {
        for i in 0..<frames {
            if abs(samples[i * channels + channel]) > threshold {
                if quietFrames >= gap { onsets.append(frame + i) }
                quietFrames = 0
            } else if quietFrames < Int.max {
                quietFrames += 1
            }
        }
        frame += frames
        return inner.write(samples, frames: frames)
    }
    func timestamp() -> DeviceTimestamp? { inner.timestamp() }
    func recover(from fault: DeviceFault) -> Bool { inner.recover(from: fault) }
    func close() { inner.close() }

    /// Monotonic nanoseconds at which the device played frame `frame` (its own playback model:
    /// the truth the engine's mapping has to find from timestamps).
    func playTime(ofFrame frame: Int) -> Double? { inner.playTimeNanos(ofRecordedFrame: frame) }

    /// When the next period's write can go through without waiting (nil: at once).
    func nextWriteNanos(period: Int, buffer: Int) -> Double? {
        let need = inner.framesWritten + period - buffer
        guard need >= 0 else { return nil }
        return inner.playTimeNanos(ofRecordedFrame: need)
    }
}

/// Two manual-drive engines on one manual clock: steps whichever device needs data first,
/// as two real cards would pull it.
struct TwoDeviceStepper {
    let clock: ManualClock
    let devices: [(engine: HapticEngine, device: OnsetDevice)]
    let period: Int
    let buffer: Int

    func advance(to seconds: Double) {
        let target = Int64((seconds * 1e9).rounded())
        while clock.nanos < target {
            var best = 0
            var bestTime = Double.infinity
            for (i, d) in devices.enumerated() {
                let t = d.device.nextWriteNanos(period: period, buffer: buffer) ?? -Double.infinity
                if t < bestTime { bestTime = t; best = i }
            }
            if bestTime > Double(target) {
                clock.advance(toNanos: target)
                return
            }
            devices[best].engine.renderOnePeriod()
        }
    }
}

/// Made once per test: the factories hand out the same device objects.
final class DeviceBox: Sendable {
    let haptic: OnsetDevice
    let audio: OnsetDevice
    init(haptic: OnsetDevice, audio: OnsetDevice) {
        self.haptic = haptic
        self.audio = audio
    }
}

@Suite("Two-device mode on virtual devices")
struct TwoDeviceDriftTests {
    static let period = 1024, bufferPeriods = 3

    /// A two-device manager on virtual devices whose clocks differ by `audioPPM` − `hapticPPM`.
    static func make(hapticPPM: Double, audioPPM: Double, jitterNanos: Int64 = 0, trace: Int = 8192)
        -> (HapticManager, DeviceBox, ManualClock)
    {
        let clock = ManualClock()
        func virtual(_ name: String, _ ppm: Double) -> VirtualOutputDevice {
            var options = VirtualOutputDevice.Options()
            options.driftPPM = ppm
            options.timestampJitterNanos = jitterNanos
            options.recordCapacityFrames = 1  // the onset devices look at the samples instead
            return VirtualOutputDevice(name: name, clock: .manual(clock), options: options)
        }
        let box = DeviceBox(haptic: OnsetDevice(virtual("shaker", hapticPPM), channel: 0),
                            audio: OnsetDevice(virtual("speakers", audioPPM), channel: 0))
        var config = HapticManager.Configuration(
            hapticsFolder: kitHaptics, assetsFolder: kitAssets, output: .device({ box.haptic }),
            audioOutput: .device({ box.audio }))
        for role in 0..<2 {
            var e = HapticEngine.Configuration.manual(clock: clock, base: role == 0 ? config.engine : config.audioEngine)
            e.periodFrames = period
            e.bufferPeriods = bufferPeriods
            e.appliedCommandTraceCapacity = trace
            if role == 0 { config.engine = e } else { config.audioEngine = e }
        }
        config.logger.logLevel = .error
        return (HapticManager(configuration: config), box, clock)
    }

    /// Frames from a part's start to its first sample over the onset threshold (offline render).
    static func onsetOffset(_ pattern: PreparedPattern, layout: ChannelLayout, channel: Int) -> Int? {
        let r = OfflineRenderer.render(pattern, layout: layout)
        return RecordingAlignment.firstAbove(RecordingAlignment.channel(r.samples, channels: r.channels, channel), 0.01)
    }

    @Test("layouts and roles: haptic mono on one device, stereo SFX on the other; a cue starts both at one time")
    func rolesAndLayouts() throws {
        let (m, _, _) = Self.make(hapticPPM: 0, audioPPM: 0)
        #expect(m.isTwoDevice && m.engineAvailable && m.audioAvailable)
        #expect(m.currentEngine?.configuration.layout == .hapticMono)
        #expect(m.currentAudioEngine?.configuration.layout == .stereoAudio)
        m.preloadPatterns()
        let t = m.currentTime + 0.5
        let playback = try #require(m.playTracked(cue: "beat_hit", atTime: t))
        #expect(playback.haptic?.engine === m.currentEngine && playback.audio?.engine === m.currentAudioEngine)
        // Each part at the cue's time plus its felt-alignment delay (the part felt earlier waits).
        let align = try #require(m.cueAlignment("beat_hit"))
        #expect(playback.haptic?.time == t + align.hapticDelaySeconds && playback.audio?.time == t + align.audioDelaySeconds)
        // Immediate: one common time, later than both engines' next block.
        let now = try #require(m.playTracked(cue: "beat_hit", atTime: 0))
        #expect(now.haptic?.time == now.time + align.hapticDelaySeconds && now.audio?.time == now.time + align.audioDelaySeconds)
        #expect(now.time >= m.currentTime + max(m.currentEngine!.outputLatency, m.currentAudioEngine!.outputLatency))
        m.shutDown()
    }

    @Test("audio device lost: SFX become no-ops while it reconnects, haptics go on, engineAvailable stays true")
    func audioLossIsPerRole() throws {
        let (m, box, clock) = Self.make(hapticPPM: 0, audioPPM: 0)
        m.preloadPatterns()
        let stepper = TwoDeviceStepper(clock: clock, devices: [(m.currentEngine!, box.haptic), (m.currentAudioEngine!, box.audio)],
                                       period: Self.period, buffer: Self.period * Self.bufferPeriods)
        stepper.advance(to: clock.seconds + 0.2)
        box.audio.inner.kill()
        box.audio.inner.refuseFurtherOpens()
        let audioEngine = try #require(m.currentAudioEngine)
        // The audio engine notices on its next period and reconnects in the background (it never comes back here).
        for _ in 0..<5 { audioEngine.renderOnePeriod() }
        #expect(!m.audioAvailable)
        #expect(m.engineAvailable)
        #expect(m.recoveryLog.contains(.audio(.stopped(engine: 1, "\(HapticEngine.StoppedReason.deviceLost("virtual device killed"))"))))
        #expect(m.audioStatus.map { if case .reconnecting = $0 { true } else { false } } == true)
        let before = m.statistics
        m.playSFX("sfx_click")
        #expect(m.statistics.voicesStarted == before.voicesStarted, "SFX is a no-op")
        #expect(m.statistics.callsWhileUnavailable == before.callsWhileUnavailable + 1)
        m.play("thud")
        m.play(cue: "beat_hit")  // the haptic part still plays
        #expect(m.statistics.voicesStarted == before.voicesStarted + 2)
        m.shutDown()
    }

    @Test("10 minutes at 100 BPM, audio clock 200 ppm fast: skew stays under 1 ms on every beat (device truth)")
    func driftOverTenMinutes() throws {
        let beats = 1000  // 1000 × 0.6 s = 10 minutes
        let (m, box, clock) = Self.make(hapticPPM: -100, audioPPM: 100, jitterNanos: 50_000, trace: 4 * beats + 256)
        m.preloadPatterns()
        let haptic = try #require(m.currentEngine), audio = try #require(m.currentAudioEngine)
        let stepper = TwoDeviceStepper(clock: clock, devices: [(haptic, box.haptic), (audio, box.audio)],
                                       period: Self.period, buffer: Self.period * Self.bufferPeriods)
        let session = RhythmSession(manager: m, cue: "beat_hit", map: BeatMap(bpm: 100, beats: beats), lead: 0.2)
        session.run(wait: { stepper.advance(to: $0) })
        let report = session.report(sampleRate: 48_000)
        let hb = try #require(m.state.withLock { $0.caches.cueHaptics["beat_hit"] })
        let sfx = try #require(m.state.withLock { $0.audio?.sounds["sfx_shield_impact"] })
        let hOffset = try #require(Self.onsetOffset(hb, layout: .hapticMono, channel: 0))
        let aOffset = try #require(Self.onsetOffset(sfx, layout: .stereoAudio, channel: 0))
        // Shut down only after reading the devices' truth: a manual engine's stop renders its
        // fade on this thread, and the other device underruns meanwhile (a new playback segment).
        defer { m.shutDown() }
        #expect(haptic.xrunCount == 0 && audio.xrunCount == 0)

        #expect(box.haptic.onsets.count == beats && box.audio.onsets.count == beats,
                "one onset per beat: \(box.haptic.onsets.count), \(box.audio.onsets.count)")
        guard box.haptic.onsets.count == beats, box.audio.onsets.count == beats else { return }
        var worst = 0.0, worstBeat = 0, worstReportError = 0.0, worstOnsetError = 0.0
        for k in 0..<beats {
            let hFrame = box.haptic.onsets[k] - hOffset, aFrame = box.audio.onsets[k] - aOffset
            let hTime = try #require(box.haptic.playTime(ofFrame: hFrame))
            let aTime = try #require(box.audio.playTime(ofFrame: aFrame))
            let skew = (aTime - hTime) / 1e6  // ms
            if abs(skew) > abs(worst) { worst = skew; worstBeat = k + 1 }
            // The engines' own report agrees with the devices' truth.
            if let reported = report.rows[k].skewMs { worstReportError = max(worstReportError, abs(reported - skew)) }
            // Absolute: the haptic onset plays at the scheduled time (the engine renders voices
            // the output stage's look-ahead early, so the frame that plays at T carries the onset).
            let late = hTime / 1e9 - report.rows[k].scheduled
            worstOnsetError = max(worstOnsetError, abs(late) * 1000)
        }
        // The drift was real: over the session the audio device played 200 ppm more frames.
        let hSpan = box.haptic.onsets[beats - 1] - box.haptic.onsets[0]
        let aSpan = box.audio.onsets[beats - 1] - box.audio.onsets[0]
        let expectedExtra = 200e-6 * Double(beats - 1) * 0.6 * 48_000
        print("two-device drift: 10 min, 200 ppm apart (\(aSpan - hSpan) frames more on audio; \(String(format: "%.0f", expectedExtra)) expected), "
              + "worst skew \(String(format: "%.4f", worst)) ms at beat \(worstBeat), report vs truth ≤ \(String(format: "%.4f", worstReportError)) ms, "
              + "haptic onset vs schedule ≤ \(String(format: "%.4f", worstOnsetError)) ms; audio rate ratio \(audio.measuredRateRatio), haptic \(haptic.measuredRateRatio)")
        #expect(abs(Double(aSpan - hSpan) - expectedExtra) < 48, "the devices really drifted apart")
        #expect(abs(worst) < 1.0, "skew \(worst) ms at beat \(worstBeat)")
        // The report converts frames with each engine's schedule grid, which may stray from its
        // clock estimate by the two-device drift tolerance before a correction, and each estimate
        // from its device by up to 0.1 ms here (the ±50 µs stamp jitter): 0.3 ms for the two.
        #expect(worstReportError < 2 * (HapticManager.twoDeviceDriftToleranceSeconds * 1000 + 0.1))
        #expect(worstOnsetError < 1.0)
        // Each engine measured its own device's rate (to within the ±50 µs timestamp jitter's effect).
        #expect(abs(audio.measuredRateRatio - 1.0001) < 2e-5 && abs(haptic.measuredRateRatio - 0.9999) < 2e-5)
    }
}
