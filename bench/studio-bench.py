#!/usr/bin/env python3
"""Re-analysis in hapticsynth studio, end to end: an HTTP `POST /api/analyse` with a new
sensitivity (a real re-analysis each time: the values alternate) to its JSON answer, as the page
does when a slider moves. Sounds made with sox: 10 s and 3 minutes (48 kHz stereo) of pink noise gated
twice a second.

    bench/studio-bench.py BIN_DIR [RUNS]    (BIN_DIR holds hapticsynth-studio; release for the figures)
    bench/studio-bench.py --page BIN_DIR [RUNS]
    bench/studio-bench.py --page BEFORE_DIR AFTER_DIR [RUNS]    (the two builds' runs interleaved)

Prints p50, p95 and max per sound (targets: 10 s sound p95 < 150 ms; 3-minute song < 1 s).

--page: the page opening a 60 s sound in headless Chromium (selenium and the system chromedriver,
as scripts/studio-browser-test.sh): from the navigation's start (the address with the token and
`#sound=sixty.wav`) to the page's `studio-drawn` performance mark (its first full draw of that
sound's waveform and haptic), and to `studio-ladder` (the ladder's lane, asked for after it). "cold": a fresh server each run (the sound decoded and analysed
for the request); "warm": a reload, the server keeping the sound open (target: under 1 s).
"""
import http.client
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def make(folder):
    # Pink noise gated on and off twice a second (a hit at each start).
    for name, seconds in [("ten.wav", 10), ("song.flac", 180)]:
        subprocess.run(["sox", "-R", "-n", "-r", "48000", "-c", "2", os.path.join(folder, name), "synth", str(seconds), "pinknoise",
                        "vol", "0.3", "synth", str(seconds), "square", "amod", "2"], check=True)


def start_server(bin_dir, folder):
    """`hapticsynth-studio FOLDER` once it says `studio: ready`: (process, its address with the token)."""
    server = subprocess.Popen([os.path.join(bin_dir, "hapticsynth-studio"), folder], stdout=subprocess.PIPE, text=True)
    url = None
    for line in server.stdout:
        m = re.search(r"open (http://\S+)", line)
        url = m.group(1) if m else url
        if line.strip() == "studio: ready":
            return server, url
    raise RuntimeError("the studio ended without `studio: ready`")


def percentile(times, q):
    """The nearest-rank percentile of sorted `times`: the ceil(q·n)-th smallest (p95 of 20 runs is the 19th)."""
    return times[max(0, min(len(times), math.ceil(q * len(times))) - 1)]


def stats(name, times):
    times = sorted(times)
    p = lambda q: percentile(times, q)
    print(f"{name}: {len(times)} runs: median {statistics.median(times):.0f} ms, min {times[0]:.0f}, p95 {p(0.95):.0f}, "
          f"max {times[-1]:.0f} ms; load average {os.getloadavg()[0]:.1f}")


def page(bin_dirs, runs):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    os.environ.setdefault("SE_OFFLINE", "true")
    work = tempfile.mkdtemp(prefix="studio-page-bench.")
    subprocess.run(["sox", "-R", "-n", "-r", "48000", "-c", "2", os.path.join(work, "sixty.wav"), "synth", "60", "pinknoise",
                    "vol", "0.3", "synth", "60", "square", "amod", "2"], check=True)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    drawn = "const m = performance.getEntriesByName(arguments[0]); return m.length ? m[0].startTime : null"

    def open_page(address, ladders):
        driver.get(address)
        deadline = time.monotonic() + 120
        while (value := driver.execute_script(drawn, "studio-drawn")) is None:
            if time.monotonic() > deadline:
                raise TimeoutError("the page never drew the sound")
            time.sleep(0.01)
        # The ladder's lane comes after the first draw, in its own request (studio-ladder).
        while (ladder := driver.execute_script(drawn, "studio-ladder")) is None:
            if time.monotonic() > deadline:
                raise TimeoutError("the page never drew the ladder")
            time.sleep(0.01)
        ladders.append(ladder)
        return value

    figures = {bin_dir: ([], [], [], []) for bin_dir in bin_dirs}
    try:
        driver.get("about:blank")
        for _ in range(runs):
            # Interleaved: a run of each build in turn, so that both see the same machine.
            for bin_dir in bin_dirs:
                cold, warm, cold_ladder, warm_ladder = figures[bin_dir]
                server, url = start_server(bin_dir, work)
                try:
                    cold.append(open_page(url + "#sound=sixty.wav", cold_ladder))
                    # The token again: a fresh navigation, not a hash change.
                    warm.append(open_page(url + "#sound=sixty.wav", warm_ladder))
                finally:
                    server.terminate()
                    server.wait()
        for bin_dir in bin_dirs:
            cold, warm, cold_ladder, warm_ladder = figures[bin_dir]
            label = f" [{bin_dir}]" if len(bin_dirs) > 1 else ""
            stats("page open, 60 s sound, cold (fresh server)" + label, cold)
            stats("page open, 60 s sound, warm (the server has it open)" + label, warm)
            stats("the ladder drawn, cold" + label, cold_ladder)
            stats("the ladder drawn, warm" + label, warm_ladder)
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)


def cpu_seconds(pid):
    """The process's user and system CPU time (s), from /proc: less sensitive to a busy machine."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    if sys.argv[1] == "--page":
        dirs = [a for a in sys.argv[2:] if not a.isdigit()]
        counts = [int(a) for a in sys.argv[2:] if a.isdigit()]
        return page(dirs, counts[0] if counts else 10)
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
            settings = {"sensitivity": 50, "minGap": 50, "ducking": 50, "breakpointsPerSecond": 40, "gain": 0, "gate": -60, "channel": "mix",
                        "from": 0, "audio": False}
            times = []
            cpu_before = cpu_seconds(server.pid)
            for i in range(sound_runs):
                # Never a value analysed before: the studio caches analyses by settings.
                settings["sensitivity"] = round(20 + (i * 0.7) % 75, 2)
                start = time.perf_counter()
                call("POST", "/api/analyse", {"name": name, "settings": settings})
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            p = lambda q: percentile(times, q)
            cpu = (cpu_seconds(server.pid) - cpu_before) / len(times) * 1000
            print(f"{name}: {len(times)} re-analyses: p50 {p(0.5):.1f} ms, p95 {p(0.95):.1f} ms, max {times[-1]:.1f} ms; "
                  f"server CPU {cpu:.1f} ms each; load average {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
