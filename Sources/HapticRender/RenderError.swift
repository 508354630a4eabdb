import HapticPattern

/// Why a pattern could not be prepared or rendered.
public struct RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { printable(message) }
}
