#!/usr/bin/env bash
# The wheel builder setuptools needs (bdist_wheel: in setuptools from 70.1, before that the
# `wheel` package), installed into $PYTHON once when missing — as scripts/install-deps.sh
# installs system packages — so that building and installing the package never downloads.
set -euo pipefail
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import setuptools.command.bdist_wheel' 2>/dev/null && ! "$PYTHON" -c 'import wheel.bdist_wheel' 2>/dev/null; then
    echo "python: installing the wheel package into $("$PYTHON" -c 'import sys; print(sys.prefix)') (setuptools lacks bdist_wheel)"
    "$PYTHON" -m pip install --quiet wheel
fi
