"""The balancing problem: what to vary (`--vary`, the ranges and how a value is applied to
the rules) and the targets (`--target`, on any measure of the summary); the search settings."""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from mjsim.rulesets.traits import traits


#: growth of the hands per step: the interval narrows by half
GROWTH = 4
#: a float range is searched on this many steps
FLOAT_STEPS = 1000
#: most candidates played to find one end of the indistinguishable range; past them the
#: end is interpolated between the last two played (said "about" in the answer)
RANGE_EVALS = 2
#: Optuna trials by default (several parameters or targets)
DEFAULT_TRIALS = 40
STATE_FILE = "balance-state.json"
#: the least hands of the first step (when --hands allows)
FIRST_HANDS = 4_000


# ------------------------------------------------------------------------------------
# What to vary


@dataclass(frozen=True)
class Vary:
    """One varied rules key: an integer or float range, or a list of choices.

    `key` is the rules key (`values.qixiaodui`); `index` one entry of a list-valued key
    (`values.qixiaodui[1]`), else every entry of a list gets the value.
    """

    text: str
    key: str
    index: int | None
    kind: str                       # "int", "float" or "choice"
    lo: float = 0
    hi: float = 0
    choices: tuple = ()

    @property
    def name(self) -> str:
        return self.key if self.index is None else f"{self.key}[{self.index}]"

    @property
    def positions(self) -> tuple[int, int]:
        """The search runs over integer positions: the value itself for integers, a grid
        step for floats, an index for choices."""
        if self.kind == "int":
            return int(self.lo), int(self.hi)
        if self.kind == "float":
            return 0, FLOAT_STEPS
        return 0, len(self.choices) - 1

    def value(self, pos: int):
        if self.kind == "int":
            return int(pos)
        if self.kind == "float":
            return round(self.lo + (self.hi - self.lo) * pos / FLOAT_STEPS, 12)
        return self.choices[pos]

_KEY = re.compile(r"^([A-Za-z_][\w.]*?)(?:\[(\d+)\])?$")


def _number(text: str):
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_vary(text: str, base) -> Vary:
    """'multipliers.qingyise=1..200', 'fire=0..0.5', 'values.qixiaodui[1]=2..40',
    'wall_model=flat,runs': checked against `base` (a Rules): unknown keys and values the
    rules refuse at either end of the range raise ValueError/RulesError (one line)."""
    key_text, sep, raw = text.partition("=")
    m = _KEY.match(key_text.strip())
    if not sep or not m or not raw.strip():
        raise ValueError(f"--vary {text!r}: expected KEY=LO..HI (integers or floats) or KEY=a,b,c, "
                         f"e.g. multipliers.qingyise=1..200")
    key, index = m.group(1), None if m.group(2) is None else int(m.group(2))
    raw = raw.strip()
    if ".." in raw:
        lo_text, _, hi_text = raw.partition("..")
        try:
            lo, hi = _number(lo_text), _number(hi_text)
        except ValueError:
            raise ValueError(f"--vary {text!r}: {raw!r} is not a range of numbers LO..HI") from None
        if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
            raise ValueError(f"--vary {text!r}: the range needs LO < HI, got {raw}")
        kind = "int" if isinstance(lo, int) and isinstance(hi, int) else "float"
        current = _current(base, key, index)
        if kind == "int" and isinstance(current, float):
            kind = "float"            # a probability given as 0..1
        vary = Vary(text, key, index, kind, lo, hi)
        ends = (vary.value(vary.positions[0]), vary.value(vary.positions[1]))
    else:
        from mjsim.run.spec import _split_top_level
        from mjsim.rulesets.rules import parse_override

        choices = tuple(parse_override(f"{key}={c}")[1] for c in _split_top_level(raw) if c)
        if len(choices) < 2:
            raise ValueError(f"--vary {text!r}: give a range LO..HI or at least two choices a,b")
        vary = Vary(text, key, index, "choice", choices=choices)
        ends = choices
    for v in ends:                  # the rules' own checks: unknown key, refused value
        apply(base, [vary], [v])
    return vary


