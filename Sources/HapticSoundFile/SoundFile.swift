// Placeholder; replaced by the sound-file edge (libsndfile + libsoxr).
