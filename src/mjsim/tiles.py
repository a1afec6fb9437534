"""Tile notation: text <-> kind indices and 34-kind count vectors.

Kinds 0-8 are 1m..9m (萬), 9-17 1p..9p (筒), 18-26 1s..9s (索), 27-33 the honors
東 南 西 北 中 發 白 written 1z..7z (RULES.md §1).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

N_KINDS = 34
SUITS = "mps"
HONOR_NAMES = "東南西北中發白"
SUIT_NAMES = "萬筒索"
_ASCII_NAMES = tuple(f"{k - 26}z" if k >= 27 else f"{k % 9 + 1}{SUITS[k // 9]}" for k in range(N_KINDS))

_CHINESE_SUITS = {"萬": "m", "万": "m", "筒": "p", "索": "s", "条": "s", "條": "s"}
_CHINESE_HONORS = {
    "東": 27, "东": 27, "南": 28, "西": 29, "北": 30,
    "中": 31, "發": 32, "发": 32, "白": 33,
}
_CHINESE_DIGITS = {c: i + 1 for i, c in enumerate("一二三四五六七八九")}


class TileError(ValueError):
    """A tile string or tile count that is not valid."""


def check_kind(kind) -> int:
    """A tile kind as a plain int: an integer 0..33 (not a bool, float or string)."""
    import numbers

    if isinstance(kind, bool) or not isinstance(kind, numbers.Integral):
        raise TileError(f"a tile kind is an integer 0..33, got {kind!r}")
    kind = int(kind)
    if not 0 <= kind < N_KINDS:
        raise TileError(f"tile kind {kind} is out of range 0..33")
    return kind


def kind_name(kind: int, chinese: bool = False) -> str:
    if type(kind) is int and 0 <= kind < N_KINDS and not chinese:
        return _ASCII_NAMES[kind]     # the common case, without check_kind's ABC checks
    kind = check_kind(kind)
    if kind >= 27:
        return HONOR_NAMES[kind - 27] if chinese else f"{kind - 26}z"
    suit, rank = divmod(kind, 9)
    if chinese:
        return f"{'一二三四五六七八九'[rank]}{SUIT_NAMES[suit]}"
    return f"{rank + 1}{SUITS[suit]}"


def parse_tiles(text: str) -> list[int]:
    """Parse '123m456p1z', '一二三萬東南' or a mix into a list of kinds, in order.

    Digits wait for their suit letter (as in ``123m``); a Chinese numeral takes the
    next suit character. Spaces and commas separate groups and are ignored.
    """
    if not isinstance(text, str):
        raise TileError(f"tiles must be given as a string, not {type(text).__name__}")
    kinds: list[int] = []
    pending: list[tuple[int, int]] = []  # (rank, position) waiting for a suit
    for pos, ch in enumerate(text):
        if ch.isspace() or ch in ",":
            continue
        if ch in "0123456789":
            pending.append((int(ch), pos))
        elif ch in _CHINESE_DIGITS:
            pending.append((_CHINESE_DIGITS[ch], pos))
        elif ch in "mps" or ch in _CHINESE_SUITS:
            suit = "mps".index(_CHINESE_SUITS.get(ch, ch))
            if not pending:
                raise TileError(f"suit {ch!r} at position {pos} of {text!r} has no digits before it")
            for rank, rpos in pending:
                if not 1 <= rank <= 9:
                    raise TileError(f"rank {rank} at position {rpos} of {text!r} is not 1..9")
                kinds.append(suit * 9 + rank - 1)
            pending = []
        elif ch == "z":
            if not pending:
                raise TileError(f"suit 'z' at position {pos} of {text!r} has no digits before it")
            for rank, rpos in pending:
                if not 1 <= rank <= 7:
                    raise TileError(f"honor 'z' rank {rank} at position {rpos} of {text!r} is not 1..7")
                kinds.append(26 + rank)
            pending = []
        elif ch in _CHINESE_HONORS:
            if pending:
                raise TileError(f"honor {ch!r} at position {pos} of {text!r} follows digits without a suit")
            kinds.append(_CHINESE_HONORS[ch])
        else:
            raise TileError(f"unknown tile character {ch!r} at position {pos} of {text!r}")
    if pending:
        rank, rpos = pending[0]
        raise TileError(f"digit {rank} at position {rpos} of {text!r} has no suit letter after it")
    return kinds


def parse_tile(text: str) -> int:
    kinds = parse_tiles(text)
    if len(kinds) != 1:
        raise TileError(f"expected exactly one tile, got {len(kinds)} in {text!r}")
    return kinds[0]


# Compact notation by table lookups: each kind byte is translated to its digit and to its
# suit letter, and the letter is kept only where the next tile's suit differs, so a list
# costs a dozen C-level calls rather than a Python loop per tile.
_DIGITS = bytes(ord(_ASCII_NAMES[k][0]) if k < N_KINDS else 0 for k in range(256))
_SUIT_OF = bytes((k // 9 if k < 27 else 3) if k < N_KINDS else 4 for k in range(256))
# indexed by suit * 8 + (suit xor the next tile's suit; 4 after the last tile): the suit's
# letter, or 0 (dropped) when the next tile has the same suit
_LETTERS = bytes(ord("mpsz"[c >> 3]) if c < 32 and c & 7 else 0 for c in range(256))
_CHINESE_NAMES = tuple(kind_name(k, True) for k in range(N_KINDS))
_PLAIN_INT = frozenset((int,))


def _compact(kinds: bytes) -> str:
    """Compact notation of kinds 0..33 given as bytes, in their order (not checked)."""
    n = len(kinds)
    if not n:
        return ""
    suits = kinds.translate(_SUIT_OF)
    here = int.from_bytes(suits, "big")
    # byte i: suit_i * 8 + (suit_i ^ suit_i+1), which stays below 40: no carry between bytes
    marks = ((here << 3) | (here ^ int.from_bytes(suits[1:] + b"\x04", "big"))).to_bytes(n, "big")
    out = bytearray(2 * n)
    out[0::2] = kinds.translate(_DIGITS)
    out[1::2] = marks.translate(_LETTERS)
    return out.translate(None, b"\0").decode("ascii")


def _kinds_bytes(ks: list) -> bytes:
    """ks as bytes when every element is a plain int 0..33; otherwise check_kind raises on
    the first element that is not a tile kind (or converts numpy integers)."""
    if set(map(type, ks)) <= _PLAIN_INT:
        try:
            b = bytes(ks)
        except ValueError:      # outside 0..255
            b = None
        if b is not None and (not b or max(b) < N_KINDS):
            return b
    return bytes(map(check_kind, ks))


def format_tiles(kinds: Iterable[int], chinese: bool = False, sort: bool = True) -> str:
    """Format kinds as compact notation ('123m45p1z'), or Chinese characters."""
    ks = sorted(kinds) if sort else list(kinds)
    b = _kinds_bytes(ks)
    if chinese:
        return "".join(map(_CHINESE_NAMES.__getitem__, b))
    return _compact(b)


def to_counts(kinds: Iterable[int]) -> list[int]:
    counts = [0] * N_KINDS
    for k in kinds:
        counts[check_kind(k)] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[int]:
    return [k for k in range(N_KINDS) for _ in range(int(counts[k]))]


def check_copies(counts: Sequence[int], what: str = "hand") -> None:
    """Four copies of each kind exist; a fifth breaks tile conservation."""
    for k, n in enumerate(counts):
        if n > 4:
            raise TileError(f"{what} holds {n} copies of {kind_name(k)}; only 4 exist")
