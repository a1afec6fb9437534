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


def __getattr__(name: str):
    home = _EXPORTS.get(name)
    if home is None:
        raise AttributeError(f"module 'mjsim' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "PATTERNS", "PROPERTIES", "Evaluation", "Rules", "RulesError", "TileError",
    "evaluate", "evaluate_batch", "format_tiles", "parse_tiles", "shanten", "shanten_batch", "waits",
]
