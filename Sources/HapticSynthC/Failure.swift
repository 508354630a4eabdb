import CHapticSynth

/// A status and its message: what every failing call returns and leaves in this thread's last
/// error (hs_last_error).
struct Failure: Error {
    var status: Int32
    var message: String

    init(_ status: Int, _ message: String) {
        self.status = Int32(status)
        self.message = message
    }

    static func invalidArgument(_ message: String) -> Failure { Failure(HS_ERR_INVALID_ARGUMENT, message) }
    static func notRunning(_ message: String) -> Failure { Failure(HS_ERR_NOT_RUNNING, message) }
}

/// Sets this thread's last error to `message` (a copy; "" clears it).
func setLastError(_ message: String) {
    var message = message
    message.withUTF8 { bytes in
        bytes.withMemoryRebound(to: CChar.self) { hs_internal_error_copy($0.baseAddress, $0.count) }
    }
}

/// Runs the body of a C entry point named `function`: its status, with this thread's last
/// error set ("" on success, "function: message" on failure).
func run(_ function: StaticString, _ body: () throws(Failure) -> Void) -> Int32 {
    do {
        try body()
        hs_internal_error_static(HS_MESSAGE_NONE)
        return Int32(HS_OK)
    } catch {
        setLastError("\(function): \(error.message)")
        return error.status
    }
}

/// Like ``run(_:_:)`` for entry points that return nothing (close, free): the message only.
func runVoid(_ function: StaticString, _ body: () throws(Failure) -> Void) {
    _ = run(function, body)
}

extension HandleProblem {
    /// The failure of a call given `what` (its parameter's name) of kind `kind`.
    func failure(_ what: String, _ kind: HandleKind) -> Failure {
        let name = switch kind {
        case .engine: "an engine"
        case .pattern: "a pattern"
        case .player: "a player"
        }
        return switch self {
        case .null: Failure(HS_ERR_INVALID_HANDLE, "\(what) is NULL")
        case .wrongKind: Failure(HS_ERR_INVALID_HANDLE, "\(what) is not \(name) handle")
        case .stale: Failure(HS_ERR_INVALID_HANDLE, "\(what) was already \(kind == .engine ? "closed" : "freed")")
        }
    }
}
