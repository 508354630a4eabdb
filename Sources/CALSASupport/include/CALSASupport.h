// What Swift cannot do with alsa-lib by itself: install a (variadic) error handler.
#pragma once

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
