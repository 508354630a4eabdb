// HapticKit is what an app (the CLI among them) imports. The value types of its API come
// from these modules, re-exported so that one import is enough: the pure model and renderer
// (patterns, profiles, layouts, prepared patterns), the sound analysis (what `convert` makes
// of a sound) and the sound-file edge (the files the `render` verb writes). The engine and ALSA stay behind HapticKit's facades (HapticManager,
// LivePlayer, PlaybackDevices) and are not re-exported.
@_exported import HapticAnalysis
@_exported import HapticPattern
@_exported import HapticRender
@_exported import HapticSoundFile
// The channel-map value types the facades return (where the channels went, what a device
// says about its channels, the default layout for it): part of HapticKit's API.
@_exported import struct HapticEngine.ChannelRouting
@_exported import struct HapticEngine.DeviceChannels
@_exported import struct HapticEngine.ChannelMapOffer
@_exported import struct HapticEngine.SoundServerSink
@_exported import struct HapticEngine.DefaultChannelLayout
@_exported import enum HapticEngine.DualSenseIDs
// The follower's settings and counts (`LiveFollower`, the `follow` verb).
@_exported import enum HapticFollow.FollowMode
@_exported import enum HapticFollow.FollowTiming
@_exported import struct HapticFollow.FollowSettings
@_exported import struct HapticFollow.FollowStatistics
@_exported import class HapticFollow.FollowControls
@_exported import enum HapticFollow.FollowControlError
@_exported import struct HapticEngine.CaptureTimestamp
@_exported import struct HapticEngine.DeviceFormat
