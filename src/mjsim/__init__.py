"""mjsim: Monte Carlo engine for regional Chinese mahjong (Wanzai 萬載, Anhua seven-wild 安化七王)."""
from mjsim._buildpath import DEBUG_BUILD_DIR, debug_build_first as _debug_build_first
from mjsim.version import __version__

_debug_build_first(__path__)

from mjsim import _aliases

_aliases.install()

# The public names are imported on first use (PEP 562), so that `import mjsim` is cheap:
# the `mjsim` command then catches a Ctrl-C while its heavy modules load (mjsim.cli.main).
_EXPORTS = {
    **dict.fromkeys(("PATTERNS", "PROPERTIES", "Evaluation", "evaluate", "evaluate_batch", "shanten",
                     "shanten_batch", "waits"), "mjsim.play.engine"),
    **dict.fromkeys(("Rules", "RulesError"), "mjsim.rulesets.rules"),
    **dict.fromkeys(("TileError", "format_tiles", "parse_tiles"), "mjsim.tiles"),
}


def _load_public() -> None:
    """What `import mjsim` used to import at once: the public names, and with them the
    modules they live in (so that `mjsim.play.engine` still works after `import mjsim`)."""
    import importlib

    for name, home in _EXPORTS.items():
        globals()[name] = getattr(importlib.import_module(home), name)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    _load_public()
    if name in globals():
        return globals()[name]
    import importlib.util

    if importlib.util.find_spec(f"{__name__}.{name}") is None:
        raise AttributeError(f"module 'mjsim' has no attribute {name!r}")
    return importlib.import_module(f"{__name__}.{name}")


def __dir__() -> list[str]:
    """The public names (tab completion, help): not the loader's helpers."""
    return sorted(set(__all__) | {"__version__", "__path__", "__file__", "__name__", "__doc__"})


__all__ = [
    "PATTERNS", "PROPERTIES", "Evaluation", "Rules", "RulesError", "TileError",
    "evaluate", "evaluate_batch", "format_tiles", "parse_tiles", "shanten", "shanten_batch", "waits",
]
