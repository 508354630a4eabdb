// The one entry point for a pattern document of any format hapticsynth knows (the C
// library's hs_pattern_load_file and hs_pattern_load_json come through here): recognise the
// format, then hand the bytes to that format's reader.

/// The pattern document formats hapticsynth recognises.
public enum PatternFormat: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Apple's AHAP (Core Haptics): a JSON object with a `Pattern` array.
    case ahap
    /// Meta (Lofelt) Haptics Studio's `.haptic`: a JSON object with `version`, `metadata` and
    /// `signals` (amplitude and frequency envelopes).
    case haptic

    public var description: String {
        switch self {
        case .ahap: "AHAP"
        case .haptic: "Meta/Lofelt .haptic"
        }
    }

    /// The format of a document: `.haptic` for a file named `*.haptic`, or a JSON object with a
    /// `signals` member, or a `version` object (AHAP's `Version` is a number); else `.ahap`,
    /// whose reader says what is wrong with anything else. `decoded` is the AHAP reader's
    /// outcome when the caller already has it (the document is then scanned only when AHAP
    /// refused it for want of a `Pattern`).
    public static func recognise(_ bytes: [UInt8], fileName: String? = nil) -> PatternFormat {
        if let fileName, fileName.lowercased().hasSuffix(".haptic") { return .haptic }
        guard let document = try? JSONValue.parse(bytes) else { return .ahap }
        if document["signals"] != nil { return .haptic }
        if case .object? = document["version"] { return .haptic }
        return .ahap
    }
}

/// Why a pattern document could not be loaded.
public enum PatternLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An AHAP document the reader refused (where and why).
    case invalid(AHAPError)
    /// A format recognised but not read (none today; kept for formats to come).
    case unsupported(PatternFormat)
    /// The file could not be read (missing, not a regular file, over the size limit...): why.
    case unreadable(String)
    /// The document is a sound file (`kind`: WAV, MP3...), by its first bytes: conversion makes a pattern of it.
    case soundFile(kind: String)

    public var description: String {
        switch self {
        case .invalid(let error): error.description
        case .unreadable(let reason): "cannot read: \(reason)"
        case .unsupported(let format): "a \(format) pattern: not supported"
        case .soundFile(let kind): SoundFileSignature.notAPattern(kind: kind)
        }
    }
}

extension AHAPPattern {
    /// Reads a pattern document of any recognised format (``PatternFormat``) into the model:
    /// AHAP through ``decode(from:options:)``, `.haptic` through the clip reader. `fileName` (or path) helps recognise the format.
    /// The AHAP reader runs first; only a document it refuses for want of a `Pattern` is looked
    /// at for another format, so an AHAP file is scanned once.
    public static func load(from bytes: [UInt8], fileName: String? = nil, options: AHAPDecodeOptions = .init())
        throws(PatternLoadError) -> DecodedAHAP
    {
        if let kind = SoundFileSignature.kind(of: bytes) { throw .soundFile(kind: kind) }
        if let fileName, PatternFormat.recognise([], fileName: fileName) == .haptic { return try loadHaptic(bytes, options: options) }
        do {
            return try decode(from: bytes, options: options)
        } catch where error.kind == .missingPattern {
            if PatternFormat.recognise(bytes) == .haptic { return try loadHaptic(bytes, options: options) }
            throw .invalid(error)
        } catch {
            throw .invalid(error)
        }
    }

    /// The `.haptic` branch: the clip reader, then the AHAP pattern the clip converts to (as
    /// `render`, `play` and `convert` read it), with the clip reader's warnings.
    private static func loadHaptic(_ bytes: [UInt8], options: AHAPDecodeOptions) throws(PatternLoadError) -> DecodedAHAP {
        do {
            let decoded = try HapticClip.decode(from: bytes, options: options)
            return DecodedAHAP(pattern: decoded.clip.ahapPattern(), warnings: decoded.warnings)
        } catch {
            throw .invalid(error)
        }
    }
}
