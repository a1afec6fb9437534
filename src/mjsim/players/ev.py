"""Options of the expected-value player `ev` and the numbers its native code reads.

A player is named `ev` or `ev:key=value,key=value` (e.g. `ev:fold=0.5,claim=1.5`):

Defaults are per game where the model file says so (its `style` block, tuned in the
duplicate arena: Wanzai fold 0.2, race 0.8, claim 0.9, value 0.7, mix 0.6; Anhua claim
0.75); an
option given always wins.  The ranges and plain defaults are below.

- `fold`  (default 1, 0..10; Wanzai style 0.2): weight of the danger term.  0 (with `race`
  0) never defends; 2 fears a deal-in twice as much as the model says, so it folds earlier.
- `race` (default 0 unless the model's style says otherwise, 0..10; Wanzai style 0.8): added
  to `fold` per unit of the opponents' summed tenpai chance (as the danger model estimates
  each).  The win model prices a hand as if it played alone; with more seats ready it is
  less likely to win the race, so pushing is worth less against a deal-in.  0 as ev_v1.
- `claim` (default 1, 0..10): a pung, chow or kong is taken when the EV after it times
  `claim` beats the EV without it; above 1 it claims more readily, 0 never claims.
- `value` (default 1, 0..4): how strongly it chases value.  Each hand form's worth relative
  to the standard form is raised to this power: 0 treats every form as worth the same,
  1 uses the rules' values, 2 exaggerates them.
- `mix`   (default 0, 0..1): weight of a hand's other forms next to its best one.
- `threat` (default 0 unless the model's style says otherwise, 0..2): how much of what an
  opponent's melds show enters the loss of dealing into it: two or more melds all in one
  suit point to 清一色, all pungs to 大七對, and the loss is that hand's discard value
  instead of a 平胡's (0: a 平胡's whatever the opponent shows, as ev_v1).
- `stretch` (default 0 unless the model's style says otherwise, 0..1): a Wanzai claim that
  costs one shanten is weighed too when it builds toward 大七對 (a pung or kong, no chow
  shown) or 清一色 (a meld in the hand's lead suit), its EV times `stretch` (0: such
  claims are never taken, as ev_v1).
- `kong` (default 0 unless the model's style says otherwise, -10..10): an amount in units of
  base added to the EV of a Wanzai kong beside the payment it earns (the replacement draw
  the win model does not see); 0 as ev_v1.
- `passed` (default 0 unless the model's style says otherwise, 0 or 1): 1 treats a kind an
  opponent has let pass since its own last discard (the previous seat's discard just
  drawn after, or the tile just punged) as safe against that opponent: its hand has not changed, and a
  ready seat takes every win or is locked by pass_ron_lock.
- `keep` (default 0 unless the model's style says otherwise, 0..1): facing a threat, a
  discard that costs shanten (a folding one) is valued at `keep` times the EV of the hand
  it leaves, so that among safe tiles the one keeping most of the hand is chosen; 0 values
  it at 0 (only its danger counts), as ev_v1.
- `hold` (default 0, 0..10; 0 in the shipped style, since RULES §1 says default policies
  always take a legal win; it was Wanzai style 1.1 until 2026-12-06): a
  Wanzai win on a discard is passed when the ready hand's own EV (its chance to win and
  what it pays, self-draws included) is more than `hold` times what the win brings now.  A
  discard win is paid by one seat, a self-draw by all three, so a ready 十三爛 or 七小對
  with many live waits is worth more kept; the lock that follows a pass (pass_ron_lock)
  is what the margin pays for.  0 takes every win, as ev_v1.  Anhua wins are always taken.
- `start` (default 0, 0 or 1; ev_v1's style 1): 1 declares the Anhua special start only when
  its sure payment is worth at least the hand's EV; 0 declares it whenever it may (RULES §1).
- `kongs` (default 0 unless the model's style says otherwise, 0..10; Wanzai style 0.25): the
  weight, in a Wanzai hand's EV, of the concealed kongs it may still make: a concealed
  triplet whose last copy nobody has shown is worth a concealed kong's payment times the
  chance of drawing that copy (this seat's draws left, a quarter of the live wall, over the
  tiles it cannot see).  Kongs are paid whether or not the hand wins.  0 as ev_v1.
- `model` (default: the shipped model): a JSON file written by `mjsim fit-ev`, whose entry
  for the game replaces the shipped win-probability and danger numbers.

`player_opts` lays these out as the native GameConfig.player_opts row (see _ev.pxd).
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from pathlib import Path

N_PLAYER_OPTS = 89          # GameConfig.player_opts row length (core/_state.pxd; tests/test_native_vocab.py ties them)
OPT_FOLD, OPT_CLAIM, OPT_VALUE, OPT_SELF_SHARE, OPT_LOSS, OPT_MIX, OPT_DANGER, OPT_THREAT = 0, 1, 2, 3, 4, 5, 6, 7
OPT_WIN, N_WIN_D, OPT_WIN_SELF_ONLY, OPT_STRETCH, OPT_TENPAI, OPT_WAIT, N_WAIT = 8, 6, 26, 27, 28, 32, 20
OPT_TENPAI_HI, N_TEN_F, N_WAIT_F = 60, 8, 20     # danger model 1 (see _ev.pxd)
# hand forms in the native order (_ev.pyx F_*); the standard form is the base win model and
# 全求人 shares it, the others map its logit through (intercept, slope) at OPT_FORM + 2 i
FORMS = ("standard", "pairs", "shisanlan", "qingyise", "daqidui", "quanqiuren")
OPT_FORM, FITTED_FORMS = 52, ("pairs", "shisanlan", "qingyise", "daqidui")
OPT_KONG, OPT_PASSED, OPT_WAIT_CLASS, OPT_KEEP = 72, 73, 74, 77  # wait_class: 3 danger multipliers (_ev.pxd)
OPT_HOLD, OPT_KONGS, OPT_RACE, OPT_START = 84, 85, 86, 87

STYLE = {"fold": (1.0, 0.0, 10.0), "claim": (1.0, 0.0, 10.0), "value": (1.0, 0.0, 4.0),
         "mix": (0.0, 0.0, 1.0), "threat": (0.0, 0.0, 2.0), "stretch": (0.0, 0.0, 1.0),
         "kong": (0.0, -10.0, 10.0), "passed": (0.0, 0.0, 1.0),
         "keep": (0.0, 0.0, 1.0), "hold": (0.0, 0.0, 10.0), "kongs": (0.0, 0.0, 10.0),
         "race": (0.0, 0.0, 10.0), "start": (0.0, 0.0, 1.0)}
KEYS = tuple(STYLE) + ("model",)
MODEL_FIELDS = ("self_share", "loss", "win", "self_only", "tenpai", "wait", "forms")
#: what else an entry may hold: tuned parts, the danger model's form, and free-form notes
MODEL_EXTRAS = ("style", "form_shift", "danger_model", "wait_class", "note", "fitted_on", "danger_fitted_on")


#: the ev players: `ev`, and `ev_v1`, ev as shipped before issue 19 (its model file, the
#: same native code with the new options at 0), kept as greedy_v1 is, to measure against
EV_NAMES = ("ev", "ev_v1")
#: each one's shipped model file (in mjsim/data)
MODEL_FILES = {"ev": "data/ev_model.json", "ev_v1": "data/ev_v1_model.json"}


class PlayerOptionError(ValueError):
    """A player name or option that cannot be used (the message names it)."""


@lru_cache(maxsize=16)
def _read_model(path: str | None, player: str = "ev") -> dict:
    if path is None:
        text = resources.files("mjsim").joinpath(MODEL_FILES[player]).read_text(encoding="utf-8")
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except IsADirectoryError:
            raise PlayerOptionError(f"model file {path!r}: is a directory, not a file") from None
        except UnicodeDecodeError as e:
            raise PlayerOptionError(f"model file {path!r}: not UTF-8 text ({e.reason} at byte {e.start})") from None
        except OSError as e:
            raise PlayerOptionError(f"model file {path!r}: {e.strerror or e}") from None
    try:
        return json.loads(text)
    except ValueError as e:
        raise PlayerOptionError(f"model file {path!r}: not JSON: {e}") from None


def load_model(game: str, path: str | None = None, player: str = "ev") -> dict:
    """The win-probability and danger numbers for `game` (by default the ones shipped for
    `player`, ev or ev_v1), checked: PlayerOptionError naming the file and the key."""
    data = _read_model(path, player)
    where = path or "shipped"
    if not isinstance(data, dict):
        raise PlayerOptionError(f"model file {where!r}: must hold a JSON object (game -> model), "
                                f"got {type(data).__name__}")
    from mjsim.vocab import GAMES

    unknown = [g for g in data if g not in GAMES]
    if unknown:      # a misspelt game would otherwise be ignored
        raise PlayerOptionError(f"model file {where!r}: unknown game {unknown[0]!r} "
                                f"(expected {' or '.join(GAMES)})")
    if game not in data:
        raise PlayerOptionError(f"model file {where!r} has no entry for {game!r}")
    problem = _model_problem(game, data[game])
    if problem:
        raise PlayerOptionError(f"model file {where!r}: {problem}")
    return data[game]


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _model_problem(game: str, model) -> str | None:
    """What is wrong with a model entry (naming the key), or None.  Beside MODEL_FIELDS an
    entry may hold MODEL_EXTRAS and nothing else."""
    if not isinstance(model, dict):
        return f"{game!r} must be an object of model fields, got {json.dumps(model)}"
    missing = [f for f in MODEL_FIELDS if f not in model]
    if missing:
        return f"{game} lacks {', '.join(missing)}"
    unknown = [k for k in model if k not in MODEL_FIELDS + MODEL_EXTRAS]
    if unknown:      # a misspelt optional key (wait_class, form_shift) would silently do nothing
        return f"{game} has unknown key {unknown[0]!r} (expected {', '.join(MODEL_FIELDS + MODEL_EXTRAS)})"

    def number(key, x, lo=-math.inf, hi=math.inf, low_open=False):
        if not _finite(x) or not lo <= x <= hi or (low_open and x == lo):
            where = "" if lo == -math.inf else f" in ({lo:g}, {hi:g}]" if low_open else f" {lo:g}..{hi:g}"
            return f"{game}.{key} must be a finite number{where}, got {json.dumps(x)}"
        return None

    def numbers(key, xs, n, what=None, **bounds):
        if not isinstance(xs, list) or len(xs) != n:
            return f"{game}.{key} must be {what or f'a list of {n} numbers'}, got {json.dumps(xs)}"
        return next(filter(None, (number(f"{key}[{i}]", x, **bounds) for i, x in enumerate(xs))), None)

    def table(key, names):
        value = model.get(key, {})
        if not isinstance(value, dict):
            return f"{game}.{key} must be an object, got {json.dumps(value)}"
        unknown = [k for k in value if k not in names]
        if unknown:
            return f"{game}.{key} has unknown key {unknown[0]!r} (expected {', '.join(names)})"
        return None

    danger = model.get("danger_model", 0)
    if isinstance(danger, bool) or danger not in (0, 1):
        return f"{game}.danger_model must be 0 or 1, got {json.dumps(danger)}"
    n_tenpai, n_wait = (N_TEN_F, N_WAIT_F) if danger == 1 else (3, N_WAIT)
    rows = model["win"]
    form_names = ("standard",) + FITTED_FORMS
    problems = [
        number("self_share", model["self_share"], 0.0, 1.0),
        number("loss", model["loss"]),
        number("self_only", model["self_only"]),
        None if isinstance(rows, list) and len(rows) == N_WIN_D else
        f"{game}.win must be {N_WIN_D} rows of 3 numbers, got {json.dumps(rows)}",
        *(numbers(f"win[{d}]", w, 3) for d, w in enumerate(rows if isinstance(rows, list) else [])),
        numbers("tenpai", model["tenpai"], n_tenpai, f"a list of {n_tenpai} numbers for danger model {danger}"),
        numbers("wait", model["wait"], n_wait, f"a list of {n_wait} numbers for danger model {danger}"),
        None if model.get("wait_class") is None else
        numbers("wait_class", model["wait_class"], 3, "3 danger multipliers (ranks 4-6, 3/7, 2/8)",
                lo=0.0, hi=10.0, low_open=True),
        table("style", tuple(STYLE)),
        table("forms", form_names),
        table("form_shift", form_names),
    ]
    problem = next(filter(None, problems), None)
    if problem:
        return problem
    for key, value in model.get("style", {}).items():
        _, lo, hi = STYLE[key]
        problem = number(f"style.{key}", value, lo, hi)
        if problem:
            return problem
    for name, pair in model["forms"].items():
        problem = numbers(f"forms.{name}", pair, 2, "[intercept, slope]")
        if problem:
            return problem
    for name, shift in model.get("form_shift", {}).items():
        problem = number(f"form_shift.{name}", shift)
        if problem:
            return problem
    if list(model["forms"].get("standard", (0.0, 1.0))) != [0.0, 1.0] or model.get("form_shift", {}).get(
            "standard", 0.0) != 0.0:
        return f"{game}.forms: the standard form is the base win model, its 'forms' entry must be [0, 1] with no shift"
    return None


def player_opts(game: str, options: dict | None = None, player: str = "ev") -> list[float]:
    """The native options row of an ev (or ev_v1) seat (defaults where `options` is silent)."""
    options = options or {}
    model = load_model(game, options.get("model"), player)
    row = [0.0] * N_PLAYER_OPTS
    style = model.get("style", {})   # per-game defaults tuned in the arena
    for key, idx in (("fold", OPT_FOLD), ("claim", OPT_CLAIM), ("value", OPT_VALUE), ("mix", OPT_MIX),
                     ("threat", OPT_THREAT), ("stretch", OPT_STRETCH), ("kong", OPT_KONG),
                     ("passed", OPT_PASSED), ("keep", OPT_KEEP), ("hold", OPT_HOLD), ("kongs", OPT_KONGS),
                     ("race", OPT_RACE), ("start", OPT_START)):
        row[idx] = float(options.get(key, style.get(key, STYLE[key][0])))
    row[OPT_SELF_SHARE] = float(model["self_share"])
    row[OPT_LOSS] = float(model["loss"])
    for d, w in enumerate(model["win"]):
        row[OPT_WIN + 3 * d: OPT_WIN + 3 * d + 3] = [float(x) for x in w]
    row[OPT_WIN_SELF_ONLY] = float(model["self_only"])
    tenpai, wait = model["tenpai"], model["wait"]
    if model.get("danger_model", 0) == 1:   # feature logistics: tenpai (N_TEN_F coefficients), wait (N_WAIT_F)
        row[OPT_DANGER] = 1.0
        row[OPT_TENPAI: OPT_TENPAI + 4] = [float(x) for x in tenpai[:4]]
        row[OPT_TENPAI_HI: OPT_TENPAI_HI + 4] = [float(x) for x in tenpai[4:]]
    else:               # danger model 0: counts logistic and the 20-cell wait table
        row[OPT_TENPAI: OPT_TENPAI + 3] = [float(x) for x in tenpai]
    row[OPT_WAIT: OPT_WAIT + len(wait)] = [float(x) for x in wait]
    wait_class = model.get("wait_class")     # optional: absent keeps the danger unscaled
    if wait_class is not None:
        row[OPT_WAIT_CLASS: OPT_WAIT_CLASS + 3] = [float(x) for x in wait_class]
    forms, shift = model["forms"], model.get("form_shift", {})
    for i, f in enumerate(FITTED_FORMS):
        # a form the model file does not name (an older fit) gets the standard form's numbers
        intercept, slope = forms.get(f, (0.0, 1.0))
        intercept += shift.get(f, 0.0)
        row[OPT_FORM + 2 * i: OPT_FORM + 2 * i + 2] = [float(intercept), float(slope)]
    return row
