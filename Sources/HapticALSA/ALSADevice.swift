// Placeholder; replaced by the ALSA output device.
