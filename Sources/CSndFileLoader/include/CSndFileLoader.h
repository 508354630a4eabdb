// SndFileLoader.c defines the libsndfile functions HapticSoundFile calls, loading
// libsndfile.so.1 on first use (scripts/make-lazy-library.py): nothing to declare here.
