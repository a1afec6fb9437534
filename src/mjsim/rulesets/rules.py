"""Rule sets: load, validate and override the rule parameters of RULES.md.

A rule set is one of the shipped TOML files (``rulesets/wanzai.toml``, ``rulesets/anhua.toml``,
which hold every parameter with its default) or a user TOML file that names its game
(``rules = "wanzai"``) and gives only the keys it changes; missing keys, and missing ids
inside tables, take that game's shipped defaults. Single keys can be overridden from
Python (``Rules.load("anhua", birds=2)``, ``**{"values.pinghu": [3, 1]}``) or from the
command line (``parse_override("birds=2")``).

The result is an immutable, hashable :class:`Rules`. Its ``hash`` (sha256 of the canonical
JSON of the parameters) and ``variant`` name identify the rule set in output partitions.

All checks are driven by one declarative schema per game (``SCHEMA``), built from shared
entries; every failure raises :class:`RulesError` naming the source and the dotted key.
"""
from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import json
import math
import numbers
import os
import re
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

from mjsim.rulesets.traits import TRAITS, GameTraits
from mjsim.vocab import CATEGORY_NAMES, GAMES, KONG_NAMES, N_WANZAI_PATTERNS, PATTERNS

__all__ = [
    "ANHUA_MULTIPLIER_IDS",
    "KONG_VALUE_IDS",
    "SCHEMA",
    "SHIPPED",
    "WANZAI_VALUE_IDS",
    "WILD_CATEGORIES",
    "Rules",
    "RulesError",
    "command_line_overrides",
    "parse_override",
    "split_entry",
]

SHIPPED = GAMES

#: Wanzai hand ids (RULES.md §2.2-2.3), in table order.
WANZAI_VALUE_IDS = PATTERNS[:N_WANZAI_PATTERNS]

#: Wanzai kong payment kinds (RULES.md §2.4).
KONG_VALUE_IDS = KONG_NAMES

#: Anhua wild categories (RULES.md §3.1), smallest first.
WILD_CATEGORIES = CATEGORY_NAMES[1:]

#: Anhua score factors (RULES.md §3.2).
ANHUA_MULTIPLIER_IDS = (
    "yingzhuang",
    "pinghu",
    *WILD_CATEGORIES,
    "qingyise",
    "xiaoqidui",
    "gangshanghua",
    "qiangganghu",
    "gangshangpao",
)

_RULES_DIR = Path(__file__).resolve().parent          # the shipped wanzai.toml, anhua.toml
_OVERRIDE = "override"


class RulesError(ValueError):
    """A rules file, rule name or override that is not valid.

    The message names the source (a file path, ``"wanzai (shipped)"``, ``"override"``, ...)
    and the dotted key; ``source`` and ``key`` hold them for programs (``key`` may be None).
    """

    def __init__(self, message: str, source: str | None = None, key: str | None = None):
        super().__init__(message)
        self.source = source
        self.key = key


# --------------------------------------------------------------------------------------
# Schema: one declarative table per game, built from shared entries.
# A spec checks one value and returns it normalised (lists for sequences, dicts for tables).


class _Bad(Exception):
    """Raised by a spec: `key` is the dotted key of the offending value, `msg` the reason."""

    def __init__(self, key: str, msg: str):
        super().__init__(msg)
        self.key = key
        self.msg = msg


