"""Play Wanzai and Anhua hands natively: one readable hand (`play`) or many (`simulate_chunk`).

A hand is fully determined by (rules, players, master seed, hand index, session length):
sessions are blocks of `session_hands` consecutive indices that carry the dealer and fire
from hand to hand, so `play(rules, seed=s, hand_index=i, session_hands=k)` replays exactly
the hand that `simulate_chunk` recorded as index i.  Input checks live here; the native
loop (`core/_loop.pyx`) trusts its inputs.
"""
from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain, compress

import numpy as np

from mjsim import _core, vocab
from mjsim.players import ev as evplayer
from mjsim.players import options as player_options
from mjsim.players import search as searchplayer
from mjsim.rulesets import native
from mjsim.rulesets.rules import Rules
from mjsim.tiles import format_tiles, kind_name
from mjsim.rulesets.traits import traits

#: the native players, and the names that play one of them with their own numbers:
#: ev_v1 is the native ev with the model and style ev had before issue 19
ALIASES = {"ev_v1": "ev"}
PLAYERS = vocab.PLAYERS + tuple(ALIASES)
#: the numeric options each built-in player takes, with defaults (mjsim.evplayer; the
#: arena's parse_player reads this)
PLAYER_OPTIONS = {name: {k: v[0] for k, v in evplayer.STYLE.items()} for name in evplayer.EV_NAMES}
PLAYER_OPTIONS["search"] = {**PLAYER_OPTIONS["ev"], **searchplayer.DEFAULTS}
EVENT_NAMES = vocab.EVENT_NAMES
END_NAMES = vocab.END_NAMES
MELD_NAMES = vocab.MELD_NAMES
KONG_NAMES = vocab.KONG_NAMES
PAY_REASONS = vocab.PAY_REASONS
PAY_NAMES = PAY_REASONS              # the older name

WIN_KINDS = vocab.WIN_KIND_NAMES

__all__ = ["PAY_REASONS", "PLAYERS", "WIN_KINDS", "Event", "HandRecord", "Win", "play", "simulate_chunk", "simulate_hands"]


