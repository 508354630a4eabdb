import HapticRender

extension SoundFileWriter {
    /// A writer for all of `stream`'s render (its channels and rate): the format is chosen for
    /// the most frames the stream can produce, the longest ring-out counted (RF64 past the
    /// plain-WAV limit when WAV was only inferred; refused when asked for), and WAV on a pipe
    /// gets a header holding the exact length that will follow (`renderedLength()`: one more
    /// render). A layout naming positions (`FL,FR,LFE=H`) is written as the file's channel mask
    /// (WAV, RF64, CAF). Otherwise as `init(path:channels:sampleRate:...)`.
    public convenience init(
        path: String, for stream: OfflineRenderStream, format: FileFormat? = nil, sampleFormat: SampleFormat = .int16,
        inputs: [FileIdentity] = [], plainWAVByteLimit: Int64 = SoundFileWriter.plainWAVByteLimit
    ) throws(SoundFileError) {
        let wavToPipe = SoundFileWriter.isStandardOutput(path) && (format ?? .wav) == .wav && SoundFileWriter.standardOutputIsPipe()
        try self.init(
            path: path, channels: stream.channels, sampleRate: Int(stream.pattern.sampleRate), format: format,
            sampleFormat: sampleFormat, inputs: inputs,
            expectedFrames: wavToPipe ? stream.renderedLength() : stream.mostFrames, plainWAVByteLimit: plainWAVByteLimit,
            channelMap: stream.layout.namesPositions ? SoundFileWriter.channelMap(stream.layout.positions) : nil)
    }

    /// Renders `stream` to its end into this file, `blockFrames` at a time, and finishes the
    /// file (renamed into place). On an error the file is cancelled — its temporary removed,
    /// nothing left at the destination — and the error thrown.
    public func write(_ stream: inout OfflineRenderStream, blockFrames: Int = 4096) throws(SoundFileError) {
        let channels = stream.channels
        var block = [Float](repeating: 0, count: max(1, blockFrames) * channels)
        do {
            while !stream.isFinished {
                let n = block.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: max(1, blockFrames)) }
                if n == 0 { break }
                try block.withUnsafeBufferPointer { buffer throws(SoundFileError) in
                    try write(UnsafeBufferPointer(rebasing: buffer[0..<(n * channels)]))
                }
            }
            try finish()
        } catch {
            cancel()
            throw error
        }
    }
}