def _toml_literal(value: Any) -> str:
    """A short TOML-like rendering of a value, for error messages and to_toml."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_literal(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return f"a {type(value).__name__}"


def _got(value: Any, with_kind: bool) -> str:
    text = _toml_literal(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({_kind(value)})" if with_kind else text


def _range_text(lo: float | None, hi: float | None) -> str:
    if hi is None:
        return f" >= {lo}" if lo is not None else ""
    return f" {lo}..{hi}"


class _Spec:
    desc = "a value"  # singular, with article: "an integer 0..10"
    plural = "values"  # for list descriptions: "a list of 4 integers 0..2"

    def check(self, value: Any, key: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def fail(self, value: Any, key: str, with_kind: bool) -> _Bad:
        return _Bad(key, f"expected {self.desc}, got {_got(value, with_kind)}")


class _Bool(_Spec):
    desc, plural = "a boolean (true or false)", "booleans"

    def check(self, value, key):
        if not isinstance(value, bool):
            raise self.fail(value, key, True)
        return value


class _Int(_Spec):
    def __init__(self, lo: int = 0, hi: int | None = None):
        self.lo, self.hi = lo, hi
        rng = _range_text(lo, hi)
        self.desc, self.plural = f"an integer{rng}", f"integers{rng}"

    def check(self, value, key):
        # bool is not an int here; a numpy integer is (stored as int)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise self.fail(value, key, True)
        value = int(value)
        if value < self.lo or (self.hi is not None and value > self.hi):
            raise self.fail(value, key, False)
        return value


class _Prob(_Spec):
    """A number in [0, 1]; integers 0 and 1 are accepted and stored as floats."""

    desc, plural = "a number 0..1", "numbers 0..1"

    def check(self, value, key):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):   # numpy numbers too
            raise self.fail(value, key, True)
        if not 0.0 <= value <= 1.0:  # also rejects nan
            raise self.fail(value, key, False)
        return float(value)


class _Choice(_Spec):
    def __init__(self, *allowed: str):
        self.allowed = allowed
        listed = ", ".join(json.dumps(a) for a in allowed)
        self.desc, self.plural = f"one of {listed}", f"values from {listed}"

    def check(self, value, key):
        if not isinstance(value, str):
            raise self.fail(value, key, True)
        if value not in self.allowed:
            err = self.fail(value, key, False)
            near = difflib.get_close_matches(value, self.allowed, n=1)
            if near:
                err.msg += f" (did you mean {json.dumps(near[0])}?)"
            raise err
        return value


class _FirstDealer(_Spec):
    """RULES §1 Sessions: "random" (drawn from the session's seed) or a seat 0..3."""

    desc, plural = 'a seat 0..3 or "random"', 'seats 0..3 or "random"'

    def check(self, value, key):
        if isinstance(value, str) and value == "random":
            return value
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= value <= 3:
            return int(value)
        raise self.fail(value, key, True)


class _List(_Spec):
    def __init__(self, item: _Spec, length: int | None = None, unique: bool = False):
        self.item, self.length, self.unique = item, length, unique
        count = f"{length} " if length is not None else ""
        extra = ", no duplicates" if unique else ""
        self.desc = f"a list of {count}{item.plural}{extra}"
        self.plural = f"lists of {count}{item.plural}"

    def check(self, value, key):
        if not isinstance(value, (list, tuple)):
            raise self.fail(value, key, True)
        if self.length is not None and len(value) != self.length:
            raise _Bad(key, f"expected {self.desc}, got a list of {len(value)}: {_got(value, False)}")
        out = [self.item.check(v, f"{key}[{i}]") for i, v in enumerate(value)]
        if self.unique:
            for i, v in enumerate(out):
                if v in out[:i]:
                    raise _Bad(key, f"expected {self.desc}, got {_toml_literal(v)} twice")
        return out


class _Table(_Spec):
    """A TOML table with a fixed set of ids, each checked by `item`."""

    def __init__(self, ids: tuple[str, ...], item: _Spec):
        self.ids, self.item = ids, item
        self.desc = f"a table of {item.plural} with ids {', '.join(ids)}"
        self.plural = "tables"

    def check(self, value, key):
        if not isinstance(value, Mapping):
            raise self.fail(value, key, True)
        for k in value:
            if k not in self.ids:
                raise _Bad(f"{key}.{k}", "unknown")  # turned into the full message by caller
        missing = [i for i in self.ids if i not in value]
        if missing:
            raise _Bad(f"{key}.{missing[0]}", "missing")
        return {i: self.item.check(value[i], f"{key}.{i}") for i in self.ids}


# Shared entries (RULES.md §1 and keys both games use), defined once.
_RULES = _Choice(*SHIPPED)
_BASE = _Int(1)
_WALL_MODEL = _Choice("table", "flat")
_FLAG = _Bool()
_PASS_RON_LOCK = _Choice("until_own_discard", "same_kind_until_own_discard", "none")
_ROB_KONG_PAYS = _Choice("all", "one")
_DEALER_NEXT = _Choice("winner", "next_on_loss")
_DEALER_ON_DRAW = _Choice("stay", "next", "last_drawer")
_FIRST_DEALER = _FirstDealer()

_WANZAI: dict[str, _Spec] = {
    "rules": _RULES,
    "base": _BASE,
    "wall_model": _WALL_MODEL,
    "honor_chow": _FLAG,
    "multiple_ron": _FLAG,
    "added_kong_on_draw_only": _FLAG,
    "kong_pay_on_draw": _FLAG,
    "dealer_pays_double": _FLAG,
    "pass_ron_lock": _PASS_RON_LOCK,
    "fire": _List(_Prob(), 4),
    "fire_min_hands": _Int(1),
    "piao": _List(_Int(0, 2), 4),
    "rob_kong_pays": _ROB_KONG_PAYS,
    "quanqiuren_self": _Choice("pinghu", "quanqiuren"),
    "first_dealer": _FIRST_DEALER,
    "dealer_next": _DEALER_NEXT,
    "dealer_on_draw": _DEALER_ON_DRAW,
    "kong_values": _Table(KONG_VALUE_IDS, _Int(0)),
    "values": _Table(WANZAI_VALUE_IDS, _List(_Int(0), 2)),
}

_ANHUA: dict[str, _Spec] = {
    "rules": _RULES,
    "base": _BASE,
    "wall_model": _WALL_MODEL,
    "pair_258": _FLAG,
    "hard_if_natural": _FLAG,
    "multiple_ron": _FLAG,
    "discard_win_wilds": _Choice("dan_wang_face_value", "none", "face_value"),
    "added_kong_on_draw_only": _FLAG,
    "pass_ron_lock": _PASS_RON_LOCK,
    "rob_kong_pays": _ROB_KONG_PAYS,
    "instant_win_categories": _List(_Choice(*WILD_CATEGORIES), unique=True),
    "instant_win_score": _Int(0),
    "kong_min_wall": _Int(0),
    "buzhang_tiles": _Int(1, 6),
    "birds": _Int(0, 10),
    "score_cap": _Int(0),
    "first_dealer": _FIRST_DEALER,
    "dealer_next": _DEALER_NEXT,
    "dealer_on_draw": _DEALER_ON_DRAW,
    "multipliers": _Table(ANHUA_MULTIPLIER_IDS, _Int(1)),
}

#: game -> {key: spec}, in the order of the shipped files.
SCHEMA: Mapping[str, Mapping[str, _Spec]] = types.MappingProxyType(
    {"wanzai": types.MappingProxyType(_WANZAI), "anhua": types.MappingProxyType(_ANHUA)}
)


# --------------------------------------------------------------------------------------
# Checking and merging plain (dict/list) parameter trees.


def _unknown_key(source: str, game: str, dotted: str) -> RulesError:
    """Message for a key the game's schema does not have, with a suggestion."""
    schema = SCHEMA[game]
    top, _, sub = dotted.partition(".")
    if top in schema:  # unknown id inside a table, or a dotted path into a non-table
        spec = schema[top]
        if isinstance(spec, _Table):
            near = difflib.get_close_matches(sub, spec.ids, n=1)
            hint = f"did you mean '{top}.{near[0]}'?" if near else f"known ids: {', '.join(spec.ids)}"
        else:
            hint = f"'{top}' is not a table"
        return RulesError(f"{source}: unknown key '{dotted}' ({hint})", source, dotted)
    others = [g for g in SHIPPED if g != game and top in SCHEMA[g]]
    if others:
        return RulesError(
            f"{source}: key '{top}' belongs to the {others[0]} rules; "
            f"this rule set has rules = \"{game}\"",
            source,
            top,
        )
    near = _nearest_key(game, dotted)
    if near:
        hint = f"did you mean '{near}'?"
    else:
        other = next(((g, k) for g in SHIPPED if g != game for k in [_nearest_key(g, dotted)] if k), None)
        hint = (f"did you mean '{other[1]}'? that key belongs to the {other[0]} rules; this rule set has rules = \"{game}\""
                if other else f"known keys: {', '.join(schema)}")
    return RulesError(f"{source}: unknown key '{dotted if '.' in dotted else top}' ({hint})", source, top)


def _nearest_key(game: str, text: str) -> str | None:
    """The key of `game` closest to `text` (difflib), dotted keys of tables included; a bare
    table id finds its table (`qingyise` -> `multipliers.qingyise`)."""
    schema = SCHEMA[game]
    ids = {i: f"{k}.{i}" for k, spec in schema.items() if isinstance(spec, _Table) for i in spec.ids}
    near = difflib.get_close_matches(text, list(schema) + list(ids.values()), n=1)
    if near:
        return near[0]
    near = difflib.get_close_matches(text, list(ids), n=1)
    return ids[near[0]] if near else None


def _merge(base: dict, update: Mapping, game: str, source: str) -> dict:
    """Return `base` (a complete plain tree) updated with `update`, tables key by key.

    Only keys are checked here (unknown keys, other game's keys, tables given as scalars);
    values are checked by _check afterwards.
    """
    schema = SCHEMA[game]
    out = copy.deepcopy(base)
    for key, value in update.items():
        if not isinstance(key, str) or key not in schema:
            raise _unknown_key(source, game, str(key))
        spec = schema[key]
        if isinstance(spec, _Table):
            if not isinstance(value, Mapping):
                bad = spec.fail(value, key, True)
                raise RulesError(f"{source}: key '{key}': {bad.msg}", source, key)
            for sub, v in value.items():
                if sub not in spec.ids:
                    raise _unknown_key(source, game, f"{key}.{sub}")
                out[key][sub] = v
        else:
            out[key] = value
    return out


def _check(tree: Mapping, game: str, source: str) -> dict:
    """Check every key of a complete tree; return it normalised, in schema order."""
    schema = SCHEMA[game]
    for key in tree:
        if key not in schema:
            raise _unknown_key(source, game, str(key))
    out = {}
    for key, spec in schema.items():
        if key not in tree:
            raise RulesError(f"{source}: missing key '{key}' (expected {spec.desc})", source, key)
        try:
            out[key] = spec.check(tree[key], key)
        except _Bad as bad:
            if bad.msg == "unknown":
                raise _unknown_key(source, game, bad.key) from None
            if bad.msg == "missing":
                raise RulesError(f"{source}: missing key '{bad.key}'", source, bad.key) from None
            raise RulesError(f"{source}: key '{bad.key}': {bad.msg}", source, bad.key) from None
    _check_payment_bound(out, game, source)
    return out


#: RULES §1 Units and bounds: every single payment must fit a signed 32-bit integer.
PAYMENT_LIMIT = 2**31 - 1


def cap_points(tree: Mapping) -> int:
    """Anhua's `score_cap` in points: like every amount of money it is in units of `base`
    (RULES §1 Units: a base of 2 doubles every payment, a capped one too). 0: no cap; a cap
    above any payment the bound allows is the bound."""
    return min(tree["score_cap"] * tree["base"], PAYMENT_LIMIT)


def largest_payment(tree: Mapping, game: str) -> tuple[int, str, str]:
    """The largest single payment a rule set can make -> (amount, key, how it is made).

    `key` is the parameter to blame: the largest factor of that payment (`base`, the value,
    the multiplier, the birds' 2^birds), so `multipliers.qingyise = 100000000` names
    `multipliers.qingyise`, not the wild category it happens to multiply.  Exact products of the factors RULES §2.5
    and §3.2-3.5 allow at once (the fire exponent counts only seats that can be on fire).
    """
    base = tree["base"]
    if TRAITS[game].pattern_values:
        fire_on = [f > 0 for f in tree["fire"]]
        dealer = 2 if tree["dealer_pays_double"] else 1
        best = (0, "base", "")
        pairs = [(p, r) for p in range(4) for r in range(4) if p != r]
        candidates = [(v[i], f"values.{k}") for k, v in tree["values"].items() for i in (0, 1)]
        candidates += [(v, f"kong_values.{k}") for k, v in tree["kong_values"].items()]
        for value, key in candidates:
            for p, r in pairs:
                fire = fire_on[p] + fire_on[r]
                piao = (tree["piao"][p] + tree["piao"][r]) if key.startswith("values.") else 0
                amount = (value * base << fire) * dealer + piao * base
                if amount > best[0]:
                    blame = key if value >= base else "base"      # the larger factor
                    how = f"{key} {value} × base {base}" + (f" × fire 2^{fire}" if fire else "") + \
                          (" × dealer 2" if dealer > 1 else "") + (f" + piao {piao} × base {base}" if piao else "")
                    best = (amount, blame, how)
        amount, key, how = best
    else:
        m = tree["multipliers"]
        basic = max((m["yingzhuang"], "multipliers.yingzhuang"),
                    max((m["pinghu"] * m[c], f"multipliers.{c}") for c in WILD_CATEGORIES))
        ctx = max((m[c], f"multipliers.{c}") for c in ("gangshanghua", "qiangganghu", "gangshangpao"))
        factors = [(base, "base"), basic, (m["qingyise"], "multipliers.qingyise"),
                   (m["xiaoqidui"], "multipliers.xiaoqidui"), ctx, (1 << tree["birds"], "birds")]
        score = base * basic[0] * m["qingyise"] * m["xiaoqidui"] * ctx[0]
        # the first of the largest factors: base on a tie, as before
        amount, key = score << tree["birds"], max(factors, key=lambda f: f[0])[1]
        how = (f"base {base} × {basic[1]} {basic[0]} × qingyise {m['qingyise']} × xiaoqidui "
               f"{m['xiaoqidui']} × context {ctx[0]} × bird 2^{tree['birds']}")
        cap = cap_points(tree)
        if cap:
            amount, key, how = min(amount, cap), "score_cap", how + f", capped at {tree['score_cap']} × base {base}"
        instant = tree["instant_win_score"] * base
        if cap:
            instant = min(instant, cap)
        if instant > amount:
            amount, key, how = instant, "instant_win_score", f"instant_win_score {tree['instant_win_score']} × base {base}"
    return amount, key, how


def _check_payment_bound(tree: Mapping, game: str, source: str) -> None:
    for key, value in tree.items():
        for sub, v in (value.items() if isinstance(value, Mapping) else [(None, value)]):
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, int) and not isinstance(x, bool) and x > PAYMENT_LIMIT:
                    dotted = key if sub is None else f"{key}.{sub}"
                    raise RulesError(f"{source}: key '{dotted}': {x} does not fit in a signed 32-bit "
                                     f"integer (at most {PAYMENT_LIMIT})", source, dotted)
    amount, key, how = largest_payment(tree, game)
    if amount > PAYMENT_LIMIT:
        raise RulesError(
            f"{source}: key '{key}': the largest possible single payment ({how} = {amount}) does not "
            f"fit in a signed 32-bit integer (at most {PAYMENT_LIMIT}); lower it",
            source, key)