@dataclass(frozen=True)
class Event:
    """One step of a hand. `kind` is one of EVENT_NAMES; unused fields are None.

    draw: seat, tile, replacement | discard: seat, tile (buzhang=True: one of a 補章's
    tiles) | pung/chow: seat, tile, from_seat (chow: `tiles` the two from hand) | kong: seat,
    tile, kong (added/exposed/concealed), from_seat (exposed) | robbed: seat (the robbed
    player), tile | win: seat, tile (None: special start), from_seat (None = self-draw),
    points | payment: seat (payer), to_seat, amount, reason | pass_win: seat, tile, from_seat
    | exhausted: seat (last drawer).
    Anhua: indicator: tile (the turned-up tile) | instant: seat, category, declared (the
    special start offered to a seat) | buzhang: seat, tiles (taken after its kong) |
    locked: seat | bird: tile, to_seat (the seat it points at for the first winner).
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
    buzhang: bool | None = None
    category: str | None = None
    declared: bool | None = None

    def __str__(self) -> str:
        parts = [self.kind] + [f"{k}={v}" for k, v in self.__dict__.items() if k != "kind" and v is not None]
        return " ".join(parts)


@dataclass(frozen=True)
class Win:
    """One win.  `factors` are named (name, value) pairs whose product is what one payer
    pays (before `score_cap`, see `capped`):
    - Wanzai: [(pattern, value)] (+ ("base", base) when base != 1); fire, dealer doubling
      and piao are payment-level (see the payment events).
    - Anhua: ("base", b) when b != 1, ("yingzhuang", 4) or ("pinghu", 1) with the wild
      category's factor (平胡 only), then ("qingyise", 2), ("xiaoqidui", 2), the context
      (gangshanghua / qiangganghu / gangshangpao), and ("bird", 2^n) when birds double the
      payment.  With one payer n counts the birds on the payer and the winner; when
      several seats pay (self-draw, robbed kong paying all shares) n counts the birds on
      the winner, and the birds on each payer are in `payments`.  Special start:
      [("instant", instant_win_score)].
    `payments` (Anhua): (payer, amount, bird factor) per payment.
    `properties`: every id/property of the reading the win is scored by (Wanzai: every
    fitting id, RULES §2.2).  Anhua (RULES §3.2): a hand complete both at face value and
    with its wilds as jokers is scored by the higher reading, 硬莊 on a tie (`hard`), and
    lists only that reading's properties (小七對 or 清一色 of a wild reading that lost or tied
    is not listed); the wild category and the context are listed either way.
    """

    winner: int
    payer: int | None          # None: self-draw, everyone pays
    tile: str | None
    pattern: str
    properties: frozenset      # of the scored reading (see above)
    points: int                # per paying player before fire / dealer / piao / birds
    received: int              # what the winner actually received for this win
    kind: str = "self_draw"    # one of WIN_KINDS
    category: str | None = None        # Anhua wild category of the winning hand
    hard: bool = False                 # Anhua: scored as 硬莊
    birds_hit: int = 0                 # birds on the winner or on a seat paying this win
    bird_seats: tuple[int, ...] = ()   # Anhua: the seat each bird points at, for this winner
    factors: tuple[tuple[str, int], ...] = ()
    capped: int | None = None          # the score_cap that lowered some payment, if any
    payments: tuple[tuple[int, int, int], ...] = ()
    turn: int = 0                      # the winner's discards before the win, plus 1


@dataclass(frozen=True)
class Payment:
    """One payment of a hand as the native loop made it (`HandRecord.payments`)."""

    payer: int
    receiver: int
    amount: int
    reason: str                        # one of PAY_REASONS
    pattern: str | None                # the pattern of the win it pays for; None for kongs


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
    draws: int                         # tiles drawn after the deal, replacements included
    kongs: dict = field(default_factory=dict)
    live_draws: int = 0                # draws without the replacements: the dataset's `draws`
    hand_index: int = 0
    session_hands: int = 1
    # Anhua (RULES §3); empty / None under Wanzai
    wild_indicator: str | None = None  # the turned-up tile
    wilds: tuple[str, ...] = ()        # the two wild kinds: the indicator's and the next rank
    buzhang: tuple[tuple[int, str], ...] = ()  # (kong seat, tiles taken) per 補章 (from the events: log=True)
    locked: tuple[int, ...] = ()       # seats whose hand was locked after a 補章
    birds: tuple[str, ...] = ()        # bird tiles (each win's bird_seats map them to seats)
    set_aside: str = ""                # 補章 tiles not used by a 槓上花 win
    first_dealer: int = 0              # who dealt the first hand of this hand's session (RULES §1)
    claims: tuple[int, ...] = (0, 0, 0, 0)   # pungs, chows and exposed kongs per seat from discards
    payments: tuple[Payment, ...] = ()       # every payment, in order; per seat they sum to deltas


def _native(rules: Rules, players) -> _core.NativeGame:
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a mjsim.Rules (Rules.load('wanzai')), got {type(rules).__name__}")
    # (a tuple or list first: the Sequence ABC check alone cost more than a random hand's
    # record when play() is called hand by hand)
    if type(players) is not tuple and type(players) is not list and (
            isinstance(players, str) or not isinstance(players, Sequence)):
        raise ValueError(f"players must be a sequence of 4 player names, got {players!r}")
    if len(players) != 4:
        raise ValueError(f"players must name exactly 4 players (one per seat), got {len(players)}")
    # a Python player keeps per-call state in its NativeGame, and a model file may change
    # between calls: only built-in names without a model file share a cached game
    try:
        names = "\0".join(players)     # TypeError unless every seat is named
    except TypeError:
        names = "model="
    if "model=" not in names:
        return _cached_native(rules, tuple(players))
    return _build_native(rules, players)


@functools.lru_cache(maxsize=32)
def _cached_native(rules: Rules, players: tuple[str, ...]) -> _core.NativeGame:
    """game.play is called hand by hand from Python loops: building the configuration was
    most of a random hand's cost there."""
    return _build_native(rules, players)


