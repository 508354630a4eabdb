// Interposes the C allocator in the process that links this file (test and
// bench binaries only). Every entry point forwards to glibc's __libc_* twin;
// threads that asked to be tracked bump one atomic counter per allocation.
#define _GNU_SOURCE
#include "CAllocationCounter.h"
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic int64_t tracked_allocations;
static _Atomic int interposer_seen;
static __thread int tracking;

static inline void note(void) {
    atomic_store_explicit(&interposer_seen, 1, memory_order_relaxed);
    if (tracking) atomic_fetch_add_explicit(&tracked_allocations, 1, memory_order_relaxed);
}

void *malloc(size_t size) { note(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { note(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { note(); return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    note();
    void *p = __libc_memalign(alignment, size);
    if (!p && size) return ENOMEM;
    *out = p;
    return 0;
}

void allocation_counter_track_current_thread(void) { tracking = 1; }
void allocation_counter_untrack_current_thread(void) { tracking = 0; }
int64_t allocation_counter_count(void) { return atomic_load(&tracked_allocations); }
void allocation_counter_reset(void) { atomic_store(&tracked_allocations, 0); }
int allocation_counter_is_active(void) {
    void *p = malloc(1);   // goes through the interposer if it is live
    free(p);
    return atomic_load(&interposer_seen);
}
