import HapticPattern
import HapticRender
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds, decodes and converts the sound files that AudioCustom events name, for the renderer.
///
/// A relative `EventWaveformPath` is looked up in order: the AHAP file's folder, the Assets
/// folder, then the folders added by the user. Absolute paths are used as they are.
/// Decoded files and their rate/transposition conversions are cached; the cache is shared
/// safely between threads (a `Mutex`), so one library can serve many prepared patterns.
public final class SoundLibrary: SoundSource {
    private struct ConversionKey: Hashable {
        var file: String
        var sampleRate: Double
        var transposition: Double
    }

    private struct State {
        var folders: [String]
        var decoded: [String: SoundBuffer] = [:]
        var converted: [ConversionKey: SoundBuffer] = [:]
    }

    /// The AHAP file's folder (first place searched), if known.
    public let patternFolder: String?
    /// The Assets folder (second place searched), if any.
    public let assetsFolder: String?
    /// Resampling quality for conversions.
    public let quality: Resampler.Quality
    private let state: Mutex<State>

    /// - Parameters:
    ///   - patternFolder: the folder of the AHAP file whose events name the sounds.
    ///   - assetsFolder: the project's or application's sound assets folder.
    ///   - folders: further folders, searched in order after the two above.
    public init(
        patternFolder: String? = nil, assetsFolder: String? = nil, folders: [String] = [],
        quality: Resampler.Quality = .high
    ) {
        self.patternFolder = patternFolder
        self.assetsFolder = assetsFolder
        self.quality = quality
        self.state = Mutex(State(folders: folders))
    }

    /// A library searching next to the AHAP file at `patternFile` first.
    public convenience init(
        patternFile: String, assetsFolder: String? = nil, folders: [String] = [],
        quality: Resampler.Quality = .high
    ) {
        let folder = patternFile.lastIndex(of: "/").map { String(patternFile[..<$0]) } ?? "."
        self.init(
            patternFolder: folder.isEmpty ? "/" : folder, assetsFolder: assetsFolder, folders: folders,
            quality: quality)
    }

    /// Adds a folder searched after the ones already known.
    public func addFolder(_ folder: String) {
        state.withLock { $0.folders.append(folder) }
    }

    /// The folders searched for a relative path, in order.
    public var searchFolders: [String] {
        let user = state.withLock { $0.folders }
        return [patternFolder, assetsFolder].compactMap { $0 } + user
    }

    /// The file `path` resolves to, or nil when it exists in none of the search folders.
    public func resolve(_ path: String) -> String? {
        if path.hasPrefix("/") { return isRegularFile(path) ? path : nil }
        for folder in searchFolders {
            let candidate = folder.hasSuffix("/") ? folder + path : folder + "/" + path
            if isRegularFile(candidate) { return candidate }
        }
        return nil
    }

    public func sound(path: String, sampleRate: Double, transposition: Double) throws(SoundSourceError)
        -> SoundBuffer
    {
        guard !path.isEmpty else { throw SoundSourceError(path: path, message: "empty sound file path") }
        guard let file = resolve(path) else {
            let places = path.hasPrefix("/") ? "" : " (searched: " + searchFolders.joined(separator: ", ") + ")"
            throw SoundSourceError(path: path, message: "sound file not found" + places)
        }
        let key = ConversionKey(file: file, sampleRate: sampleRate, transposition: transposition)
        if let cached = state.withLock({ $0.converted[key] }) { return cached }
        do throws(SoundFileError) {
            // Decoding and resampling run outside the lock; a rare duplicate decode by two
            // threads at once is harmless (same result), while holding the lock would serialise them.
            let decoded: SoundBuffer
            if let cached = state.withLock({ $0.decoded[file] }) {
                decoded = cached
            } else {
                // Refused before decoding, or as soon as it passes the limit: a sound of days
                // would fill memory first.
                decoded = try SoundFileReader.read(file, maxSeconds: Limits.maxSoundSeconds)
                state.withLock { $0.decoded[file] = decoded }
            }
            let converted = try Resampler.convert(
                decoded, to: sampleRate, transposition: transposition, quality: quality, label: file)
            state.withLock { $0.converted[key] = converted }
            return converted
        } catch {
            throw SoundSourceError(path: path, message: "\(error.description)")
        }
    }

    /// Forgets every decoded and converted sound.
    public func clearCache() {
        state.withLock {
            $0.decoded.removeAll()
            $0.converted.removeAll()
        }
    }

    private func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
