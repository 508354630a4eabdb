// Interposes the C allocator in the process that links this file (test and
// bench binaries only). Every entry point forwards to glibc's __libc_* twin;
// a thread that tracks a tally adds one to it per allocation.
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

enum { tally_capacity = 4096 };
static _Atomic int64_t tallies[tally_capacity];
static _Atomic int next_tally = 1;
static _Atomic int interposer_seen;
static __thread int current_tally;

static inline void note(void) {
    atomic_store_explicit(&interposer_seen, 1, memory_order_relaxed);
    int t = current_tally;
    if (t > 0) atomic_fetch_add_explicit(&tallies[t], 1, memory_order_relaxed);
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

int allocation_tally_open(void) {
    int t = atomic_fetch_add(&next_tally, 1);
    if (t >= tally_capacity) return 0;  // out of tallies: counting off (tests check the count, so they notice)
    atomic_store(&tallies[t], 0);
    return t;
}
void allocation_tally_track_current_thread(int tally) {
    current_tally = (tally > 0 && tally < tally_capacity) ? tally : 0;
}
int allocation_tally_current(void) { return current_tally; }
int64_t allocation_tally_count(int tally) {
    return (tally > 0 && tally < tally_capacity) ? atomic_load(&tallies[tally]) : -1;
}
int allocation_counter_is_active(void) {
    void *p = malloc(1);   // goes through the interposer if it is live
    free(p);
    return atomic_load(&interposer_seen);
}
