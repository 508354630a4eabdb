// A shared library loaded on first use (scripts/make-lazy-library.py generates, per library, the
// table of its functions and a forwarding function for each): the first call of any of them loads
// the library and looks all of them up; every later call reads one pointer (no lock, nothing
// looked up on a real-time thread).
#ifndef HAPTICSYNTH_LAZY_LIBRARY_H
#define HAPTICSYNTH_LAZY_LIBRARY_H
#include <stddef.h>

struct hapticsynth_lazy_library {
    const char *soname;
    const char *const *names;
    void **slots;
    size_t count;
};

/// Loads `library` and fills every slot; a function it cannot find ends the process with one
/// line naming it (status 127: a broken installation, as a shell's missing command).
void hapticsynth_lazy_library_load(struct hapticsynth_lazy_library *library);

static inline void *hapticsynth_lazy_symbol(struct hapticsynth_lazy_library *library, size_t index) {
    void *known = __atomic_load_n(&library->slots[index], __ATOMIC_ACQUIRE);
    if (known) return known;
    hapticsynth_lazy_library_load(library);
    return __atomic_load_n(&library->slots[index], __ATOMIC_ACQUIRE);
}
#endif
