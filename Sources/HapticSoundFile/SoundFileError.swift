import HapticPattern
/// Why a sound file could not be read, written or converted. Names the file and
/// carries the library's own message (libsndfile's `sf_strerror`, soxr's error text).
public struct SoundFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The step that failed.
    public enum Operation: String, Sendable, Equatable {
        case open, read, write, finish, resample, format
    }

    /// The file concerned (as given by the caller), or a short label for in-memory data.
    public var path: String
    public var operation: Operation
    /// What went wrong, in the underlying library's words where it gave any.
    public var message: String

    public init(path: String, operation: Operation, message: String) {
        self.path = path
        self.operation = operation
        self.message = message
    }

    public var description: String { printable("\(path): \(message)") }
}
