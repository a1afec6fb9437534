"""Options of the search player `search` and the numbers its native code reads (_search.pxd).

A player is named `search` or `search:key=value,...` (e.g. `search:samples=32,rollout=greedy`).
It takes ev's options too (`fold`, `claim`, `value`, `mix`, `model`): they set the ev that
plays its uncontested turns and claims and its wins.  Its own:

- `samples` (default 512, 0..4096): samples of the hidden tiles per searched turn (0: plays
  as ev throughout).
- `rollout` (default greedy in Wanzai, ev in Anhua): the player of every seat in a rollout
  (greedy costs a tenth of ev; in Wanzai many samples beat better but fewer rollouts, in
  Anhua ev's rollouts earn more: see the docs).
- `own` (default rollout in Wanzai, ev in Anhua; ev, greedy or rollout): the player of the
  search seat itself in its rollouts, when it should differ from the others' (ev folds
  and builds its patterns on its later turns too).
- `width`   (default 5, 2..20): most candidate actions searched; ev's choice is always one,
  then any kong, then the discards that keep the hand nearest ready.
- `melds`   (default 0, 0..4): a turn is searched when an opponent shows this many melds
  (or an Anhua hand is locked); 0 searches every turn ... (named `threat` before it was
  found to set ev's own `threat` option too)
- `near`    (default 1, -1..8): ... or when this seat's best discard leaves it at most this
  shanten (-1: never for that reason).
- `close`   (default -1: off, -1..10): ... or when ev itself finds the turn close: its
  second-best discard scores within this share of its best (0.1: within 10% of |best|).
  The issue's second reading of "contested" (candidates within a margin); it matters only
  with `melds` above 0, as `melds=0` already searches every turn.
- `read`    (default 1, 0..1) and `steps` (default 64, 0..1000): the opponent model.  With
  chance `read` an opponent's uniformly drawn hand is improved, by at most `steps` tile
  swaps that never raise its shanten, to a shanten drawn from how ready seats showing its
  melds and discards were in 4 x ev self-play (bench/fit_search_readiness.py); read 0
  samples uniformly.
- `margin`  (default 2, 0..100): ev's choice is left only when the mean paired gain of the
  best candidate over it is this many standard errors above zero (0: for any gain).
- `guard`   (default 0, -1..10): a discard may replace ev's choice only when ev's own
  deal-in risk for it is at most that of ev's choice plus `guard` (-1: no guard).
- `calls`   (default 1, 0 or 1): 1 searches the claims too (pass, pung, kong or chow, when
  contested as a turn is); 0 claims as ev does.
- `order`   (default 0, 0 or 1): which discards are searched beside ev's choice: 1 those
  ev itself scores best; 0 those that keep the hand nearest ready (ascending kind among
  equals).
- `wins`    (default 1 in Wanzai, 0 in Anhua): 1 searches a win on a discard too: passing it (to
  self-draw it, or win bigger later) against taking it; 0 takes it as ev does.
- `peek`    (default 0, 0..2): a diagnostic that cheats.  1 keeps the other seats' true
  concealed hands in every sample (only the wall is dealt afresh): the edge it reaches
  bounds what a better opponent model could gain.  2 reads only how ready each seat truly
  is: its fresh hand climbs (at most `steps` swaps) to the true shanten.  Never a player to
  report.

See docs/players/search.md.
"""
from __future__ import annotations

import math

from mjsim import vocab
from mjsim.players import ev as evplayer

N_PLAYER_OPTS = evplayer.N_PLAYER_OPTS   # one row of GameConfig.player_opts (core/_state.pxd)
OPT_S_SAMPLES, OPT_S_ROLLOUT, OPT_S_WIDTH, OPT_S_MELDS = 64, 65, 66, 67
OPT_S_NEAR, OPT_S_READ, OPT_S_STEPS, OPT_S_MARGIN = 68, 69, 70, 71
OPT_S_OWN, OPT_S_GUARD, OPT_S_CALLS, OPT_S_ORDER, OPT_S_WINS, OPT_S_PEEK = 78, 79, 80, 81, 82, 83   # after ev's 72..77 (_ev.pxd)
OPT_S_CLOSE = 88                                                                                   # after ev's 84..87
ROLLOUT_CODES = {name: vocab.PLAYERS.index(name) for name in ("ev", "greedy")}   # native player codes

#: numeric options: (default, lo, hi, integer?)
NUMERIC = {"samples": (512, 0, 4096, True), "width": (5, 2, 20, True), "melds": (0, 0, 4, True),
           "near": (1, -1, 8, True), "read": (1.0, 0.0, 1.0, False), "steps": (64, 0, 1000, True),
           "margin": (2.0, 0.0, 100.0, False), "guard": (0.0, -1.0, 10.0, False), "calls": (1, 0, 1, True),
           "order": (0, 0, 1, True), "wins": (0, 0, 1, True), "peek": (0, 0, 2, True),
           "close": (-1.0, -1.0, 10.0, False)}
