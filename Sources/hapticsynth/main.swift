import HapticCLI

// Synchronously, before the async runtime opens its first file (an epoll), which would otherwise
// take the number of a standard descriptor that was closed (`>&-`).
StandardStreamWriter.prepareStandardDescriptors()
Hapticsynth.runAsProcess()
