"""Play Wanzai hands natively: one readable hand (`play`) or many summaries (`simulate_hands`).

A hand is fully determined by (rules, players, master seed, hand index, dealer), so
`play(rules, seed=s, hand_index=i)` replays exactly the hand that `simulate_hands` counted
as index i. Input checks live here; the native loop (`_game.pyx`) trusts its inputs.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mjsim import _core, _game
from mjsim.rules import WANZAI_VALUE_IDS, Rules
from mjsim.tiles import format_tiles, kind_name

PLAYERS = _game.PLAYERS
EVENT_NAMES = _game.EVENT_NAMES
END_NAMES = _game.END_NAMES
MELD_NAMES = _game.MELD_NAMES
KONG_NAMES = _game.KONG_NAMES
PAY_NAMES = _game.PAY_NAMES

__all__ = ["PLAYERS", "Event", "HandRecord", "Win", "play", "simulate_hands"]


@dataclass(frozen=True)
class Event:
    """One step of a hand. `kind` is one of EVENT_NAMES; unused fields are None.

    draw: seat, tile, replacement | discard: seat, tile | pung/chow: seat, tile, from_seat
    (chow: `tiles` the two from hand) | kong: seat, tile, kong (added/exposed/concealed),
    from_seat (exposed) | robbed: seat (the robbed player), tile | win: seat, tile,
    from_seat (None = self-draw), points | payment: seat (payer), to_seat, amount, reason |
    pass_win: seat, tile | exhausted: seat (last drawer).
    """

    kind: str
    seat: int | None = None
    tile: str | None = None
    from_seat: int | None = None
    to_seat: int | None = None
    amount: int | None = None
    reason: str | None = None
    kong: str | None = None
    tiles: str | None = None
    replacement: bool | None = None
    points: int | None = None

    def __str__(self) -> str:
        parts = [self.kind] + [f"{k}={v}" for k, v in self.__dict__.items() if k != "kind" and v is not None]
        return " ".join(parts)


@dataclass(frozen=True)
class Win:
    winner: int
    payer: int | None          # None: self-draw, everyone pays
    tile: str | None
    pattern: str
    properties: frozenset
    points: int                # per paying player before fire / dealer / piao
    received: int              # what the winner actually received for this win
    robbed_kong: bool = False


@dataclass(frozen=True)
class HandRecord:
    dealer: int
    dice: tuple[int, int]
    fire: tuple[int, ...]
    opening: tuple[str, ...]
    events: tuple[Event, ...]
    final: tuple[str, ...]             # concealed tiles of each seat at the end
    melds: tuple[tuple[str, ...], ...] # per seat, e.g. "pung:111m"
    discards: tuple[str, ...]          # per seat, the tiles still in its pool
    wall: str                          # tiles never drawn
    deltas: tuple[int, ...]
    wins: tuple[Win, ...]
    end: str                           # draw, self_draw, discard, rob_kong
    next_dealer: int
    draws: int
    kongs: dict = field(default_factory=dict)


def _native(rules: Rules, players) -> _game.NativeGame:
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a mjsim.Rules (Rules.load('wanzai')), got {type(rules).__name__}")
    if rules.game != "wanzai":
        raise ValueError(f"the native hand loop plays Wanzai only for now, not {rules.game!r}")
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise ValueError(f"players must be a sequence of 4 player names, got {players!r}")
    if len(players) != 4:
        raise ValueError(f"players must name exactly 4 players (one per seat), got {len(players)}")
    codes = []
    for i, name in enumerate(players):
        if name not in PLAYERS:
            raise ValueError(f"unknown player {name!r} for seat {i} (expected one of {', '.join(PLAYERS)})")
        codes.append(PLAYERS.index(name))
    params = rules.as_dict()
    params["values"] = [tuple(params["values"][i]) for i in WANZAI_VALUE_IDS]
    return _game.NativeGame(params, codes)


def _check_ints(seed, hand_index, dealer):
    for name, v, hi in (("seed", seed, 2**64 - 1), ("hand_index", hand_index, 2**64 - 1), ("dealer", dealer, 3)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v <= hi:
            raise ValueError(f"{name} must be an integer 0..{hi}, got {v!r}")


def _event(e) -> Event:
    kind, seat, tile, aux, value = e
    name = EVENT_NAMES[kind]
    t = kind_name(tile) if tile >= 0 else None
    if name == "draw":
        return Event(name, seat, t, replacement=bool(aux))
    if name in ("discard", "robbed", "pass_win"):
        return Event(name, seat, t)
    if name == "pung":
        return Event(name, seat, t, from_seat=aux)
    if name == "chow":
        return Event(name, seat, t, from_seat=aux, tiles=format_tiles([value & 255, value >> 8]))
    if name == "kong":
        return Event(name, seat, t, kong=KONG_NAMES[aux], from_seat=value if value >= 0 else None)
    if name == "win":
        return Event(name, seat, t, from_seat=aux if aux >= 0 else None, points=value)
    if name == "payment":
        return Event(name, seat, to_seat=aux if aux >= 0 else None, amount=value, reason=PAY_NAMES[tile])
    return Event(name, seat if seat >= 0 else None)


def _counts_text(counts) -> str:
    return format_tiles([k for k in range(34) for _ in range(counts[k])])


def play(rules: Rules, seed: int = 0, hand_index: int = 0, players=("greedy",) * 4, log: bool = True,
         dealer: int = 0, *, wall=None, dice: int | None = None) -> HandRecord:
    """Play one Wanzai hand and return everything that happened.

    `wall` and `dice` are test hooks: `wall` is the 136 tiles (kinds 0..33 or a tile
    string) in physical order for the table model (stack i = positions 2i top, 2i+1
    bottom; seat 0's wall starts at stack 0) or in dealing order for the flat model
    (dealer 14, then 13 each in play order, then live draws; replacements from the end).
    """
    game = _native(rules, players)
    _check_ints(seed, hand_index, dealer)
    if wall is not None:
        wall = _scripted_wall(wall)
    if dice is not None and (isinstance(dice, bool) or not isinstance(dice, int) or not 2 <= dice <= 12):
        raise ValueError(f"dice must be a dice sum 2..12, got {dice!r}")
    raw = game.play(seed, hand_index, dealer, bool(log), wall, dice or 0)
    wins = []
    for winner, payer, tile, pattern, props, points, received in raw["wins"]:
        rob = raw["end"] == END_NAMES.index("rob_kong")
        wins.append(Win(
            winner=winner,
            payer=None if payer < 0 else payer,
            tile=kind_name(tile) if tile >= 0 else None,
            pattern=_core.PATTERNS[pattern],
            properties=_core.property_names(props),
            points=points,
            received=received,
            robbed_kong=rob,
        ))
    seats = raw["seats"]
    return HandRecord(
        dealer=raw["dealer"],
        dice=tuple(raw["dice"]),
        fire=tuple(raw["fire"]),
        opening=tuple(format_tiles(sorted(h)) for h in raw["opening"]),
        events=tuple(_event(e) for e in raw["events"]),
        final=tuple(_counts_text(s["hand"]) for s in seats),
        melds=tuple(tuple(f"{MELD_NAMES[k]}:{format_tiles(t)}" for k, t, _ in s["melds"]) for s in seats),
        discards=tuple(format_tiles(s["discards"]) for s in seats),
        wall=format_tiles(raw["wall"]),
        deltas=tuple(raw["deltas"]),
        wins=tuple(wins),
        end=END_NAMES[raw["end"]],
        next_dealer=raw["next_dealer"],
        draws=raw["draws"],
        kongs=dict(zip(KONG_NAMES, raw["kongs"])),
    )


def _scripted_wall(wall) -> list[int]:
    from mjsim.tiles import parse_tiles

    kinds = parse_tiles(wall) if isinstance(wall, str) else [int(k) for k in wall]
    if len(kinds) != 136:
        raise ValueError(f"a scripted wall needs all 136 tiles, got {len(kinds)}")
    counts = np.bincount(kinds, minlength=34)
    if len(counts) != 34 or (counts != 4).any():
        bad = int(np.flatnonzero(counts != 4)[0])
        raise ValueError(f"a scripted wall needs 4 of each kind; {kind_name(bad)} appears {counts[bad]} times")
    return kinds


def simulate_hands(rules: Rules, seed: int, start: int, count: int, players=("greedy",) * 4,
                   dealer: int = 0) -> dict[str, np.ndarray]:
    """Play hands start .. start+count-1 in one native loop -> per-hand numpy arrays.

    Keys: hand_index, dealer, dice (n,2), end (index into END_NAMES), n_winners,
    winners (bit s = seat s won), pattern (first winner's pattern code, -1 none),
    draws (tiles drawn after the deal), kongs (n,3: added, exposed, concealed),
    deltas (n,4), next_dealer, fire (n,4).
    """
    game = _native(rules, players)
    _check_ints(seed, start, dealer)
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ValueError(f"count must be a non-negative integer, got {count!r}")
    return game.simulate(seed, start, count, dealer)
