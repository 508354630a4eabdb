// Runs the studio's web server: 127.0.0.1 (or --listen), the token, the page, its API and its
// WebSocket; prints the address to open (with the token) and `studio: ready` once it listens.

import Foundation
import HapticStudioCore
import Hummingbird
import HummingbirdWebSocket
import Logging

public struct StudioServerOptions: Sendable {
    public var folder: String
    public var host = "127.0.0.1"
    public var port = 0
    public var perSound = "haptics.txt"
    public var openBrowser = false
    /// Where the audition plays (nil: the default device, the haptic laid out from its channel map).
    public var audition: Audition.Output?
    /// Print the audition engine's report on stderr at the end.
    public var verbose = false
    public init(folder: String) { self.folder = folder }
}

public enum StudioServer {
    public static func run(_ options: StudioServerOptions) async throws {
        let folder = try StudioFolder(path: options.folder)
        let studio = try Studio(folder: folder, perSoundName: options.perSound)
        let assets = try WebAssets.load()
        let token = randomToken()
        let extraHosts = ["127.0.0.1", "localhost", "::1"].contains(options.host) ? [] : [options.host.contains(":") ? "[\(options.host)]" : options.host]
        let address = StudioAddress(extraHosts: extraHosts)
        let router = Router()
        let studioGuard = StudioGuard<BasicRequestContext>(token: token, address: address, limiter: RateLimiter(perSecond: 200, burst: 400))
        router.add(middleware: studioGuard)
        let output = options.audition ?? Audition.Output(configuration: .init(hapticsFolder: "", assetsFolder: ""), device: "default")
        let audition = Audition(studio: studio, output: output)
        Task {
            if let line = await audition.openTwoDevicesEarly() { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        let actions = StudioActions(studio: studio, audition: audition, events: StudioEvents())
        StudioAPI(studio: studio, assets: assets, audition: audition, actions: actions).add(to: router)
        let socket = StudioSocket(actions: actions)
        socket.addRefusal(to: router)
        let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
        let app = Application(
            router: router,
            server: StudioSocketChannel.builder(
                // A ping every 5 minutes, not Hummingbird's 30 s: a client answers one only when it
                // reads, and a script (or a test on a loaded machine) busy for half a minute lost
                // its socket; a page's browser answers at once either way.
                configuration: .init(maxFrameSize: StudioSocket.maxMessage, autoPing: .enabled(timePeriod: .seconds(300))),
                refusal: { head in socket.refusal(head, guard: studioGuard) },
                serve: { inbound, outbound, _ in try await socket.serve(inbound, outbound) }),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                address.set(port: port)
                let url = "http://\(shownHost == "0.0.0.0" ? "127.0.0.1" : shownHost):\(port)/?token=\(token)"
                let lines = "studio: \(folder.root.isEmpty ? "/" : folder.root): open \(url)\nstudio: ready\n"
                FileHandle.standardOutput.write(Data(lines.utf8))
                if options.openBrowser { openInBrowser(url) }
            },
            logger: { var logger = Logger(label: "hapticsynth-studio"); logger.logLevel = .warning; return logger }()
        )
        // The engines close however the server ends (a signal, or a failure to listen).
        do { try await app.runService() } catch {
            await audition.shutDown()
            throw error
        }
        if options.verbose, let report = await audition.engineReport() { FileHandle.standardError.write(Data("\(report)\n".utf8)) }
        await audition.shutDown()
    }

    /// Starts the default browser (xdg-open); says so when it cannot.
    static func openInBrowser(_ url: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url]
        do { try process.run() } catch {
            FileHandle.standardError.write(Data("studio: cannot start a browser (xdg-open: \(error)); open the address above\n".utf8))
        }
    }
}
