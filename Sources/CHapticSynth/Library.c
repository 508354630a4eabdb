// The parts of the C API that are plain C: the version, status names and the clock (static
// strings and a vDSO call), and this thread's last error message (hs_last_error), which needs
// C's thread-local storage. A static message is only pointed to (the real-time paths' messages
// are all static); any other is copied into a buffer this thread owns, grown as needed and
// freed when the thread exits. And the file the library was loaded from (dladdr), for DataFolders.
#define _GNU_SOURCE  /* dladdr */
#include "hapticsynth.h"
#include "hs_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HS_STRINGIFY(x) #x
#define HS_VERSION_STRING(a, b, c) HS_STRINGIFY(a) "." HS_STRINGIFY(b) "." HS_STRINGIFY(c)

const char *hs_version(void) { return HS_VERSION_STRING(HS_VERSION_MAJOR, HS_VERSION_MINOR, HS_VERSION_PATCH); }

const char *hs_status_name(int status) {
    switch (status) {
    case HS_OK: return "HS_OK";
    case HS_ERR_INVALID_ARGUMENT: return "HS_ERR_INVALID_ARGUMENT";
    case HS_ERR_INVALID_HANDLE: return "HS_ERR_INVALID_HANDLE";
    case HS_ERR_PARSE: return "HS_ERR_PARSE";
    case HS_ERR_IO: return "HS_ERR_IO";
    case HS_ERR_DEVICE: return "HS_ERR_DEVICE";
    case HS_ERR_NOT_RUNNING: return "HS_ERR_NOT_RUNNING";
    case HS_ERR_UNSUPPORTED: return "HS_ERR_UNSUPPORTED";
    case HS_ERR_LIMIT: return "HS_ERR_LIMIT";
    case HS_ERR_NOT_FOUND: return "HS_ERR_NOT_FOUND";
    case HS_ERR_BUSY: return "HS_ERR_BUSY";
    case HS_ERR_INTERNAL: return "HS_ERR_INTERNAL";
    default: return "HS_UNKNOWN_STATUS";
    }
}

double hs_monotonic_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    // As the engines read it (MonotonicClock): whole nanoseconds, then seconds.
    return (double)((int64_t)now.tv_sec * 1000000000 + now.tv_nsec) / 1e9;
}

static _Thread_local const char *current = "";
static _Thread_local char *owned = NULL;
static _Thread_local size_t owned_capacity = 0;

static pthread_key_t owned_key;
static pthread_once_t owned_key_once = PTHREAD_ONCE_INIT;

// Runs at thread exit; a later destructor (another library's) may still call into us on this
// thread, so the thread-locals must not keep pointing at the freed buffer (a next message
// allocates anew and sets the key again, whose destructor POSIX then runs once more).
static void free_owned(void *buffer) {
    if (buffer == owned) {
        owned = NULL;
        owned_capacity = 0;
        if (current == buffer) current = "";
    }
    free(buffer);
}
static void make_owned_key(void) { (void)pthread_key_create(&owned_key, free_owned); }

const char *hs_last_error(void) { return current; }

static const char *const static_messages[] = {
    [HS_MESSAGE_NONE] = "",
    [HS_MESSAGE_RENDER_HANDLE] = "hs_engine_render: engine is not an open engine (NULL, closed, or another kind of handle)",
    [HS_MESSAGE_RENDER_BUFFER] = "hs_engine_render: interleaved is NULL",
    [HS_MESSAGE_RENDER_FRAMES] = "hs_engine_render: frames is negative",
    [HS_MESSAGE_RENDER_LIVE] = "hs_engine_render: a live engine plays by itself; only an offline engine (hs_engine_open_offline) is pulled",
    [HS_MESSAGE_RENDER_BUSY] = "hs_engine_render: another thread is pulling this engine at the same moment (one puller at a time); silence written",
    [HS_MESSAGE_RENDER_NOT_RUNNING] = "hs_engine_render: the engine is not running; silence written",
    [HS_MESSAGE_NOW_HANDLE] = "hs_engine_now: engine is not an open engine (NULL, closed, or another kind of handle)",
    [HS_MESSAGE_NOW_POINTER] = "hs_engine_now: now is NULL",
};

void hs_internal_error_static(hs_internal_message message) {
    size_t count = sizeof static_messages / sizeof static_messages[0];
    current = (size_t)message < count && static_messages[message] ? static_messages[message] : "";
}

void hs_internal_error_copy(const char *message, size_t length) {
    if (!message || length == 0) {
        current = "";
        return;
    }
    if (length + 1 > owned_capacity) {
        size_t capacity = length + 1 < 256 ? 256 : length + 1;
        char *grown = realloc(owned, capacity);
        if (!grown) {
            current = "out of memory while keeping an error message";
            return;
        }
        owned = grown;
        owned_capacity = capacity;
        // The thread's key frees the buffer when the thread exits.
        pthread_once(&owned_key_once, make_owned_key);
        (void)pthread_setspecific(owned_key, owned);
    }
    memcpy(owned, message, length);
    owned[length] = '\0';
    current = owned;
}

const char *hs_internal_library_file(void) {
    Dl_info info;
    return dladdr((void *)hs_internal_library_file, &info) ? info.dli_fname : NULL;
}
