import HapticCLI

await Hapticsynth.main(arguments: nil)
