#!/usr/bin/env python3
"""The studio in a real browser (Debian's headless Chromium through selenium and the system
chromedriver; nothing is downloaded), and its security at the HTTP level.

    studio_browser_test.py BIN_DIR     (BIN_DIR holds hapticsynth and hapticsynth-studio)

Makes its sounds with sox in a temporary folder, starts `hapticsynth-studio FOLDER`, waits for
`studio: ready` (never a fixed sleep), then checks: refusals (no token, wrong Host or Origin,
`..`, an absolute path, a symbolic link out, an oversized body, bad settings) change nothing on
disk; the page without and with the token; selecting a sound; the sensitivity slider's drawn
transients and the API's pattern equal `hapticsynth convert --sensitivity N` on the same file;
deleting a transient, undo, redo, save (the file and the --per-sound line); an unedited sound
saved and reproduced by `convert --per-sound`; Play: inside the sound-server rig (scripts/rig.sh sets
HAPTICSYNTH_RIG_OUT) the transport plays and the playhead is drawn, then Stop; elsewhere the studio
is given a device that does not exist and Play shows the error line naming it; no console errors
(but the refused Play's own request line); the page's WebSocket: opened, pushed the transport,
carrying the actions (HTTP once it closed). A screenshot is left in
$STUDIO_ARTEFACTS (default .build/studio-browser-test/). Ends with "N passed, N failed".
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

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

BOUND = 120  # seconds: the longest any wait may take on a loaded machine
passed, failed = 0, 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok: {name}")
    else:
        failed += 1
        print(f"FAILED: {name} {detail}")


def wait_for(what, predicate, bound=BOUND):
    """Polls `predicate` until it is truthy (its value) or `bound` seconds pass (an error)."""
    deadline = time.monotonic() + bound
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {bound} s for {what}")
        time.sleep(0.05)


BROKEN_PATTERN = '{"Version": 1, "Pattern": [{"Event": {"Time": "soon"'


def make_sounds(folder):
    # Clicks of falling strength over pink noise (sox -R: the same noise every run): each
    # sensitivity keeps a different number of them.
    parts = []
    for level in [0.9, 0.6, 0.4, 0.25, 0.15, 0.1, 0.06, 0.04]:
        parts += [":", "synth", "0.3", "pinknoise", "vol", "0.08", ":", "synth", "0.006", "square", "900", "vol", str(level)]
    subprocess.run(["sox", "-R", "-n", "-r", "48000", "-c", "1", os.path.join(folder, "clicks.wav"),
                    "synth", "0.3", "pinknoise", "vol", "0.08"] + parts + [":", "synth", "0.3", "pinknoise", "vol", "0.08"], check=True)
    subprocess.run(["sox", "-R", "-n", "-r", "44100", "-c", "2", os.path.join(folder, "second.wav"),
                    "synth", "1.5", "sine", "55", "vol", "0.4", ":", "synth", "0.01", "square", "400", "vol", "0.9",
                    ":", "synth", "1", "sine", "90", "vol", "0.3"], check=True)
    # Patterns of no sound: the designer's own (convert's pattern of second.wav under another
    # name), and a broken one.
    with open(os.path.join(folder, "broken.ahap"), "w") as f:
        f.write(BROKEN_PATTERN)


def snapshot(folder):
    """Every file under `folder` with its size and modification time."""
    found = {}
    for base, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(base, f)
            st = os.lstat(p)
            found[os.path.relpath(p, folder)] = (st.st_size, st.st_mtime_ns)
    return found


class Server:
    def __init__(self, port, token):
        self.port, self.token = port, token

    def request(self, method, path, body=None, headers=None, host=None, auth=True):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=BOUND)
        h = {"Host": host or f"127.0.0.1:{self.port}"}
        if auth:
            h["Authorization"] = "Bearer " + self.token
        if body is not None:
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=h)
        response = connection.getresponse()
        text = response.read().decode()
        self.location = response.getheader("Location")
        connection.close()
        return response.status, text


def transients_of(ahap_text):
    pattern = json.loads(ahap_text)
    hits = []
    for element in pattern["Pattern"]:
        event = element.get("Event")
        if event and event["EventType"] == "HapticTransient":
            hits.append(event["Time"])
    return sorted(hits)


def security_checks(server, folder, outside):
    before = snapshot(folder)
    status, text = server.request("GET", "/api/files", auth=False)
    check("no token: 401 with a JSON error", status == 401 and "token" in json.loads(text)["error"], text)
    status, text = server.request("GET", f"//evil.example/?token={server.token}", auth=False)
    check("the token in the address: a redirect to / only (no open redirect)",
          status == 404 or (status == 303 and server.location == "/"), f"{status} {server.location}")
    status, _ = server.request("GET", "/api/files?token=wrong", auth=False)
    check("a wrong token: 401", status == 401)
    status, text = server.request("GET", "/api/files", host="evil.example:80")
    check("a foreign Host (DNS rebinding): 403", status == 403, text)
    status, text = server.request("POST", "/api/save", {"name": "clicks.wav"}, headers={"Origin": "http://evil.example"})
    check("a foreign Origin: 403", status == 403, text)
    for name in ["../outside.wav", "/etc/passwd", "sub/../../x.wav", ".hidden.wav", "link-out.wav"]:
        status, text = server.request("GET", "/api/sound?name=" + name.replace("/", "%2F"))
        check(f"name {name!r} refused", status in (400, 404) and "error" in json.loads(text), f"{status} {text}")
    status, text = server.request("POST", "/api/save", {"name": "link-out.wav"})
    check("saving through a symbolic link out refused", status in (400, 404), f"{status} {text}")
    status, text = server.request("POST", "/api/analyse", b"{" + b" " * (200 * 1024) + b"}")
    check("an oversized body: 413", status == 413, f"{status} {text[:200]}")
    status, text = server.request("POST", "/api/analyse", b"{not json")
    check("bad JSON: 400 naming it", status == 400 and "JSON" in text, text)
    status, text = server.request("POST", "/api/analyse", {"name": "clicks.wav", "settings": {
        "sensitivity": 1e308, "minGap": 50, "ducking": 50, "breakpointsPerSecond": 40, "gain": 0, "gate": -60, "channel": "mix", "from": 0, "audio": False}})
    check("a sensitivity of 1e308: 400 naming --sensitivity", status == 400 and "--sensitivity" in text, text)
    status, text = server.request("POST", "/api/edit", {"name": "clicks.wav", "edit": {"op": "deleteTransient", "index": 10_000}})
    check("an edit of a transient that is not there: 400", status == 400, text)
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"}
    status, text = server.request("GET", "/api/socket", headers=upgrade, auth=False)
    check("the WebSocket without the token: 401", status == 401 and "token" in text, f"{status} {text}")
    status, text = server.request("GET", "/api/socket", headers=dict(upgrade, Origin="http://evil.example"))
    check("the WebSocket from another site's page (Origin): 403", status == 403 and "Origin" in text, f"{status} {text}")
    check("nothing changed on disk by the refusals", snapshot(folder) == before)
    check("the file outside untouched", open(outside).read() == "outside\n")


def main():
    bin_dir = sys.argv[1]
    artefacts = os.environ.get("STUDIO_ARTEFACTS", os.path.join(".build", "studio-browser-test"))
    os.makedirs(artefacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="studio-test.")
    folder = os.path.join(work, "sounds")
    os.makedirs(folder)
    make_sounds(folder)
    subprocess.run([os.path.join(bin_dir, "hapticsynth"), "convert", os.path.join(folder, "second.wav"), "-o",
                    os.path.join(folder, "designed.ahap")], check=True, stdout=subprocess.DEVNULL)
    outside = os.path.join(work, "outside.wav")
    with open(outside, "w") as f:
        f.write("outside\n")
    os.symlink(outside, os.path.join(folder, "link-out.wav"))
    # The audition's device: the rig's sink when there is one, else a PCM that does not exist
    # (this environment has no sound card; a machine that has one must not start playing).
    rig_out = os.environ.get("HAPTICSYNTH_RIG_OUT")
    device = rig_out or "hs_studio_browser_test_no_device"
    audition = ["-D", device] + (["--layout", "L,R,H"] if rig_out else [])
    process = subprocess.Popen([os.path.join(bin_dir, "hapticsynth-studio"), folder] + audition, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    driver = None
    try:
        url = None
        deadline = time.monotonic() + BOUND
        for line in process.stdout:  # (blocks until a line: the server prints two, then serves)
            match = re.search(r"open (http://\S+)", line)
            url = match.group(1) if match else url
            if line.strip() == "studio: ready":
                break
            if time.monotonic() > deadline:
                raise TimeoutError("no `studio: ready`")
        check("the studio printed its address and `studio: ready`", url is not None)
        port = int(re.search(r":(\d+)/", url).group(1))
        token = re.search(r"token=([0-9a-f]+)", url).group(1)
        server = Server(port, token)
        security_checks(server, folder, outside)

        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        try:
            driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        except Exception as error:  # a failure of the test, never a skip: the browser step must run
            print(f"FAIL: Chromium could not be started (/usr/bin/chromium, /usr/bin/chromedriver): {error}".splitlines()[0])
            return 1
        driver.set_page_load_timeout(BOUND)

        base = f"http://127.0.0.1:{port}/"
        driver.get(base)
        check("the page without the token: refused", "token" in driver.page_source and "sound" not in driver.title)
        driver.get_log("browser")  # (the refused load's own console line is expected; later ones are not)

        driver.get(url)
        check("the page with the token: the studio", driver.title == "hapticsynth studio" and "token" not in driver.current_url)
        wait_for("the socket", lambda: driver.execute_script("return window.studio.socketState !== 'connecting'"))
        check("the page opened its WebSocket and was pushed the transport",
              driver.execute_script("return window.studio.socketState === 'open' && window.studio.pushedTransports >= 1"),
              driver.execute_script("return [window.studio.socketState, window.studio.pushedTransports]"))
        wait_for("the sound list", lambda: driver.find_elements(By.CSS_SELECTOR, '#files li[data-name="clicks.wav"]'))
        names = [e.get_attribute("data-name") for e in driver.find_elements(By.CSS_SELECTOR, "#files li")]
        check("the list holds the sounds, not the link out", "second.wav" in names and "link-out.wav" not in names, str(names))
        driver.find_element(By.CSS_SELECTOR, '#files li[data-name="clicks.wav"]').click()
        settled = "return window.studio.view && window.studio.view.name === arguments[0] && window.studio.busy === 0"
        wait_for("the sound shown", lambda: driver.execute_script(settled, "clicks.wav"))

        # The ladder comes in its own request after the sound's first draw (the view has none).
        wait_for("the ladder", lambda: driver.execute_script(
            "return window.studio.ladder && window.studio.ladder.name === arguments[0] && window.studio.busy === 0", "clicks.wav"))
        ladder = driver.execute_script("return window.studio.ladder.rungs")
        counts = {rung["sensitivity"]: len(rung["times"]) for rung in ladder}
        check("the ladder shows different hits at different sensitivities", len(set(counts.values())) >= 3, str(counts))
        default_count = counts[50]
        chosen = next((s for s in [30, 20, 80, 90, 10, 100] if counts[s] != default_count), 30)
        driver.execute_script(
            "const s = document.getElementById('sensitivity'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", chosen)
        wait_for("the re-analysis", lambda: driver.execute_script(
            "return window.studio.busy === 0 && window.studio.view.settings.sensitivity === arguments[0]", chosen))
        drawn = json.loads(driver.find_element(By.ID, "canvas").get_attribute("data-transients"))
        check("the re-analysis went over the socket", driver.execute_script("return window.studio.socketCalls.analyse") >= 1,
              driver.execute_script("return window.studio.socketCalls"))
        cli_path = os.path.join(work, "cli.ahap")
        subprocess.run([os.path.join(bin_dir, "hapticsynth"), "convert", os.path.join(folder, "clicks.wav"), "-o", cli_path,
                        "--sensitivity", str(chosen)], check=True, stdout=subprocess.DEVNULL)
        cli_text = open(cli_path).read()
        status, api_text = server.request("GET", "/api/pattern?name=clicks.wav")
        check(f"the API's pattern at {chosen} % is convert --sensitivity {chosen}'s (the same JSON)",
              status == 200 and json.loads(api_text) == json.loads(cli_text))
        cli_hits = transients_of(cli_text)
        check(f"the drawn transients at {chosen} % are convert's ({len(cli_hits)}; {default_count} at 50 %)",
              len(drawn) == len(cli_hits) == counts[chosen] and all(abs(d["time"] - c) < 1e-3 for d, c in zip(drawn, cli_hits)),
              f"drawn {[d['time'] for d in drawn]} convert {cli_hits}")

        # Delete the first transient with the mouse and the Delete key, then undo and redo.
        before = len(drawn)
        point = driver.execute_script("""
            const hit = window.studio.view.haptic.transients[0], lane = lanes().haptic, r = canvas.getBoundingClientRect();
            return [timeToX(hit.time + window.studio.view.haptic.offset) - r.width / 2, valueToY(hit.intensity / 2, lane) - r.height / 2];""")
        canvas = driver.find_element(By.ID, "canvas")
        ActionChains(driver).move_to_element_with_offset(canvas, int(point[0]), int(point[1])).click().perform()
        wait_for("the selection", lambda: driver.execute_script("return window.studio.selection && window.studio.selection.index === 0"))
        ActionChains(driver).send_keys(Keys.DELETE).perform()
        count = "return window.studio.busy === 0 ? window.studio.view.haptic.transients.length : -1"
        wait_for("the deletion", lambda: driver.execute_script(count) == before - 1)
        check("delete: one transient fewer drawn", len(json.loads(canvas.get_attribute("data-transients"))) == before - 1)
        driver.find_element(By.ID, "undo").click()
        wait_for("the undo", lambda: driver.execute_script(count) == before)
        check("undo: the transient is back", len(json.loads(canvas.get_attribute("data-transients"))) == before)
        driver.find_element(By.ID, "redo").click()
        wait_for("the redo", lambda: driver.execute_script(count) == before - 1)
        check("redo: deleted again", driver.execute_script("return window.studio.view.edits.count") == 1)

        driver.find_element(By.ID, "save").click()
        wait_for("the save", lambda: "saved" in driver.find_element(By.ID, "status").text)
        saved = open(os.path.join(folder, "clicks.ahap")).read()
        saved_pattern = json.loads(saved)
        check("save: clicks.ahap beside the sound, edited, marked in its metadata",
              len(transients_of(saved)) == before - 1 and saved_pattern["Metadata"].get("Edited") is True)
        per_sound = open(os.path.join(folder, "haptics.txt")).read()
        check("save: the settings in haptics.txt", re.search(rf"^clicks\.wav --sensitivity {chosen} ", per_sound, re.M) is not None, per_sound)
        wait_for("the list's state", lambda: driver.find_elements(By.CSS_SELECTOR, '#files li[data-name="clicks.wav"][data-state="edited"]'))

        # An unedited sound, saved at another setting, is what convert --per-sound makes of it.
        driver.find_element(By.CSS_SELECTOR, '#files li[data-name="second.wav"]').click()
        wait_for("the second sound", lambda: driver.execute_script(settled, "second.wav"))
        driver.execute_script("const g = document.getElementById('gate'); g.value = -40; g.dispatchEvent(new Event('change'));"
                              "const s = document.getElementById('sensitivity'); s.value = 70; s.dispatchEvent(new Event('input'));")
        wait_for("its re-analysis", lambda: driver.execute_script(
            "return window.studio.busy === 0 && window.studio.view.settings.sensitivity === 70 && window.studio.view.settings.gate === -40"))
        driver.find_element(By.ID, "save").click()
        wait_for("its save", lambda: "saved second.ahap" in driver.find_element(By.ID, "status").text)
        again = os.path.join(work, "again.ahap")
        subprocess.run([os.path.join(bin_dir, "hapticsynth"), "convert", os.path.join(folder, "second.wav"), "-o", again,
                        "--per-sound", os.path.join(folder, "haptics.txt")], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        check("the gate control reaches the --per-sound line", "--gate -40" in open(os.path.join(folder, "haptics.txt")).read())
        check("convert --per-sound reproduces the unedited save byte for byte",
              open(again).read() == open(os.path.join(folder, "second.ahap")).read())

        # A range dragged on the sound's lane (0.5–1.5 s): what Play plays; a click there clears it.
        canvas = driver.find_element(By.ID, "canvas")
        ends = driver.execute_script("""
            const lane = lanes().wave, r = canvas.getBoundingClientRect(), y = lane.top + lane.height / 2 - r.height / 2;
            return [timeToX(0.5) - r.width / 2, timeToX(1.5) - r.width / 2, y];""")
        ActionChains(driver).move_to_element_with_offset(canvas, int(ends[0]), int(ends[2])).click_and_hold() \
            .move_by_offset(int((ends[1] - ends[0]) / 2), 0).move_by_offset(int(ends[1] - ends[0]) - int((ends[1] - ends[0]) / 2), 0).release().perform()
        picked = driver.execute_script("return window.studio.range")
        check("a range dragged on the sound's lane: 0.5–1.5 s (within a pixel's time)",
              picked is not None and abs(picked["start"] - 0.5) < 0.02 and abs(picked["end"] - 1.5) < 0.02, str(picked))
        ActionChains(driver).move_to_element_with_offset(canvas, int(ends[0]) + 5, int(ends[2])).click().perform()
        check("a click on the sound's lane clears it", driver.execute_script("return window.studio.range") is None)
        ActionChains(driver).move_to_element_with_offset(canvas, int(ends[0]), int(ends[2])).click_and_hold() \
            .move_by_offset(int((ends[1] - ends[0]) / 2), 0).move_by_offset(int(ends[1] - ends[0]) - int((ends[1] - ends[0]) / 2), 0).release().perform()

        # Play: the transport and its playhead through the rig, or the error line naming the device.
        driver.find_element(By.ID, "play").click()
        if rig_out:
            wait_for("the transport playing", lambda: driver.execute_script(
                "const t = window.studio.transport; return t.playing && t.name === 'second.wav' && window.studio.drawnPlayhead !== null"))
            transport = driver.execute_script("return window.studio.transport")
            check("Play plays the dragged range", abs(transport["start"] - picked["start"]) < 1e-3 and abs(transport["end"] - picked["end"]) < 1e-3,
                  str(transport))
            first = driver.execute_script("return window.studio.drawnPlayhead")
            pushed = driver.execute_script("return window.studio.pushedTransports")
            wait_for("the playhead moving", lambda: driver.execute_script("return window.studio.drawnPlayhead") not in (None, first))
            check(f"Play: the transport plays and the playhead follows it ({device})", True)
            check("the playhead follows the pushed transport", driver.execute_script(
                "return window.studio.socketState === 'open' && window.studio.pushedTransports > arguments[0]", pushed))
            driver.find_element(By.ID, "stop").click()
            wait_for("the stop", lambda: driver.execute_script("return !window.studio.transport.playing && window.studio.drawnPlayhead === null"))
            check("Stop: the transport stopped, no playhead, the status says so", driver.find_element(By.ID, "status").text == "stopped")
        else:
            wait_for("the error line", lambda: "audition" in driver.find_element(By.ID, "status").text)
            status = driver.find_element(By.ID, "status")
            check("Play without the device: one error line naming it",
                  device in status.text and "error" in status.get_attribute("class") and "\n" not in status.text, status.text)
            check("Play without the device: the transport says stopped", driver.execute_script("return !window.studio.transport.playing"))
            refused = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            check("the refused Play's request is the only console error",
                  all("/play" in e["message"] and "503" in e["message"] for e in refused), str(refused))
            check("Play went over the socket", driver.execute_script("return window.studio.socketCalls.play") == 1,
                  driver.execute_script("return window.studio.socketCalls"))

        # The socket gone: the page goes on over HTTP.
        sent = driver.execute_script("return window.studio.socketCalls.analyse")
        driver.execute_script("socket.close()")
        wait_for("the socket closed", lambda: driver.execute_script("return window.studio.socketState === 'closed'"))
        driver.execute_script("const s = document.getElementById('sensitivity'); s.value = 40; s.dispatchEvent(new Event('input'));")
        wait_for("the re-analysis over HTTP", lambda: driver.execute_script(
            "return window.studio.busy === 0 && window.studio.view.settings.sensitivity === 40"))
        check("without the socket, the page's actions go over HTTP", driver.execute_script("return window.studio.socketCalls.analyse") == sent)

        # A pattern of no sound (the designer's own file): opened, drawn, edited and saved in place;
        # a broken one: one error line, nothing changes.
        driver.execute_script("loadFiles()")
        wait_for("the pattern in the list", lambda: driver.find_elements(By.CSS_SELECTOR, '#files li.openable[data-name="designed.ahap"]'))
        check("a sound's own pattern is not opened on its own",
              not driver.find_elements(By.CSS_SELECTOR, '#files li.openable[data-name="second.ahap"]'))
        driver.find_element(By.CSS_SELECTOR, '#files li[data-name="designed.ahap"]').click()
        wait_for("the pattern drawn", lambda: driver.execute_script(
            "return document.body.dataset.drawn === 'designed.ahap' && window.studio.busy === 0 && window.studio.view.kind === 'pattern'"))
        designed_path = os.path.join(folder, "designed.ahap")
        designed_hits = transients_of(open(designed_path).read())
        drawn = json.loads(driver.find_element(By.ID, "canvas").get_attribute("data-transients"))
        check(f"the pattern's transients drawn ({len(designed_hits)})",
              len(drawn) == len(designed_hits) > 0 and all(abs(d["time"] - c) < 1e-3 for d, c in zip(drawn, designed_hits)))
        check("a pattern's conversion controls are off", driver.execute_script(
            "return ['sensitivity', 'gate', 'from'].every((id) => document.getElementById(id).disabled)"))
        driver.execute_script("edit({op: 'deleteTransient', index: 0})")
        wait_for("the pattern's edit", lambda: driver.execute_script(count) == len(designed_hits) - 1)
        driver.find_element(By.ID, "save").click()
        wait_for("the pattern's save", lambda: "saved designed.ahap" in driver.find_element(By.ID, "status").text)
        resaved = open(designed_path).read()
        check("save: the pattern written in place, one transient fewer, marked edited",
              len(transients_of(resaved)) == len(designed_hits) - 1 and json.loads(resaved)["Metadata"].get("Edited") is True)
        driver.get_log("browser")
        broken_path = os.path.join(folder, "broken.ahap")
        driver.find_element(By.CSS_SELECTOR, '#files li[data-name="broken.ahap"]').click()
        wait_for("the broken pattern's error", lambda: "broken.ahap" in driver.find_element(By.ID, "status").text)
        status_line = driver.find_element(By.ID, "status")
        check("a broken pattern: one error line naming it, the view unchanged",
              "error" in status_line.get_attribute("class") and "\n" not in status_line.text
              and driver.execute_script("return window.studio.view.name") == "designed.ahap", status_line.text)
        check("a broken pattern: the file unchanged", open(broken_path).read() == BROKEN_PATTERN)
        refused = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        check("the broken pattern's request is the only console error", all("broken.ahap" in e["message"] and "400" in e["message"] for e in refused),
              str(refused))

        driver.save_screenshot(os.path.join(artefacts, "studio.png"))
        check("a screenshot saved", os.path.getsize(os.path.join(artefacts, "studio.png")) > 10_000)
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check("no console errors", not errors, str(errors))
    finally:
        if driver:
            driver.quit()
        process.terminate()
        try:
            process.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(work, ignore_errors=True)
    print(f"studio browser test: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
