#include "CALSASupport.h"
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

static __thread char last_error[512];

static void capture(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)err;
    int n = snprintf(last_error, sizeof last_error, "%s:%d:(%s) ", file, line, function);
    if (n < 0 || (size_t)n >= sizeof last_error) return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, args);
    va_end(args);
}

void hs_alsa_capture_errors(void) { snd_lib_error_set_handler(capture); }
const char *hs_alsa_last_error(void) { return last_error; }
void hs_alsa_clear_error(void) { last_error[0] = 0; }
