// LibloLoader.c defines the liblo functions HapticOSC calls, loading liblo.so.7 on first
// use (scripts/make-lazy-library.py): nothing to declare here beyond its own headers.
