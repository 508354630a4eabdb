import ArgumentParser
import Foundation
import HapticKit
import HapticOSC
import Synchronization

/// `hapticsynth serve [-D DEVICE] [--haptic-device D2] [--osc-port 9000] [--listen ADDR] ...`
public struct Serve: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the live engine and take commands over OSC (UDP) from games and tools.",
        discussion: """
            Opens the device (or two devices with --haptic-device), loads the pattern library, \
            the cue sheet and the sound effects, and plays what OSC clients ask: patterns, cues, \
            transients, looping players under client ids with live intensity, sharpness and \
            curves, at once or at a CLOCK_MONOTONIC time (or a bundle's timetag). The address \
            space is in docs/osc.md ("Driving the engine over OSC"). When ready it prints \
            "listening on ADDR:PORT", and "serve: ready" on standard error.

            It listens on 127.0.0.1 only unless --listen names another address: OSC has no \
            authentication, so anyone who can reach the port can drive the actuator (and read \
            the status). Give a LAN address only on a network you trust.

            The channels follow --layout, or the device's channel map (the sound on the fronts, \
            the haptic on LFE where there is one); a haptic the device or its sound server would \
            drop is reported in one line with the fix, and the status says where each channel went.

            --follow CAPTURE follows live sound as the follow verb does (--input-channels, \
            --follow-gain, --follow-mode, and for the analysis mode --follow-sensitivity, \
            --follow-gate, --follow-timing), as one more voice under the patterns: its drive is \
            ducked by --follow-ducking while a pattern sounds, and OSC sets its gain, mode, \
            mute and ducking (/hapticsynth/follow/...). A lost capture is reopened while the \
            output keeps running; a lost device or capture prints a line when lost and when back.

            Bad datagrams, unknown addresses and unknown names are counted and logged (at most \
            a few lines per 10 s); nothing a client sends stops the server. SIGHUP reloads the \
            pattern library and the cue sheet without stopping the stream; SIGINT or SIGTERM \
            fade out, close the device, print a summary (and with --verbose the engine's \
            statistics) and exit 0. An example systemd user unit: \
            examples/hapticsynth-serve.service.

            Examples:
              hapticsynth serve
              hapticsynth serve -D hw:1,0 --profile voice-coil --period 128 --osc-port 9001
              hapticsynth serve --layout FL,FR,RL=H:bass-shaker,RR=H:voice-coil
              hapticsynth serve -D speakers --haptic-device shaker --listen 192.168.1.20
              hapticsynth serve -D shaker --follow monitor --input-channels 4 --follow-gain -6
            """
    )

    @Option(name: .customLong("haptic-device"), help: ArgumentHelp("Two-device mode: the haptic goes to this ALSA device, the sound to -D.", valueName: "device"))
    public var hapticDevice: String?

    @Option(name: .long, help: ArgumentHelp("The patterns folder: .ahap files and .haptic clips, played by name (default: $HAPTICSYNTH_HAPTICS, ./Haptics, else the installed library: see info --paths).", valueName: "dir"))
    public var haptics: String?

    @Option(name: .long, help: ArgumentHelp("The assets folder: sfx/, cues.json (default: $HAPTICSYNTH_ASSETS, ./Assets, else the installed assets: see info --paths).", valueName: "dir"))
    public var assets: String?

    @OptionGroup public var profileOption: ProfileOption

    @Option(name: .customLong("osc-port"), parsing: .unconditional, help: ArgumentHelp("UDP port for OSC (0: any free port, printed).", valueName: "port"))
    public var oscPort = 9000

    @Option(name: .long, help: ArgumentHelp("Address to listen on: 127.0.0.1 is this machine only; another one must be asked for (OSC has no authentication).", valueName: "addr"))
    public var listen = "127.0.0.1"

    @Option(name: .customLong("queue"), parsing: .unconditional, help: ArgumentHelp("Commands that may wait; more are dropped (the newest) and counted.", valueName: "n"))
    public var queueCapacity = 1024

    @OptionGroup public var channelLayout: LayoutOptions
    @OptionGroup public var live: LiveOutputOptions
    @OptionGroup public var follow: ServeFollowOptions

    public init() {}

    public func validate() throws {
        guard (0...65535).contains(oscPort) else { throw ValidationError("--osc-port \(oscPort): expected 0...65535") }
        guard (1...1_000_000).contains(queueCapacity) else { throw ValidationError("--queue \(queueCapacity): expected 1...1000000") }
        try profileOption.checkName()
    }

    public func run() async throws {
        var out = StandardStreams()
        let status = await execute(into: &out)
        if status != 0 { throw ExitCode(status) }
    }

    /// Serves until SIGINT/SIGTERM, writing to `out`; returns the exit status.
    public func execute(into out: inout some CommandOutput) async -> Int32 {
        // Before anything is loaded: SIGINT and SIGTERM end the server with 0 from now on (at
        // once until it is ready, then through the fade and the summary); a SIGHUP that comes
        // while the library loads is done once it has loaded.
        let finished = Finish()
        let signals = SignalWatch(verb: "serve", ending: .success, deadlineSeconds: stopDeadlineSeconds) { finished.interrupt() }
        let reloader = Mutex<(reload: (@Sendable () -> Void)?, pending: Bool)>((nil, false))
        let hangup = SignalListener(signals: [SIGHUP]) {
            let reload = reloader.withLock { r -> (@Sendable () -> Void)? in
                if r.reload == nil { r.pending = true }
                return r.reload
            }
            reload?()
        }
        defer {
            signals.cancel()
            hangup.cancel()
        }
        let folders: LibraryFolders
        do { folders = try LibraryFolders(haptics: haptics, assets: assets) } catch {
            out.printError("serve: \(error)")
            return 1
        }
        // The address first: a bad one is reported before any device opens.
        let socket: UDPSocket
        do { socket = try UDPSocket(host: listen, port: oscPort) } catch {
            out.printError("serve: \(error)")
            return 1
        }
        let profile: ActuatorProfile
        do { profile = try profileOption.resolved() } catch {
            out.printError("serve: \(error)")
            return 1
        }
        var config = managerConfiguration(haptics: folders.haptics, assets: folders.assets, profile: profile)
        let outages = OutageReport(verb: "serve", device: hapticDevice ?? live.device)
        config.eventHandler = Self.reportEvents(outages)
        let manager = HapticManager(configuration: config)
        guard manager.engineAvailable else {
            out.printError("serve: no playback device: \(manager.status)")
            return 1
        }
        let following = follow.request
        do { try following?.start(on: manager) } catch {
            manager.shutDown()
            await manager.stopFollowing()
            out.printError("serve: \(error)")
            return 1
        }
        live.reportChannels(verb: "serve", note: manager.layoutNote, routing: manager.channelRouting, into: &out)
        if manager.isTwoDevice && !manager.audioAvailable {
            out.printError("serve: warning: audio device \(live.device): \(manager.audioStatus.map { "\($0)" } ?? "unavailable"); sound effects will not play")
        }
        let report = manager.preloadPatterns()
        if let error = manager.cueSheetError { out.printError("serve: warning: \(error); cues will be unknown") }
        for (file, why) in report.skipped.sorted(by: { $0.key < $1.key }) { out.printError("serve: warning: \(printable(file)): \(printable(why)); skipped") }

        var osc = OSCServer.Configuration()
        osc.queueCapacity = queueCapacity
        osc.logger.logLevel = live.verbose ? LogLevel.info : .warning
        let remote = Mutex(HapticRemoteControl(manager: manager))
        let server: OSCServer
        do {
            server = try OSCServer(socket: socket, configuration: osc, target: ManagerCommandTarget(remote: remote.withLock { $0 }))
        } catch {
            manager.shutDown()
            out.printError("serve: \(error)")
            return 1
        }
        if !server.socket.isLoopback {
            out.printError("serve: warning: listening on \(listen), reachable from other machines: OSC has no authentication")
        }

        let logger = makeLogger(label: "hapticsynth.serve", level: .notice)
        let reload: @Sendable () -> Void = {
            let report = remote.withLock { $0 }.manager.reloadLibrary()
            // Every file or folder the reload skipped is named (a broken pattern, a pipe, a missing folder).
            for (file, why) in report.skipped.sorted(by: { $0.key < $1.key }) {
                logger.warning("serve: SIGHUP: \(printable(file)): \(printable(why)); skipped")
            }
            logger.notice("serve: SIGHUP: reloaded \(report.patterns) patterns, \(report.cues) cues\(report.cueSheetProblem.map { " (cue sheet kept: \(printable($0)))" } ?? "")")
        }
        let reloadNow = reloader.withLock { r -> Bool in
            r.reload = reload
            defer { r.pending = false }
            return r.pending
        }
        if reloadNow { reload() }
        // Announced only now: a SIGHUP sent on seeing this line finds its handler.
        out.print("listening on \(server.socket.boundAddress.description) (OSC over UDP), \(manager.library.patterns.count) patterns, \(manager.cueSheet.cues.count) cues, device \(live.device)\(hapticDevice.map { " + haptic \($0)" } ?? "")")
        signals.ready(into: &out)
        // The engine reconnects by itself, forever (a manager that is reconnecting is left
        // alone: a second engine would play on the same device). Only a manager that gave up
        // (a device that cannot be reopened, nor rebuilt) is replaced by a new one as soon as
        // the device opens again; clients keep the same port.
        let supervisor = Task.detached {
            while !finished.isDone && !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                let current = remote.withLock { $0 }
                guard current.manager.hasGivenUp, !finished.isDone, !Task.isCancelled else { continue }
                // The capture is let go of first (a hardware capture opens only once).
                await current.manager.stopFollowing()
                let fresh = HapticManager(configuration: config)
                guard fresh.engineAvailable else {
                    fresh.shutDown()
                    continue
                }
                do { try following?.start(on: fresh) } catch { logger.warning("serve: \(error)") }
                fresh.preloadPatterns()
                let control = HapticRemoteControl(manager: fresh)
                // The clients' loops go on where they were (their ids, patterns and intensities).
                for loop in current.loopRequests { control.startLoop(id: loop.id, pattern: loop.pattern, intensity: loop.intensity) }
                remote.withLock { $0 = control }
                server.setTarget(ManagerCommandTarget(remote: control))
                logger.notice("serve: the device is back; a new engine plays")
            }
        }
        _ = await finished.wait()
        server.stop()
        supervisor.cancel()
        _ = await supervisor.value  // no manager is made after this
        let last = remote.withLock { $0 }
        // Read while the engine still runs (its latency is 0 once closed).
        let engineReport = last.manager.currentEngine.map(EngineReport.init)
        let followed = follow.summary(last.manager.followStatistics)
        last.stopAll()
        await last.manager.stopFollowing()
        last.manager.shutDown()
        if manager !== last.manager { manager.shutDown() }
        let c = server.counters.snapshot
        if live.verbose {
            if let engineReport { live.report(engineReport, into: &out) }
            live.reportMemoryLock(into: &out)
        }
        out.print("stopped; served \(c.executed) commands (\(c.datagrams) datagrams: \(c.malformed) malformed, \(c.oversized) oversized, \(c.unknownAddress) unknown addresses, \(c.badArguments) bad arguments, \(c.dropped) dropped; \(last.manager.statistics.unknownNames) unknown names)\(followed)")
        return 0
    }

    /// How long the graceful end after SIGINT/SIGTERM may take before the watchdog ends the
    /// process (with 128 + the signal): the server's threads see the stop within 0.1 s, and each
    /// engine fades and plays its device buffer out before it closes; 1 s covers the rest on a
    /// loaded machine.
    var stopDeadlineSeconds: Double {
        let bufferSeconds = Double(live.period * live.bufferPeriods) / 48_000  // serve renders at the engines' 48 kHz
        return 1 + Double(hapticDevice == nil ? 1 : 2) * 2 * bufferSeconds
    }

    /// The manager's events as lines: a lost device or capture when lost and when back (as
    /// `play` and `follow` print them).
    static func reportEvents(_ outages: OutageReport) -> @Sendable (HapticManager.EngineEvent) -> Void {
        { event in
            switch event {
            case .lost(_, _, let reason):
                switch reason {
                case .deviceLost(let why), .recoveryFailed(let why): _ = outages.lost(why)
                case .deviceTimeout: _ = outages.lost("no progress within the bounded wait")
                }
            case .reconnected(_, _, let info):
                outages.back(outageSeconds: info.outageSeconds, gapSeconds: info.gapSeconds, droppedOnsets: info.droppedOnsets)
            case .rebuilt, .gaveUp: break  // the manager logs them; the supervisor replaces a manager that gave up
            case .captureLost(let name): OutageReport.printLine("serve: capture \(name) lost; reopening")
            case .captureBack(let name, let seconds):
                OutageReport.printLine("serve: capture \(name) is back after \(String(format: "%.2f", seconds)) s")
            }
        }
    }

    func managerConfiguration(haptics: String, assets: String, profile: ActuatorProfile) -> HapticManager.Configuration {
        let audioDevice = live.device
        return live.managerConfiguration(
            haptics: haptics, assets: assets, output: .alsa(hapticDevice ?? audioDevice),
            audioOutput: hapticDevice == nil ? nil : .alsa(audioDevice), layout: try? channelLayout.resolved(),
            profile: profile, managerLogLevel: .warning)
    }
}
