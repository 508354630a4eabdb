// CairoLoader.c defines the cairo functions HapticPlot calls, loading libcairo.so.2 on first
// use (scripts/make-lazy-library.py): nothing to declare here beyond cairo's own headers.
