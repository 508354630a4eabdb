import HapticRender

extension SoundFileWriter {
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
