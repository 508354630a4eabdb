// HapticKit is what an app (the CLI among them) imports. The value types of its API come
// from these modules, re-exported so that one import is enough: the pure model and renderer
// (patterns, profiles, layouts, prepared patterns), the sound analysis (what `convert` makes
// of a sound) and the sound-file edge (the files the `render` verb writes). The engine and ALSA stay behind HapticKit's facades (HapticManager,
// LivePlayer, PlaybackDevices) and are not re-exported.
@_exported import HapticAnalysis
@_exported import HapticPattern
@_exported import HapticRender
@_exported import HapticSoundFile
