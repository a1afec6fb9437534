"""Do the summary's 95% intervals cover, and do `mjsim compare`'s tests keep their 5% false-positive rate?

    python bench/interval_coverage.py                      # Wanzai at the defaults (about 9 CPU minutes)
    python bench/interval_coverage.py --game anhua
    python bench/interval_coverage.py --quick              # a tiny run that only checks the script works
    python bench/interval_coverage.py --runs 200 --sets 1000x16,8x16 --json /tmp/cov.json

Coverage. A "truth" for every measure of the summary comes from one large greedy run
(`--truth-hands`, 16-hand sessions, its own seed), or from theory where there is one:

- a seat's mean net score is exactly 0: every hand is zero-sum over the four seats, and with
  four copies of one player, a first dealer drawn uniformly per session and rules that treat
  every seat alike (no fire, no 飄), seat s is seat 0 rotated, so all four means are equal;
- by the same symmetry the per-seat rates and means (seat s wins, deals in, claims per hand)
  are equal, and their truth is the large run's value pooled over the four seats;
- everything else is the large run's estimate (its own 95% interval is printed beside it).
  With 2,000,000 hands its error is about 0.09 of the standard error of a 16,000-hand run,
  which lowers the coverage a perfect interval shows by about 0.001.

Measures without a usable truth are left out: a rate the large run never saw (or always
saw), and a mean without spread there (a pattern's fixed value). Only the dealer carries
over from hand to hand (fire is off), so a hand's law does not depend on its place in its
session: one truth serves every session length.

Then `--runs` independent runs per set (`--sets`, SESSIONSxHANDS_PER_SESSION, each with its
own seeds) are summarised exactly as `mjsim report` does (`stats.variant_stats`), and for
every measure we count the runs whose reported 95% interval holds the truth. A coverage is
given with a Clopper-Pearson ("exact") 95% interval on it (scipy binomtest); runs whose
summary gives no interval for a measure (one session holds it, a money share of 0) are
counted apart. "low" / "high" count the misses where the interval lies below / above the
truth.

False positives. The comparisons are made by `stats.compare_all(a, [b], adjust="holm")`, the
function behind `mjsim compare`:

- unpaired: runs 2i and 2i + 1 of a set (same rules and players, different seeds);
- paired, equal in law: run i against a run with the same seed and `wall_model = "flat"`.
  Both wall models deal from a uniformly shuffled wall through a fixed map of positions
  (it depends on the dealer and the dice only), and every later draw (live, replacement,
  indicator, bird) takes a position chosen from what has been taken so far, never from the
  tiles themselves: so each tile drawn is uniform over the unseen ones under either model,
  the dice are thrown under both (the random stream after them is the same), and the two
  variants have one law for every measure. The hands differ, so the paired tests
  (session-clustered t, exact McNemar) do run, under a true null;
- paired, no-op: the same seed with a rule change that provably changes nothing in play or
  payments: Wanzai `fire_min_hands = 5` (with every fire chance 0 nobody is ever on fire,
  and the four fire draws are made either way), Anhua `score_cap = 10000` (above the largest
  payment its rules allow, 256 by `rulesets.rules.largest_payment`; greedy does not read
  it). Every hand is identical and nothing should be tested at all.

Per measure: how often its raw p < 0.05 where it was tested; per comparison: how often any
Holm-adjusted p < 0.05 (the family-wise rate, with a Clopper-Pearson interval).

Datasets go to a temporary directory (`--data` to choose, `--keep` to keep them); each run
is deleted once it has been used. `--json` writes every figure, for every measure.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

# mjsim is the installed package: putting src/ on sys.path would shadow it with a source tree
# that has no built extension
import mjsim  # noqa: F401
from mjsim.analysis import stats
from mjsim.rulesets.rules import Rules
from mjsim.run import runner
from mjsim.run.spec import make_spec
from mjsim.version import __version__ as version

PLAYERS = "greedy"
TRUTH_SESSION_HANDS = 16
DEFAULTS = {"truth_hands": 2_000_000, "runs": 400, "sets": "1000x16,8x16,4x1000,2x64", "noop": 2}
QUICK = {"truth_hands": 20_000, "runs": 8, "sets": "20x16,4x16,2x100", "noop": 1}
#: a rule change per game that changes nothing in play or payments (see the module doc)
NOOP = {"wanzai": {"fire_min_hands": 5}, "anhua": {"score_cap": 10000}}
#: the measures the printed tables show (every measure goes to the JSON)
SHOWN = {
    "wanzai": [("outcome", "win"), ("outcome", "draw"), ("outcome", "several winners"),
               ("win kind", "self_draw"), ("pattern", "shisanlan"), ("pattern", "qixiaodui"),
               ("property", "qingyise"), ("kongs", "hands with exposed kong"), ("seat", "seat 0 wins"),
               ("seat", "seat 0 deals in"), ("money", "win"), ("score", "seat 0"), ("score", "dealer"),
               ("score", "dealer − non-dealer"), ("win", "points per win"), ("pattern points", "pinghu"),
               ("hand", "live tiles drawn")],
    "anhua": [("outcome", "draw"), ("win kind", "self_draw"), ("win kind", "instant"), ("pattern", "yingzhuang"),
              ("property", "xiaoqidui"), ("property", "qingyise"), ("property", "si_wang"),
              ("kongs", "hands with exposed kong"), ("seat", "seat 0 wins"), ("seat", "seat 0 deals in"),
              ("birds", "wins with a bird hit"), ("money", "win"), ("score", "seat 0"), ("score", "dealer"),
              ("score", "dealer − non-dealer"), ("win", "points per win"), ("pattern points", "yingzhuang"),
              ("hand", "live tiles drawn")],
}
SEAT_POOLED = (("seat", "seat {s} wins"), ("seat", "seat {s} deals in"), ("seat", "seat {s} claims per hand"))
SEAT_ZERO = ("score", "seat {s}")


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    from scipy.stats import binomtest

    if n == 0:
        return math.nan, math.nan
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return float(ci.low), float(ci.high)


def parse_sets(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*[x×]\s*(\d+)\s*", part)
        if not m or int(m.group(1)) < 2 or int(m.group(2)) < 1:
            raise SystemExit(f"--sets: {part!r} is not SESSIONSxHANDS (at least 2 sessions), e.g. 1000x16")
        out.append((int(m.group(1)), int(m.group(2))))
    return out


def set_name(sessions: int, per: int) -> str:
    return f"{sessions:,}×{per:,}"


def label(key) -> str:
    return key[1] if key[0] in ("outcome", "score", "win", "hand", "seat", "kongs", "birds") else f"{key[0]}: {key[1]}"


# ------------------------------------------------------------------------------------------
# Runs


class Runs:
    """Seeded greedy runs into a scratch directory, summarised as `mjsim report` does."""

    def __init__(self, data: Path, workers: int):
        self.data, self.workers, self.n = data, workers, 0
        self.hands = 0

    def run(self, rules: Rules, hands: int, session_hands: int, seed: int) -> tuple[Path, stats.VariantStats]:
        self.n += 1
        out = self.data / f"run-{self.n}"
        spec = make_spec(rules, players=PLAYERS, hands=hands, session_hands=session_hands, seed=seed)
        runner.run(spec, out, workers=self.workers, progress=False)
        self.hands += hands
        return out, stats.variant_stats(out)


# ------------------------------------------------------------------------------------------
# Truth


@dataclass
class Truth:
    value: float
    source: str
    ci: tuple[float, float] = (math.nan, math.nan)


def truths(st: stats.VariantStats) -> tuple[dict, dict]:
    """{key: Truth} for the measures with a usable truth, and {key: why not} for the rest."""
    found, skipped = {}, {}
    for r in st.rates:
        if r.count == 0 or r.count == r.n:
            skipped[r.key] = f"{r.count:g} of {r.n:g} in the large run"
        else:
            found[r.key] = Truth(r.freq, "large run", r.ci)
    for m in st.means:
        if not (m.n and m.sd > 0):
            skipped[m.key] = "no spread in the large run" if m.n else "never in the large run"
        else:
            found[m.key] = Truth(m.mean, "large run", m.ci)
    for section, pattern in SEAT_POOLED:
        keys = [(section, pattern.format(s=s)) for s in range(4)]
        if all(k in found for k in keys):
            items = {m.key: m for m in (*st.rates, *st.means)}
            if isinstance(items[keys[0]], stats.Rate):
                pooled = sum(items[k].count for k in keys) / sum(items[k].n for k in keys)
            else:
                pooled = sum(items[k].mean * items[k].n for k in keys) / sum(items[k].n for k in keys)
            for k in keys:
                found[k] = Truth(pooled, "large run, 4 seats pooled", found[k].ci)
    for s in range(4):
        k = (SEAT_ZERO[0], SEAT_ZERO[1].format(s=s))
        if k in found:
            found[k] = Truth(0.0, "theory: 0", found[k].ci)
    return found, skipped


# ------------------------------------------------------------------------------------------
# Tallies


@dataclass
class Coverage:
    covered: int = 0
    low: int = 0            # interval below the truth
    high: int = 0           # interval above the truth
    missing: int = 0        # no interval in that run
    width: float = 0.0

    @property
    def n(self) -> int:
        return self.covered + self.low + self.high

    def add(self, lo: float, hi: float, truth: float) -> None:
        if not (math.isfinite(lo) and math.isfinite(hi)):
            self.missing += 1
            return
        self.width += hi - lo
        if hi < truth:
            self.low += 1
        elif lo > truth:
            self.high += 1
        else:
            self.covered += 1

    def record(self) -> dict:
        lo, hi = clopper_pearson(self.covered, self.n)
        return {"runs": self.n, "covered": self.covered, "coverage": self.covered / self.n if self.n else None,
                "ci": [lo, hi] if self.n else None, "interval_below_truth": self.low,
                "interval_above_truth": self.high, "no_interval": self.missing,
                "mean_width": self.width / self.n if self.n else None}


@dataclass
class Rejections:
    """Per measure: comparisons where it was tested, raw and adjusted p < 0.05, tests used."""

    tested: dict = field(default_factory=lambda: defaultdict(int))
    raw: dict = field(default_factory=lambda: defaultdict(int))
    adjusted: dict = field(default_factory=lambda: defaultdict(int))
    tests: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    by_test: dict = field(default_factory=lambda: defaultdict(lambda: [0, 0]))   # test -> [tested, raw rejections]
    comparisons: int = 0
    any_adjusted: int = 0
    any_tested: int = 0
    identical_hands: list = field(default_factory=list)
    hands: int = 0

    def add(self, pairing, comps) -> None:
        self.comparisons += 1
        self.hands = pairing.hands or self.hands
        if pairing.identical is not None:
            self.identical_hands.append(pairing.identical)
        tested = [c for c in comps if c.tested]
        self.any_tested += bool(tested)
        self.any_adjusted += any(c.p_adj is not None and c.p_adj < stats.ALPHA for c in tested)
        for c in tested:
            key = (c.section, c.name)
            self.tested[key] += 1
            self.raw[key] += c.p < stats.ALPHA
            self.adjusted[key] += c.p_adj is not None and c.p_adj < stats.ALPHA
            self.tests[key][c.test] += 1
            self.by_test[c.test][0] += 1
            self.by_test[c.test][1] += c.p < stats.ALPHA

    def record(self) -> dict:
        fw = clopper_pearson(self.any_adjusted, self.comparisons)
        return {
            "comparisons": self.comparisons, "comparisons_with_a_test": self.any_tested,
            "any_holm_adjusted_below_0.05": self.any_adjusted, "family_wise_rate_ci": list(fw),
            "identical_hands": self.identical_hands, "hands": self.hands,
            "by_test": {t: {"tested": n, "raw_below_0.05": k} for t, (n, k) in self.by_test.items()},
            "measures": {" / ".join(k): {"tested": self.tested[k], "raw_below_0.05": self.raw[k],
                                         "raw_ci": list(clopper_pearson(self.raw[k], self.tested[k])),
                                         "holm_below_0.05": self.adjusted[k], "tests": dict(self.tests[k])}
                         for k in self.tested},
        }


def compare(a: stats.VariantStats, b: stats.VariantStats, paired: bool):
    (pairing, comps), = stats.compare_all(a, [b], adjust="holm")     # what `mjsim compare` calls
    if pairing.paired != paired:
        raise RuntimeError(f"expected a{'' if paired else 'n un'}paired comparison, got: {pairing.reason}")
    return pairing, comps


# ------------------------------------------------------------------------------------------
# One game


def play_set(game: str, rules: Rules, runs: Runs, truth: dict, sessions: int, per: int, n_runs: int,
             n_paired: int, n_noop: int, seed0: int) -> dict:
    cov = defaultdict(Coverage)
    unpaired, paired, noop = Rejections(), Rejections(), Rejections()
    flat = rules.with_overrides(wall_model="flat")
    same = rules.with_overrides(**NOOP[game])
    hands = sessions * per
    previous = None
    for i in range(n_runs):
        seed = seed0 + i
        path, st = runs.run(rules, hands, per, seed)
        for r in (*st.rates, *st.means):
            if r.key in truth:
                cov[r.key].add(*r.ci, truth[r.key].value)
        if i % 2 == 1:
            unpaired.add(*compare(previous, st, paired=False))
        if i < n_paired:
            other_path, other = runs.run(flat, hands, per, seed)
            paired.add(*compare(st, other, paired=True))
            shutil.rmtree(other_path)
        if i < n_noop:
            other_path, other = runs.run(same, hands, per, seed)
            noop.add(*compare(st, other, paired=True))
            shutil.rmtree(other_path)
        shutil.rmtree(path)
        previous = st
    return {"sessions": sessions, "session_hands": per, "hands": hands, "runs": n_runs, "seeds": [seed0, seed0 + n_runs - 1],
            "coverage": {k: c for k, c in cov.items()}, "unpaired": unpaired, "paired": paired, "noop": noop}


def fmt_cov(c: Coverage | None) -> str:
    if c is None or c.n == 0:
        return "no interval" if c is not None and c.missing else "-"
    lo, hi = clopper_pearson(c.covered, c.n)
    text = f"{c.covered / c.n:.3f} [{lo:.3f}, {hi:.3f}]"
    if c.low or c.high:
        text += f" {c.low}/{c.high}"
    if c.missing:
        text += f" ({c.missing} none)"
    return text


def fmt_rate(k: int, n: int) -> str:
    return f"{k / n:.3f} ({k}/{n})" if n else "-"


def fmt_value(x: float) -> str:
    if x == 0:
        return "0"
    return f"{x:.5g}" if abs(x) >= 0.001 else f"{x:.3g}"


def report(game: str, truth_hands: int, truth: dict, skipped: dict, sets: list[dict], show_all: bool) -> None:
    shown = [k for k in SHOWN[game] if k in truth]
    keys = sorted({k for s in sets for k in s["coverage"]}, key=list(truth).index) if show_all else shown
    runs = sets[0]["runs"] if sets else 0
    print(f"\n## {game}: coverage of the reported 95% intervals ({PLAYERS}, {runs} runs per set)\n")
    print(f"truth: {truth_hands:,} hands in {TRUTH_SESSION_HANDS}-hand sessions, or theory; a set is "
          "SESSIONS×HANDS PER SESSION; a cell is coverage [Clopper-Pearson 95%], then misses with the "
          "interval below/above the truth, then runs without an interval\n")
    head = ["measure", "truth", "source"] + [f"{set_name(s['sessions'], s['session_hands'])}" for s in sets]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for k in keys:
        t = truth[k]
        row = [label(k), fmt_value(t.value), t.source] + [fmt_cov(s["coverage"].get(k)) for s in sets]
        print("| " + " | ".join(row) + " |")
    print(f"\n{len(skipped)} measures without a usable truth (never or always in the large run, or a fixed value).")

    print(f"\n## {game}: false positives of the comparison tests (stats.compare_all, Holm)\n")
    print("raw p < 0.05 among the comparisons that tested the measure; unpaired: runs 2i vs 2i+1 "
          "(different seeds); paired: the same seed, wall_model table vs flat (equal in law)\n")
    head = ["measure"] + [f"unpaired {set_name(s['sessions'], s['session_hands'])}" for s in sets] + \
        [f"paired {set_name(s['sessions'], s['session_hands'])}" for s in sets]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for k in shown:
        row = [label(k)] + [fmt_rate(s[kind].raw[k], s[kind].tested[k]) for kind in ("unpaired", "paired")
                            for s in sets]
        print("| " + " | ".join(row) + " |")
    row = ["**any Holm-adjusted p < 0.05**"]
    for kind in ("unpaired", "paired"):
        for s in sets:
            rj = s[kind]
            lo, hi = clopper_pearson(rj.any_adjusted, rj.comparisons)
            row.append(f"{rj.any_adjusted}/{rj.comparisons} [{lo:.3f}, {hi:.3f}]" if rj.comparisons else "-")
    print("| " + " | ".join(row) + " |")
    row = ["all tested measures pooled, raw"]
    for kind in ("unpaired", "paired"):
        for s in sets:
            n = sum(v[0] for v in s[kind].by_test.values())
            k = sum(v[1] for v in s[kind].by_test.values())
            row.append(fmt_rate(k, n))
    print("| " + " | ".join(row) + " |")
    print("\nby test (all measures pooled; measures of one comparison are dependent):")
    for s in sets:
        for kind in ("unpaired", "paired"):
            parts = [f"{t} {fmt_rate(k, n)}" for t, (n, k) in sorted(s[kind].by_test.items())]
            print(f"  {kind} {set_name(s['sessions'], s['session_hands'])}: " + ("; ".join(parts) or "none tested"))
    for s in sets:
        nz = s["noop"]
        if nz.comparisons:
            same = sum(h == nz.hands for h in nz.identical_hands)
            print(f"no-op change {NOOP[game]} {set_name(s['sessions'], s['session_hands'])}: {nz.comparisons} "
                  f"paired comparisons, {same} with every hand played identically, "
                  f"{sum(v[0] for v in nz.by_test.values())} measures tested, {nz.any_adjusted} flagged")

    flagged = []
    for s in sets:
        name = set_name(s["sessions"], s["session_hands"])
        for k, c in s["coverage"].items():
            if c.n and clopper_pearson(c.covered, c.n)[1] < 0.95:
                flagged.append(f"  under-covers: {name} {label(k)} {fmt_cov(c)}")
        for kind in ("unpaired", "paired"):
            rj = s[kind]
            for k, n in rj.tested.items():
                if clopper_pearson(rj.raw[k], n)[0] > 0.05:
                    flagged.append(f"  false positives above 5%: {kind} {name} {label(k)} {fmt_rate(rj.raw[k], n)} "
                                   f"({', '.join(rj.tests[k])})")
            if rj.comparisons and clopper_pearson(rj.any_adjusted, rj.comparisons)[0] > 0.05:
                flagged.append(f"  family-wise rate above 5%: {kind} {name} {rj.any_adjusted}/{rj.comparisons}")
    print(f"\nevery measure, every set: {len(flagged)} with a Clopper-Pearson interval entirely on the wrong "
          "side of 95% (coverage) or 5% (false positives); at 95% each, about 2.5% of true ones land there by chance")
    for line in flagged:
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=sorted(NOOP), default="wanzai", help="the rule set (shipped rules)")
    ap.add_argument("--truth-hands", type=int,
                    help=f"hands of the large run (default {DEFAULTS['truth_hands']:,}; --quick {QUICK['truth_hands']:,})")
    ap.add_argument("--runs", type=int,
                    help=f"independent runs per set (default {DEFAULTS['runs']}; --quick {QUICK['runs']})")
    ap.add_argument("--sets", help=f"SESSIONSxHANDS_PER_SESSION,... (default {DEFAULTS['sets']}: 16,000, 128, "
                                   f"4,000 and 128 hands; --quick {QUICK['sets']})")
    ap.add_argument("--paired", type=int, help="paired (wall model) comparisons per set (default runs / 2)")
    ap.add_argument("--noop", type=int,
                    help=f"paired no-op comparisons per set (default {DEFAULTS['noop']}; --quick {QUICK['noop']})")
    ap.add_argument("--seed", type=int, default=1, help="base seed: the truth and every run get their own")
    ap.add_argument("--workers", type=int, default=1, help="processes per run (default 1)")
    ap.add_argument("--quick", action="store_true",
                    help="small defaults, a few seconds: checks that the script works, says nothing about coverage")
    ap.add_argument("--all", action="store_true", help="show the coverage of every measure, not a selection")
    ap.add_argument("--data", type=Path, help="where the runs are written (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the large run's dataset (the runs are deleted as they are used)")
    ap.add_argument("--json", type=Path, help="write every figure here")
    a = ap.parse_args()
    for key, value in (QUICK if a.quick else DEFAULTS).items():
        if getattr(a, key) is None:
            setattr(a, key, value)
    if a.runs < 2 or a.truth_hands < 2 * TRUTH_SESSION_HANDS:
        ap.error("--runs must be at least 2 and --truth-hands at least 32")
    sets = parse_sets(a.sets)
    n_paired = a.runs // 2 if a.paired is None else a.paired
    data = a.data or Path(tempfile.mkdtemp(prefix="mjsim-coverage-"))
    data.mkdir(parents=True, exist_ok=True)
    rules = Rules.load(a.game)
    runs = Runs(data, a.workers)
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"{a.game}, {PLAYERS} x4; {a.runs} runs per set ({', '.join(set_name(*s) for s in sets)}); "
          f"{n_paired} paired and {a.noop} no-op comparisons per set; data in {data}", flush=True)
    try:
        truth_hands = a.truth_hands // TRUTH_SESSION_HANDS * TRUTH_SESSION_HANDS
        truth_path, big = runs.run(rules, truth_hands, TRUTH_SESSION_HANDS, a.seed * 1_000_003 + 999_999_937)
        truth, skipped = truths(big)
        if not a.keep:
            shutil.rmtree(truth_path)
        print(f"truth: {truth_hands:,} hands, {len(truth)} measures ({time.perf_counter() - t0:.0f} s)", flush=True)
        results = []
        for j, (sessions, per) in enumerate(sets):
            t = time.perf_counter()
            results.append(play_set(a.game, rules, runs, truth, sessions, per, a.runs, min(n_paired, a.runs),
                                    min(a.noop, a.runs), a.seed * 1_000_003 + 1_000 * (j + 1) * a.runs))
            print(f"set {set_name(sessions, per)}: {time.perf_counter() - t:.0f} s", flush=True)
        report(a.game, truth_hands, truth, skipped, results, a.all)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"\n{runs.hands:,} hands simulated; {wall:.0f} s wall, {cpu:.0f} s CPU (this process)")
        if a.json:
            out = {"game": a.game, "players": PLAYERS, "truth_hands": truth_hands, "runs": a.runs, "seed": a.seed,
                   "mjsim": version,
                   "truth": {" / ".join(k): {"value": t.value, "source": t.source, "large_run_ci": list(t.ci)}
                             for k, t in truth.items()},
                   "no_truth": {" / ".join(k): why for k, why in skipped.items()},
                   "sets": [{**{k: v for k, v in s.items() if k not in ("coverage", "unpaired", "paired", "noop")},
                             "coverage": {" / ".join(k): c.record() for k, c in s["coverage"].items()},
                             "unpaired": s["unpaired"].record(), "paired_wall_model": s["paired"].record(),
                             "noop": {"change": NOOP[a.game], **s["noop"].record()}} for s in results],
                   "seconds": wall, "cpu_seconds": cpu}
            a.json.write_text(json.dumps(_finite(out), indent=1, ensure_ascii=False, allow_nan=False))
    finally:
        if a.data is None and not a.keep:
            shutil.rmtree(data, ignore_errors=True)


def _finite(x):
    """NaN and infinities as null, for strict JSON."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


if __name__ == "__main__":
    sys.exit(main())
