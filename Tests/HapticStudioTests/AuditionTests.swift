import Foundation
import HapticEngine
import HapticEngineTesting
import HapticKit
import Synchronization
import Testing

@testable import HapticStudioCore

/// Polls `condition` every 10 ms until it holds or `seconds` pass; whether it held.
func waitUntil(_ seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

@Suite("Studio: audition (in process)")
struct AuditionTests {
    @Test("a selection's haptic: the hits inside it, the curves cut at its ends, from 0")
    func window() {
        let haptics = ConvertedHaptics(
            stretches: [.init(start: 0.1, end: 0.9, intensity: [.init(time: 0.1, value: 0), .init(time: 0.5, value: 1), .init(time: 0.9, value: 0)],
                              sharpness: [.init(time: 0.1, value: 0.2), .init(time: 0.9, value: 0.6)])],
            transients: [.init(time: 0.2, intensity: 1, sharpness: 0.5), .init(time: 0.6, intensity: 0.5, sharpness: 0.5), .init(time: 0.7, intensity: 1, sharpness: 1)],
            duration: 1)
        let cut = haptics.window(from: 0.3, to: 0.7)
        #expect(abs(cut.duration - 0.4) < 1e-12)
        #expect(cut.transients.map { ($0.time * 1000).rounded() } == [300], "the hit at the end belongs to the next pass")
        let stretch = cut.stretches.first
        #expect(cut.stretches.count == 1 && stretch?.start == 0 && abs((stretch?.end ?? 0) - 0.4) < 1e-12)
        #expect(stretch?.intensity.map { ($0.time * 1000).rounded() } == [0, 200, 400])
        #expect(stretch?.intensity.map { ($0.value * 1000).rounded() } == [500, 1000, 500])
        #expect(stretch?.sharpness.map { ($0.value * 1000).rounded() } == [300, 500])
        #expect(haptics.window(from: 0.95, to: 1).stretches.isEmpty)
        #expect(haptics.window(from: .nan, to: 1).transients.isEmpty)
    }

    @Test("hostile selections: one line naming what and where, nothing plays")
    func hostileSelections() async throws {
        let folder = try AuditionRecording.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        let audition = Audition(studio: studio, output: .init(configuration: .init(hapticsFolder: "", assetsFolder: "", output: .alsa("hs_never_opened")), device: "hs_never_opened"))
        for (start, end) in [(1e308, nil), (-0.5, nil), (0, 2.5), (1.0, 0.5), (0.5, 0.51), (-0.0, Double.infinity)] as [(Double, Double?)] {
            do {
                _ = try await audition.play("hits.wav", start: start, end: end, loop: false)
                Issue.record("start \(start) end \(String(describing: end)) was accepted")
            } catch {
                #expect(error.status == 400 && !error.description.contains("\n"), "\(error)")
                #expect(error.description.contains("start") || error.description.contains("end"), "\(error)")
            }
        }
        #expect(await audition.manager == nil, "a refused selection opens no device")
        await #expect(throws: StudioError.self) { try await audition.play("missing.wav", start: nil, end: nil, loop: false) }
    }

    @Test("no such device: Play answers 503 naming it; the studio goes on")
    func noDevice() async throws {
        let folder = try AuditionRecording.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        var config = HapticManager.Configuration(hapticsFolder: "", assetsFolder: "", output: .alsa("hs_no_such_device"), layout: .stereoPlusHaptic)
        config.engine.realtimePriority = nil
        config.logger.logLevel = .critical
        config.setLogLevels(manager: .critical, engines: .critical)
        let audition = Audition(studio: studio, output: .init(configuration: config, device: "hs_no_such_device"))
        do {
            _ = try await audition.play("hits.wav", start: nil, end: nil, loop: false)
            Issue.record("played without a device")
        } catch {
            #expect(error.status == 503 && error.description.contains("hs_no_such_device"), "\(error)")
            #expect(!error.description.contains("shut down"), "why the device did not open, not the shutdown after: \(error)")
        }
        #expect(await audition.transport() == AuditionTransport(playing: false, loop: false, passes: 0))
        #expect(try await studio.open("hits.wav").haptic.transients.count == AuditionRecording.hitTimes.count)
    }

    @Test("Play during a loop replaces it; a single pass ends by itself; Stop after the end is harmless")
    func replaceAndEnd() async throws {
        let folder = try AuditionRecording.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        var config = HapticManager.Configuration(
            hapticsFolder: "", assetsFolder: "", output: .device({ VirtualOutputDevice(name: "virtual", clock: .monotonic) }), layout: .stereoPlusHaptic)
        config.setLogLevels(manager: .error, engines: .error)
        let audition = Audition(studio: studio, output: .init(configuration: config, device: "virtual"))
        let looping = try await audition.play("hits.wav", start: 0, end: 1, loop: true)
        #expect(looping.playing && looping.loop && looping.passes == 1)
        // The playhead moves (on the loop, which does not end while a loaded machine is slow to look).
        let first = await audition.transport().position
        #expect(await waitUntil(30) { let t = await audition.transport(); return t.playing && t.position != nil && t.position != first },
                "the playhead moves")
        let once = try await audition.play("hits.wav", start: 0.5, end: 1.5, loop: false)
        #expect(once.playing && !once.loop && once.start == 0.5 && once.end == 1.5 && once.passes == 1)
        #expect(await waitUntil(30) { await !audition.transport().playing }, "the single pass ends")
        let stopped = await audition.stop()
        #expect(!stopped.playing && !stopped.loop && stopped.passes == 0 && stopped.name == nil, "\(stopped)")
        // One device: settled once its mapping is (both voices share its frames); it stays open.
        #expect(stopped.devicesSettled, "the device open and its clock settled after a loop: \(stopped)")
        await audition.shutDown()
        #expect(await audition.transport() == Audition.stoppedTransport, "shut: nothing open, nothing settled")
    }

    @Test("a pattern file of no sound plays its haptic alone, as edited")
    func patternAlone() async throws {
        let folder = try AuditionRecording.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        try await studio.pattern("hits.wav").write(to: folder.appendingPathComponent("alone.ahap"), atomically: true, encoding: .utf8)
        let view = try await studio.edit("alone.ahap", EditOperation(op: .deleteTransient, index: 0))
        let selection = try await studio.auditionSelection("alone.ahap", start: nil, end: nil)
        #expect(!selection.hasSound && selection.start == 0 && abs(selection.end - view.sound.duration) < 1e-9)
        let played = studio.auditionHaptics(selection)?.events.filter { $0.type == .hapticTransient }.count
        #expect(played == view.haptic.transients.count && played! >= 1)
        var config = HapticManager.Configuration(
            hapticsFolder: "", assetsFolder: "", output: .device({ VirtualOutputDevice(name: "virtual", clock: .monotonic) }), layout: .stereoPlusHaptic)
        config.setLogLevels(manager: .error, engines: .error)
        let audition = Audition(studio: studio, output: .init(configuration: config, device: "virtual"))
        let once = try await audition.play("alone.ahap", start: nil, end: nil, loop: false)
        #expect(once.playing && once.name == "alone.ahap" && once.passes == 1)
        #expect(await waitUntil(30) { await !audition.transport().playing }, "the pass ends")
        await audition.shutDown()
    }
}

