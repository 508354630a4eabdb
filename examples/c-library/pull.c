/* Pulls a pattern's samples from an offline libhapticsynth engine into its own buffer, block by
 * block, as a game's audio callback would, and writes them to a file of raw 32-bit floats
 * (interleaved, the machine's byte order).
 *
 *   cc pull.c $(pkg-config --cflags --libs hapticsynth) -o pull
 *   ./pull PATTERN.ahap OUT.f32 [RATE [LAYOUT [PROFILE]]]
 *
 * The pattern is played at time 0, before the first pull: the file then holds exactly what
 * `hapticsynth render PATTERN.ahap -o x.wav --bits 32f` writes with the same rate, layout and
 * profile (the length is asked of hs_pattern_render first). */
#include <hapticsynth.h>

#include <stdio.h>
#include <stdlib.h>

enum { block_frames = 480 };

static int check(int status, const char *what) {
    if (status != HS_OK) fprintf(stderr, "pull: %s: %s (%s)\n", what, hs_last_error(), hs_status_name(status));
    return status != HS_OK;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: pull PATTERN.ahap OUT.f32 [RATE [LAYOUT [PROFILE]]]\n");
        return 2;
    }
    int rate = argc > 3 ? atoi(argv[3]) : 48000;
    const char *layout = argc > 4 ? argv[4] : NULL;
    const char *profile = argc > 5 ? argv[5] : NULL;

    hs_pattern *pattern = NULL;
    if (check(hs_pattern_load_file(&pattern, argv[1]), "load")) return 1;

    /* The length `render` gives the file (on until the output is silent). */
    hs_render_options render;
    hs_render_options_init(&render);
    render.sample_rate = rate;
    render.layout = layout;
    render.profile = profile;
    size_t frames = 0;
    int channels = 0;
    if (check(hs_pattern_render(pattern, &render, NULL, 0, &frames, &channels), "length")) return 1;

    hs_engine *engine = NULL;
    if (check(hs_engine_open_offline(&engine, rate, channels, layout, profile), "open")) return 1;
    if (check(hs_engine_play(engine, pattern, 0), "play")) return 1;

    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    float *buffer = malloc(sizeof(float) * block_frames * (size_t)channels);
    size_t done = 0;
    int failed = 0;
    while (!failed && done < frames) {
        int n = frames - done < block_frames ? (int)(frames - done) : block_frames;
        failed = check(hs_engine_render(engine, buffer, n), "render");
        if (!failed && fwrite(buffer, sizeof(float) * (size_t)channels, (size_t)n, out) != (size_t)n) {
            perror(argv[2]);
            failed = 1;
        }
        done += (size_t)n;
    }
    double now = 0;
    if (!failed) failed = check(hs_engine_now(engine, &now), "now");
    if (fclose(out) != 0) failed = 1;
    free(buffer);
    hs_engine_close(engine);
    hs_pattern_free(pattern);
    if (!failed) printf("%zu frames of %d channels at %d Hz (%.3f s on the engine's clock)\n", done, channels, rate, now);
    return failed;
}
