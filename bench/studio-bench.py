#!/usr/bin/env python3
"""Re-analysis in hapticsynth studio, end to end: an HTTP `POST /api/analyse` with a new
sensitivity (a real re-analysis each time: the values alternate) to its JSON answer, as the page
does when a slider moves. Sounds made with sox: 10 s and 3 minutes (48 kHz stereo) of pink noise gated
twice a second.

    bench/studio-bench.py BIN_DIR [RUNS]    (BIN_DIR holds hapticsynth-studio; release for the figures)

Prints p50, p95 and max per sound (targets: 10 s sound p95 < 150 ms; 3-minute song < 1 s).
"""
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def make(folder):
    # Pink noise gated on and off twice a second (a hit at each start).
    for name, seconds in [("ten.wav", 10), ("song.flac", 180)]:
        subprocess.run(["sox", "-R", "-n", "-r", "48000", "-c", "2", os.path.join(folder, name), "synth", str(seconds), "pinknoise",
                        "vol", "0.3", "synth", str(seconds), "square", "amod", "2"], check=True)


def cpu_seconds(pid):
    """The process's user and system CPU time (s), from /proc: less sensitive to a busy machine."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    bin_dir, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
    work = tempfile.mkdtemp(prefix="studio-bench.")
    make(work)
    server = subprocess.Popen([os.path.join(bin_dir, "hapticsynth-studio"), work], stdout=subprocess.PIPE, text=True)
    try:
        url = None
        for line in server.stdout:
            m = re.search(r"open (http://\S+)", line)
            url = m.group(1) if m else url
            if line.strip() == "studio: ready":
                break
        port = int(re.search(r":(\d+)/", url).group(1))
        token = re.search(r"token=(\w+)", url).group(1)
        headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json", "Host": f"127.0.0.1:{port}"}
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

        def call(method, path, body=None):
            connection.request(method, path, body=json.dumps(body) if body else None, headers=headers)
            response = connection.getresponse()
            data = response.read()
            assert response.status == 200, data[:300]
            return data

        for name, sound_runs in [("ten.wav", runs), ("song.flac", max(5, runs // 3))]:
            call("GET", "/api/sound?name=" + name)
            settings = {"sensitivity": 50, "minGap": 50, "ducking": 50, "breakpointsPerSecond": 40, "gain": 0, "channel": "mix",
                        "from": 0, "audio": False}
            times = []
            cpu_before = cpu_seconds(server.pid)
            for i in range(sound_runs):
                settings["sensitivity"] = 40 + (i % 2) * 20 + i % 7  # never the previous value
                start = time.perf_counter()
                call("POST", "/api/analyse", {"name": name, "settings": settings})
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            p = lambda q: times[min(len(times) - 1, int(q * len(times)))]
            cpu = (cpu_seconds(server.pid) - cpu_before) / len(times) * 1000
            print(f"{name}: {len(times)} re-analyses: p50 {p(0.5):.1f} ms, p95 {p(0.95):.1f} ms, max {times[-1]:.1f} ms; "
                  f"server CPU {cpu:.1f} ms each; load average {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
