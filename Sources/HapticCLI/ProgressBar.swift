import Foundation

/// A one-line progress bar on stderr, shown only when stderr is a terminal.
struct ProgressBar {
    let total: Int
    let enabled = isatty(STDERR_FILENO) != 0

    func show(done: Int) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        StandardStreamWriter.error("\r[\(bar)] \(done)/\(total)")
    }

    func clear() {
        guard enabled else { return }
        StandardStreamWriter.error("\r\u{1B}[K")
    }
}
