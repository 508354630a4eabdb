#!/usr/bin/env bash
# The studio in a real browser (Tests/StudioBrowser/studio_browser_test.py): Debian's headless
# Chromium driven by selenium through the system chromedriver (scripts/install-deps.sh --browser
# installs them; nothing downloads a browser). Needs a build (`swift build`: hapticsynth and
# hapticsynth-studio). The screenshot is left in .build/studio-browser-test/.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
scripts/install-deps.sh --browser
bin=$($SWIFT build --show-bin-path)
# selenium is told where the driver and the browser are; offline, it looks for nothing else.
SE_OFFLINE=true STUDIO_ARTEFACTS=${STUDIO_ARTEFACTS:-.build/studio-browser-test} \
    python3 Tests/StudioBrowser/studio_browser_test.py "$bin"
