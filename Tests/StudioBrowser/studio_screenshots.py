#!/usr/bin/env python3
"""The designer's walk-through of docs/studio.md as screenshots of the real page (headless
Chromium through selenium, as studio_browser_test.py), inside the sound-server rig so that Play
plays and the playhead moves:

    studio_screenshots.py BIN_DIR SOUND OUT_DIR    (run by scripts/studio-screenshots.sh)

SOUND is copied into a temporary folder (the studio saves beside it); OUT_DIR gets
1-opened.png, 2-tuned.png, 3-edited.png, 4-auditioned.png and 5-saved.png (1200×700 CSS pixels).
Every step waits for what it needs (never a fixed sleep) and fails loudly when it does not come.
"""
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

BOUND = 120


def wait_for(what, predicate):
    deadline = time.monotonic() + BOUND
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {BOUND} s for {what}")
        time.sleep(0.05)
    return value


def main():
    bin_dir, sound, out = sys.argv[1], sys.argv[2], sys.argv[3]
    rig_out = os.environ.get("HAPTICSYNTH_RIG_OUT")
    if not rig_out:
        sys.exit("studio_screenshots.py: run inside the rig (scripts/studio-screenshots.sh): Play needs its sink")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="studio-shots.")
    name = os.path.basename(sound)
    shutil.copy(sound, os.path.join(work, name))
    process = subprocess.Popen([os.path.join(bin_dir, "hapticsynth-studio"), work, "-D", rig_out, "--layout", "L,R,H"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    driver = None
    try:
        url = None
        for line in process.stdout:
            match = re.search(r"open (http://\S+)", line)
            url = match.group(1) if match else url
            if line.strip() == "studio: ready":
                break
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars"]:
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        # The viewport, not the window, is 1200×700.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 700, "deviceScaleFactor": 1, "mobile": False})
        settled = "return document.body.dataset.drawn === arguments[0] && window.studio.busy === 0"

        def shot(file):
            path = os.path.join(out, file)
            driver.save_screenshot(path)
            print(f"{path}: {os.path.getsize(path)} bytes")

        # 1. Opened: the sound converted with convert's defaults.
        driver.get(url + "#sound=" + name)
        wait_for("the sound drawn", lambda: driver.execute_script(settled, name))
        wait_for("the list", lambda: driver.find_elements(By.CSS_SELECTOR, "#files li.selected"))
        shot("1-opened.png")

        # 2. Tuned: the sensitivity slider moved; the ladder's row and the drawn hits follow.
        ladder = driver.execute_script("return window.studio.ladder.rungs")
        counts = {rung["sensitivity"]: len(rung["times"]) for rung in ladder}
        chosen = next((s for s in [70, 80, 60, 90, 30] if counts[s] != counts[50]), 70)
        driver.execute_script(
            "const s = document.getElementById('sensitivity'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", chosen)
        wait_for("the re-analysis", lambda: driver.execute_script(
            "return window.studio.busy === 0 && window.studio.view.settings.sensitivity === arguments[0]", chosen))
        shot("2-tuned.png")

        # 3. Edited: the weakest transient deleted, then an intensity point dragged up (selected).
        canvas = driver.find_element(By.ID, "canvas")
        weakest = driver.execute_script(
            "const t = window.studio.view.haptic.transients; let i = 0; t.forEach((h, k) => { if (h.intensity < t[i].intensity) i = k; }); return i;")
        point = driver.execute_script("""
            const hit = window.studio.view.haptic.transients[arguments[0]], lane = lanes().haptic, r = canvas.getBoundingClientRect();
            return [timeToX(hit.time + window.studio.view.haptic.offset) - r.width / 2, valueToY(hit.intensity / 2, lane) - r.height / 2];""",
                                      weakest)
        ActionChains(driver).move_to_element_with_offset(canvas, int(point[0]), int(point[1])).click().perform()
        wait_for("the selection", lambda: driver.execute_script("return window.studio.selection && window.studio.selection.index === arguments[0]", weakest))
        driver.find_element(By.ID, "sel-delete").click()
        wait_for("the deletion", lambda: driver.execute_script("return window.studio.busy === 0 && window.studio.view.edits.count === 1"))
        driver.execute_script("const m = document.getElementById('mode'); m.value = 'intensity'; m.dispatchEvent(new Event('change'));")
        drag = driver.execute_script("""
            const points = curvePoints('intensity'), lane = lanes().haptic, r = canvas.getBoundingClientRect(), offset = window.studio.view.haptic.offset;
            let i = 0; points.forEach((p, k) => { if (Math.abs(p[0] - 1.15) < Math.abs(points[i][0] - 1.15)) i = k; });
            const p = points[i];
            return [timeToX(p[0] + offset) - r.width / 2, valueToY(p[1], lane) - r.height / 2, Math.min(60, valueToY(p[1], lane) - lane.top - 10)];""")
        ActionChains(driver).move_to_element_with_offset(canvas, int(drag[0]), int(drag[1])).click_and_hold() \
            .move_by_offset(4, -int(drag[2]) // 2).move_by_offset(0, -int(drag[2]) // 2).release().perform()
        wait_for("the point moved", lambda: driver.execute_script("return window.studio.busy === 0 && window.studio.view.edits.count === 2"))
        shot("3-edited.png")

        # 4. Auditioned: a range dragged on the sound's lane (0.35–1.75 s), Play with Loop through the
        # rig's sink; the playhead where the engine's clock puts it.
        ends = driver.execute_script("""
            const lane = lanes().wave, r = canvas.getBoundingClientRect(), y = lane.top + lane.height * 0.8 - r.height / 2;
            return [timeToX(0.35) - r.width / 2, timeToX(1.75) - r.width / 2, y];""")
        ActionChains(driver).move_to_element_with_offset(canvas, int(ends[0]), int(ends[2])).click_and_hold() \
            .move_by_offset(int((ends[1] - ends[0]) / 2), 0).move_by_offset(int(ends[1] - ends[0]) - int((ends[1] - ends[0]) / 2), 0).release().perform()
        wait_for("the range", lambda: driver.execute_script("return window.studio.range"))
        driver.find_element(By.ID, "loop").click()
        driver.find_element(By.ID, "play").click()
        wait_for("the playhead", lambda: driver.execute_script("return window.studio.drawnPlayhead"))
        wait_for("the playhead mid-range", lambda: 0.9 < (driver.execute_script("return window.studio.drawnPlayhead") or 0) < 1.5)
        shot("4-auditioned.png")
        driver.find_element(By.ID, "stop").click()
        wait_for("the stop", lambda: driver.execute_script("return !window.studio.transport.playing && window.studio.drawnPlayhead === null"))

        # 5. Saved: the pattern beside the sound, the list marks it edited.
        driver.find_element(By.ID, "save").click()
        wait_for("the save", lambda: "saved" in driver.find_element(By.ID, "status").text)
        wait_for("the list's state", lambda: driver.find_elements(By.CSS_SELECTOR, f'#files li[data-state="edited"]'))
        shot("5-saved.png")
    finally:
        if driver:
            driver.quit()
        process.terminate()
        process.wait(timeout=BOUND)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
