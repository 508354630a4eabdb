import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `hapticsynth studio [FOLDER]`: runs `hapticsynth-studio` (found beside this executable),
/// the studio's own program, so that no other verb loads its web server (docs/studio.md).
public struct StudioVerb: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Design haptics from sounds in a browser: a local web page over a folder.",
        discussion: """
            Serves a page on 127.0.0.1 listing the folder's sounds and patterns: for the \
            selected sound, its waveform and envelope and the haptic `convert` makes of it, \
            convert's options as controls (each change re-analyses), which hits each \
            sensitivity keeps, and editing of transients and curve points with undo and redo, \
            kept as a layer over the analysis. Saving writes the pattern beside the sound as \
            convert writes it, and the sound's settings to the folder's --per-sound file, so \
            `convert --per-sound` on the folder gives every unedited pattern again.

            Play, Stop and Loop audition a selection: the sound on -D and the haptic with it \
            (in one stream, laid out from the device's channel map unless --layout says; or on \
            --haptic-device), in lockstep, through the engine the live verbs use; an edit made \
            while a selection loops is felt on the next pass. The studio starts without a sound \
            card: the device is opened at the first Play, and Play says so when it cannot be.

            Prints the address to open, with a random token that every request needs, then \
            `studio: ready`. Only files inside the folder are read or written. Ctrl-C stops it.

            Examples:
              hapticsynth studio sfx/
              hapticsynth studio sfx/ --open
              hapticsynth studio sfx/ --port 8765 --per-sound haptics.txt
              hapticsynth studio sfx/ -D speakers --haptic-device shaker --profile voice-coil
            """
    )

    @Argument(help: ArgumentHelp("The folder of sounds and patterns (default: the current folder).", valueName: "folder"))
    public var folder = "."

    @Option(name: .long, help: ArgumentHelp("Listen on this address instead of 127.0.0.1 (the token is still needed).", valueName: "address"))
    public var listen: String?

    @Option(name: .long, help: ArgumentHelp("The port (0: any free one, the default).", valueName: "port"))
    public var port = 0

    @Option(name: .customLong("per-sound"), help: ArgumentHelp("The folder's --per-sound file, where saving keeps each sound's settings.", valueName: "name"))
    public var perSound = "haptics.txt"

    @Flag(name: .long, help: "Start the default browser on the studio (xdg-open).")
    public var open = false

    @OptionGroup public var audition: StudioAuditionOptions

    public init() {}

    public func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): expected 0-65535") }
    }

    /// The studio program: `hapticsynth-studio` in this executable's folder.
    static func studioExecutable() -> String? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("hapticsynth-studio").path
    }

    public func execute(into out: inout some CommandOutput) throws -> Int32 {
        guard let program = Self.studioExecutable(), access(program, X_OK) == 0 else {
            out.printError("hapticsynth studio: hapticsynth-studio is not beside hapticsynth (\(Self.studioExecutable() ?? "?")); build it: swift build --product hapticsynth-studio")
            return 1
        }
        var arguments = [program, folder, "--port", String(port), "--per-sound", perSound]
        if let listen { arguments += ["--listen", listen] }
        if open { arguments.append("--open") }
        arguments += audition.arguments
        let cArguments = arguments.map { strdup($0) } + [nil]
        execv(program, cArguments)
        out.printError("hapticsynth studio: cannot run \(program): \(String(cString: strerror(errno)))")
        return 1
    }
}
