import HapticCLI
