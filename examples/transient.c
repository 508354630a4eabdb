/* Drives `hapticsynth serve` from C with liblo: a cue now, a transient 0.5 s later.
 * Build: cc transient.c -llo -o transient      Run: ./transient [port]            */
#include <lo/lo.h>
#include <stdio.h>
#include <time.h>

/* The server's clock: CLOCK_MONOTONIC in seconds (HapticEngine.currentMonotonicTime). */
static double monotonic_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    lo_address server = lo_address_new("127.0.0.1", argc > 1 ? argv[1] : "9000");
    double t = monotonic_now() + 0.5;
    /* ,s: a cue as soon as possible. ,ffd: intensity, sharpness, monotonic time. */
    if (lo_send(server, "/hapticsynth/cue", "s", "beat_hit") < 0 ||
        lo_send(server, "/hapticsynth/transient", "ffd", 0.8f, 0.5f, t) < 0) {
        fprintf(stderr, "send failed: %s\n", lo_address_errstr(server));
        return 1;
    }
    printf("transient at %.6f\n", t);
    lo_address_free(server);
    return 0;
}
