"""Precision on demand: play chunks, in order, until named 95 % intervals are narrow enough.

`mjsim simulate --precision qixiaodui=0.0005 --precision dealer=0.05` runs the first chunk,
reads the intervals (session-clustered, as every report does), and extends the run with
more whole chunks until every named interval's half-width is at most its target, or
`--max-hands` is reached. The hands are the first N of the same seeded sequence and the
chunks are exactly those of a fixed `--hands N` run (N is always a multiple of the chunk
size), so the dataset is the one `mjsim simulate --hands N` would have written.
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mjsim.analysis.measures import GAME_PATTERNS, GAME_WIN_KINDS
from mjsim.rulesets.traits import traits

__all__ = ["Target", "measure_names", "parse_targets", "run_to_precision"]

#: most growth per step: the estimate of the hands needed is noisy while the run is short
MAX_GROWTH = 4.0
#: the first step plays at least this many sessions (in whole chunks): an interval from a
#: handful of sessions is too uncertain to stop on (docs/statistics.md, "Do the intervals
#: cover?"). A default chunk of fast players holds over a thousand; one of search players
#: about ten.
MIN_FIRST_SESSIONS = 64


def measure_names(game: str) -> dict[str, tuple[str, str]]:
    """Accepted --precision names -> (section, name) of the measure."""
    out = {"win": ("outcome", "win"), "draw": ("outcome", "draw"), "dealer": ("score", "dealer"),
           "dealer_advantage": ("score", "dealer − non-dealer"), "points_per_win": ("win", "points per win")}
    out.update({f"seat{s}": ("score", f"seat {s}") for s in range(4)})
    out.update({p: ("pattern", p) for p in GAME_PATTERNS.get(game, ())})
    out.update({k: ("win kind", k) for k in GAME_WIN_KINDS.get(game, ())})
    out.update({c: ("wild category", c) for c in traits(game).wild_categories})
    return out


@dataclass(frozen=True)
class Target:
    name: str
    key: tuple[str, str]
    halfwidth: float


def parse_targets(texts: Sequence[str], game: str) -> list[Target]:
    """['qixiaodui=0.0005', 'dealer=0.05'] -> targets; bad input raises ValueError (one line)."""
    names = measure_names(game)
    out = []
    for text in texts:
        name, sep, raw = text.partition("=")
        name = name.strip()
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not sep or not math.isfinite(value) or value <= 0:
            raise ValueError(f"--precision {text!r}: expected MEASURE=HALFWIDTH with a positive number, "
                             f"e.g. qixiaodui=0.0005 (a rate as a proportion, a mean in points)")
        if name not in names:
            raise ValueError(f"--precision: unknown measure {name!r} for {game}; valid: {', '.join(names)}")
        out.append(Target(name, names[name], value))
    if not out:
        raise ValueError("--precision needs at least one MEASURE=HALFWIDTH")
    return out


def halfwidths(stats, targets: Sequence[Target]) -> dict[str, float]:
    """Each target's 95 % half-width; unknown (inf) while the run has fewer than two sessions,
    whose intervals treat dependent hands as independent and may be too narrow to stop on."""
    found = {m.key: m for m in (*stats.rates, *stats.means)}
    out = {}
    for t in targets:
        m = found.get(t.key) if stats.sessions >= 2 else None
        lo, hi = m.ci if m is not None else (math.nan, math.nan)
        out[t.name] = (hi - lo) / 2 if math.isfinite(lo) and math.isfinite(hi) else math.inf
    return out


def _next_hands(hands: int, chunk: int, widths: dict[str, float], targets: Sequence[Target], cap: int) -> int:
    """Hands for the next step: the square-root law's estimate, in whole chunks, at least
    one chunk more and at most MAX_GROWTH times as many."""
    need = hands
    for t in targets:
        w = widths[t.name]
        need = max(need, hands * (w / t.halfwidth) ** 2 if math.isfinite(w) else hands * MAX_GROWTH)
    need = min(need, hands * MAX_GROWTH)
    chunks = max(hands // chunk + 1, math.ceil(need / chunk))
    return min(cap, chunks * chunk)


def _recorded_hands(out: Path, spec) -> int | None:
    """Hands the manifest records for this variant when the rest of what shapes the data
    is the same and they are whole chunks (the chunks on disk are then a prefix of any
    longer run), else None."""
    from mjsim.dataset.manifest import SHAPING_BUT_HANDS
    from mjsim.run import runner

    if not (Path(out) / "manifest.json").exists():
        return None
    old = runner.read_manifest(out)["variants"].get(spec.variant)
    if old is None:
        return None
    new = spec.manifest_entry()
    same = all(old.get(k) == new[k] for k in SHAPING_BUT_HANDS)
    hands = old.get("hands")
    return hands if same and isinstance(hands, int) and hands % spec.chunk == 0 else None


def _allow_growth(out: Path, spec) -> None:
    """Let the manifest accept more hands for this variant (never fewer). The manifest is
    rewritten under the directory lock, as a run writes it: a run writing the directory
    meanwhile refuses this one instead of losing its update."""
    from mjsim.dataset.storage import directory_lock
    from mjsim.run import runner

    recorded = _recorded_hands(out, spec)
    if recorded is None or recorded >= spec.hands:
        return
    with directory_lock(out):
        recorded = _recorded_hands(out, spec)      # again, now that no one else writes
        if recorded is None or recorded >= spec.hands:
            return
        data = runner.read_manifest(out)
        data["variants"][spec.variant]["hands"] = spec.hands
        # not complete until the run has played them: a kill before it rewrites the manifest
        # leaves an incomplete dataset (report says so), not one that lacks hands it records
        data["variants"][spec.variant]["complete"] = False
        runner.write_atomic(Path(out) / "manifest.json",
                            (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def run_to_precision(spec, out, targets: Sequence[Target], *, max_hands: int, report=None, run_step=None,
                     **run_options):
    """Grow `spec` (its chunk size fixed) until every target is met or `max_hands` is reached.

    Returns (final spec, VariantStats, {name: half-width}, met, [RunResult per step]).
    `report(hands, widths)` is called after each step; `run_step(spec)` runs one step
    (default: mjsim.runner.run(spec, out, **run_options)).
    """
    from mjsim.run import runner
    from mjsim.analysis import stats
    from mjsim.dataset.storage import keep_lock

    chunk = spec.chunk
    if max_hands < chunk:
        raise ValueError(f"--max-hands {max_hands} is less than one chunk ({chunk} hands)")
    cap = max_hands // chunk * chunk
    # a rerun resumes where the last one stopped (the run refuses to forget chunks on disk)
    recorded = _recorded_hands(out, spec) or 0
    if recorded > cap:
        raise ValueError(f"{out} already holds {recorded:,} hands of variant {spec.variant}, more than "
                         f"--max-hands {max_hands:,}: rerun with --max-hands {recorded:,} or more, or "
                         f"choose another --out")
    first = -(-MIN_FIRST_SESSIONS * spec.session_hands // chunk) * chunk
    hands = min(cap, max(first, recorded))
    results = []
    with keep_lock(out):        # no other run takes the directory between two steps
        while True:
            step = replace(spec, hands=hands)
            _allow_growth(out, step)
            results.append(run_step(step) if run_step is not None else runner.run(step, out, **run_options))
            st = stats.variant_stats(out, step.variant)
            widths = halfwidths(st, targets)
            met = all(widths[t.name] <= t.halfwidth for t in targets)
            if report is not None:
                report(hands, widths)
            if met or hands >= cap:
                return step, st, widths, met, results
            hands = _next_hands(hands, chunk, widths, targets, cap)
