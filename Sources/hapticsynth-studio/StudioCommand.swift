// `hapticsynth-studio`: the studio's own executable (`hapticsynth studio` runs it), so that
// no other verb loads the web server.

import ArgumentParser
import Foundation
import HapticCLI
import HapticStudio
import HapticStudioCore

@main
struct StudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hapticsynth-studio",
        abstract: "Design haptics from sounds in a browser (hapticsynth studio; docs/studio.md).")

    @Argument(help: "The folder of sounds and patterns (default: the current folder).")
    var folder = "."

    @Option(help: ArgumentHelp("Listen on this address instead of 127.0.0.1 (the token is still needed).", valueName: "address"))
    var listen: String?

    @Option(help: "The port (0: any free one).")
    var port = 0

    @Option(name: .customLong("per-sound"), help: ArgumentHelp("The folder's --per-sound file, where saving keeps each sound's settings.", valueName: "name"))
    var perSound = "haptics.txt"

    @Flag(help: "Start the default browser on the studio (xdg-open).")
    var open = false

    @OptionGroup var audition: StudioAuditionOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): expected 0-65535") }
    }

    func run() async throws {
        var options = StudioServerOptions(folder: folder)
        if let listen { options.host = listen }
        options.port = port
        options.perSound = perSound
        options.openBrowser = open
        do {
            options.audition = Audition.Output(
                configuration: try audition.managerConfiguration(), device: audition.live.device, hapticDevice: audition.hapticDevice)
            options.verbose = audition.live.verbose
            try await StudioServer.run(options)
        } catch {
            FileHandle.standardError.write(Data("hapticsynth studio: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

