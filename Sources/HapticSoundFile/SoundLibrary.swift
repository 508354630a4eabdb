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
/// Decoded files and their rate/transposition conversions are cached by the file's version
/// (device and inode: one file however its path is spelt, so `a.wav` and `./x/../a.wav`
/// share one decode; and its size and times: a sound edited or replaced is read again, and its
/// older version forgotten), and the cache holds at most `Limits.maxSoundCacheBytes` (the least
/// recently used are forgotten first). The cache is shared safely between threads (a
/// `Mutex`), so one library can serve many prepared patterns.
public final class SoundLibrary: SoundSource {
    private struct ConversionKey: Hashable {
        var file: FileVersion
        var sampleRate: Double
        var transposition: Double
    }

    /// A cache entry: the samples and when they were last used.
    private struct Cached {
        var buffer: SoundBuffer
        var lastUse: Int
        var bytes: Int { buffer.samples.count * MemoryLayout<Float>.size }
    }

    private struct State {
        var folders: [String]
        var decoded: [FileVersion: Cached] = [:]
        var converted: [ConversionKey: Cached] = [:]
        var headers: [FileVersion: SoundFileInfo] = [:]
        var bytes = 0
        var clock = 0
        var decodes = 0

        /// Remembers `buffer`, then forgets the least recently used entries past the byte bound.
        mutating func keep(_ buffer: SoundBuffer, decodedAs file: FileVersion?, convertedAs key: ConversionKey?) {
            if let version = file ?? key?.file { forgetOtherVersions(of: version) }
            clock += 1
            let entry = Cached(buffer: buffer, lastUse: clock)
            if let file { bytes += entry.bytes - (decoded.updateValue(entry, forKey: file)?.bytes ?? 0) }
            if let key { bytes += entry.bytes - (converted.updateValue(entry, forKey: key)?.bytes ?? 0) }
            while bytes > Limits.maxSoundCacheBytes {
                let oldDecoded = decoded.min { $0.value.lastUse < $1.value.lastUse }
                let oldConverted = converted.min { $0.value.lastUse < $1.value.lastUse }
                if let d = oldDecoded, oldConverted.map({ d.value.lastUse <= $0.value.lastUse }) ?? true {
                    bytes -= decoded.removeValue(forKey: d.key)?.bytes ?? 0
                } else if let c = oldConverted {
                    bytes -= converted.removeValue(forKey: c.key)?.bytes ?? 0
                } else {
                    break
                }
            }
        }

        /// Drops what an earlier (or later) state of `version`'s file left.
        mutating func forgetOtherVersions(of version: FileVersion) {
            func stale(_ other: FileVersion) -> Bool { other.identity == version.identity && other != version }
            for file in decoded.keys where stale(file) { bytes -= decoded.removeValue(forKey: file)?.bytes ?? 0 }
            for key in converted.keys where stale(key.file) { bytes -= converted.removeValue(forKey: key)?.bytes ?? 0 }
            for file in headers.keys where stale(file) { headers.removeValue(forKey: file) }
        }

        mutating func use(_ file: FileVersion) -> SoundBuffer? {
            guard decoded[file] != nil else { return nil }
            clock += 1
            decoded[file]!.lastUse = clock
            return decoded[file]!.buffer
        }

        mutating func use(_ key: ConversionKey) -> SoundBuffer? {
            guard converted[key] != nil else { return nil }
            clock += 1
            converted[key]!.lastUse = clock
            return converted[key]!.buffer
        }
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
        guard let version = FileVersion(path: file) else {
            throw SoundSourceError(path: path, message: "sound file not found")
        }
        let key = ConversionKey(file: version, sampleRate: sampleRate, transposition: transposition)
        if let cached = state.withLock({ $0.use(key) }) { return cached }
        do throws(SoundFileError) {
            // Decoding and resampling run outside the lock; a rare duplicate decode by two
            // threads at once is harmless (same result), while holding the lock would serialise them.
            let decoded: SoundBuffer
            if let cached = state.withLock({ $0.use(version) }) {
                decoded = cached
            } else {
                // Refused before decoding, or as soon as it passes the limit: a sound of days
                // would fill memory first.
                decoded = try SoundFileReader.read(file, maxSeconds: Limits.maxSoundSeconds)
                state.withLock {
                    $0.decodes += 1
                    $0.keep(decoded, decodedAs: version, convertedAs: nil)
                }
            }
            let converted = try Resampler.convert(
                decoded, to: sampleRate, transposition: transposition, quality: quality, label: file)
            state.withLock { $0.keep(converted, decodedAs: nil, convertedAs: key) }
            return converted
        } catch {
            throw SoundSourceError(path: path, message: "\(error.description)")
        }
    }

    /// The file's identity and the bytes of its conversion, from its header (nothing decoded).
    public func estimate(path: String, sampleRate: Double, transposition: Double) -> SoundEstimate? {
        guard !path.isEmpty, let file = resolve(path), let version = FileVersion(path: file) else { return nil }
        let header: SoundFileInfo
        if let known = state.withLock({ $0.headers[version] }) {
            header = known
        } else {
            guard let read = try? SoundFileReader.info(file) else { return nil }
            header = read
            state.withLock {
                $0.forgetOtherVersions(of: version)
                $0.headers[version] = read
            }
        }
        // A length the header does not know (libsndfile's largest count) tells nothing: measured when loaded.
        guard header.sampleRate > 0, (0..<(1 << 40)).contains(header.frames), sampleRate > 0, transposition > 0 else { return nil }
        let frames = (Double(header.frames) * sampleRate / Double(header.sampleRate) / transposition).rounded(.up)
        let bytes = min(frames * Double(header.channels * MemoryLayout<Float>.size), Double(Int.max / 2))
        return SoundEstimate(identity: "\(version.identity.device):\(version.identity.inode)", bytes: Int(bytes))
    }

    /// Sound files decoded so far (each version of a file once while it stays cached).
    public var decodeCount: Int { state.withLock { $0.decodes } }

    /// Bytes of samples the cache holds now (at most `Limits.maxSoundCacheBytes`).
    public var cachedBytes: Int { state.withLock { $0.bytes } }

    /// Forgets every decoded and converted sound.
    public func clearCache() {
        state.withLock {
            $0.decoded.removeAll()
            $0.converted.removeAll()
            $0.headers.removeAll()
            $0.bytes = 0
        }
    }

    private func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
