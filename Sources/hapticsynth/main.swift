import HapticCLI

// Synchronously, before the first await: the async runtime's first file (an epoll) would
// otherwise take the number of a standard descriptor that was closed (`>&-`).
StandardStreamWriter.prepareStandardDescriptors()
await Hapticsynth.main(arguments: nil)
