// SoxrLoader.c defines the libsoxr functions HapticSoundFile calls, loading libsoxr.so.0 on first
// use (scripts/make-lazy-library.py): nothing to declare here beyond its own headers.
