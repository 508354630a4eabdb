#!/usr/bin/env python3
"""Drives `hapticsynth serve` from Python (standard library only): a cue now, a transient 0.5 s later."""
import socket, struct, sys, time

def osc_string(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 4)

def osc_message(address, *args):
    tags, data = ",", b""
    for a in args:
        if isinstance(a, str): tags, data = tags + "s", data + osc_string(a)
        elif isinstance(a, float): tags, data = tags + "d", data + struct.pack(">d", a)  # doubles keep clock precision
        else: raise TypeError(a)
    return osc_string(address) + osc_string(tags) + data

port = int(sys.argv[1]) if len(sys.argv) > 1 else 9000
server = ("127.0.0.1", port)
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t = time.clock_gettime(time.CLOCK_MONOTONIC) + 0.5  # the server's clock (CLOCK_MONOTONIC)
sock.sendto(osc_message("/hapticsynth/cue", "beat_hit"), server)
sock.sendto(osc_message("/hapticsynth/transient", 0.8, 0.5, t), server)
print("transient at %.6f" % t)
