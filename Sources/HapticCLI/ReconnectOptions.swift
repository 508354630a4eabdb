import ArgumentParser

/// `--reconnect-timeout`, for the verbs that end when their user's patience does (`play`,
/// `rhythm`). `serve` has no such option: it reconnects for as long as it runs.
public struct ReconnectOptions: ParsableArguments {
    // `.unconditional`: "-1" is this option's value (a range error), not an unknown flag.
    @Option(name: .customLong("reconnect-timeout"), parsing: .unconditional, help: ArgumentHelp(
        "When the device or sound server goes away, give up (exit 1) if it is not back within this many seconds (default: never for --loop and rhythm; the rest of the pattern for a finite play).",
        valueName: "seconds"))
    public var reconnectTimeout: Double?

    public init() {}

    public func validate() throws {
        if let reconnectTimeout, !(reconnectTimeout.isFinite && reconnectTimeout >= 0 && reconnectTimeout <= 1e6) {
            throw ValidationError("--reconnect-timeout \(reconnectTimeout): expected 0...1000000 seconds")
        }
    }
}
