"""mjsim: Monte Carlo engine for regional Chinese mahjong (Wanzai 萬載, Anhua seven-wild 安化七王)."""
__version__ = "0.3.0"

import os as _os
from importlib.machinery import EXTENSION_SUFFIXES as _SUFFIXES
from pathlib import Path as _Path


def _has_build(folder: _Path) -> bool:
    return any((folder / f"_core{suffix}").exists() for suffix in _SUFFIXES)


# An in-place or editable build with MJSIM_DEBUG=1 leaves the bounds-checked modules here,
# beside the release ones (setup.py). They are loaded only when asked for: MJSIM_BUILD=debug
# (tests/conftest.py sets it), so the test command never slows down an installed `mjsim`.
# With no release modules at all (MJSIM_DEBUG=only) the debug ones are used, and the CLI
# says so on every command.
DEBUG_BUILD_DIR = _Path(__file__).with_name("_debug_build")
_USE_DEBUG_BUILD = _has_build(DEBUG_BUILD_DIR) and (_os.environ.get("MJSIM_BUILD", "") == "debug"
                                                    or not _has_build(_Path(__file__).parent))


def _debug_build_first(path: list, subpackage: str = "") -> None:
    """Put the debug twins of a (sub)package's native modules before the release ones."""
    if _USE_DEBUG_BUILD:
        path.insert(0, str(DEBUG_BUILD_DIR / subpackage))


_debug_build_first(__path__)

from mjsim.engine import (
    PATTERNS,
    PROPERTIES,
    Evaluation,
    evaluate,
    evaluate_batch,
    shanten,
    shanten_batch,
    waits,
)
from mjsim.rules import Rules, RulesError
from mjsim.tiles import TileError, format_tiles, parse_tiles

__all__ = [
    "PATTERNS", "PROPERTIES", "Evaluation", "Rules", "RulesError", "TileError",
    "evaluate", "evaluate_batch", "format_tiles", "parse_tiles", "shanten", "shanten_batch", "waits",
]
