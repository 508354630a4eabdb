// Counts heap allocations made by threads that opted in, for tests that prove a
// code path (the render thread) never allocates. Linking this target into a
// test binary interposes malloc & co. for the whole process; the definitions
// forward to glibc's own entry points, so only counting is added.
//
// Counts go to a tally: each measurement opens its own, so tests running in
// parallel in one process never see each other's allocations.
#pragma once
#include <stdint.h>

/// A new tally (a small positive number; there are 4095 per process).
int allocation_tally_open(void);
/// Counts the calling thread's allocations into `tally` from now on (0: stop counting).
void allocation_tally_track_current_thread(int tally);
/// The tally the calling thread counts into (0: none).
int allocation_tally_current(void);
/// Allocations counted into `tally` so far.
int64_t allocation_tally_count(int tally);
/// 1 when the interposer is live (malloc goes through it), 0 otherwise.
int allocation_counter_is_active(void);
