"""mjsim: Monte Carlo engine for regional Chinese mahjong (Wanzai 萬載, Anhua seven-wild 安化七王)."""
__version__ = "0.3.0"

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
