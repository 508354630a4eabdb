import HapticEngine
import Logging

/// How much a logger says (swift-log's levels, named here so an app sets them through
/// HapticKit: the CLI's `--verbose`).
public typealias LogLevel = Logger.Level

/// A logger for an app's own notes (the CLI's `serve` logs its reloads through one).
public func makeLogger(label: String, level: LogLevel) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = level
    return logger
}

extension HapticManager.Configuration {
    /// Sets the manager's log level and both engines' (the CLI: the engines' notes only with
    /// --verbose, the manager's from a level the verb chooses).
    public mutating func setLogLevels(manager: LogLevel, engines: LogLevel) {
        logger.logLevel = manager
        engine.logger.logLevel = engines
        audioEngine.logger.logLevel = engines
    }

    /// Sets both engines' period and buffer (two-device mode: the audio engine takes the same).
    public mutating func setPeriod(frames: Int, bufferPeriods: Int) {
        for engine in [\HapticManager.Configuration.engine, \HapticManager.Configuration.audioEngine] {
            self[keyPath: engine].periodFrames = frames
            self[keyPath: engine].bufferPeriods = bufferPeriods
        }
    }
}

/// The clock every `atTime:` of HapticKit is on.
public enum HapticClock {
    /// Seconds on CLOCK_MONOTONIC.
    public static func now() -> Double { MonotonicClock.now() }
}