def _game_of(tree: Mapping, source: str) -> str:
    if "rules" not in tree:
        raise RulesError(
            f"{source}: missing key 'rules' (a rules file must name its rule set: "
            f"{' or '.join(f'rules = {json.dumps(g)}' for g in SHIPPED)})",
            source,
            "rules",
        )
    try:
        return _RULES.check(tree["rules"], "rules")
    except _Bad as bad:
        raise RulesError(f"{source}: key 'rules': {bad.msg}", source, "rules") from None


def _parse_toml(text: str, source: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{source}: invalid TOML: {exc}", source) from None


#: a rules file is a few kilobytes; reading stops past this (e.g. --rules /dev/zero)
MAX_RULES_BYTES = 1 << 20


def _read_file(path: Path, source: str) -> str:
    try:
        if path.is_dir():
            raise RulesError(f"{source}: cannot read rules file: it is a directory", source)
        if path.is_fifo() or path.is_socket():   # reading would wait for a writer, perhaps forever
            raise RulesError(f"{source}: cannot read rules file: it is a pipe or socket, not a file", source)
        with open(path, "rb") as f:
            data = f.read(MAX_RULES_BYTES + 1)
        if len(data) > MAX_RULES_BYTES:
            raise RulesError(f"{source}: cannot read rules file: larger than {MAX_RULES_BYTES >> 20} MiB", source)
    except FileNotFoundError:
        raise RulesError(f"{source}: rules file not found", source) from None
    except OSError as exc:
        raise RulesError(f"{source}: cannot read rules file: {exc.strerror or exc}", source) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesError(f"{source}: cannot read rules file: not UTF-8 text ({exc})", source) from None


@functools.cache
def _shipped_json(game: str) -> str:
    """The shipped defaults of a game as canonical JSON (cached; copy by json.loads)."""
    source = f"{game} (shipped)"
    tree = _parse_toml(_read_file(_RULES_DIR / f"{game}.toml", source), source)
    if _game_of(tree, source) != game:
        raise RulesError(f"{source}: key 'rules' must be {json.dumps(game)}", source, "rules")
    return _canonical(_check(tree, game, source))  # shipped files must be complete


def _shipped_tree(game: str) -> dict:
    return _reorder(json.loads(_shipped_json(game)), game)


def _reorder(tree: dict, game: str) -> dict:
    """Put a plain tree (e.g. from sorted JSON) back in schema order."""
    out = {}
    for key, spec in SCHEMA[game].items():
        value = tree[key]
        out[key] = {i: value[i] for i in spec.ids} if isinstance(spec, _Table) else value
    return out


def _canonical(tree: Mapping) -> str:
    return json.dumps(tree, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return types.MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    return value


def _nest_overrides(overrides: Mapping[str, Any], game: str, source: str) -> dict:
    """{"values.pinghu": x, "birds": 2, "values": {...}} -> nested dict, later keys win."""
    nested: dict[str, Any] = {}
    for key, value in overrides.items():
        parts = key.split(".") if isinstance(key, str) else [key]
        if not all(isinstance(p, str) and p for p in parts):
            raise RulesError(f"{source}: bad key {key!r} (expected name or table.id)", source, str(key))
        if len(parts) > 2:
            raise RulesError(
                f"{source}: unknown key '{key}' (keys have at most two parts, as in 'values.pinghu')",
                source,
                key,
            )
        if len(parts) == 1:
            top = parts[0]
            if isinstance(value, Mapping) and isinstance(nested.get(top), dict):
                nested[top].update(value)
            else:
                nested[top] = dict(value) if isinstance(value, Mapping) else value
        else:
            top, sub = parts
            if not isinstance(SCHEMA[game].get(top), _Table):
                raise _unknown_key(source, game, key)
            current = nested.get(top)
            if not isinstance(current, dict):
                current = nested[top] = {}
            current[sub] = value
    return nested


# --------------------------------------------------------------------------------------
# Overrides typed on a command line


_ENTRY_KEY = re.compile(r"^(.+?)\[(\d+)\]$")


def split_entry(key: str) -> tuple[str, int | None]:
    """'values.qixiaodui[1]' -> ('values.qixiaodui', 1); any other key -> (key, None)."""
    m = _ENTRY_KEY.match(key.strip())
    return (m.group(1), int(m.group(2))) if m else (key.strip(), None)


def _entry_problem(key: str, current: Any, index: int) -> str:
    if not isinstance(current, (list, tuple)):
        return f"key '{key}' is not a list, so '{key}[{index}]' names nothing"
    return f"key '{key}' has {len(current)} entries, so '{key}[{index}]' names nothing (0..{len(current) - 1})"


def _list_spec(game: str, key: str) -> _List | None:
    """The schema entry of a list-valued key (top-level or inside a table), else None."""
    top, _, sub = key.partition(".")
    spec = SCHEMA[game].get(top)
    if sub and isinstance(spec, _Table) and sub in spec.ids:
        spec = spec.item
    elif sub:
        return None
    return spec if isinstance(spec, _List) else None


def command_line_overrides(base: Rules, pairs, option: str = "--set") -> dict[str, Any]:
    """What the `key=value` pairs typed after `option` set in `base`, as with_overrides takes
    them: the one reading of --set, --grid and --vary.

    Beyond with_overrides: a single value for a fixed-length list sets every entry
    (values.qixiaodui=10 -> [10, 10], fire=0.5 -> [0.5, 0.5, 0.5, 0.5]) and is the only entry
    of a list of any length (instant_win_categories=qi_wang -> ["qi_wang"]); key[i]=v sets entry i alone
    (values.qixiaodui[1]=10 -> [5, 10]); separate pairs may set different entries of one key.
    A key given twice, or as a whole and by entry, raises ValueError; unknown keys and
    refused values are left to with_overrides, which names them.
    """
    out: dict[str, Any] = {}
    typed: dict[str, dict[str, Any]] = {}    # key -> {as typed (whole, or entries): value}
    for raw_key, value in pairs:
        key, index = split_entry(raw_key)
        given = f"{key}[{index}]" if index is not None else key
        before = typed.setdefault(key, {})
        if given in before:
            raise ValueError(f"{option} {given} given twice ({before[given]!r} and {value!r}): give it once")
        if before and (index is None or key in before):
            raise ValueError(f"{option} {next(iter(before))} and {option} {given} both set {key}: give it once")
        before[given] = value
        current = out.get(key, base.get(key, _MISSING))
        if index is not None:
            if current is _MISSING:
                out[key] = value          # with_overrides names the unknown key
                continue
            if not isinstance(current, (list, tuple)) or index >= len(current):
                raise RulesError(f"{base.source} + {_OVERRIDE}: {_entry_problem(key, current, index)}",
                                 base.source, key)
            items = list(current)
            items[index] = value
            out[key] = items
        elif (spec := _list_spec(base.game, key)) is not None and not isinstance(value, (list, tuple, Mapping)):
            # one value for a list: every entry of a fixed-length list (per seat, [discard,
            # self]); the only entry of a list of any length (instant_win_categories)
            out[key] = [value] * spec.length if spec.length is not None else [value]
        else:
            out[key] = value
    return out


def parse_override(text: str) -> tuple[str, object]:
    """Parse a command-line override ``key=value`` into ``(key, value)``.

    The value is read as a TOML value (``birds=2``, ``fire=[0.5,0,0,0]``, ``honor_chow=false``,
    ``values.pinghu=[3,1]``); a bare word that is not valid TOML is taken as a string
    (``wall_model=flat``). The key is not checked here; Rules.with_overrides checks it.
    """
    if not isinstance(text, str):
        raise RulesError(f"{_OVERRIDE}: expected a 'key=value' string, got {text!r}", _OVERRIDE)
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep:
        raise RulesError(f"{_OVERRIDE}: {text!r} has no '=' (expected key=value, e.g. birds=2)", _OVERRIDE)
    if not key:
        raise RulesError(f"{_OVERRIDE}: {text!r} has no key before '=' (expected key=value)", _OVERRIDE)
    if not raw:
        raise RulesError(f"{_OVERRIDE}: key '{key}': missing value after '='", _OVERRIDE, key)
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError as e:
        if raw[0] in "[{\"'":      # meant as a list, table or quoted string, and malformed
            # the parser's position counts the "v = " put in front: leave it out
            why = re.sub(r"\s*\(at line \d+, column \d+\)|\s*\(at end of document\)", "", str(e))
            raise RulesError(f"{_OVERRIDE}: key '{key}': {raw!r} is not a valid TOML value ({why}); write a list "
                             f"as [3,1], a string as \"flat\" or, with backslashes, 'C:\\path'",
                             _OVERRIDE, key) from None
        value = raw
    return key, value


class Rules:
    """One validated, immutable rule set.

    ``game`` is "wanzai" or "anhua"; ``name`` the shipped name or the user file's stem;
    ``source`` where it came from; ``params`` a read-only nested mapping of every parameter
    (lists as tuples); ``rules["values.pinghu"]`` reads one dotted key. Equality and hashing
    use the parameters only. Build with :meth:`load` or :meth:`from_toml_text`.
    """

    __slots__ = ("game", "name", "source", "params", "hash", "variant", "_canon")

    game: str
    name: str
    source: str
    params: Mapping[str, Any]
    hash: str
    variant: str

    def __init__(self, params: Mapping[str, Any], *, name: str | None = None, source: str = "<dict>"):
        """Validate `params` (which must name its game in 'rules'; missing keys take defaults)."""
        tree = dict(params)
        game = _game_of(tree, source)
        checked = _check(_merge(_shipped_tree(game), tree, game, source), game, source)
        self._set(checked, game, name or game, source)

    @property
    def traits(self) -> GameTraits:
        """What this rule set's game is made of (rulesets/traits.py)."""
        return TRAITS[self.game]

    def _set(self, checked: dict, game: str, name: str, source: str) -> None:
        canon = _canonical(checked)
        digest = hashlib.sha256(canon.encode("ascii")).hexdigest()[:12]
        # the bare name only for an unchanged shipped rule set: partitions must never collide
        variant = game if (name == game and canon == _shipped_json(game)) else f"{name}-{digest[:8]}"
        for attr, value in (
            ("game", game),
            ("name", name),
            ("source", source),
            ("params", _freeze(checked)),
            ("hash", digest),
            ("variant", variant),
            ("_canon", canon),
        ):
            object.__setattr__(self, attr, value)

    # ---- construction ---------------------------------------------------------------

    @classmethod
    def load(cls, name_or_path: str | os.PathLike, /, **overrides: Any) -> Rules:
        """Load a shipped rule set by name ("wanzai", "anhua"; any case) or a TOML file."""
        if isinstance(name_or_path, str) and not name_or_path.strip():
            raise RulesError("rules: empty; give a shipped rule set (wanzai, anhua) or a TOML file", None)
        if isinstance(name_or_path, str) and name_or_path.strip().lower() in SHIPPED:
            game = name_or_path.strip().lower()
            rules = cls(_shipped_tree(game), name=game, source=f"{game} (shipped)")
        elif isinstance(name_or_path, (str, os.PathLike)):
            path = Path(name_or_path)
            source = os.fspath(name_or_path)
            if not path.exists() and isinstance(name_or_path, str) and not path.suffix and len(path.parts) == 1:
                near = difflib.get_close_matches(name_or_path.lower(), SHIPPED, n=1)
                hint = f"did you mean '{near[0]}'?" if near else f"shipped: {', '.join(SHIPPED)}"
                raise RulesError(
                    f"{source}: not a shipped rule set and no such rules file ({hint})", source
                )
            rules = cls.from_toml_text(_read_file(path, source), source, name=path.stem)
        else:
            raise RulesError(
                f"rules must be a shipped name or a path, not {type(name_or_path).__name__}", None
            )
        return rules.with_overrides(**overrides) if overrides else rules

    @classmethod
    def from_toml_text(cls, text: str, source: str = "<text>", *, name: str | None = None) -> Rules:
        """Rules from TOML text naming its game; missing keys take the game's defaults.

        `name` defaults to the game name.
        """
        return cls(_parse_toml(text, source), name=name, source=source)

    def with_overrides(self, **overrides: Any) -> Rules:
        """A new Rules with some keys changed: ``birds=2``, ``values={"pinghu": [3, 1]}``
        (merged into the table) or ``**{"values.pinghu": [3, 1]}``."""
        if not overrides:
            return self
        source = self.source if self.source.endswith(f" + {_OVERRIDE}") else f"{self.source} + {_OVERRIDE}"
        nested = _nest_overrides(overrides, self.game, source)
        if "rules" in nested and nested["rules"] != self.game:
            raise RulesError(
                f"{source}: key 'rules': cannot be changed by an override "
                f"(got {_got(nested['rules'], False)}; load the other rule set instead)",
                source,
                "rules",
            )
        tree = _merge(self.as_dict(), nested, self.game, source)
        new = object.__new__(type(self))
        new._set(_check(tree, self.game, source), self.game, self.name, source)
        return new

    # ---- reading --------------------------------------------------------------------

    def __getitem__(self, dotted_key: str) -> Any:
        """One parameter: ``rules["birds"]``, ``rules["values.pinghu"]``, or one entry of a
        list-valued one, ``rules["values.pinghu[1]"]``."""
        key, index = split_entry(str(dotted_key))
        node: Any = self.params
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                err = _unknown_key(f"{self.name} rules", self.game, key)
                raise KeyError(str(err))
            node = node[part]
        if index is not None:
            if not isinstance(node, tuple) or index >= len(node):
                raise KeyError(f"{self.name} rules: {_entry_problem(key, node, index)}")
            return node[index]
        return node

    def get(self, dotted_key: str, default: Any = None) -> Any:
        try:
            return self[dotted_key]
        except KeyError:
            return default

    def __contains__(self, dotted_key: object) -> bool:
        return isinstance(dotted_key, str) and self.get(dotted_key, _MISSING) is not _MISSING

    def as_dict(self) -> dict[str, Any]:
        """A mutable deep copy of the parameters (dicts and lists)."""
        return _thaw(self.params)

    def changes(self) -> dict[str, Any]:
        """Dotted keys whose value differs from the game's shipped defaults."""
        defaults = _shipped_tree(self.game)
        out: dict[str, Any] = {}
        for key, value in self.as_dict().items():
            if isinstance(value, dict):
                out.update({f"{key}.{k}": v for k, v in value.items() if defaults[key][k] != v})
            elif defaults[key] != value:
                out[key] = value
        return out

    def to_toml(self) -> str:
        """Canonical TOML text of all parameters (schema order, tables last)."""
        lines = [f"# mjsim rules: {self.game}, hash {self.hash}"]
        tables = []
        for key, value in self.params.items():
            if isinstance(value, Mapping):
                tables.append((key, value))
            else:
                lines.append(f"{key} = {_toml_literal(value)}")
        for key, table in tables:
            lines.append("")
            lines.append(f"[{key}]")
            lines.extend(f"{k} = {_toml_literal(v)}" for k, v in table.items())
        return "\n".join(lines) + "\n"

    # ---- value semantics ------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rules):
            return NotImplemented
        return self._canon == other._canon

    def __hash__(self) -> int:
        return hash(self._canon)

    def __repr__(self) -> str:
        return f"Rules({self.variant!r}, game={self.game!r}, hash={self.hash!r})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Rules is immutable (cannot set {name!r}); use with_overrides()")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Rules is immutable (cannot delete {name!r})")

    def __copy__(self) -> Rules:
        return self

    def __deepcopy__(self, memo: dict) -> Rules:
        return self

    def __reduce__(self):
        return (_restore, (self.as_dict(), self.name, self.source))


_MISSING = object()


def _restore(params: dict, name: str, source: str) -> Rules:
    """Unpickle a Rules (parameters are validated again)."""
    return Rules(params, name=name, source=source)
