#if canImport(Glibc)
import Glibc
#endif
import CHapticSynth
import HapticKit

// Reading what C hands over — strings, numbers, times — as hostile input: each problem a
// Failure naming the parameter, never a trap.

/// The most bytes of a string (names, paths, layouts) ever read, its NUL included: a string
/// has at most 4095 bytes before its NUL. Not one byte more is read (past it may be unmapped).
let maximumStringBytes = 4096

/// The NUL-terminated UTF-8 string `pointer` (nil: NULL), refused when it is not UTF-8 or has
/// no NUL within its first ``maximumStringBytes`` bytes.
func string(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(Failure) -> String? {
    guard let pointer else { return nil }
    let length = strnlen(pointer, maximumStringBytes)
    guard length < maximumStringBytes else {
        throw .invalidArgument("\(what) has no NUL within \(maximumStringBytes) bytes (at most \(maximumStringBytes - 1) bytes and the NUL)")
    }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: length)
    guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidArgument("\(what) is not UTF-8") }
    return text
}

/// The largest `struct_size` taken as a size: a struct that grows in later versions stays far
/// below it; anything above is garbage (SIZE_MAX, an uninitialised field).
let largestStructSize: UInt = 65_536

/// The bytes a C struct's `struct_size` (a size_t, which Swift reads as Int) says are there,
/// refused when 0 or beyond ``largestStructSize``; the message gives the value as C wrote it
/// (SIZE_MAX, read as -1, was once reported as 0). `fix`: what the caller should do.
func structSize(_ raw: Int, _ what: String, fix: String) throws(Failure) -> Int {
    let size = UInt(bitPattern: raw)
    guard size != 0 else { throw .invalidArgument("\(what)->struct_size is 0 (\(fix))") }
    guard size <= largestStructSize else {
        throw .invalidArgument("\(what)->struct_size \(size) is not the size of a struct (at most \(largestStructSize); \(fix))")
    }
    return Int(size)
}

/// ``string(_:_:)`` for a string that must be given (and not be empty).
func requiredString(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(Failure) -> String {
    guard let text = try string(pointer, what) else { throw .invalidArgument("\(what) is NULL") }
    guard !text.isEmpty else { throw .invalidArgument("\(what) is empty") }
    return text
}

/// A value for an `out` pointer that must not be NULL.
func required<T>(_ pointer: UnsafeMutablePointer<T>?, _ what: String) throws(Failure) -> UnsafeMutablePointer<T> {
    guard let pointer else { throw .invalidArgument("\(what) is NULL") }
    return pointer
}

/// A control value (intensity 0…1, sharpness -1…1): NaN refused, the rest clamped.
func control(_ value: Float, _ range: ClosedRange<Double>, _ what: String) throws(Failure) -> Double {
    guard !value.isNaN else { throw .invalidArgument("\(what) is NaN") }
    return min(max(Double(value), range.lowerBound), range.upperBound)
}

/// A time on the engine's clock whose "now" is `now`: finite, at most an hour ahead; 0 (as
/// soon as possible) for 0 or any time already past.
func time(_ value: Double, now: Double, _ what: String = "time") throws(Failure) -> Double {
    guard value.isFinite else { throw .invalidArgument("\(what) \(value) is not a finite number of seconds") }
    guard value <= now + 3600 else {
        throw .invalidArgument("\(what) \(value) is more than 3600 s ahead of the engine's clock (\(now))")
    }
    return value <= now ? 0 : value
}

/// A whole number within `range` (0: the default), naming the field.
func count(_ value: Int32, _ range: ClosedRange<Int>, default fallback: Int, _ what: String) throws(Failure) -> Int {
    if value == 0 { return fallback }
    guard range.contains(Int(value)) else { throw .invalidArgument("\(what) \(value) is outside \(range.lowerBound)...\(range.upperBound)") }
    return Int(value)
}

/// A sample rate in Hz (a whole number within `Limits.sampleRates`; 0: 48000).
func sampleRate(_ value: Double, _ what: String = "sample_rate") throws(Failure) -> Int {
    if value == 0 { return 48_000 }
    guard value.isFinite, value == value.rounded(), Double(Limits.sampleRates.lowerBound) <= value,
          value <= Double(Limits.sampleRates.upperBound) else {
        throw .invalidArgument("\(what) \(value) is not a whole number of Hz between \(Limits.sampleRates.lowerBound) and \(Limits.sampleRates.upperBound)")
    }
    return Int(value)
}

/// A channel map as `--layout` reads it (``ChannelLayout/parse(userText:)``: the same reader).
func layout(_ text: String, _ what: String = "layout") throws(Failure) -> ChannelLayout {
    do { return try ChannelLayout.parse(userText: text) } catch { throw Failure(HS_ERR_PARSE, "\(what): \(error)") }
}

/// A profile by built-in name, JSON path, or name of the assets folder's profiles (nil:
/// bass-shaker), as the CLI's --profile resolves it. `assetsFolder`: the one the caller named,
/// else the one ``LibraryDataFolders`` finds.
func profile(_ text: String?, assetsFolder: String? = nil) throws(Failure) -> ActuatorProfile {
    guard let text else { return .bassShaker }
    do {
        return try ActuatorProfile.named(orPath: text, assetsFolder: assetsFolder ?? LibraryDataFolders.search.find(.assets)?.path)
    } catch { throw Failure(HS_ERR_PARSE, error.description) }
}
