/* Plays a pattern and a transient live through an ALSA device with libhapticsynth.
 *
 *   cc play.c $(pkg-config --cflags --libs hapticsynth) -o play
 *   ./play DEVICE PATTERN.ahap [LAYOUT]
 *
 * The pattern starts 0.2 s from now, the transient 0.3 s after the pattern ends; the program
 * prints both times (CLOCK_MONOTONIC seconds), waits until they have played and exits 0. Any
 * failure: one line on stderr (the library's message) and exit 1. */
#include <hapticsynth.h>

#include <stdio.h>
#include <time.h>

static int check(int status, const char *what) {
    if (status != HS_OK) fprintf(stderr, "play: %s: %s (%s)\n", what, hs_last_error(), hs_status_name(status));
    return status != HS_OK;
}

static void sleep_until(double when) {
    while (hs_monotonic_now() < when) {
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: play DEVICE PATTERN.ahap [LAYOUT]\n");
        return 2;
    }
    hs_engine_options options;
    hs_engine_options_init(&options);
    options.device = argv[1];
    options.layout = argc > 3 ? argv[3] : "H";
    hs_engine *engine = NULL;
    if (check(hs_engine_open_with(&engine, &options), "open")) return 1;

    hs_pattern *pattern = NULL;
    double duration = 0;
    if (check(hs_pattern_load_file(&pattern, argv[2]), "load") || check(hs_pattern_duration(pattern, &duration), "duration")) {
        hs_engine_close(engine);
        return 1;
    }
    double start = hs_monotonic_now() + 0.2;
    double tap = start + duration + 0.3;
    int failed = check(hs_engine_play(engine, pattern, start), "play")
        || check(hs_engine_transient(engine, 1.0f, 0.5f, tap), "transient");
    if (!failed) {
        printf("pattern at %.6f, transient at %.6f (hapticsynth %s)\n", start, tap, hs_version());
        fflush(stdout);
        sleep_until(tap + 0.5);
        hs_engine_status status = {.struct_size = sizeof status};
        failed = check(hs_engine_get_status(engine, &status), "status");
        if (!failed) printf("voices started %lld, xruns %lld\n", (long long)status.voices_started, (long long)status.xruns);
    }
    hs_pattern_free(pattern);
    hs_engine_close(engine);
    return failed;
}
