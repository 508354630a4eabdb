"""The wheel `make wheel` builds: its bundled library loads, and neither it nor its runtime
needs the Swift toolchain (run only where the wheel is installed: HAPTICSYNTH_TEST_WHEEL=1)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hapticsynth
from hapticsynth import _native

pytestmark = pytest.mark.skipif(os.environ.get("HAPTICSYNTH_TEST_WHEEL") != "1", reason="tests of the installed wheel")

CHILD = """
import sys, hapticsynth, numpy
drive = hapticsynth.render(hapticsynth.Pattern.from_json(sys.argv[1]))
maps = open("/proc/self/maps").read()
print(hapticsynth.library_path)
print(float(numpy.abs(drive).max()))
print("toolchain mapped" if sys.argv[2] and sys.argv[2] in maps else "toolchain not mapped")
"""
PATTERN = ('{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient",'
           ' "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}}]}')


def test_the_bundled_library_is_the_one_loaded() -> None:
    assert _native.BUNDLED.is_file()
    assert hapticsynth.library_path.startswith(str(_native.BUNDLED)), hapticsynth.library_path
    runtime = sorted(p.name for p in (_native.BUNDLED.parent / "hapticsynth").iterdir())
    assert "libswiftCore.so" in runtime and not any("Foundation" in name for name in runtime), runtime


def test_ldd_of_the_bundled_library_names_nothing_of_the_toolchain(toolchain_lib: str | None) -> None:
    environment = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": ""}
    ldd = subprocess.run(["ldd", str(_native.BUNDLED)], capture_output=True, text=True, env=environment, check=True).stdout
    assert "not found" not in ldd, ldd
    assert str(_native.BUNDLED.parent / "hapticsynth" / "libswiftCore.so") in ldd, ldd
    assert "/opt/swift" not in ldd and (toolchain_lib is None or toolchain_lib not in ldd), ldd


def test_imports_and_renders_with_the_toolchain_out_of_reach(toolchain_lib: str | None) -> None:
    """A child with an empty LD_LIBRARY_PATH, a PATH without the toolchain, and the toolchain's
    folder hidden under an empty tmpfs (a private mount namespace, where we may make one)."""
    environment = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": "", "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C"}
    command = [sys.executable, "-c", CHILD, PATTERN, toolchain_lib or ""]
    hidden = False
    if toolchain_lib and os.geteuid() == 0 and shutil.which("unshare"):
        probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True)
        if probe.returncode == 0:
            command = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                       'mount -t tmpfs tmpfs "$0" && [ -z "$(ls -A "$0")" ] && exec "$@"', toolchain_lib, *command]
            hidden = True
    run = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120)
    assert run.returncode == 0, run.stderr
    path, peak, mapped = run.stdout.splitlines()
    assert path.startswith(str(_native.BUNDLED)) and float(peak) > 0.05 and mapped == "toolchain not mapped"
    print(f"toolchain hidden by a tmpfs: {hidden}")


def test_the_wheel_is_a_platform_wheel_for_any_python_3() -> None:
    from importlib.metadata import distribution
    import platform

    wheel = distribution("hapticsynth").read_text("WHEEL") or ""
    assert f"Tag: py3-none-linux_{platform.machine()}" in wheel and "Root-Is-Purelib: false" in wheel, wheel