DEFAULTS = {**{k: v[0] for k, v in NUMERIC.items()}, "rollout": "greedy", "own": "rollout"}
#: where a game's default differs (docs/players/search.md, measured on seeds 0-5): in Anhua,
#: greedy rollouts misjudge the candidates (ev as every seat's rollout player: +0.045 per
#: seat-hand), and Anhua's ev is cheap enough for it (0.27 s per hand); in Wanzai, weighing
#: the wins on a discard gained on every seed (+0.009), in Anhua nothing
GAME_DEFAULTS = {"wanzai": {"wins": 1}, "anhua": {"rollout": "ev", "own": "ev"}}
KEYS = ("samples", "rollout", "own", "width", "melds", "near", "read", "steps", "margin", "guard", "calls", "order", "wins", "peek",
        "close")
PLAYER_KEYS = ("rollout", "own")     # options naming a rollout player
SLOTS = {"samples": OPT_S_SAMPLES, "width": OPT_S_WIDTH, "melds": OPT_S_MELDS,
         "near": OPT_S_NEAR, "read": OPT_S_READ, "steps": OPT_S_STEPS, "margin": OPT_S_MARGIN,
         "guard": OPT_S_GUARD, "calls": OPT_S_CALLS, "order": OPT_S_ORDER,
         "wins": OPT_S_WINS, "peek": OPT_S_PEEK, "close": OPT_S_CLOSE}


def parse_option(name: str, key: str, value: str):
    """One search option's value from text; PlayerOptionError naming what is wrong."""
    if key in PLAYER_KEYS:
        allowed = tuple(ROLLOUT_CODES) + (("rollout",) if key == "own" else ())
        if value not in allowed:
            raise evplayer.PlayerOptionError(
                f"player {name!r}: {key} must be one of {', '.join(allowed)}, got {value!r}")
        return value
    _, lo, hi, integer = NUMERIC[key]
    try:
        v = float(value)
    except ValueError:
        v = math.nan
    if not lo <= v <= hi or (integer and not v.is_integer()):
        kind = "an integer" if integer else "a number"
        raise evplayer.PlayerOptionError(f"player {name!r}: {key} must be {kind} {lo:g}..{hi:g}, got {value!r}")
    return int(v) if integer else v


def _with_defaults(game: str, options: dict | None) -> dict:
    """Every option of a search seat: the given ones over the game's defaults."""
    return {**DEFAULTS, **GAME_DEFAULTS.get(game, {}), **(options or {})}


#: CPU seconds per hand of one search seat, measured with one process (docs/players/search.md):
#: Wanzai 0.11 s at 512 samples with greedy rollouts. ev in every seat of a rollout costs
#: about 8 times that in Wanzai (0.88 s) and 2.3 times in Anhua (0.26 s); ev as the search
#: seat's own rollout player only, about 2.5 times in Wanzai (0.28 s) and 1.5 in Anhua.
#: These numbers decide a search run's default chunk, which its manifest records: changing
#: them changes the default, and resuming a run made before then needs its --chunk (the
#: refusal says which).
SECONDS_AT_DEFAULTS = 0.11
EV_ROLLOUT_FACTOR = {"wanzai": 8.0, "anhua": 2.3}
OWN_EV_FACTOR = {"wanzai": 2.5, "anhua": 1.5}


def seconds_per_hand(game: str, options: dict | None = None) -> float:
    """A rough CPU cost of one search seat per hand: what sizes a run's chunks, so that
    Ctrl-C, progress and a resume never wait on, or lose, more than a few seconds of work.
    It grows with the samples, the candidates and the rollout players. It is an upper bound
    when fewer turns are searched (`melds`, `near`, `close`, `calls=0`)."""
    options = _with_defaults(game, options)
    if options["samples"] == 0:
        return 0.0
    if options["rollout"] == "ev":
        factor = EV_ROLLOUT_FACTOR.get(game, 8.0)
    elif options["own"] == "ev":
        factor = OWN_EV_FACTOR.get(game, 2.5)
    else:
        factor = 1.0
    return SECONDS_AT_DEFAULTS * options["samples"] / 512 * options["width"] / 5 * factor


def player_opts(game: str, options: dict | None = None) -> list[float]:
    """The native options row of a search seat: ev's row, then the search numbers."""
    options = _with_defaults(game, options)
    ev_options = {k: v for k, v in options.items() if k in evplayer.KEYS}
    row = evplayer.player_opts(game, ev_options)
    row = row + [0.0] * (N_PLAYER_OPTS - len(row))
    for key, slot in SLOTS.items():
        row[slot] = float(options[key])
    row[OPT_S_ROLLOUT] = float(ROLLOUT_CODES[options["rollout"]])
    own = options["own"]
    row[OPT_S_OWN] = -1.0 if own == "rollout" else float(ROLLOUT_CODES[own])
    return row
