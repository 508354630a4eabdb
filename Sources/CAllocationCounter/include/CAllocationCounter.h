// Counts heap allocations made by threads that opted in, for tests that prove a
// code path (the render thread) never allocates. Linking this target into a
// test binary interposes malloc & co. for the whole process; the definitions
// forward to glibc's own entry points, so only counting is added.
#pragma once
#include <stdint.h>

/// Starts counting allocations made by the calling thread.
void allocation_counter_track_current_thread(void);
/// Stops counting for the calling thread.
void allocation_counter_untrack_current_thread(void);
/// Allocations made by tracked threads since the last reset.
int64_t allocation_counter_count(void);
/// Resets the shared count to zero.
void allocation_counter_reset(void);
/// 1 when the interposer is live (malloc goes through it), 0 otherwise.
int allocation_counter_is_active(void);
