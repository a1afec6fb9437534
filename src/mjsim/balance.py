"""Balancing: find the rule values that meet a designer's targets, by simulation.

`mjsim balance --vary multipliers.qingyise=1..200 --target "property money:qingyise=0.10"`
plays candidate rule sets and searches the values whose measures (any measure of
`mjsim.stats.summarize`, with its session-clustered 95 % interval) meet the targets.

Method
------
- **Common random numbers.** Every candidate is played on the same seed: hand i is dealt
  the same wall under every candidate, so candidates differ only through the rules, and a
  candidate's first N hands are the same whatever N. Each candidate is one variant (one
  partition) of the output dataset, as in `mjsim sweep`; a rerun resumes.
- **One parameter, one target** (`search_1d`): the two ends of the range are played, the
  target is bracketed, and the bracket is bisected over the integers (the next point is
  the linear interpolation of the bracket with the Illinois rule, replaced by the midpoint
  after three steps that did not halve the bracket: a safeguarded regula falsi) until the
  two candidates either side of the answer are adjacent. If either of them still has the
  target inside its 95 % interval, the hands grow (by the square-root law, at least 4
  times, whole chunks of the same seeds) and the pair is played further, the bracket
  widened if the answer moved, until the pair is resolved at 95 % or `--hands` is
  reached. Floats (probabilities such as `fire`) are
  searched the same way on a grid of 1/1000 of the range (a bisection with a sample size
  that grows as the bracket narrows: a stochastic root-finder of the probabilistic
  bisection kind, without its Bayesian update). The answer is the candidate of the pair
  closest to the target; the range of values the target cannot tell apart is every value
  whose 95 % interval contains the target at the final hand count (its ends are found by
  the slope of the pair, then checked and bisected).
- **Several parameters or targets** (`search_optuna`): Optuna's TPE sampler (integer-aware,
  multi-objective) minimises each target's standardised deviation |estimate - target| / s,
  s the target's standard error at the first candidate, with every candidate at `--hands`
  hands, then a compass search over the integers polishes the best. The Pareto set of the
  candidates is kept; the answer is the candidate meeting every target with the smallest
  sum of squared standardised deviations (else the Pareto one with the smallest). When no candidate meets every target within its
  interval, the search says so in one line (the targets may conflict).

The search logic takes an evaluator `f(position, hands) -> [(estimate, low, high), ...]`, so
it is tested on synthetic responses without simulation (tests/test_balance.py).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Balance", "Candidate", "Target", "Vary", "balance", "parse_targets", "parse_vary", "search_1d",
           "search_optuna"]

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

    def override(self, base, value) -> tuple[str, object]:
        """(rules key, new value) that sets this key to `value` in `base`."""
        current = base.get(self.key, _MISSING)
        if current is _MISSING:
            return self.key, value      # with_overrides names the unknown key
        if isinstance(current, (list, tuple)):
            items = list(current)
            if self.index is None:
                return self.key, [value] * len(items)
            if not 0 <= self.index < len(items):
                raise ValueError(f"--vary {self.text!r}: {self.key} has {len(items)} entries "
                                 f"(index 0..{len(items) - 1})")
            items[self.index] = value
            return self.key, items
        if self.index is not None:
            raise ValueError(f"--vary {self.text!r}: {self.key} is not a list, it takes no [index]")
        return self.key, value


_MISSING = object()
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
        from mjsim.runner import _split_top_level
        from mjsim.rules import parse_override

        choices = tuple(parse_override(f"v={c}")[1] for c in _split_top_level(raw) if c)
        if len(choices) < 2:
            raise ValueError(f"--vary {text!r}: give a range LO..HI or at least two choices a,b")
        vary = Vary(text, key, index, "choice", choices=choices)
        ends = choices
    for v in ends:                  # the rules' own checks: unknown key, refused value
        base.with_overrides(**dict([vary.override(base, v)]))
    return vary


def _current(base, key: str, index: int | None):
    v = base.get(key)
    if isinstance(v, (list, tuple)) and v:
        return v[index if index is not None and index < len(v) else 0]
    return v


def apply(base, varies: Sequence[Vary], values: Sequence) -> object:
    """`base` with every varied key set."""
    return base.with_overrides(**dict(v.override(base, x) for v, x in zip(varies, values)))


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
    from mjsim import measures as M

    lists = M.Lists(game, list(M.GAME_PATTERNS.get(game, ())), list(M.GAME_WIN_KINDS.get(game, ())),
                    list(M.GAME_PROPERTIES.get(game, ())),
                    list(M.WILD_CATEGORIES if game == "anhua" else ()), has_turn=True, has_claims=True,
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


# ------------------------------------------------------------------------------------
# The search over positions (independent of the simulation: tests use fake evaluators)


Estimate = tuple[float, float, float]     # estimate, 95 % low, 95 % high
Evaluator = Callable[[tuple, int], list]  # (positions, hands) -> [Estimate per target]


@dataclass
class Candidate:
    """One evaluation: positions (one per varied key), hands, an Estimate per target."""

    pos: tuple
    hands: int
    est: list


@dataclass
class SearchResult:
    best: tuple                          # positions chosen
    hands: int                           # hands of the final evaluations
    evaluations: list[Candidate]
    range: list[tuple[int, int]] | None  # per key: positions the targets cannot tell apart
    status: str = "ok"                   # "ok", "unreachable" or "conflict"
    message: str = ""
    resolved: bool = False               # the pair either side of the answer resolved at 95 %
    pareto: list[tuple] = field(default_factory=list)
    range_exact: bool = True


class _Book:
    """Evaluations made so far; the latest (most hands) per position."""

    def __init__(self, evaluate: Evaluator):
        self.f = evaluate
        self.evaluations: list[Candidate] = []
        self.cache: dict[tuple, Candidate] = {}

    def __call__(self, pos: tuple, hands: int) -> Candidate:
        c = self.cache.get((pos, hands))
        if c is None:
            c = Candidate(pos, hands, [tuple(map(float, e)) for e in self.f(pos, hands)])
            self.cache[(pos, hands)] = c
            self.evaluations.append(c)
        return c


def _side(e: Estimate, t: float) -> int:
    """-1: the interval lies below t; +1: above; 0: it contains t (cannot be told apart)."""
    _, lo, hi = e
    return -1 if hi < t else (1 if lo > t else 0)


def _next_hands(hands: int, chunk: int, cap: int) -> int:
    return min(cap, max(hands + chunk, hands * GROWTH // chunk * chunk))


def _grow(n: int, chunk: int, cap: int, ests: Sequence[Estimate], t: float) -> int:
    """Hands for the next step: by the square-root law, enough for each interval that
    contains t to exclude it if the estimate stays, at least GROWTH times as many (whole
    chunks), at most `cap`."""
    need = n * GROWTH
    for est, lo, hi in ests:
        d, half = abs(est - t), (hi - lo) / 2
        if _side((est, lo, hi), t) == 0:
            need = max(need, n * (half / d) ** 2 * 1.05 if d > 0 else math.inf)
    return cap if need >= cap else min(cap, max(n + chunk, math.ceil(need / chunk) * chunk))


def _interpolate(a: int, b: int, ga: float, gb: float, bisect: bool) -> int:
    """The next point strictly inside (a, b): interpolated (regula falsi), or the midpoint
    when `bisect` (bisection's guarantee) or the data say nothing."""
    mid = (a + b) // 2
    if bisect or not (math.isfinite(ga) and math.isfinite(gb)) or ga == gb:
        return mid
    p = a + (b - a) * (-ga) / (gb - ga)
    return min(b - 1, max(a + 1, int(round(p))))


def search_1d(evaluate: Evaluator, target: Target, lo: int, hi: int, *, start: int, cap: int,
              chunk: int | None = None, preferred: int | None = None, range_evals: int = RANGE_EVALS,
              show: Callable[[int], str] = str) -> SearchResult:
    """Bracket and bisect one monotone response over the integers lo..hi (see the module
    doc). `start` hands first, multiplied by GROWTH (whole `chunk`s) up to `cap`.
    `preferred`: the position kept when every value meets an inequality target."""
    chunk = chunk or start
    book = _Book(evaluate)
    t = target.value
    n = start

    def g(c: Candidate) -> float:
        return c.est[0][0] - t

    while True:
        ea, eb = book((lo,), n), book((hi,), n)
        if not all(math.isfinite(c.est[0][0]) for c in (ea, eb)):
            if n < cap:      # e.g. no win yet that the share could be read from
                n = _next_hands(n, chunk, cap)
                continue
            bad = ea if not math.isfinite(ea.est[0][0]) else eb
            return SearchResult(bad.pos, n, book.evaluations, None, "unreachable",
                                f"{target.section}:{target.name} has no estimate at {show(bad.pos[0])} "
                                f"after {n:,} hands (nothing to measure it on, e.g. no win)")
        inc = eb.est[0][0] >= ea.est[0][0]
        sign = 1 if inc else -1
        ga, gb = sign * g(ea), sign * g(eb)     # increasing in position after the sign
        if ga < 0 < gb or ga == 0 or gb == 0:
            break
        # both ends on one side of the target
        closest = ea if abs(ga) <= abs(gb) else eb
        satisfied = target.op != "=" and target.met(*closest.est[0]) and target.met(*(eb if closest is ea else ea).est[0])
        if satisfied:
            keep = preferred if preferred is not None and lo <= preferred <= hi else closest.pos[0]
            book((keep,), n)      # played, so the answer has its estimate
            return SearchResult((keep,), n, book.evaluations, [(lo, hi)], "ok",
                                f"every value in {show(lo)}..{show(hi)} meets {target.label}", True)
        if _side(closest.est[0], t) == 0 and n < cap:
            n = _next_hands(n, chunk, cap)
            continue
        status = "unreachable" if _side(closest.est[0], t) != 0 else "ok"
        est = closest.est[0][0]
        msg = (f"no value in {show(lo)}..{show(hi)} meets {target.label}: the closest is {show(closest.pos[0])} with {est:.6g}"
               if status == "unreachable" else
               f"the target is at the end of the range: {show(closest.pos[0])} gives {est:.6g}, "
               f"its interval contains {t:g}")
        return SearchResult(closest.pos, n, book.evaluations, [(closest.pos[0], closest.pos[0])], status, msg)

    a, b = lo, hi
    while True:
        a, b = _bisect(book, a, b, n, sign, t)
        ca, cb = book((a,), n), book((b,), n)
        resolved = _side(ca.est[0], t) != 0 and _side(cb.est[0], t) != 0
        if resolved or n >= cap:
            break
        n = _grow(n, chunk, cap, [ca.est[0], cb.est[0]], t)
        a, b = _rebracket(book, a, b, lo, hi, n, sign, t)
    ca, cb = book((a,), n), book((b,), n)
    best = _choose(target, ca, cb, sign)
    rng, exact = _range(book, a, b, lo, hi, n, sign, t, range_evals) if target.op == "=" else ((best, best), True)
    return SearchResult((best,), n, book.evaluations, [rng], "ok", "", resolved, range_exact=exact)


def _bisect(book: _Book, a: int, b: int, n: int, sign: int, t: float) -> tuple[int, int]:
    """Narrow the bracket (g(a) < 0 <= g(b) after the sign) to adjacent positions.

    Regula falsi with the Illinois rule (an end kept twice in a row has its value halved
    in the interpolation, so a curved response is not approached from one side only), and
    the midpoint after three steps in a row that did not halve the bracket: never worse
    than about three times bisection's log2(range) steps, usually a handful on a smooth
    response."""
    kept, weight, slow, width = 0, 1.0, 0, b - a
    while b - a > 1:
        ga, gb = sign * (book((a,), n).est[0][0] - t), sign * (book((b,), n).est[0][0] - t)
        if ga >= 0:        # a itself hits the target exactly
            return a, min(a + 1, b)
        fa, fb = (ga * weight, gb) if kept < 0 else (ga, gb * weight) if kept > 0 else (ga, gb)
        m = _interpolate(a, b, fa, fb, slow >= 3)
        gm = sign * (book((m,), n).est[0][0] - t)
        side = 1 if gm < 0 else -1          # +1: b is kept, -1: a is kept
        if gm < 0:
            a = m
        else:
            b = m
        weight = weight / 2 if side == kept else 1.0
        kept = side
        slow = slow + 1 if (b - a) * 2 > width else 0
        width = b - a
    return a, b


def _rebracket(book: _Book, a: int, b: int, lo: int, hi: int, n: int, sign: int, t: float) -> tuple[int, int]:
    """After more hands: the old pair (a, b) at n hands, widened outward on a side where
    the target moved out of the bracket. The first step is where the pair's slope puts the
    target (common random numbers make that slope precise), then doubling steps."""
    def g(p: int) -> float:
        return sign * (book((p,), n).est[0][0] - t)

    slope = (g(b) - g(a)) / max(1, b - a)
    step = _first_step(g(a), slope)
    while g(a) >= 0 and a > lo:
        b, a = a, max(lo, a - step)
        step *= 2
    step = _first_step(g(b), slope)
    while g(b) < 0 and b < hi:
        a, b = b, min(hi, b + step)
        step *= 2
    return a, b


def _first_step(gv: float, slope: float) -> int:
    """Positions to the target from a point `gv` off it, one past the linear guess."""
    if slope > 0 and math.isfinite(gv) and math.isfinite(slope):
        return max(1, min(1 << 20, math.floor(abs(gv) / slope) + 1))
    return 1


def _choose(target: Target, ca: Candidate, cb: Candidate, sign: int) -> int:
    """The pair's candidate closest to the target; for an inequality the one on its side."""
    ea, eb = ca.est[0][0], cb.est[0][0]
    if target.op == "=":
        return ca.pos[0] if abs(ea - target.value) <= abs(eb - target.value) else cb.pos[0]
    ok = [c for c in (ca, cb) if target.met(*c.est[0])]
    if len(ok) == 1:
        return ok[0].pos[0]
    return (ca if abs(ea - target.value) <= abs(eb - target.value) else cb).pos[0]


def _range(book: _Book, a: int, b: int, lo: int, hi: int, n: int, sign: int, t: float, budget: int):
    """The positions whose 95 % interval at n hands contains t: ((low, high), exact).

    In position order (after the sign) the intervals lie below t, then contain it, then
    lie above it; a and b are adjacent with the estimate of a below t and of b above."""
    below = -1 if sign > 0 else 1     # the side of positions left of the answer
    ca, cb = book((a,), n), book((b,), n)
    sa, sb = _side(ca.est[0], t), _side(cb.est[0], t)
    if sa != 0 and sb != 0:            # resolved: no integer value has t in its interval
        best = a if abs(ca.est[0][0] - t) <= abs(cb.est[0][0] - t) else b
        return (best, best), True
    slope = abs(cb.est[0][0] - ca.est[0][0]) / max(1, b - a)
    low, exact_low = (_edge(book, a, lo, -1, n, t, below, slope, budget) if sa == 0 else (b, True))
    high, exact_high = (_edge(book, b, hi, +1, n, t, -below, slope, budget) if sb == 0 else (a, True))
    return (low, high), exact_low and exact_high


def _edge(book: _Book, inside: int, end: int, step_dir: int, n: int, t: float, resolved_side: int,
          slope: float, budget: int) -> tuple[int, bool]:
    """The last position from `inside` towards `end` whose interval contains t.

    A first guess from the slope and the interval's half-width, then doubling steps until
    a resolved position is found, then bisection between it and the last contained one."""
    c = book((inside,), n)
    est, lo_, hi_ = c.est[0]
    half = (hi_ - lo_) / 2
    # the interval stops containing t about (half-width - |estimate - t|) / slope steps away
    guess = math.floor(max(0.0, half - abs(est - t)) / slope) + 1 if slope > 0 else 1
    step = max(1, min(guess, abs(end - inside)))
    contained, evals = inside, 0
    out = None
    while evals < max(1, budget):
        p = inside + step_dir * step
        if (p - end) * step_dir > 0:
            p = end
        if p == contained:
            break
        evals += 1
        s = _side(book((p,), n).est[0], t)
        if s == resolved_side:
            out = p
            break
        if s != 0:       # the other side: the response is not monotone here; stop
            return contained, False
        contained = p
        if p == end:
            return end, True
        step *= 2
    if out is None:
        return contained, contained == end
    while abs(out - contained) > 1 and evals < budget:
        m = (out + contained) // 2
        evals += 1
        if _side(book((m,), n).est[0], t) == resolved_side:
            out = m
        else:
            contained = m
    if abs(out - contained) <= 1:
        return contained, True
    # the budget is spent: where the interval's bound crosses t, linearly between the two
    # (smooth in the parameter: every candidate is played on the same hands)
    k = 2 if resolved_side < 0 else 1          # the bound that crosses t: high below, low above
    bc, bo = book((contained,), n).est[0][k], book((out,), n).est[0][k]
    frac = (bc - t) / (bc - bo) if bc != bo else 0.0
    steps = int(math.floor(max(0.0, min(1.0, frac)) * abs(out - contained)))
    return contained + step_dir * min(steps, abs(out - contained) - 1), False


def search_choices(evaluate: Evaluator, targets: Sequence[Target], n_choices: int, *, hands: int) -> SearchResult:
    """A list of choices: every one is played at `hands`; the closest to the targets wins."""
    book = _Book(evaluate)
    cands = [book((i,), hands) for i in range(n_choices)]
    scale = _scales(targets, cands[0])
    best = min(cands, key=lambda c: sum(d * d for d in _deviations(targets, c, scale)))
    ok = [c.pos[0] for c in cands if all(t.met(*e) for t, e in zip(targets, c.est))]
    status, msg = "ok", ""
    if not ok:
        status = "unreachable" if len(targets) == 1 else "conflict"
        msg = _miss_message(targets, best)
    return SearchResult(best.pos, hands, book.evaluations, None, status, msg, pareto=[tuple([p]) for p in ok])


def _scales(targets: Sequence[Target], c: Candidate) -> list[float]:
    """Per target, the standard error (95 % half-width / 1.96) at the first candidate: the
    unit of the standardised deviation."""
    out = []
    for t, (est, lo, hi) in zip(targets, c.est):
        s = (hi - lo) / (2 * 1.959963984540054)
        out.append(s if math.isfinite(s) and s > 0 else max(abs(t.value), 1e-9))
    return out


def _deviations(targets: Sequence[Target], c: Candidate, scale: Sequence[float]) -> list[float]:
    out = []
    for t, (est, _, _), s in zip(targets, c.est, scale):
        d = est - t.value
        if t.op == "<=":
            d = max(0.0, d)
        elif t.op == ">=":
            d = min(0.0, d)
        out.append(abs(d) / s if math.isfinite(d) else math.inf)
    return out


def _miss_message(targets: Sequence[Target], best: Candidate) -> str:
    parts = ", ".join(f"{t.section}:{t.name} {e[0]:.6g} [{e[1]:.6g}, {e[2]:.6g}] (target {t.op} {t.value:g})"
                      for t, e in zip(targets, best.est))
    if len(targets) == 1:
        return f"no candidate meets {targets[0].label}: the closest gives {parts}"
    return f"no candidate meets every target within its interval (they may conflict); the closest gives {parts}"


def search_optuna(evaluate: Evaluator, targets: Sequence[Target], spaces: Sequence[tuple[str, int, int]], *,
                  hands: int, trials: int = DEFAULT_TRIALS, seed: int = 0) -> SearchResult:
    """Several parameters or targets: Optuna's multi-objective TPE over integer positions
    (`spaces`: (name, low, high) per varied key), each target's standardised deviation an
    objective; the Pareto set kept, the answer its candidate with the least sum of squares."""
    try:
        import optuna
    except ImportError:
        raise ValueError("several --vary or --target need Optuna: pip install 'mjsim[balance]' "
                         "(or pip install optuna)") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    book = _Book(evaluate)
    size = math.prod(h - lo + 1 for _, lo, h in spaces)
    scale: list[float] = []

    def objective(trial):
        pos = tuple(trial.suggest_int(name, lo, hi) for name, lo, hi in spaces)
        c = book(pos, hands)
        if not scale:
            scale.extend(_scales(targets, c))
        return tuple(_deviations(targets, c, scale))

    sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, n_startup_trials=min(10, trials))
    study = optuna.create_study(directions=["minimize"] * len(targets), sampler=sampler)
    # a small space is played whole, in order: nothing to sample
    if size <= trials:
        import itertools

        for combo in itertools.product(*[range(lo, hi + 1) for _, lo, hi in spaces]):
            study.enqueue_trial({name: v for (name, _, _), v in zip(spaces, combo)})
        trials = size
    study.optimize(objective, n_trials=trials)

    def loss(c: Candidate) -> tuple:
        return (sum(d * d for d in _deviations(targets, c, scale)), c.pos)

    start = min(book.evaluations, key=loss)
    _compass(book, loss, start, spaces, hands, budget=max(4 * len(spaces), trials // 2))
    cands = {c.pos: c for c in book.evaluations}
    devs = {p: _deviations(targets, c, scale) for p, c in cands.items()}
    pareto = sorted(p for p in cands if not any(_dominates(devs[q], devs[p]) for q in cands if q != p))
    best = min((cands[p] for p in pareto), key=loss)
    ok = [c for c in cands.values() if all(t.met(*e) for t, e in zip(targets, c.est))]
    status, msg = "ok", ""
    if not ok:
        status, msg = "conflict" if len(targets) > 1 else "unreachable", _miss_message(targets, best)
        rng = None
    else:
        if best not in ok:    # a candidate meeting all beats a Pareto one that does not
            best = min(ok, key=loss)
        rng = [(min(c.pos[i] for c in ok), max(c.pos[i] for c in ok)) for i in range(len(spaces))]
    return SearchResult(best.pos, hands, book.evaluations, rng, status, msg, pareto=pareto, range_exact=False)


def _dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def _compass(book: _Book, loss: Callable, start: Candidate, spaces, hands: int, budget: int) -> Candidate:
    """Polish over the integers after the sampler (a compass search): try a step either way
    on each key, move on any improvement, halve the steps when none; stop at steps of 1
    without improvement or after `budget` new candidates. TPE samples a 60 x 60 grid
    well but rarely lands on the one cell that meets two tight targets."""
    steps = [max(1, (hi - lo) // 16) for _, lo, hi in spaces]
    cur, evals = start, 0
    while evals < budget:
        moved = False
        for i, (_, lo, hi) in enumerate(spaces):
            for d in (-steps[i], steps[i]):
                p = list(cur.pos)
                p[i] = min(hi, max(lo, p[i] + d))
                p = tuple(p)
                if p == cur.pos:
                    continue
                fresh = (p, hands) not in book.cache
                c = book(p, hands)
                evals += fresh
                if loss(c) < loss(cur):
                    cur, moved = c, True
                    break
                if evals >= budget:
                    return cur
        if not moved:
            if all(s == 1 for s in steps):
                return cur
            steps = [max(1, s // 2) for s in steps]
    return cur


# ------------------------------------------------------------------------------------
# The simulation side: candidates as variants of one dataset


def hands_plan(max_hands: int, session_hands: int, chunk: int | None = None) -> tuple[int, int, int]:
    """(chunk, start hands, cap): the first step is one chunk of about max_hands / 64 (at
    least FIRST_HANDS, at most the runner's default chunk), and the cap is max_hands in
    whole chunks."""
    from mjsim import runner

    if chunk is None:
        # a first step of a few thousand hands at least: fewer say little about a pattern's share
        want = min(runner.DEFAULT_CHUNK, max(session_hands, max_hands // 64, min(max_hands, FIRST_HANDS)))
        chunk = max(session_hands, want // session_hands * session_hands)
        # a chunk that divides --hands, when one is near: the last step is then --hands itself
        divisors = [c for c in range(session_hands, runner.DEFAULT_CHUNK + 1, session_hands)
                    if max_hands % c == 0 and max(want / 2, min(FIRST_HANDS, max_hands)) <= c]
        if divisors:
            chunk = min(divisors, key=lambda c: (abs(c - want), c))
    if chunk % session_hands:
        raise ValueError(f"--chunk {chunk} must be a multiple of --session-hands {session_hands}")
    if max_hands < chunk:
        raise ValueError(f"--hands {max_hands:,} is less than one chunk ({chunk:,} hands)")
    return chunk, chunk, max_hands // chunk * chunk


class SimulationEvaluator:
    """Plays a candidate (positions -> rules) for a number of hands into `out`, a variant
    each, and reads the targets' estimates and 95 % intervals.

    Results are kept in DIR/balance-state.json, keyed by variant and hands: a rerun follows
    the same path and reads them back, so a resumed search gives the same answer (the data
    of a candidate may have grown past a step that is asked again)."""

    def __init__(self, base, varies: Sequence[Vary], targets: Sequence[Target], *, players, out: Path,
                 seed: int, session_hands: int, chunk: int, run_step: Callable, label_suffix: str = "",
                 progress: Callable | None = None):
        from mjsim import runner

        self.base, self.varies, self.targets = base, list(varies), list(targets)
        self.players = runner.parse_players(players)
        self.out, self.seed, self.session_hands, self.chunk = Path(out), seed, session_hands, chunk
        self.run_step, self.suffix, self.progress = run_step, label_suffix, progress
        self.hands_played = 0
        self.labels: dict[tuple, str] = {}

    def values(self, pos: tuple) -> tuple:
        return tuple(v.value(p) for v, p in zip(self.varies, pos))

    def label(self, pos: tuple) -> str:
        return " ".join(f"{v.name}={_show(x)}" for v, x in zip(self.varies, self.values(pos))) + self.suffix

    def spec(self, pos: tuple, hands: int):
        from mjsim import runner

        rules = apply(self.base, self.varies, self.values(pos))
        return runner.make_spec(rules, players=self.players, hands=hands, session_hands=self.session_hands,
                                seed=self.seed, chunk=self.chunk, label=self.label(pos))

    def __call__(self, pos: tuple, hands: int) -> list[Estimate]:
        from mjsim import precision, stats

        spec = self.spec(pos, hands)
        state = _read_state(self.out)
        known = state.get(spec.variant, {}).get(str(hands), {})
        if all(_tkey(t) in known for t in self.targets):
            return [tuple(known[_tkey(t)]) for t in self.targets]
        recorded = precision._recorded_hands(self.out, spec)
        if recorded is not None and recorded > hands:
            spec = self.spec(pos, recorded)      # grown past this step by an earlier run
        precision._allow_growth(self.out, spec)
        if self.progress is not None:
            self.progress(self.label(pos), spec.hands, self.hands_played)
        result = self.run_step(spec)
        self.hands_played += getattr(result, "hands_done", 0) or 0
        if spec.hands > hands:
            st = _prefix_stats(self.out, spec, hands)
        else:
            st = stats.variant_stats(self.out, spec.variant)
        found = {m.key: m for m in (*st.rates, *st.means)}
        out = []
        for t in self.targets:
            m = found.get(t.key)
            if m is None:
                est, lo, hi = math.nan, math.nan, math.nan
            else:
                est = m.freq if hasattr(m, "freq") else m.mean
                lo, hi = m.ci
            out.append((float(est), float(lo), float(hi)))
        state = _read_state(self.out)
        entry = state.setdefault(spec.variant, {}).setdefault(str(hands), {})
        entry.update({_tkey(t): list(e) for t, e in zip(self.targets, out)})
        _write_state(self.out, state)
        return out


def _prefix_stats(out: Path, spec, hands: int):
    """The statistics of a variant's first `hands` hands (whole chunks): a temporary
    dataset of links to those chunk files, read as any dataset. A resumed search whose
    state file is gone then sees at each step what the first run saw."""
    import shutil
    import tempfile

    from mjsim import runner, stats

    tmp = Path(tempfile.mkdtemp(prefix="mjsim-balance-"))
    try:
        for table in runner.TABLES:
            src = runner.partition(out, table, spec.variant)
            dst = runner.partition(tmp, table, spec.variant)
            dst.mkdir(parents=True)
            for start, count in runner.plan_chunks(spec):
                if start >= hands:
                    break
                f = src / runner.chunk_name(spec, start, count)
                if f.exists():
                    (dst / f.name).symlink_to(f.resolve())
        manifest = runner.read_manifest(out)
        entry = dict(manifest["variants"].get(spec.variant, {}), hands=hands)
        (tmp / "manifest.json").write_text(json.dumps({"variants": {spec.variant: entry}}))
        return stats.variant_stats(tmp, spec.variant)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _tkey(t: Target) -> str:
    return f"{t.section}:{t.name}"


def _show(x) -> str:
    if isinstance(x, float):
        return f"{x:.12g}"
    if isinstance(x, (list, tuple)):
        return "[" + ",".join(map(_show, x)) + "]"
    return str(x)


def _read_state(out: Path) -> dict:
    try:
        return json.loads((Path(out) / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}


def _write_state(out: Path, state: dict) -> None:
    from mjsim import runner

    runner.write_atomic(Path(out) / STATE_FILE, (json.dumps(state, indent=1, ensure_ascii=False) + "\n").encode())


# ------------------------------------------------------------------------------------
# The whole balance


@dataclass
class Balance:
    """One population's answer."""

    players: tuple
    varies: list[Vary]
    targets: list[Target]
    result: SearchResult
    evaluator: SimulationEvaluator | None = None

    def values(self, pos: tuple) -> tuple:
        return tuple(v.value(p) for v, p in zip(self.varies, pos))

    @property
    def best(self) -> dict:
        return {v.name: x for v, x in zip(self.varies, self.values(self.result.best))}

    @property
    def best_estimates(self) -> list[Estimate]:
        return self.estimates_at(self.result.best)

    def estimates_at(self, pos: tuple) -> list[Estimate]:
        cands = [c for c in self.result.evaluations if c.pos == tuple(pos)]
        return max(cands, key=lambda c: c.hands).est if cands else []

    @property
    def range(self) -> dict | None:
        if self.result.range is None:
            return None
        return {v.name: (v.value(lo), v.value(hi)) for v, (lo, hi) in zip(self.varies, self.result.range)}

    def rules(self, base):
        return apply(base, self.varies, self.values(self.result.best))

    def written(self) -> dict:
        """Each varied key -> the value the chosen rules hold for it: a list-valued key
        (values.qixiaodui) as the whole list ([11, 11]), one entry (values.qixiaodui[1]) as
        that entry."""
        if self.evaluator is None:
            return {k: _plain(v) for k, v in self.best.items()}
        rules = self.rules(self.evaluator.base)
        out = {}
        for v in self.varies:
            x = rules[v.key]
            out[v.name] = _plain(x[v.index] if v.index is not None else x)
        return out

    def table(self) -> list[dict]:
        """Every evaluation: values, hands, each target's estimate and interval."""
        rows = []
        for c in self.result.evaluations:
            row = {v.name: x for v, x in zip(self.varies, self.values(c.pos))}
            row["hands"] = c.hands
            for t, (est, lo, hi) in zip(self.targets, c.est):
                row[t.label] = (est, lo, hi)
            rows.append(row)
        return rows

    def as_json(self) -> dict:
        targets = []
        for t, (est, lo, hi) in zip(self.targets, self.best_estimates):
            targets.append({"target": t.text, "section": t.section, "measure": t.name, "op": t.op,
                            "value": t.value, "estimate": _num(est), "interval": [_num(lo), _num(hi)],
                            "met": t.met(est, lo, hi)})
        rng = self.range
        return {"players": list(self.players), "best": self.written(),
                "values": {k: _plain(v) for k, v in self.best.items()},
                "targets": targets, "hands": self.result.hands, "status": self.result.status,
                "message": self.result.message, "resolved": self.result.resolved,
                "range": None if rng is None else {k: [_plain(a), _plain(b)] for k, (a, b) in rng.items()},
                "range_exact": self.result.range_exact,
                "pareto": [{v.name: _plain(x) for v, x in zip(self.varies, self.values(p))} for p in self.result.pareto],
                "candidates": [{**{k: _plain(v) for k, v in row.items() if not isinstance(v, tuple)},
                                "targets": [{"target": t.text, "estimate": _num(row[t.label][0]),
                                             "interval": [_num(row[t.label][1]), _num(row[t.label][2])]}
                                            for t in self.targets]} for row in self.table()]}


def _num(x: float):
    return x if math.isfinite(x) else None


def _plain(v):
    return [_plain(x) for x in v] if isinstance(v, (tuple, list)) else v


def balance(base, varies: Sequence[Vary], targets: Sequence[Target], *, players="ev", out,
            hands: int, seed: int = 0, session_hands: int = 16, chunk: int | None = None,
            run_step: Callable | None = None, trials: int = DEFAULT_TRIALS, label_suffix: str = "",
            progress: Callable | None = None, **run_options) -> Balance:
    """Search `varies` for `targets` under `base` rules and one player population.

    `hands`: the most hands of any candidate. `run_step(spec)` plays one candidate's step
    (default: mjsim.runner.run(spec, out, **run_options))."""
    from mjsim import runner

    varies, targets = list(varies), list(targets)
    if not varies:
        raise ValueError("balance needs at least one --vary KEY=LO..HI")
    if len({v.name for v in varies}) != len(varies):
        raise ValueError("--vary: a key is given twice")
    chunk, start, cap = hands_plan(hands, session_hands, chunk)
    if run_step is None:
        def run_step(spec):
            return runner.run(spec, out, progress=False, **run_options)
    ev = SimulationEvaluator(base, varies, targets, players=players, out=Path(out), seed=seed,
                             session_hands=session_hands, chunk=chunk, run_step=run_step,
                             label_suffix=label_suffix, progress=progress)
    if len(varies) == 1 and len(targets) == 1 and varies[0].kind != "choice":
        lo, hi = varies[0].positions
        preferred = _position_of(varies[0], base)
        result = search_1d(ev, targets[0], lo, hi, start=start, cap=cap, chunk=chunk, preferred=preferred,
                           show=lambda p: _show(varies[0].value(p)))
    elif len(varies) == 1 and varies[0].kind == "choice":
        result = search_choices(ev, targets, len(varies[0].choices), hands=cap)
    else:
        if any(v.kind == "choice" for v in varies):
            raise ValueError("--vary with a list of choices: only one --vary at a time")
        spaces = [(v.name, *v.positions) for v in varies]
        result = search_optuna(ev, targets, spaces, hands=cap, trials=trials, seed=seed)
    return Balance(ev.players, varies, targets, result, ev)


def _position_of(vary: Vary, base):
    """The position of the base rules' value (kept when every value meets the target)."""
    v = _current(base, vary.key, vary.index)
    if vary.kind == "int" and isinstance(v, int):
        return v
    if vary.kind == "float" and isinstance(v, (int, float)) and vary.hi > vary.lo:
        return int(round((v - vary.lo) / (vary.hi - vary.lo) * FLOAT_STEPS))
    return None


# ------------------------------------------------------------------------------------
# Output: rules file, JSON, HTML page


def write_rules(path: str | Path, rules) -> Path:
    """The chosen rules as a TOML file, loadable by --rules."""
    from mjsim import runner

    path = Path(path)
    runner.write_atomic(path, rules.to_toml().encode())
    return path


def write_json(path: str | Path, answers: Sequence[Balance]) -> Path:
    from mjsim import runner

    first = answers[0].as_json()
    data = {"best": first["best"], "targets": first["targets"], "status": first["status"],
            "populations": [a.as_json() for a in answers]}
    path = Path(path)
    runner.write_atomic(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())
    return path


def _plot(answer: Balance, t_index: int) -> str | None:
    """Measure against the (first) varied parameter at the final hands: estimates with 95 %
    whiskers, the target line, the chosen value and the indistinguishable range."""
    from mjsim import report

    plt = report._plt()
    v = answer.varies[0]
    if v.kind == "choice" and not all(isinstance(x, (int, float)) for x in v.choices):
        return None
    final = answer.result.hands
    pts = sorted((answer.values(c.pos)[0], c.est[t_index]) for c in answer.result.evaluations
                 if c.hands == final)
    early = sorted((answer.values(c.pos)[0], c.est[t_index]) for c in answer.result.evaluations
                   if c.hands != final)
    t = answer.targets[t_index]
    best = answer.values(answer.result.best)[0]
    rng = answer.range
    span = rng[v.name] if rng and len(answer.varies) == 1 else None
    # the whole range, and a zoom on the candidates of the final hands around the answer
    xs = [x for x, _ in pts] or [best]
    zoom = (min(xs + [best]), max(xs + [best]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [1, 1.2]})
    for ax, view in zip(axes, ("all", "zoom")):
        shown_early = [(x, e) for x, e in early if view == "all" or zoom[0] <= x <= zoom[1]]
        if shown_early:
            ax.errorbar([x for x, _ in shown_early], [e[0] for _, e in shown_early],
                        yerr=[[e[0] - e[1] for _, e in shown_early], [e[2] - e[0] for _, e in shown_early]],
                        fmt="o", ms=3, color="#bbbbbb", ecolor="#dddddd", label="fewer hands")
        if pts:
            ax.errorbar([x for x, _ in pts], [e[0] for _, e in pts],
                        yerr=[[e[0] - e[1] for _, e in pts], [e[2] - e[0] for _, e in pts]],
                        fmt="o", ms=4, color="#1f77b4", capsize=2, label=f"{final:,} hands (95% interval)")
        ax.axhline(t.value, color="#d62728", lw=1, ls="--", label=f"target {t.op} {t.value:g}")
        ax.axvline(best, color="#2ca02c", lw=1, label=f"chosen {_show(best)}")
        if span and span[0] != span[1]:
            ax.axvspan(span[0], span[1], color="#2ca02c", alpha=0.12, label="cannot tell apart")
        if view == "zoom":
            pad = max(1, (zoom[1] - zoom[0]) * 0.1)
            ax.set_xlim(zoom[0] - pad, zoom[1] + pad)
            ax.set_title("around the answer", fontsize="small", loc="left")
            ax.legend(fontsize="x-small")
        else:
            ax.set_title("whole range", fontsize="small", loc="left")
        ax.set_xlabel(v.name)
        ax.set_ylabel(f"{t.section}: {t.name}")
    fig.tight_layout()
    return report._png(fig)


def html_page(answers: Sequence[Balance], base, command: str = "") -> str:
    from mjsim import report

    page = report._Page()
    esc = report._esc
    for a in answers:
        page.heading(2, f"players {','.join(a.players)}")
        page.add(f"<p>{esc(summary_line(a))}</p>")
        if a.result.message:
            page.add(f"<p class=\"note\">{esc(a.result.message)}</p>")
        rows = table_rows(a)
        head = "".join(f"<th>{esc(h)}</th>" for h in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
        page.heading(3, "Candidates")
        page.add(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        for i, t in enumerate(a.targets):
            png = _plot(a, i)
            if png:
                page.image(f"{t.section}: {t.name} against {a.varies[0].name}", png)
    page.heading(2, "Method")
    page.add(f"<p class=\"note\">{esc(METHOD)}</p>")
    if command:
        page.add(f"<p class=\"note\">{esc(command)}</p>")
    return page.render("mjsim balance")


METHOD = ("Every candidate is played on the same seed (common random numbers: hand i gets the same wall "
          "under every candidate). One parameter and one target: bracket, then bisect over the integers, "
          "playing 4 times more hands of the same seeds while the candidates either side of the answer "
          "cannot be told from the target at 95 %, up to --hands. Several parameters or targets: Optuna's "
          "multi-objective TPE over standardised deviations. Intervals: the summary's session-clustered 95 % "
          "intervals (Wilson on the effective n for rates and shares, t for means). The range of values the "
          "targets cannot tell apart: every value whose 95 % interval contains the target.")


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "–"
    return f"{x:.4g}" if abs(x) >= 1 or x == 0 else f"{x:.4f}"


def table_rows(a: Balance) -> list[list[str]]:
    """Header and one row per evaluation, sorted by values then hands."""
    head = [v.name for v in a.varies] + ["hands"] + [f"{t.section}:{t.name}" for t in a.targets]
    rows = []
    for c in sorted(a.result.evaluations, key=lambda c: (c.pos, c.hands)):
        cells = [_show(x) for x in a.values(c.pos)] + [f"{c.hands:,}"]
        cells += [f"{_fmt(e[0])} [{_fmt(e[1])}, {_fmt(e[2])}]" for e in c.est]
        rows.append(cells)
    return [head, *rows]


def summary_line(a: Balance) -> str:
    """'multipliers.qingyise = 66 (95%: 63..69 cannot be told apart); property money:qingyise 0.1002 [...]'"""
    best = ", ".join(f"{k} = {_show(v)}" for k, v in a.best.items())
    rng = a.range
    if rng is not None and a.result.status == "ok":
        approx = "" if a.result.range_exact else "about "
        single = all(lo == hi for lo, hi in rng.values()) and len(rng) == 1
        hit = all(t.met(*e) for t, e in zip(a.targets, a.best_estimates))
        if single and not hit:
            best += " (the target lies between two neighbouring values, each told apart from it at 95%: this is the closer)"
        elif single:
            best += " (the values either side are told apart from the target at 95%)"
        else:
            best += " (" + approx + "; ".join(f"{k} {_show(lo)}..{_show(hi)}" for k, (lo, hi) in rng.items()) \
                + " cannot be told apart at 95%)"
    ests = "; ".join(f"{t.section}:{t.name} {_fmt(e[0])} [{_fmt(e[1])}, {_fmt(e[2])}] (target {t.op} {t.value:g})"
                     for t, e in zip(a.targets, a.best_estimates))
    flag = {"unreachable": "UNREACHABLE: ", "conflict": "CONFLICT: "}.get(a.result.status, "")
    return f"{flag}{best}; {ests}; {a.result.hands:,} hands per candidate"
