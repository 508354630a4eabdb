"""Shared helpers: the repository's files, the CLI of this build, reading a float WAV."""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
HAPTICS = sorted((REPO / "Haptics").glob("*.ahap"))
SOUNDS = sorted((REPO / "Assets" / "sfx").glob("*.wav"))


def cli_path() -> str:
    """The `hapticsynth` CLI of this build: $HAPTICSYNTH_CLI, else .build/debug's."""
    path = os.environ.get("HAPTICSYNTH_CLI") or str(REPO / ".build" / "debug" / "hapticsynth")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no hapticsynth CLI at {path} (swift build, or set HAPTICSYNTH_CLI)")
    return path


def run_cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    run = subprocess.run([cli_path(), *arguments], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"hapticsynth {' '.join(arguments)}: {run.stderr}"
    return run


def read_float_wav(path: Path) -> np.ndarray:
    """A 32-bit float WAV (what `render --bits 32f` writes; the standard library's `wave`
    reads integer PCM only) as float32 frames × channels."""
    data = path.read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", f"{path}: not a RIFF WAVE"
    offset, channels, samples = 12, None, None
    while offset + 8 <= len(data):
        chunk, size = data[offset:offset + 4], struct.unpack_from("<I", data, offset + 4)[0]
        body = data[offset + 8: offset + 8 + size]
        if chunk == b"fmt ":
            tag, channels, _, _, _, bits = struct.unpack_from("<HHIIHH", body)
            if tag == 0xFFFE:  # WAVE_FORMAT_EXTENSIBLE: the sub-format's first two bytes
                tag = struct.unpack_from("<H", body, 24)[0]
            assert (tag, bits) == (3, 32), f"{path}: format {tag}, {bits} bits: not 32-bit float"
        elif chunk == b"data":
            samples = np.frombuffer(body, dtype="<f4")
        offset += 8 + size + (size & 1)
    assert channels and samples is not None, f"{path}: no fmt or data chunk"
    return samples.reshape(-1, channels)


@pytest.fixture(scope="session")
def toolchain_lib() -> str | None:
    """The Swift toolchain's folder (from swiftc on PATH), which an installed wheel must not need."""
    swiftc = shutil.which("swiftc")
    return str(Path(swiftc).resolve().parents[2]) if swiftc else None
