import HapticKit

extension LiveOutputOptions {
    /// What `--verbose` says about the memory lock every live verb asks for.
    static let memoryNote = "memory: locked while playing live (mlockall, asked for by the live verbs play, rhythm, serve and follow; a refusal is logged as a warning)"
    /// What `--verbose` says instead with --no-realtime.
    static let noRealtimeNote = "memory: not locked, and the render thread at normal scheduling (--no-realtime)"

    /// A HapticManager configuration for these options (the verbs that play cues: `rhythm`,
    /// `serve`): both engines take the period and the buffer; the engines' notes show only
    /// with --verbose, the manager's from `managerLogLevel` up (--verbose: from info).
    /// `layout` nil: the manager chooses it from the device; the verb prints where the haptic
    /// went itself (`reportChannels`), so the manager does not log it.
    func managerConfiguration(
        haptics: String, assets: String, output: HapticManager.Output, audioOutput: HapticManager.Output?,
        layout: ChannelLayout? = nil, profile: ActuatorProfile, managerLogLevel: LogLevel
    ) -> HapticManager.Configuration {
        var config = HapticManager.Configuration(
            hapticsFolder: haptics, assetsFolder: assets, output: output, layout: layout, profile: profile, audioOutput: audioOutput)
        config.logsChannelRouting = false
        // A live verb owns its process (see LiveOutputOptions.memoryNote), unless --no-realtime.
        config.lockMemory = !noRealtime
        if noRealtime {
            config.engine.realtimePriority = nil
            config.audioEngine.realtimePriority = nil
        }
        config.setLogLevels(manager: verbose ? .info : managerLogLevel, engines: verbose ? .info : .error)
        config.setPeriod(frames: period, bufferPeriods: bufferPeriods)
        return config
    }
}
