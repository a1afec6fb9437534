import os
import sys
from pathlib import Path

import pytest

# The suite runs against the bounds-checked build (MJSIM_DEBUG=1 at build time puts it in
# src/mjsim/_debug_build, beside the release modules): mjsim loads it when MJSIM_BUILD=debug.
# Set before mjsim is imported; subprocesses and spawned workers inherit it.
# `MJSIM_BUILD=release pytest -m slow` runs the slow checks on the release build.
os.environ.setdefault("MJSIM_BUILD", "debug")


# the reference implementation and hand generators live beside the tests, not in src
sys.path.insert(0, str(Path(__file__).parent))


def pytest_configure(config):
    from mjsim import _core

    if os.environ["MJSIM_BUILD"] == "debug" and not _core.DEBUG_BUILD:
        raise pytest.UsageError(
            "the tests run against the debug build and there is none: build it with "
            "MJSIM_DEBUG=1 pip install -e \".[test]\" (or MJSIM_DEBUG=1 python setup.py build_ext "
            "--inplace), or run MJSIM_BUILD=release pytest to test the release build")
