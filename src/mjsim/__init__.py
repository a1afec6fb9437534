"""mjsim: Monte Carlo engine for regional Chinese mahjong (Wanzai 萬載, Anhua seven-wild 安化七王)."""
from mjsim._buildpath import DEBUG_BUILD_DIR, debug_build_first as _debug_build_first
from mjsim.version import __version__

_debug_build_first(__path__)

from mjsim import _aliases

_aliases.install()

from mjsim.play.engine import (
    PATTERNS,
    PROPERTIES,
    Evaluation,
    evaluate,
    evaluate_batch,
    shanten,
    shanten_batch,
    waits,
)
from mjsim.rulesets.rules import Rules, RulesError
from mjsim.tiles import TileError, format_tiles, parse_tiles

__all__ = [
    "PATTERNS", "PROPERTIES", "Evaluation", "Rules", "RulesError", "TileError",
    "evaluate", "evaluate_batch", "format_tiles", "parse_tiles", "shanten", "shanten_batch", "waits",
]
