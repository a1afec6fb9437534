"""Python face of the native evaluator: validation, then one call into the core.

Every check on user input lives here, so nothing invalid reaches the native code.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from mjsim import _core
from mjsim.rulesets import native
from mjsim.rulesets.rules import Rules
from mjsim.tiles import TileError, check_copies, check_kind, format_tiles, kind_name, parse_tile, parse_tiles, to_counts
from mjsim.rulesets.traits import traits

PATTERNS = _core.PATTERNS
PROPERTIES = _core.PROPERTIES
MELD_KINDS = ("chow", "pung", "kong", "added_kong", "concealed_kong")
CONTEXTS = ("gangshanghua", "qiangganghu", "gangshangpao")
_HONOR_RUNS = {frozenset(s) for s in ((27, 28, 29), (27, 28, 30), (27, 29, 30), (28, 29, 30), (31, 32, 33))}


@dataclass(frozen=True)
class Evaluation:
    """Outcome of `evaluate`: `points` is what one payer pays before fire/piao/dealer/birds.

    `properties` are those of the reading the hand is scored by: every fitting id under
    Wanzai; under Anhua the higher of the face-value (硬莊, `hard`) and wild readings, 硬莊
    on a tie, and only its properties (RULES §3.2), plus the wild category and context."""

    win: bool
    pattern: str | None
    properties: frozenset
    points: int
    category: str | None = None
    hard: bool = False


@dataclass(frozen=True)
class Meld:
    kind: str
    tiles: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.kind}:{format_tiles(self.tiles)}"


@functools.lru_cache(maxsize=64)
def core_config(rules: Rules) -> _core.CoreConfig:
    return _core.CoreConfig(native.eval_config(rules))


#: more tiles than any hand can hold: refused before they are even looked at one by one
_MAX_TILES = 18


def _kinds(tiles, what: str) -> list[int]:
    if isinstance(tiles, str):
        if len(tiles) > 200:
            raise TileError(f"{what} is {len(tiles)} characters long: no hand has that many tiles")
        return parse_tiles(tiles)
    if isinstance(tiles, (bytes, dict, set, frozenset)):
        raise TileError(f"{what} must be a tile string like '123m' or a sequence of kinds 0..33")
    try:
        n = len(tiles) if hasattr(tiles, "__len__") else None
        kinds = list(itertools.islice(tiles, _MAX_TILES + 1)) if n is None or n <= _MAX_TILES else None
    except TypeError:
        raise TileError(f"{what} must be a tile string like '123m' or a sequence of kinds 0..33") from None
    if kinds is None or len(kinds) > _MAX_TILES:
        raise TileError(f"{what} holds {n if n is not None else 'more than ' + str(_MAX_TILES)} tiles: "
                        f"no hand has that many")
    return [check_kind(k) for k in kinds]


def _is_run(game: str, kinds: Sequence[int]) -> bool:
    ks = sorted(kinds)
    if ks[0] < 27:
        return ks[2] < 27 and ks[0] // 9 == ks[2] // 9 and ks[1] == ks[0] + 1 and ks[2] == ks[0] + 2
    return traits(game).honor_runs and frozenset(ks) in _HONOR_RUNS


def parse_melds(game: str, melds: Iterable) -> list[Meld]:
    out = []
    for i, m in enumerate(melds):
        if isinstance(m, Meld):
            out.append(m)
            continue
        try:
            kind, tiles = m
        except (TypeError, ValueError):
            raise TileError(f"meld #{i + 1} must be a (kind, tiles) pair, got {m!r}") from None
        if kind not in MELD_KINDS:
            raise TileError(f"meld #{i + 1}: unknown meld kind {kind!r} (expected one of {', '.join(MELD_KINDS)})")
        ks = _kinds(tiles, f"meld #{i + 1}")
        size = 3 if kind in ("chow", "pung") else 4
        if len(ks) != size:
            raise TileError(f"meld #{i + 1} ({kind}) needs {size} tiles, got {len(ks)}")
        if kind == "chow":
            if not _is_run(game, ks):
                raise TileError(f"meld #{i + 1}: {format_tiles(ks)} is not a run that can be chowed under {game}")
        elif len(set(ks)) != 1:
            raise TileError(f"meld #{i + 1} ({kind}) needs identical tiles, got {format_tiles(ks)}")
        out.append(Meld(kind, tuple(sorted(ks))))
    if len(out) > 4:
        raise TileError(f"at most 4 melds can be declared, got {len(out)}")
    return out


def meld_info(melds: Sequence[Meld]) -> tuple:
    counts = [0] * 34
    suit_mask = 0
    for m in melds:
        for k in m.tiles:
            counts[k] += 1
            suit_mask |= 1 << min(k // 9, 3)
    return (
        len(melds),
        any(m.kind == "chow" for m in melds),
        any(m.kind == "concealed_kong" for m in melds),
        suit_mask,
        counts,
    )


def _indicator(rules: Rules, wild) -> int:
    if not rules.traits.wilds:
        if wild is not None:
            raise TileError("Wanzai has no wilds: do not pass wild=...")
        return -1
    if wild is None:
        raise TileError("Anhua needs the turned-up wild indicator tile (wild='3s')")
    try:
        k = parse_tile(wild) if isinstance(wild, str) else check_kind(wild)
    except TileError as e:
        raise TileError(f"wild (the turned-up indicator): {e}") from None
    if k >= 27:
        raise TileError(f"the wild indicator must be a suited tile, got {kind_name(k)}")
    return k


def wild_tiles(indicator: int) -> tuple[int, int]:
    """The two wild kinds for a turned-up indicator (RULES §3.1)."""
    return indicator, (indicator + 1 if indicator % 9 != 8 else indicator - 8)


def _check_self_draw(self_draw) -> None:
    """True or False (a numpy bool too): any other value was read by truth, so "no" meant a
    self-draw."""
    if not isinstance(self_draw, (bool, np.bool_)):
        raise TypeError(f"self_draw must be True or False, got {self_draw!r}")


def _prepare(rules: Rules, hand, melds, wild, sizes: tuple[int, ...]):
    _check_rules(rules)
    kinds = _kinds(hand, "hand")
    ms = parse_melds(rules.game, () if melds is None else melds)
    for i, m in enumerate(ms):
        if m.kind == "chow" and m.tiles[0] >= 27 and not rules.get("honor_chow", False):
            raise TileError(f"meld #{i + 1}: {format_tiles(m.tiles)} is an honor chow, and honor_chow = false: "
                            f"honor runs may not be chowed")
    indicator = _indicator(rules, wild)
    expected = [s - 3 * len(ms) for s in sizes]
    if len(kinds) not in expected:
        want = " or ".join(str(e) for e in expected)
        raise TileError(f"hand has {len(kinds)} concealed tiles; with {len(ms)} meld{'' if len(ms) == 1 else 's'} "
                        f"it must have {want}")
    counts = to_counts(kinds)
    info = meld_info(ms)
    held = [c + m for c, m in zip(counts, info[4])]
    check_copies(held, "the hand with its melds")
    if not rules.traits.honors and any(held[27:]):
        raise TileError("Anhua is played with the 108 suited tiles: honors (z) are not allowed")
    if rules.traits.wilds:
        if held[indicator] > 3:
            raise TileError(f"one {kind_name(indicator)} is the turned-up indicator, so only 3 more exist")
    return counts, info, indicator


def evaluate(rules: Rules, hand, melds=(), win_tile=None, self_draw: bool = True, wild=None, context=None) -> Evaluation:
    """Evaluate a complete hand: `hand` holds the concealed tiles including the winning tile."""
    counts, info, indicator = _prepare(rules, hand, melds, wild, (14,))
    _check_self_draw(self_draw)
    if context is not None and context not in CONTEXTS:
        raise ValueError(f"unknown context {context!r} (expected None or one of {', '.join(CONTEXTS)})")
    if context == "gangshanghua" and not self_draw:
        raise ValueError("context 'gangshanghua' is a self-draw: pass self_draw=True")
    if context in ("qiangganghu", "gangshangpao") and self_draw:
        raise ValueError(f"context {context!r} is a win on another player's tile: pass self_draw=False")
    wt = -1
    if win_tile is not None:
        wt = parse_tile(win_tile) if isinstance(win_tile, str) else check_kind(win_tile)
        if not counts[wt]:
            raise TileError(f"winning tile {kind_name(wt)} is not in the hand")
    ctx = 0 if context is None else CONTEXTS.index(context) + 1
    win, pattern, props, points, category, hard = _core.evaluate_hand(
        core_config(rules), counts, info, wt, bool(self_draw), indicator, ctx
    )
    return Evaluation(
        win=win,
        pattern=PATTERNS[pattern] if pattern >= 0 else None,
        properties=_core.property_names(props),
        points=points,
        category=_core.CATEGORIES[category],
        hard=hard,
    )


def shanten(rules: Rules, hand, melds=(), wild=None) -> int:
    """Tiles away from tenpai over every hand form the rules allow (0 tenpai, -1 complete)."""
    counts, info, indicator = _prepare(rules, hand, melds, wild, (13, 14))
    return _core.shanten_hand(core_config(rules), counts, info, indicator)


def waits(rules: Rules, hand, melds=(), wild=None) -> list[str]:
    """Tiles that complete a 13-tile hand (by self-draw), skipping kinds whose copies are all held."""
    counts, info, indicator = _prepare(rules, hand, melds, wild, (13,))
    return [kind_name(k) for k in _core.waits_hand(core_config(rules), counts, info, indicator)]


def _check_rules(rules) -> None:
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a mjsim.Rules (use mjsim.Rules.load('wanzai')), got {type(rules).__name__}")


def _batch_counts(rules: Rules, counts, sizes: tuple[int, ...], wild) -> tuple[np.ndarray, int]:
    _check_rules(rules)
    arr = np.asarray(counts)
    if arr.ndim != 2 or arr.shape[1] != 34:
        raise ValueError(f"counts must be an (N, 34) array of tile counts, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"counts must hold integers, got dtype {arr.dtype}")
    if arr.dtype != np.uint8:
        if arr.size and (arr.min() < 0 or arr.max() > 4):
            row = int(np.argwhere((arr < 0) | (arr > 4))[0][0])
            raise ValueError(f"counts row {row} has a count outside 0..4 (only 4 copies of a tile exist)")
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    indicator = _indicator(rules, wild)
    # the rows themselves are checked by _core.check_batch inside the batch call (once)
    return arr, indicator


def evaluate_batch(rules: Rules, counts, self_draw: bool = True, wild=None):
    """Evaluate N concealed 14-tile hands in one native loop -> (win, pattern_code, points).

    `PATTERNS[code]` names a pattern (-1 = no win).  For discard wins (self_draw=False) the
    winning tile is taken not to be a wild.
    """
    arr, indicator = _batch_counts(rules, counts, (14,), wild)
    _check_self_draw(self_draw)
    return _core.evaluate_batch(core_config(rules), arr, bool(self_draw), indicator)


def shanten_batch(rules: Rules, counts, wild=None) -> np.ndarray:
    """Shanten of N concealed 13- or 14-tile hands without melds, as an int8 array."""
    arr, indicator = _batch_counts(rules, counts, (13, 14), wild)
    return _core.shanten_batch(core_config(rules), arr, indicator)
