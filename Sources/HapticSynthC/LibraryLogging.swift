#if canImport(Glibc)
    import Glibc
#endif
import Logging

/// The loggers of the library's managers and engines: silent unless `HAPTICSYNTH_LOG` names a
/// level (trace, debug, info, notice, warning, error, critical): then to standard error. A
/// library must not write to its host's output on its own.
enum LibraryLogging {
    static func loggers() -> (manager: Logger, engine: Logger) {
        let level = getenv("HAPTICSYNTH_LOG").flatMap { Logger.Level(rawValue: String(cString: $0).lowercased()) }
        func make(_ label: String) -> Logger {
            guard let level else { return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }
            var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
            logger.logLevel = level
            return logger
        }
        return (make("hapticsynth.manager"), make("hapticsynth.engine"))
    }
}
