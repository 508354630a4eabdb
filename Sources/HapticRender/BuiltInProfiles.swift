// GENERATED from Assets/actuators/*.json (a test checks they are identical).
// The pure renderer does no file I/O, so the shipped profiles live here as text.

enum BuiltInProfileJSON {
    static let bassShaker = """
{
  "name": "bass-shaker",
  "description": "Tactile transducer (bass shaker) such as a Dayton Audio BST-1 or a ButtKicker: resonance near 40 Hz, useful band about 20-90 Hz.",
  "band": { "low": 22, "high": 90 },
  "transient": { "cycles": 3, "attackMs": 1, "decayCycles": 0.75 },
  "intensity": { "law": "linear" },
  "defaults": { "intensity": 1.0, "sharpness": 0.5 },
  "envelope": {
    "attack": { "min": 0.004, "max": 1.0 },
    "decay": { "min": 0.02, "max": 2.0 },
    "release": { "min": 0.02, "max": 2.0 }
  },
  "outputGainDB": -3,
  "ceilingDBFS": -1,
  "protection": { "highPassHz": 16, "order": 2 },
  "limiter": { "lookaheadMs": 0.5, "releaseMs": 120 }
}

"""

    static let voiceCoil = """
{
  "name": "voice-coil",
  "description": "Wide-band vibrotactile voice-coil actuator such as a Tactile Labs Haptuator: about 50-300 Hz, resonance near 80-150 Hz.",
  "band": { "low": 50, "high": 300 },
  "transient": { "cycles": 3, "attackMs": 0.6, "decayCycles": 0.75 },
  "intensity": { "law": "power", "exponent": 1.5 },
  "defaults": { "intensity": 1.0, "sharpness": 0.5 },
  "envelope": {
    "attack": { "min": 0.002, "max": 1.0 },
    "decay": { "min": 0.01, "max": 2.0 },
    "release": { "min": 0.01, "max": 2.0 }
  },
  "outputGainDB": -3,
  "ceilingDBFS": -1,
  "protection": { "highPassHz": 30, "order": 4 },
  "limiter": { "lookaheadMs": 0.5, "releaseMs": 80 }
}

"""

    static let lra = """
{
  "name": "lra",
  "description": "Phone-style linear resonant actuator (LRA): narrow band around its 150-175 Hz resonance.",
  "band": { "low": 150, "high": 175 },
  "transient": { "milliseconds": 20, "attackMs": 0.5, "decayCycles": 2 },
  "intensity": { "law": "linear" },
  "defaults": { "intensity": 1.0, "sharpness": 0.5 },
  "envelope": {
    "attack": { "min": 0.002, "max": 1.0 },
    "decay": { "min": 0.01, "max": 2.0 },
    "release": { "min": 0.01, "max": 2.0 }
  },
  "outputGainDB": -3,
  "ceilingDBFS": -1,
  "protection": { "highPassHz": 80, "order": 4 },
  "limiter": { "lookaheadMs": 0.5, "releaseMs": 50 }
}

"""

    static let dualsense = """
{
  "name": "dualsense",
  "description": "The two voice-coil actuators of a Sony DualSense (PS5) controller, driven over USB as channels 3-4 of its 4-channel audio device: about 50-400 Hz, strongest near 100-200 Hz.",
  "band": { "low": 50, "high": 400 },
  "transient": { "cycles": 3, "attackMs": 0.5, "decayCycles": 0.75 },
  "intensity": { "law": "power", "exponent": 1.5 },
  "defaults": { "intensity": 1.0, "sharpness": 0.5 },
  "envelope": {
    "attack": { "min": 0.002, "max": 1.0 },
    "decay": { "min": 0.01, "max": 2.0 },
    "release": { "min": 0.01, "max": 2.0 }
  },
  "outputGainDB": -3,
  "ceilingDBFS": -1,
  "protection": { "highPassHz": 30, "order": 4 },
  "limiter": { "lookaheadMs": 0.5, "releaseMs": 80 }
}

"""

}
