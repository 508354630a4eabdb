// libpulse through dlopen: only the few calls and the leading fields of the structs needed to
// read a sink's channel map are declared here, as libpulse.so.0's stable ABI defines them
// (pulse/introspect.h, pulse/channelmap.h, pulse/sample.h).

#include "CSoundServer.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

typedef struct pa_mainloop pa_mainloop;
typedef struct pa_mainloop_api pa_mainloop_api;
typedef struct pa_context pa_context;
typedef struct pa_operation pa_operation;

typedef struct {
    int format;
    uint32_t rate;
    uint8_t channels;
} pa_sample_spec;

typedef struct {
    uint8_t channels;
    int map[32];
} pa_channel_map;

/* The leading fields of pa_sink_info (the rest is never read). */
typedef struct {
    const char *name;
    uint32_t index;
    const char *description;
    pa_sample_spec sample_spec;
    pa_channel_map channel_map;
} pa_sink_info_head;

/* The leading fields of pa_server_info. */
typedef struct {
    const char *user_name;
    const char *host_name;
    const char *server_version;
    const char *server_name;
    pa_sample_spec sample_spec;
    const char *default_sink_name;
} pa_server_info_head;

enum { CONTEXT_READY = 4, CONTEXT_FAILED = 5, CONTEXT_TERMINATED = 6 };
enum { CONTEXT_NOAUTOSPAWN = 1 };
enum { OPERATION_RUNNING = 0 };

typedef void (*sink_cb)(pa_context *, const pa_sink_info_head *, int eol, void *);
typedef void (*server_cb)(pa_context *, const pa_server_info_head *, void *);

static struct {
    pa_mainloop *(*mainloop_new)(void);
    pa_mainloop_api *(*mainloop_get_api)(pa_mainloop *);
    int (*mainloop_prepare)(pa_mainloop *, int timeout_usec);
    int (*mainloop_poll)(pa_mainloop *);
    int (*mainloop_dispatch)(pa_mainloop *);
    void (*mainloop_free)(pa_mainloop *);
    pa_context *(*context_new)(pa_mainloop_api *, const char *);
    int (*context_connect)(pa_context *, const char *, int, const void *);
    int (*context_get_state)(pa_context *);
    void (*context_disconnect)(pa_context *);
    void (*context_unref)(pa_context *);
    pa_operation *(*get_sink_info_by_name)(pa_context *, const char *, sink_cb, void *);
    pa_operation *(*get_server_info)(pa_context *, server_cb, void *);
    int (*operation_get_state)(pa_operation *);
    void (*operation_unref)(pa_operation *);
    int loaded;
} pa;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *lib = dlopen("libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
#define SYM(field, name) *(void **)(&pa.field) = dlsym(lib, name); if (!pa.field) return;
    SYM(mainloop_new, "pa_mainloop_new")
    SYM(mainloop_get_api, "pa_mainloop_get_api")
    SYM(mainloop_prepare, "pa_mainloop_prepare")
    SYM(mainloop_poll, "pa_mainloop_poll")
    SYM(mainloop_dispatch, "pa_mainloop_dispatch")
    SYM(mainloop_free, "pa_mainloop_free")
    SYM(context_new, "pa_context_new")
    SYM(context_connect, "pa_context_connect")
    SYM(context_get_state, "pa_context_get_state")
    SYM(context_disconnect, "pa_context_disconnect")
    SYM(context_unref, "pa_context_unref")
    SYM(get_sink_info_by_name, "pa_context_get_sink_info_by_name")
    SYM(get_server_info, "pa_context_get_server_info")
    SYM(operation_get_state, "pa_operation_get_state")
    SYM(operation_unref, "pa_operation_unref")
#undef SYM
    pa.loaded = 1;
}

typedef struct {
    hs_sink_map *out;
    int found;
    int done;
    char default_sink[256];
} query;

static void on_sink(pa_context *c, const pa_sink_info_head *info, int eol, void *data) {
    (void)c;
    query *q = data;
    if (eol) {
        q->done = 1;
        return;
    }
    if (!info) return;
    int n = info->channel_map.channels;
    if (n > 32) n = 32;
    q->out->channels = n;
    for (int i = 0; i < n; i++) q->out->positions[i] = info->channel_map.map[i];
    snprintf(q->out->name, sizeof q->out->name, "%s", info->name ? info->name : "");
    snprintf(q->out->description, sizeof q->out->description, "%s", info->description ? info->description : "");
    q->found = 1;
}

static void on_server(pa_context *c, const pa_server_info_head *info, void *data) {
    (void)c;
    query *q = data;
    if (info && info->default_sink_name)
        snprintf(q->default_sink, sizeof q->default_sink, "%s", info->default_sink_name);
    q->done = 1;
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the loop until *flag is set, the context fails or the deadline passes. */
static int run_until(pa_mainloop *m, pa_context *c, int *flag, long long deadline) {
    while (!*flag) {
        int state = pa.context_get_state(c);
        if (state == CONTEXT_FAILED || state == CONTEXT_TERMINATED) return -2;
        long long left = deadline - now_ms();
        if (left <= 0) return -4;
        if (pa.mainloop_prepare(m, (int)(left * 1000)) < 0) return -2;
        if (pa.mainloop_poll(m) < 0) return -2;
        if (pa.mainloop_dispatch(m) < 0) return -2;
    }
    return 0;
}

int hs_sink_channel_map(const char *server, const char *sink, int timeout_ms, hs_sink_map *out) {
    memset(out, 0, sizeof *out);
    pthread_once(&load_once, load);
    if (!pa.loaded) return -1;
    long long deadline = now_ms() + timeout_ms;
    pa_mainloop *m = pa.mainloop_new();
    if (!m) return -2;
    pa_context *c = pa.context_new(pa.mainloop_get_api(m), "hapticsynth channel-map probe");
    if (!c) {
        pa.mainloop_free(m);
        return -2;
    }
    int result = -2;
    query q = { .out = out };
    if (pa.context_connect(c, server, CONTEXT_NOAUTOSPAWN, NULL) >= 0) {
        int ready = 0;
        /* Wait for READY: poll the state between iterations. */
        for (;;) {
            int state = pa.context_get_state(c);
            if (state == CONTEXT_READY) { ready = 1; break; }
            if (state == CONTEXT_FAILED || state == CONTEXT_TERMINATED) { result = -2; break; }
            long long left = deadline - now_ms();
            if (left <= 0) { result = -4; break; }
            if (pa.mainloop_prepare(m, (int)(left * 1000)) < 0 || pa.mainloop_poll(m) < 0 || pa.mainloop_dispatch(m) < 0) {
                result = -2;
                break;
            }
        }
        if (ready) {
            const char *target = sink;
            if (!target) {
                pa_operation *op = pa.get_server_info(c, on_server, &q);
                result = op ? run_until(m, c, &q.done, deadline) : -2;
                if (op) pa.operation_unref(op);
                target = q.default_sink[0] ? q.default_sink : NULL;
                q.done = 0;
            } else {
                result = 0;
            }
            if (result == 0 && target) {
                pa_operation *op = pa.get_sink_info_by_name(c, target, on_sink, &q);
                result = op ? run_until(m, c, &q.done, deadline) : -2;
                if (op) pa.operation_unref(op);
                if (result == 0 && !q.found) result = -3;
            } else if (result == 0) {
                result = -3;
            }
        }
        pa.context_disconnect(c);
    }
    pa.context_unref(c);
    pa.mainloop_free(m);
    return result;
}