def _build_native(rules: Rules, players) -> _core.NativeGame:
    codes = []
    # Builtin("ev") or Builtin("search") in a Python seat reads these (ev's row, then search's)
    opts = [searchplayer.player_opts(rules.game)] * 4
    for i, player in enumerate(players):
        if isinstance(player, str):
            name, options = player_options.split_name(player)
            if name not in PLAYERS:
                raise ValueError(f"unknown player {player!r} for seat {i} (expected one of {', '.join(PLAYERS)})")
            code, row = player_options.native_player(rules.game, name, options)
            codes.append(code)
            if row is not None:
                opts[i] = row
        elif isinstance(player, type):
            raise ValueError(f"seat {i}: a Python player is an instance, not the class: pass {player.__name__}(), "
                             f"not {player.__name__}")
        elif all(callable(getattr(player, m, None)) for m in ("turn", "claim", "win")):
            codes.append(player)  # a Python player (mjsim.players.Player protocol)
        else:
            raise ValueError(f"seat {i}: a player is a name ({', '.join(PLAYERS)}) or an object with "
                             f"turn/claim/win methods (mjsim.players.Player), got {player!r}")
    return _core.NativeGame(native.native_config(rules), codes, opts)


def _check_int(name, v, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        raise ValueError(f"{name} must be an integer {lo}..{hi}, got {v!r}")


def _session_state(game, seed: int, hand_index: int, session_hands: int) -> tuple[int, tuple[int, ...]]:
    """Dealer and fire run-lengths before `hand_index`, replaying its session's earlier hands."""
    first = hand_index - hand_index % session_hands
    if first == hand_index:
        return game.first_dealer(seed, first), (0, 0, 0, 0)
    hands = game.simulate(seed, first, hand_index - first + 1, session_hands)[0]
    fire_hands = []
    for s in range(4):
        run = 0
        for on in hands["fire"][:-1, s]:
            run = run + 1 if on else 0
        fire_hands.append(run)
    return int(hands["dealer"][-1]), tuple(fire_hands)


def _event(e) -> Event:
    kind, seat, tile, aux, value = e
    name = EVENT_NAMES[kind]
    t = kind_name(tile) if tile >= 0 else None
    if name == "draw":
        return Event(name, seat, t, replacement=bool(aux))
    if name == "discard":
        return Event(name, seat, t, buzhang=True if aux else None)
    if name == "pass_win":
        return Event(name, seat, t, from_seat=aux if aux >= 0 and t is not None else None)
    if name == "robbed":
        return Event(name, seat, t)
    if name == "indicator":
        return Event(name, tile=t)
    if name == "instant":
        return Event(name, seat, category=_core.CATEGORIES[aux], declared=bool(value))
    if name == "buzhang":
        return Event(name, seat, tiles=format_tiles(_unpack(value, aux), sort=False))  # in drawing order
    if name == "locked":
        return Event(name, seat)
    if name == "bird":
        return Event(name, tile=t, to_seat=seat)
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


class _Memo(dict):
    """raw value -> the immutable object `convert` makes of it, built once.  Most of what a
    hand reports recurs from hand to hand (a draw or a discard is one of 4 seats x 34 kinds
    x 2, a payment one of a few amounts), so play() looks these up instead of building a
    frozen dataclass for each (that was most of log=True's cost).  Sharing is safe: the
    objects are frozen and hold only strings, numbers and frozensets."""

    # amounts and points vary without bound: past LIMIT entries (a few MB), convert every
    # time; 12,000 hands of both games and players, logged, made 3,300 distinct events
    LIMIT = 1 << 14

    def __init__(self, convert):
        super().__init__()
        self.convert = convert

    def __missing__(self, raw):
        value = self.convert(raw)
        if len(self) < self.LIMIT:
            self[raw] = value
        return value


def _payment(raw) -> Payment:
    payer, receiver, amount, reason, pattern = raw
    return Payment(payer, receiver, amount, PAY_REASONS[reason], _core.PATTERNS[pattern] if pattern >= 0 else None)


def _frozen(cls, fields: dict):
    """The frozen dataclass `cls` with `fields` (a new dict of every field, in declaration
    order) as its __dict__, without the generated __init__, whose object.__setattr__ per
    field cost a HandRecord about 6 us; tests/test_play_records.py checks the result equals
    cls(**fields)."""
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", fields)
    return obj


_EVENTS = _Memo(_event)
_PAYMENTS = _Memo(_payment)
_PROPERTIES = _Memo(_core.property_names)
_MELD_PREFIX = tuple(f"{name}:" for name in MELD_NAMES)


def _unpack(value: int, n: int) -> list[int]:
    return [(value >> (5 * i)) & 31 for i in range(n)]


def _win_factors(rules: Rules, pattern: int, props: int, points: int, kind: str, hard: bool,
                 category: int) -> list[tuple[str, int]]:
    """The score's named factors (no birds): their product is `points` unless capped."""
    base = rules["base"]
    out = [("base", base)] if base != 1 else []
    if rules.traits.pattern_values:
        return [(_core.PATTERNS[pattern], points // base)] + out
    if kind == "instant":
        return [("instant", rules["instant_win_score"])] + out
    m = rules["multipliers"]
    names = _core.property_names(props)
    if hard:
        out.append(("yingzhuang", m["yingzhuang"]))
    else:
        out.append(("pinghu", m["pinghu"]))
        if category:
            out.append((_core.CATEGORIES[category], m[_core.CATEGORIES[category]]))
    for name in ("qingyise", "xiaoqidui", "gangshanghua", "qiangganghu", "gangshangpao"):
        if name in names:
            out.append((name, m[name]))
    return out


def play(rules: Rules, seed: int = 0, hand_index: int = 0, players=("greedy",) * 4, log: bool = True,
         session_hands: int = 1, *, dealer: int | None = None, wall=None, dice: int | None = None) -> HandRecord:
    """Play one hand of the rules' game (Wanzai or Anhua) and return everything that happened.

    With `session_hands` > 1 the hand's dealer and fire come from replaying the earlier
    hands of its session, as the simulator does.  `dealer`, `wall` and `dice` are test
    hooks: `dealer` forces the dealer; `wall` is the 136 tiles (kinds 0..33 or a tile
    string) in physical order for the table model (stack i = positions 2i top, 2i+1
    bottom; seat 0's wall starts at stack 0) or in dealing order for the flat model
    (dealer 14, then 13 each in play order, then live draws; replacements from the end).
    """
    game = _native(rules, players)
    _check_int("seed", seed, 0, 2**64 - 1)
    _check_int("hand_index", hand_index, 0, 2**63 - 1)
    _check_int("session_hands", session_hands, 1, 2**31 - 1)
    session_dealer, fire_hands = _session_state(game, seed, hand_index, session_hands)
    if dealer is not None:
        _check_int("dealer", dealer, 0, 3)
        session_dealer = dealer
    if wall is not None:
        wall = _scripted_wall(wall, rules.game)
    if dice is not None:
        if isinstance(dice, bool) or not isinstance(dice, (int, np.integer)) or not 2 <= dice <= 12:
            raise ValueError(f"dice must be a dice sum 2..12, got {dice!r}")
        dice = int(dice)
    if not isinstance(log, (bool, np.bool_)):       # "no" would read as a yes
        raise ValueError(f"log must be True or False, got {log!r}")
    raw = game.play(seed, hand_index, session_dealer, bool(log), wall, dice or 0, fire_hands)
    wins = []
    per_payer = rules.traits.birds     # birds make each payer's amount its own: the native loop's payments
    for (winner, payer, tile, pattern, props, points, received, kind, category, birds_hit, hard, paid), turn \
            in zip(raw["wins"], raw["turns"]):
        kind = WIN_KINDS[kind]
        factors = _win_factors(rules, pattern, props, points, kind, hard, category)
        payments, bird_seats, capped = [], (), None
        if per_payer:
            # (payer, amount, bird factor) as the native loop paid them
            payments = [tuple(p) for p in paid]
            bird_seats = tuple((winner + b % 9) % 4 for b in raw["birds"])
            on_winner = 0 if kind == "instant" else bird_seats.count(winner)
            full = math.prod(v for _, v in factors)
            if rules["score_cap"] and (full > points or any(a < points * f for _, a, f in payments)):
                capped = rules["score_cap"]
            factor = 2 ** on_winner if len(payments) > 1 else payments[0][2]
            if factor > 1 and kind != "instant":
                factors.append(("bird", factor))
        wins.append(_frozen(Win, {
            "winner": winner,
            "payer": None if payer < 0 else payer,
            "tile": kind_name(tile) if tile >= 0 else None,
            "pattern": _core.PATTERNS[pattern],
            "properties": _PROPERTIES[props],
            "points": points,
            "received": received,
            "kind": kind,
            "category": _core.CATEGORIES[category],
            "hard": hard,
            "birds_hit": birds_hit,
            "bird_seats": bird_seats,
            "factors": tuple(factors),
            "capped": capped,
            "payments": tuple(payments),
            "turn": turn,
        }))
    events = tuple(map(_EVENTS.__getitem__, raw["events"]))
    texts = raw["tiles"].split("|")     # NativeGame.play gives their order
    meld_kinds = raw["meld_kinds"]
    meld_texts = list(map(str.__add__, map(_MELD_PREFIX.__getitem__, chain.from_iterable(meld_kinds)), texts[14:]))
    melds, i = [], 0
    for kinds in meld_kinds:
        melds.append(tuple(meld_texts[i:i + len(kinds)]))
        i += len(kinds)
    return _frozen(HandRecord, {
        "dealer": raw["dealer"],
        "dice": raw["dice"],
        "fire": tuple(raw["fire"]),
        "opening": tuple(texts[0:4]),
        "events": events,
        "final": tuple(texts[4:8]),
        "melds": tuple(melds),
        "discards": tuple(texts[8:12]),
        "wall": texts[12],
        "deltas": tuple(raw["deltas"]),
        "wins": tuple(wins),
        "end": END_NAMES[raw["end"]],
        "next_dealer": raw["next_dealer"],
        "draws": raw["draws"],
        "kongs": dict(zip(KONG_NAMES, raw["kongs"])),
        "live_draws": raw["live_draws"],
        "hand_index": hand_index,
        "session_hands": session_hands,
        "wild_indicator": kind_name(raw["indicator"]) if raw["indicator"] >= 0 else None,
        "wilds": tuple(map(kind_name, raw["wilds"])),
        "buzhang": tuple((e.seat, e.tiles) for e in events if e.kind == "buzhang") if raw["buzhangs"] else (),
        "locked": tuple(compress(range(4), raw["locked"])),
        "birds": tuple(map(kind_name, raw["birds"])),
        "set_aside": texts[13],
        "first_dealer": game.first_dealer(seed, hand_index - hand_index % session_hands),
        "claims": tuple(raw["claims"]),
        "payments": tuple(map(_PAYMENTS.__getitem__, raw["payments"])),
    })


def _scripted_wall(wall, game: str = "wanzai") -> list[int]:
    from mjsim.tiles import parse_tiles

    n, n_kinds = traits(game).n_tiles, traits(game).n_kinds
    from mjsim.tiles import check_kind

    kinds = parse_tiles(wall) if isinstance(wall, str) else [check_kind(k) for k in wall]
    if len(kinds) != n:
        raise ValueError(f"a scripted wall needs all {n} tiles, got {len(kinds)}")
    counts = np.bincount(kinds, minlength=n_kinds)
    if len(counts) != n_kinds or (counts != 4).any():
        bad = int(np.flatnonzero(counts != 4)[0])
        raise ValueError(f"a scripted wall needs 4 of each kind; {kind_name(bad)} appears {counts[bad]} times")
    return kinds


def simulate_chunk(rules: Rules, players, seed: int, start: int, count: int,
                   session_hands: int = 1, payments: bool = False) -> tuple[dict, ...]:
    """Hands [start, start+count) in one native loop -> (hands, wins) dicts of numpy arrays,
    or (hands, wins, payments) with `payments=True`.

    `start` must begin a session (a multiple of `session_hands`).

    hands, one row per hand: hand_index, session, hand_in_session, dealer, dice (sum),
    wild_indicator (-1 none), end (0 draw, 1 win), draws (live tiles drawn after the deal),
    wall_left, n_winners, kongs_exposed, kongs_added, kongs_concealed, delta_0..3 (int64:
    net score per seat, kong payments included), fire_0..3, piao_0..3, claims_0..3 (int16:
    the pungs, chows and exposed kongs that seat made from other seats' discards).

    wins, one row per win: hand_index, winner, discarder (-1 self-draw), win_kind (index
    into WIN_KINDS), pattern (into mjsim.PATTERNS), props (bit i = mjsim.PROPERTIES[i]; those
    of the reading the win is scored by, see Win),
    category, points, birds_hit, received (int64), turn (int16: the number of discards the
    winner had made in the hand before the win, plus 1; 補章 discards count; 1 for a win
    before any discard of its own, such as the dealer's opening hand or the special start).

    payments, one row per payment in the order made: hand_index (int64), payer, receiver
    (int8 seats), amount (int64, > 0 except a zero-valued rule), reason (int8, index into
    PAY_REASONS), pattern (int16, index into mjsim.PATTERNS of the win paid for; -1 for kong
    payments and their refunds).  A `kong_pay_on_draw = false` refund is each kong payment
    reversed (payer and receiver swapped, same amount, reason "kong_refund"); the Anhua
    special start pays with reason "instant" (pattern pinghu, 特殊平胡).  For every hand and
    seat, received - paid == delta_s.
    """
    game = _native(rules, players)
    _check_int("seed", seed, 0, 2**64 - 1)
    _check_int("session_hands", session_hands, 1, 2**31 - 1)
    _check_int("start", start, 0, 2**62)
    _check_int("count", count, 0, 2**31 - 1)
    if start % session_hands:
        raise ValueError(f"start {start} must be a multiple of session_hands {session_hands}: a chunk never splits a session")
    if not isinstance(payments, (bool, np.bool_)):
        raise ValueError(f"payments must be True or False, got {payments!r}")
    out = game.simulate(seed, start, count, session_hands, bool(payments))
    raw, wins = out[0], out[1]
    hands = {k: v for k, v in raw.items() if k not in ("deltas", "fire", "claims")}
    piao = rules.get("piao", [0, 0, 0, 0])
    for s in range(4):
        hands[f"delta_{s}"] = raw["deltas"][:, s].copy()
        hands[f"fire_{s}"] = raw["fire"][:, s].copy()
        hands[f"piao_{s}"] = np.full(count, piao[s], np.int8)
        hands[f"claims_{s}"] = raw["claims"][:, s].copy()
    if payments:
        return hands, wins, out[2]
    return hands, wins


def chunk_digest(rules: Rules, players, seed: int, start: int, count: int,
                 session_hands: int = 1) -> str:
    """sha256 (hex) of every array simulate_chunk returns, payments included: two builds, machines
    or versions that give the same digest played every hand of the range identically."""
    h = hashlib.sha256()
    for table in simulate_chunk(rules, players, seed, start, count, session_hands, payments=True):
        for name in sorted(table):
            column = np.ascontiguousarray(table[name])
            h.update(f"{name}:{column.dtype.str}:{column.shape}".encode())
            h.update(column.tobytes())
    return h.hexdigest()


def simulate_hands(rules: Rules, seed: int, start: int, count: int, players=("greedy",) * 4,
                   session_hands: int = 1) -> dict[str, np.ndarray]:
    """The hands table of simulate_chunk (for benchmarks and quick looks)."""
    return simulate_chunk(rules, players, seed, start, count, session_hands)[0]
