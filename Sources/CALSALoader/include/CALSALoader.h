// ALSALoader.c defines the alsa-lib functions HapticALSA and CALSASupport call, loading libasound.so.2 on first
// use (scripts/make-lazy-library.py): nothing to declare here beyond its own headers.
