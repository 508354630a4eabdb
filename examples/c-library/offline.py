#!/usr/bin/env python3
"""libhapticsynth from Python through ctypes (the standard library only).

    python3 offline.py [PATH/TO/libhapticsynth.so]

Loads the library (by default `libhapticsynth.so.0` from the loader's search path), reads a
pattern from a JSON string, pulls a quarter of a second from an offline engine (the pattern at
time 0, a transient at 0.2 s), and shows that bad calls come back as a status and a
message. Prints one line per step; exits 0 when all went as expected."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "libhapticsynth.so.0")

# The prototypes this script uses (hapticsynth.h).
handle = ctypes.c_void_p
lib.hs_version.restype = ctypes.c_char_p
lib.hs_last_error.restype = ctypes.c_char_p
lib.hs_status_name.restype = ctypes.c_char_p
lib.hs_status_name.argtypes = [ctypes.c_int]
lib.hs_pattern_load_json.argtypes = [ctypes.POINTER(handle), ctypes.c_char_p, ctypes.c_size_t]
lib.hs_pattern_duration.argtypes = [handle, ctypes.POINTER(ctypes.c_double)]
lib.hs_pattern_free.argtypes = [handle]
lib.hs_pattern_free.restype = None
lib.hs_engine_open_offline.argtypes = [ctypes.POINTER(handle), ctypes.c_double, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p]
lib.hs_engine_play.argtypes = [handle, handle, ctypes.c_double]
lib.hs_engine_transient.argtypes = [handle, ctypes.c_float, ctypes.c_float, ctypes.c_double]
lib.hs_engine_render.argtypes = [handle, ctypes.POINTER(ctypes.c_float), ctypes.c_int]
lib.hs_engine_now.argtypes = [handle, ctypes.POINTER(ctypes.c_double)]
lib.hs_engine_close.argtypes = [handle]
lib.hs_engine_close.restype = None


def check(status, what):
    if status != 0:
        raise SystemExit(f"offline.py: {what}: {lib.hs_last_error().decode()} ({lib.hs_status_name(status).decode()})")


print(f"libhapticsynth {lib.hs_version().decode()}")

pattern = handle()
json = b'{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.1,' \
       b' "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}}]}'
check(lib.hs_pattern_load_json(ctypes.byref(pattern), json, len(json)), "load")
duration = ctypes.c_double()
check(lib.hs_pattern_duration(pattern, ctypes.byref(duration)), "duration")
print(f"pattern: {duration.value:.3f} s")

engine = handle()
check(lib.hs_engine_open_offline(ctypes.byref(engine), 48000.0, 1, None, b"bass-shaker"), "open")
check(lib.hs_engine_play(engine, pattern, 0.0), "play")
check(lib.hs_engine_transient(engine, 1.0, 0.5, 0.2), "transient")

frames = 12000
buffer = (ctypes.c_float * frames)()
for start in range(0, frames, 480):
    check(lib.hs_engine_render(engine, ctypes.cast(ctypes.byref(buffer, start * 4), ctypes.POINTER(ctypes.c_float)), 480), "render")
now = ctypes.c_double()
check(lib.hs_engine_now(engine, ctypes.byref(now)), "now")
peak = max(abs(x) for x in buffer[:4800])  # the 0.1 s pattern
quiet = max(abs(x) for x in buffer[8400:9600])  # its release has died away; the transient is due at 0.2 s
tap = max(abs(x) for x in buffer[9600:10400])
print(f"pulled {frames} frames ({now.value:.3f} s): pattern peak {peak:.3f}, transient peak {tap:.3f}, between {quiet:.5f}")
if not (peak > 0.05 and tap > 0.05 and quiet < 0.02):
    raise SystemExit("offline.py: the samples are not what was played")

# Bad calls: a status and a message, never a crash.
status = lib.hs_engine_play(engine, None, 0.0)
print(f"play(NULL pattern): {lib.hs_status_name(status).decode()}: {lib.hs_last_error().decode()}")
if status != -2:
    raise SystemExit("offline.py: a NULL pattern was not refused as an invalid handle")
bad = handle()
status = lib.hs_pattern_load_json(ctypes.byref(bad), b'{"Pattern": [', 13)
print(f"load(truncated JSON): {lib.hs_status_name(status).decode()}: {lib.hs_last_error().decode()}")
if status != -3:
    raise SystemExit("offline.py: truncated JSON was not refused as a parse error")

lib.hs_engine_close(engine)
lib.hs_pattern_free(pattern)
status = lib.hs_engine_play(engine, pattern, 0.0)
print(f"play after close: {lib.hs_status_name(status).decode()}: {lib.hs_last_error().decode()}")
if status != -2:
    raise SystemExit("offline.py: a closed engine was not refused")
print("ok")