def _current(base, key: str, index: int | None):
    """The base rules' value of the varied key: the entry, or a list's first entry."""
    v = base.get(key)
    if isinstance(v, (list, tuple)) and v:
        return v[index if index is not None and index < len(v) else 0]
    return v


def apply(base, varies: Sequence[Vary], values: Sequence) -> object:
    """`base` with every varied key set, read as --set reads a key (a list-valued key
    whole, or by entry): rules.command_line_overrides."""
    from mjsim.rulesets.rules import command_line_overrides

    return base.with_overrides(**command_line_overrides(base, [(v.name, x) for v, x in zip(varies, values)], "--vary"))


# ------------------------------------------------------------------------------------
# Targets


@dataclass(frozen=True)
class Target:
    text: str
    section: str
    name: str
    op: str          # "=", "<=" or ">="
    value: float

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.name)

    @property
    def label(self) -> str:
        return f"{self.section}:{self.name} {self.op} {self.value:g}"

    def met(self, est: float, lo: float, hi: float) -> bool:
        """'=': the 95 % interval contains the value; '<=', '>=': the estimate is on its side."""
        if self.op == "=":
            return lo <= self.value <= hi
        return est <= self.value if self.op == "<=" else est >= self.value


_TARGET = re.compile(r"^(?P<left>[^<>=]+?)\s*(?P<op><=|>=|=)\s*(?P<value>[^<>=]+)$")


def known_measures(game: str) -> dict[tuple[str, str], object]:
    """Every (section, measure) the summary of `game` can have, with its Def."""
    from mjsim.analysis import measures as M

    lists = M.Lists(game, list(M.GAME_PATTERNS.get(game, ())), list(M.GAME_WIN_KINDS.get(game, ())),
                    list(M.GAME_PROPERTIES.get(game, ())),
                    list(traits(game).wild_categories), has_turn=True, has_claims=True,
                    reasons=list(M.PAY_REASONS))
    return {d.key: d for d in M.definitions(lists, fire=True)}


def parse_targets(texts: Sequence[str], game: str) -> list[Target]:
    """['pattern money:qixiaodui=0.06', 'score:dealer - non-dealer<=0'] -> targets.

    VALUE is a number (a rate or share as a proportion, 0.06, or with %: 6%). ASCII '-'
    stands for '−' in measure names. Unknown sections or measures raise ValueError naming
    what exists."""
    known = known_measures(game)
    sections = list(dict.fromkeys(s for s, _ in known))
    out = []
    for text in texts:
        m = _TARGET.match(text.strip())
        left, sep, name = (m.group("left").partition(":") if m else ("", "", ""))
        if not m or not sep:
            raise ValueError(f"--target {text!r}: expected \"SECTION:MEASURE OP VALUE\" with OP =, <= or >=, "
                             f"e.g. \"pattern money:qixiaodui=0.06\"")
        raw = m.group("value").strip()
        try:
            value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValueError(f"--target {text!r}: {raw!r} is not a number")
        section, name = left.strip(), name.strip()
        if section not in sections:
            raise ValueError(f"--target {text!r}: unknown section {section!r} for {game}; "
                             f"sections: {', '.join(sections)}")
        if (section, name) not in known:
            alias = name.replace(" - ", " − ")
            if (section, alias) in known:
                name = alias
            else:
                names = [n for s, n in known if s == section]
                raise ValueError(f"--target {text!r}: unknown measure {name!r} in section {section!r} for "
                                 f"{game}; measures: {', '.join(names)}")
        if any(t.key == (section, name) for t in out):
            raise ValueError(f"--target: {section}:{name} given twice")
        out.append(Target(text, section, name, m.group("op"), value))
    if not out:
        raise ValueError("balance needs at least one --target \"SECTION:MEASURE OP VALUE\"")
    return out
