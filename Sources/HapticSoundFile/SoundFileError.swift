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

    /// A NaN or infinite sample, refused where it is (`convert` and `plot` say the same).
    /// `frame` counts from the file's start; `channel` is 0-based.
    public static func nonFiniteSample(path: String, frame: Int, sampleRate: Int, channel: Int, value: Float) -> SoundFileError {
        let at = Double(frame) / Double(sampleRate)
        return SoundFileError(
            path: path, operation: .read,
            message: "sample \(frame) (\(decimalText(at, places: 6)) s) of channel \(channel + 1) is \(value.isNaN ? "NaN" : "infinite"); a sound's samples must be finite")
    }
}
