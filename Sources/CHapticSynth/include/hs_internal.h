/* Internal to libhapticsynth (not installed): this thread's last error message, kept in C
 * because C has thread-local storage and Swift has none. Hidden symbols: they are not part of
 * the library's ABI. */
#ifndef HS_INTERNAL_H
#define HS_INTERNAL_H

#include <stddef.h>

/** The messages of the real-time paths, kept in static storage so that setting one never allocates. */
typedef enum hs_internal_message {
    HS_MESSAGE_NONE = 0,
    HS_MESSAGE_RENDER_HANDLE,
    HS_MESSAGE_RENDER_BUFFER,
    HS_MESSAGE_RENDER_FRAMES,
    HS_MESSAGE_RENDER_LIVE,
    HS_MESSAGE_RENDER_BUSY,
    HS_MESSAGE_RENDER_NOT_RUNNING,
    HS_MESSAGE_NOW_HANDLE,
    HS_MESSAGE_NOW_POINTER
} hs_internal_message;

/** Sets this thread's message to one of the static messages above. Real-time safe. */
__attribute__((visibility("hidden"))) void hs_internal_error_static(hs_internal_message message);

/** Sets this thread's message to a copy of `length` bytes of `message` (allocates; not for
 *  real-time paths). Falls back to a static message when memory runs out. */
__attribute__((visibility("hidden"))) void hs_internal_error_copy(const char *message, size_t length);

/** The file this code was loaded from (dladdr: libhapticsynth.so, or the program it is linked
 *  into); NULL when unknown. Points into the loader's own tables: not to be freed. */
__attribute__((visibility("hidden"))) const char *hs_internal_library_file(void);

#endif
