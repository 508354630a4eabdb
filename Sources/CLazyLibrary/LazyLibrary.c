#include "LazyLibrary.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

// Two threads may both load it at their first calls: dlopen is reference counted and both find
// the same addresses, so no lock is needed.
void hapticsynth_lazy_library_load(struct hapticsynth_lazy_library *library) {
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_GLOBAL);
    for (size_t i = 0; i < library->count; i++) {
        void *found = handle ? dlsym(handle, library->names[i]) : NULL;
        if (!found) {
            const char *why = dlerror();
            fprintf(stderr, "hapticsynth: cannot load %s from %s: %s\n", library->names[i], library->soname, why ? why : "not found");
            exit(127);
        }
        __atomic_store_n(&library->slots[i], found, __ATOMIC_RELEASE);
    }
}
