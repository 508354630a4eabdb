// What Swift cannot do with alsa-lib by itself: install a (variadic) error handler, and read
// or write channel maps (structs ending in flexible arrays).
#pragma once

/* alsa-lib's own declaration of the PCM handle (the header itself stays out of this module). */
typedef struct _snd_pcm snd_pcm_t;

/// Routes alsa-lib's own error printing (it writes to stderr by default) into a
/// per-thread buffer, so that the tool prints one clear line of its own instead.
/// Process-wide: replaces alsa-lib's single global handler (snd_lib_error_set_handler) for the
/// whole program, for good; see ALSAErrorCapture in HapticALSA/ALSACommon.swift for why.
void hs_alsa_capture_errors(void);

/// The last message alsa-lib reported on the calling thread ("" if none), e.g.
/// "pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM nosuch".
const char *hs_alsa_last_error(void);

/// Forgets the calling thread's last message.
void hs_alsa_clear_error(void);

/// Channel maps without the flexible array members Swift cannot import.

/// snd_pcm_query_chmaps, flattened into `out`: for each map its type (SND_CHMAP_TYPE_*), its
/// channel count n, then its n positions (SND_CHMAP_* with the flag bits masked off). Returns
/// the number of ints written, 0 when the PCM offers no maps (it cannot say), or -1 when
/// `capacity` is too small.
int hs_chmap_query(snd_pcm_t *pcm, int *out, int capacity);

/// snd_pcm_get_chmap into `positions` (masked); returns the channel count, or -1 when the PCM
/// cannot say (or `capacity` is too small).
int hs_chmap_get(snd_pcm_t *pcm, int *positions, int capacity);

/// snd_pcm_set_chmap with `channels` positions; alsa-lib's result (0, or a negative errno).
int hs_chmap_set(snd_pcm_t *pcm, const int *positions, int channels);
