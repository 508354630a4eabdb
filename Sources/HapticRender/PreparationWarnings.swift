// What preparing a pattern found wrong: lenient use collects warnings, strict use stops at the first.

/// The warnings of one preparation. Strict: a warning is an error instead.
struct PreparationWarnings {
    let strict: Bool
    private(set) var messages: [String] = []

    init(strict: Bool) {
        self.strict = strict
    }

    /// Strict: `message` is an error. Lenient: a warning, with what was done instead.
    mutating func warn(_ message: String, otherwise consequence: String? = nil) throws(RenderError) {
        if strict { throw RenderError(message) }
        messages.append(consequence.map { "\(message); \($0)" } ?? message)
    }
}