/// The audition paced in real time through a virtual device, for seconds on end: one at a time
/// with the rig suites (a `RealTimeTests` suite; scripts/test.sh), since a parallel lane that
/// fills both cores with other tests starves the test's own waits for longer than a recording
/// holds.
@Suite("Studio: audition in real time (in process)")
struct AuditionRealTimeTests {
    /// What one looped session through a virtual device left.
    struct Session {
        var left: [Float], haptic: [Float]
        var times: [Double]
        var before: [Float], after: [Float]
        var beforeEdit: Int, afterEdit: Int
        var underruns: Int
    }

    /// Loops the whole sound through a virtual device (real-time paced), deletes the second hit
    /// during the first pass, and stops once the pass after the first edited one is scheduled.
    static func loopSession() async throws -> Session {
        let folder = try AuditionRecording.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        let view = try await studio.open("hits.wav")
        let times = view.haptic.transients.map(\.time)
        let made = Mutex<VirtualOutputDevice?>(nil)
        var config = HapticManager.Configuration(
            hapticsFolder: "", assetsFolder: "",
            output: .device({
                let device = VirtualOutputDevice(name: "virtual", clock: .monotonic)
                made.withLock { $0 = device }
                return device
            }), layout: .stereoPlusHaptic)
        // As the rig tests: a large period, for a shared and loaded machine.
        config.setPeriod(frames: 1024, bufferPeriods: 4)
        config.setLogLevels(manager: .error, engines: .error)
        let audition = Audition(studio: studio, output: .init(configuration: config, device: "virtual"))
        let selection = try await studio.auditionSelection("hits.wav", start: nil, end: nil)
        let before = try AuditionRecording.reference(try #require(studio.auditionHaptics(selection)))

        let started = try await audition.play("hits.wav", start: nil, end: nil, loop: true)
        #expect(started.playing && started.loop && started.start == 0 && started.end == AuditionRecording.length)
        // During the first pass, after its first hit: delete the second hit.
        let inFirstPass = await waitUntil(60) { let t = await audition.transport(); return t.passes >= 1 && (t.position ?? 0) > 0.35 }
        let seen = await audition.transport()
        let recorded = made.withLock { $0 }.map { "\($0.underrunCount) underruns" } ?? "no device"
        #expect(inFirstPass, "the loop plays past the first hit: \(seen), \(recorded)")
        let beforeEdit = await audition.transport().passes
        _ = try await studio.edit("hits.wav", EditOperation(op: .deleteTransient, index: 1))
        let afterEdit = await audition.transport().passes
        let after = try AuditionRecording.reference(try #require(studio.auditionHaptics(selection)))
        // Until two passes after the first edited one are scheduled (each about 0.2 s before it
        // starts): the edited one has been played through, with a pass to spare for a render
        // that lags on a loaded machine.
        #expect(await waitUntil(60) { await audition.transport().passes >= afterEdit + 3 })
        let stopped = await audition.stop()
        #expect(!stopped.playing)
        await audition.shutDown()
        let device = try #require(made.withLock { $0 })
        return Session(
            left: device.recordedSamples(channel: 0), haptic: device.recordedSamples(channel: 2), times: times, before: before, after: after,
            beforeEdit: beforeEdit, afterEdit: afterEdit, underruns: device.underrunCount)
    }

    @Test("through a virtual device: sound and haptic on the same frame, hits at their times; an edit while looping is felt on the next pass")
    func loopWithEdit() async throws {
        var run = try await Self.loopSession()
        if run.underruns > 0 {
            print("audition (virtual device): \(run.underruns) underruns (a loaded machine); running the session once more")
            run = try await Self.loopSession()
        }
        #expect(run.underruns == 0, "a whole recording")
        try #require(run.times.count == 3 && zip(run.times, AuditionRecording.hitTimes).allSatisfy { abs($0 - $1) < 0.005 }, "the analysis finds the hits: \(run.times)")
        try AuditionRecording.checkLoop(
            left: run.left, haptic: run.haptic, times: run.times, before: run.before, after: run.after,
            passesBeforeEdit: run.beforeEdit, passesAfterEdit: run.afterEdit, label: "audition (virtual device)", tolerance: 0.01)
    }
}
