import HapticKit

/// A failure a verb reports as one line on stderr with exit status 1.
/// Its text is escaped (`printable`): it is made from file names and the files' contents.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = printable(description) }
}
