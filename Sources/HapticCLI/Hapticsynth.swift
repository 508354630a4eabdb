// Placeholder; replaced by the root command.
