"""Where the native modules are loaded from: the release build, or its debug twin.

An in-place or editable build with MJSIM_DEBUG=1 leaves the bounds-checked modules in
_debug_build/ beside the release ones (setup.py).  They are loaded only when asked for:
MJSIM_BUILD=debug (tests/conftest.py sets it), so the test command never slows down an
installed `mjsim`.  With no release modules at all (MJSIM_DEBUG=only) the debug ones are
used, and the CLI says so on every command.  Imports nothing from mjsim, so that every
package holding native modules (mjsim, mjsim.core, mjsim.players) can use it first.
"""
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

DEBUG_BUILD_DIR = Path(__file__).with_name("_debug_build")


def _has_build(folder: Path) -> bool:
    return any((folder / f"_core{suffix}").exists() for suffix in EXTENSION_SUFFIXES)


USE_DEBUG_BUILD = _has_build(DEBUG_BUILD_DIR) and (os.environ.get("MJSIM_BUILD", "") == "debug"
                                                   or not _has_build(Path(__file__).parent))


def debug_build_first(path: list, subpackage: str = "") -> None:
    """Put the debug twins of a (sub)package's native modules before the release ones."""
    if USE_DEBUG_BUILD:
        path.insert(0, str(DEBUG_BUILD_DIR / subpackage))
