"""The searches over candidates, given an evaluator `f(position, hands) -> [(estimate, low,
high), ...]`: one parameter and one target by safeguarded regula falsi with growing hands
(`search_1d`); several by Optuna's TPE sampler, then a compass search (`search_optuna`)."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mjsim.run.balance.problem import DEFAULT_TRIALS, GROWTH, RANGE_EVALS, Target


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
    status: str = "ok"                   # "ok", "undecided", "unreachable" or "conflict"
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


def _has_interval(e: Estimate) -> bool:
    """An interval to judge by (too few hands leave its ends NaN, which _side reads as 0)."""
    return math.isfinite(e[1]) and math.isfinite(e[2])


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
        est = closest.est[0][0]
        if _side(closest.est[0], t) != 0:
            status = "unreachable"
            msg = f"no value in {show(lo)}..{show(hi)} meets {target.label}: the closest is {show(closest.pos[0])} with {est:.6g}"
        elif not _has_interval(closest.est[0]):
            # too few hands for an interval (e.g. no win of the pattern): nothing is ruled out
            status = "undecided"
            msg = (f"the target is at the end of the range: {show(closest.pos[0])} gives {est:.6g} with no 95% "
                   f"interval yet ({n:,} hands are too few), so {target.label} is neither met nor ruled out; "
                   f"more --hands may decide it")
        else:
            # at the end of the range and within noise of the target: an inequality whose
            # estimate is on the wrong side is not met, though not told apart from it either
            status = "ok" if target.met(*closest.est[0]) else "undecided"
            msg = (f"the target is at the end of the range: {show(closest.pos[0])} gives {est:.6g}, "
                   f"its interval contains {t:g}" + ("" if status == "ok" else
                                                     f", so {target.label} is neither met nor ruled out"))
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
    lacking = [c for c in (ca, cb) if not _has_interval(c.est[0])]
    if lacking:
        # the estimates cross the target between a and b, but an interval that does not
        # exist contains nothing: the answer is a guess until more hands give one
        shown = " and ".join(show(c.pos[0]) for c in lacking)
        return SearchResult((best,), n, book.evaluations, [(min(a, b), max(a, b))], "undecided",
                            f"the target lies between {show(a)} and {show(b)}, but {shown} "
                            f"{'has' if len(lacking) == 1 else 'have'} no 95% interval yet "
                            f"({n:,} hands are too few), so {target.label} is not decided; "
                            f"more --hands may decide it", False, range_exact=False)
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
        e = book((p,), n).est[0]
        if not _has_interval(e):   # no interval here: it neither contains t nor excludes it
            return contained, False
        s = _side(e, t)
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
        e = book((m,), n).est[0]
        if not _has_interval(e):
            return contained, False
        if _side(e, t) == resolved_side:
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
