#if canImport(Glibc)
    import Glibc
#endif
import CHapticSynth
import Logging
import Synchronization

/// The loggers of the library's managers and engines. A library must not write to its host's
/// output on its own: lines go to the app's log callback (hs_set_log_callback) from its level
/// up, and to standard error only when `HAPTICSYNTH_LOG` names a level (trace, debug, info,
/// notice, warning, error, critical).
enum LibraryLogging {
    static func loggers() -> (manager: Logger, engine: Logger) {
        let level = getenv("HAPTICSYNTH_LOG").flatMap { Logger.Level(rawValue: String(cString: $0).lowercased()) }
        func make(_ label: String) -> Logger {
            var logger = Logger(label: label, factory: { label in
                var callback = CallbackLogHandler()
                callback.logLevel = .trace  // each line is weighed against the callback's own level
                guard let level else { return callback }
                var standardError = StreamLogHandler.standardError(label: label)
                standardError.logLevel = level
                return MultiplexLogHandler([callback, standardError])
            })
            logger.logLevel = .trace
            return logger
        }
        return (make("hapticsynth.manager"), make("hapticsynth.engine"))
    }
}

/// The app's log callback (process-wide): the C pointers, which C owns.
struct LogCallback: @unchecked Sendable {
    var function: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void
    var user: UnsafeMutableRawPointer?
    var minimumLevel: Int32
}

let logCallback = Mutex<LogCallback?>(nil)

/// The HS_LOG_* level of a swift-log level.
func cLogLevel(_ level: Logger.Level) -> Int32 {
    switch level {
    case .trace, .debug: Int32(HS_LOG_DEBUG)
    case .info, .notice: Int32(HS_LOG_INFO)
    case .warning: Int32(HS_LOG_WARNING)
    case .error, .critical: Int32(HS_LOG_ERROR)
    }
}

/// Sends a line to the app's log callback, when one is set and the line reaches its level
/// (called outside the lock: the callback may log or call the library).
func deliverLog(_ level: Int32, _ message: String) {
    guard let callback = logCallback.withLock({ $0 }), level >= callback.minimumLevel else { return }
    message.withCString { callback.function(callback.user, level, $0) }
}

/// A swift-log handler that hands each line to the app's log callback.
struct CallbackLogHandler: LogHandler {
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        deliverLog(cLogLevel(event.level), "\(event.message)")
    }
}
