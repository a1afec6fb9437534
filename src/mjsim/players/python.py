"""Writing your own player in Python.

Subclass `Player` and pass instances in `players=` of `mjsim.play.game.play` and
`simulate_chunk` (a run, a sweep or an arena takes player names only). The native hand loop asks the object every decision
its seat makes, through the GIL, so a Python player is far slower than the built-ins
(expect thousands rather than hundreds of thousands of decisions per second).

Each method receives a `TableView` of the live hand, valid only during the call:
`view.seat`, `view.dealer`, `view.hand` (34 counts), `view.melds` (per seat), `view.discards`
(per seat), `view.seen` (visible copies per kind), `view.wall_left`, `view.scores`, `view.passed_wins`
(discard wins this seat has let pass in this hand, which the pass_ron_lock rule follows),
`view.shanten()` (wilds as wilds), `view.drawn` (on a turn: the tile just drawn), and
`view.builtin(name)`: the answer the built-in player `name` gives to the pending question,
with the same effect on the hand's random stream. `name` is a player as `--players` takes
it ("random", "greedy", "greedy_v1", "ev", "ev_v1", "search", and with options
"ev:fold=1" or "search:samples=64"), so `Builtin("greedy")` plays exactly like the native
"greedy" and `Builtin("ev_v1")` like "ev_v1".

Anhua (RULES §3) adds `view.wild_indicator` (the turned-up kind), `view.wilds` (the two
wild kinds) and `view.locked` (per seat, locked after a 補章).  Its decisions use the same
three methods: the options only ever list legal kongs (tenpai before and after, enough
wall); a locked hand's turn options are its kongs and ("discard", view.drawn); the special
start is offered as `win(view, None, "instant")` (True declares; a seat that passes is
never asked again), and a 補章 win as kind "gangshanghua", a win on a 補章 discard as
"gangshangpao".
"""
from __future__ import annotations

import functools


class Player:
    """Override any of the three decisions; the defaults play like the built-in greedy."""

    def turn(self, view, options):
        """Own turn with 3n+2 tiles. `options` lists ("discard", kind), ("concealed_kong",
        kind) and ("added_kong", kind) tuples; return one of them."""
        return view.builtin("greedy")

    def claim(self, view, tile, options):
        """Another seat discarded `tile`. `options` lists ("pung",), ("kong",) and
        ("chow", a, b) (a, b: the kinds taken from hand); return an index or None to pass."""
        return view.builtin("greedy")

    def win(self, view, tile, kind):
        """A legal win on `tile` (kind "self_draw", "discard", "rob_kong", "gangshanghua",
        "gangshangpao", or "instant" with tile None: declare the Anhua special start): take it?
        True or False (a numpy bool too); any other answer stops the hand with a ValueError."""
        return True


def builtin_row(game: str, name) -> tuple[int, tuple[float, ...] | None]:
    """What `view.builtin(name)` asks: (the native player code, the options row it plays
    with, or None for the seat's own row: the defaults). `name` is a player as `--players`
    takes it: "greedy", "ev_v1", "ev:fold=1", "search:samples=64"; PlayerOptionError or
    ValueError names what is wrong. Cached (a Python player asks every decision), except
    with a model file, which may change between calls."""
    if isinstance(name, str) and "model=" not in name:
        return _cached_builtin_row(game, name)
    return _builtin_row(game, name)


@functools.lru_cache(maxsize=64)
def _cached_builtin_row(game: str, name: str) -> tuple[int, tuple[float, ...] | None]:
    return _builtin_row(game, name)


def _builtin_row(game: str, name) -> tuple[int, tuple[float, ...] | None]:
    from mjsim import vocab
    from mjsim.players import ev as evplayer
    from mjsim.players import options as player_options

    if not isinstance(name, str):
        raise ValueError(f"view.builtin: a player name is a string, got {name!r}")
    base, options = player_options.split_name(name)
    if base not in (*vocab.PLAYERS, *evplayer.EV_NAMES):
        known = ", ".join((*vocab.PLAYERS, *evplayer.EV_NAMES[1:]))
        raise ValueError(f"view.builtin: unknown built-in player {base!r} (built-ins: {known})")
    code, row = player_options.native_player(game, base, options)
    return code, None if row is None else tuple(row)


class Builtin(Player):
    """A built-in player expressed through the Python protocol (used to test it)."""

    def __init__(self, name: str):
        self.name = name

    def turn(self, view, options):
        return view.builtin(self.name)

    def claim(self, view, tile, options):
        return view.builtin(self.name)

    def win(self, view, tile, kind):
        return view.builtin(self.name)

    def __repr__(self) -> str:
        return f"Builtin({self.name!r})"
