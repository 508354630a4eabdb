// Asks a PulseAudio server (or PipeWire through pipewire-pulse) for a sink's channel map.
#pragma once

#include <stddef.h>

/// What `hs_sink_channel_map` found.
typedef struct hs_sink_map {
    /// The sink's channels (0 when not found).
    int channels;
    /// PulseAudio's positions (pa_channel_position_t: 0 MONO, 1 FL, 2 FR, 3 FC, 4 RC, 5 RL,
    /// 6 RR, 7 LFE, 8 FLC, 9 FRC, 10 SL, 11 SR, 12… AUX0…AUX31, 44 TC, 45 TFL, 46 TFR, 47 TFC,
    /// 48 TRL, 49 TRR, 50 TRC).
    int positions[64];
    char name[256];
    char description[256];
} hs_sink_map;

/// Connects to `server` (NULL: libpulse's default: $PULSE_SERVER, client.conf, the user's
/// runtime socket) without spawning one, and reads the channel map of `sink` (NULL: the
/// server's default sink). libpulse is loaded with dlopen at the first call, so nothing
/// links against it: without it the answer is "cannot say". Waits at most `timeout_ms`.
/// Returns 0 and fills `out`, or: -1 libpulse not found, -2 cannot connect, -3 no such sink,
/// -4 timed out.
int hs_sink_channel_map(const char *server, const char *sink, int timeout_ms, hs_sink_map *out);
