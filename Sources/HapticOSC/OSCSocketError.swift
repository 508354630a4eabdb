/// A failure to set up a UDP socket, named for the address it concerns.
public struct OSCSocketError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
