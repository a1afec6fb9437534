"""Duplicate arena: how much a player earns against three others, on the same deals.

A challenger plays in each seat in turn against three copies of a baseline player; the
same deals (master seed, hand indices) are also played by four baselines.  For every
deal and seat, the challenger's net score minus what the baseline in that seat scored at
the all-baseline table is one paired difference; the edge is their mean over all
seat-hands.  The four differences of one deal share its wall, so the 95% interval is
clustered by deal: statsmodels OLS of the differences on a constant with
``cov_type="cluster"`` (groups = deal) and a t reference with G - 1 degrees of freedom,
G the number of deals.  With one regressor that is exactly the t interval of the per-deal
mean differences.

Each deal is its own session (``session_hands=1``): its dealer is the rules'
``first_dealer`` (drawn from the deal's own seed by default, so the same on all five
tables), fire is drawn afresh, and no hand depends on an earlier one, so a seating changes
nothing but the players.

Work is cut into (table, chunk of deals) tasks run by a process pool; the results are
put back in deal order before any statistic is computed, so the answer does not depend
on the number of workers or the chunk size.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from mjsim.rules import Rules

__all__ = ["DEFAULT_DEALS", "ArenaResult", "Interval", "PlayerSpec", "PlayerStats",
           "parse_player", "run_arena"]

DEFAULT_DEALS = 2_000
DEFAULT_CHUNK = 2_000
METHOD = ("paired differences vs the all-baseline table on the same deals; 95% interval: "
          "statsmodels OLS on a constant, cov_type='cluster' by deal, t with deals-1 df")


# ------------------------------------------------------------------------------------
# Players with options


@dataclass(frozen=True)
class PlayerSpec:
    """A built-in player and its options: text ``name`` or ``name:key=value,key=value``."""

    name: str
    options: tuple[tuple[str, float], ...] = ()

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_num(v)}" for k, v in self.options)

    @property
    def arg(self) -> str:
        """What simulate_chunk is given for this player (the canonical text)."""
        return str(self)


def _num(v: float | str) -> str:
    if isinstance(v, str):
        return v
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def player_options(name: str) -> dict[str, float]:
    """The options a built-in player declares, with defaults ({} for none).

    The game module declares them as ``PLAYER_OPTIONS = {name: {option: default}}``;
    a player it does not list takes no options.
    """
    from mjsim import game

    return dict(getattr(game, "PLAYER_OPTIONS", {}).get(name, {}))


def parse_player(text: str | PlayerSpec) -> PlayerSpec:
    """'greedy' or 'ev:fold=0.5,claim=1' -> PlayerSpec; ValueError naming what is wrong."""
    if isinstance(text, PlayerSpec):
        text = str(text)
    from mjsim import game

    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a player is a name such as greedy (optionally name:key=value,...), got {text!r}")
    name, sep, rest = text.strip().partition(":")
    name = name.strip()
    if name not in game.PLAYERS:
        raise ValueError(f"unknown player {name!r} (expected one of {', '.join(game.PLAYERS)})")
    declared = player_options(name)
    options: dict[str, float] = {}
    if sep:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not key or not eq or not value.strip():
                raise ValueError(f"player {text!r}: options look like {name}:key=value,key=value")
            if key not in declared:
                allowed = ", ".join(sorted(declared)) if declared else "none"
                raise ValueError(f"player {name!r} has no option {key!r} (its options: {allowed})")
            if key in options:
                raise ValueError(f"player {text!r}: option {key!r} given twice")
            if isinstance(declared[key], str):     # a named choice (search's rollout)
                options[key] = value.strip()
                continue
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"player {text!r}: option {key}={value.strip()!r} is not a number") from None
            if not math.isfinite(number):
                raise ValueError(f"player {text!r}: option {key}={value.strip()!r} is not a finite number")
            options[key] = number
    return PlayerSpec(name, tuple(sorted(options.items())))


# ------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Interval:
    """A mean with its deal-clustered 95% interval (see METHOD)."""

    mean: float
    low: float
    high: float
    se: float

    def __str__(self) -> str:
        return f"{self.mean:+.4f} [{self.low:+.4f}, {self.high:+.4f}]"


@dataclass(frozen=True)
class PlayerStats:
    """One player's figures over its seat-hands (`seat_hands` of them)."""

    label: str
    seat_hands: int
    net: float                 # mean net points per seat-hand
    win_rate: float            # share of seat-hands won (a hand with two wins counts once)
    deal_in_rate: float        # share of seat-hands it paid a win as discarder or robbed kong
    self_draw_share: float     # of its wins, the share won by self-draw (any context)
    claims_per_hand: float | None   # pungs, chows and exposed kongs per seat-hand (None: not recorded)
    win_turn: float | None          # mean turn of its wins (its discards before the win + 1)
    patterns: dict[str, float] = field(default_factory=dict)   # pattern -> share of its wins


@dataclass(frozen=True)
class ArenaResult:
    rules: Rules
    challenger: PlayerSpec
    baseline: PlayerSpec
    deals: int
    seed: int
    edge: Interval                     # net points per seat-hand, challenger - baseline
    edge_by_seat: tuple[Interval, ...]  # per seat (the dealer is the rules' first_dealer)
    differences: dict[str, Interval]   # paired differences of the rates (win, deal-in, claims)
    challenger_stats: PlayerStats      # the challenger in its seat, every seating
    baseline_stats: PlayerStats        # the baselines of the all-baseline table, all seats
    opponents_stats: PlayerStats       # the baselines sitting with the challenger
    tables: dict[str, dict[str, float]]   # per table kind: draw rate, draws per hand
    seconds: float = 0.0
    method: str = METHOD


# ------------------------------------------------------------------------------------
# The work


def _tables(challenger: PlayerSpec, baseline: PlayerSpec) -> list[tuple[str, ...]]:
    """Seatings 0..3 (challenger in seat j), then the all-baseline table (index 4)."""
    out = []
    for j in range(4):
        seats = [baseline.arg] * 4
        seats[j] = challenger.arg
        out.append(tuple(seats))
    out.append((baseline.arg,) * 4)
    return out


def _play_chunk(task) -> tuple[int, int, dict]:
    """One (table, chunk): the few columns the arena needs (runs in a worker)."""
    table, rules, players, seed, start, count = task
    from mjsim.game import simulate_chunk

    hands, wins = simulate_chunk(rules, players, seed, start, count, 1)
    keep = {"deltas": np.stack([hands[f"delta_{s}"] for s in range(4)], axis=1).astype(np.int64),
            "end": np.asarray(hands["end"], np.uint8), "draws": np.asarray(hands["draws"], np.int32)}
    if all(f"claims_{s}" in hands for s in range(4)):
        keep["claims"] = np.stack([hands[f"claims_{s}"] for s in range(4)], axis=1).astype(np.int32)
    for k in ("hand_index", "winner", "discarder", "win_kind", "pattern", "turn"):
        if k in wins:
            keep["w_" + k] = np.asarray(wins[k])
    return table, start, keep


def _run_tasks(tasks: list, workers: int, advance: Callable[[int], None]) -> list:
    if workers <= 1 or len(tasks) <= 1:
        out = []
        for t in tasks:
            out.append(_play_chunk(t))
            advance(t[-1])
        return out
    import concurrent.futures as cf
    import multiprocessing

    from mjsim import runner

    # the runner's choices: spawn (the driver may run threads), workers ignore Ctrl-C
    pool = cf.ProcessPoolExecutor(max_workers=min(workers, len(tasks)),
                                  mp_context=multiprocessing.get_context("spawn"),
                                  initializer=runner._init_worker)
    out = []
    try:
        futures = [pool.submit(_play_chunk, t) for t in tasks]
        for fut in cf.as_completed(futures):
            res = fut.result()
            out.append(res)
            advance(len(res[2]["end"]))
        pool.shutdown(wait=True)
    except BaseException:
        runner._stop_pool(pool)
        raise
    return out


def _merge(results: list, n_tables: int, deals: int) -> list[dict]:
    """Per table: hands columns in deal order and the wins rows sorted by (hand, winner)."""
    merged = []
    for table in range(n_tables):
        parts = sorted((start, keep) for t, start, keep in results if t == table)
        cols = {k: np.concatenate([p[1][k] for p in parts]) for k in parts[0][1]}
        order = np.lexsort((cols["w_winner"], cols["w_hand_index"]))
        for k in [k for k in cols if k.startswith("w_")]:
            cols[k] = cols[k][order]
        assert len(cols["end"]) == deals
        merged.append(cols)
    return merged


def _seat_flags(cols: dict, deals: int) -> dict[str, np.ndarray]:
    """(deals, 4) per-seat indicators: won, dealt in; and claims counts if recorded."""
    idx = cols["w_hand_index"].astype(np.int64)
    winner = cols["w_winner"].astype(np.int64)
    disc = cols["w_discarder"].astype(np.int64)
    won = np.zeros((deals, 4), np.float64)
    won[idx, winner] = 1.0
    dealt = np.zeros((deals, 4), np.float64)
    has = disc >= 0
    dealt[idx[has], disc[has]] = 1.0
    out = {"net": cols["deltas"].astype(np.float64), "won": won, "dealt_in": dealt}
    if "claims" in cols:
        out["claims"] = cols["claims"].astype(np.float64)
    return out


def clustered_mean(diff: np.ndarray) -> Interval:
    """Mean of a (deals, k) array with its 95% interval clustered by deal (rows).

    statsmodels OLS on a constant, cov_type='cluster' with the deal as group, t with
    deals-1 df (statsmodels' default for clustered t tests).
    """
    import statsmodels.api as sm

    deals, k = diff.shape
    y = diff.ravel()
    if deals < 2:
        m = float(y.mean()) if y.size else float("nan")
        return Interval(m, float("nan"), float("nan"), float("nan"))
    groups = np.repeat(np.arange(deals), k)
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    low, high = fit.conf_int(alpha=0.05)[0]
    return Interval(float(fit.params[0]), float(low), float(high), float(fit.bse[0]))


def _player_stats(label: str, flags: dict, tables: list[dict], seats) -> PlayerStats:
    """Figures over the seat-hands in `flags` (arrays of one column per seat-hand kind);
    `tables` and `seats` say which (table, seats) those came from, for the wins."""
    from mjsim import PATTERNS

    n = flags["net"].size
    net = float(flags["net"].mean())
    won = float(flags["won"].mean())
    dealt = float(flags["dealt_in"].mean())
    claims = float(flags["claims"].mean()) if "claims" in flags else None
    counts: dict[str, int] = {}
    self_draws = total = turns = 0
    for cols, seat_list in zip(tables, seats):
        sel = np.isin(cols["w_winner"], seat_list)
        total += int(sel.sum())
        turns += int(cols["w_turn"][sel].sum()) if "w_turn" in cols else 0
        self_draws += int((cols["w_discarder"][sel] < 0).sum())
        for code, c in zip(*np.unique(cols["w_pattern"][sel], return_counts=True)):
            counts[PATTERNS[int(code)]] = counts.get(PATTERNS[int(code)], 0) + int(c)
    shares = {p: c / total for p, c in sorted(counts.items(), key=lambda x: -x[1])} if total else {}
    win_turn = turns / total if total and "w_turn" in tables[0] else None
    return PlayerStats(label, n, net, won, dealt, self_draws / total if total else 0.0, claims, win_turn,
                       shares)


def _table_figures(tables: list[dict]) -> dict[str, float]:
    """Draw rate, live draws per hand and (with claims recorded) turns per seat per hand:
    every turn starts with a live draw or a claim, and the dealer's first with neither."""
    end = np.concatenate([t["end"] for t in tables])
    draws = np.concatenate([t["draws"] for t in tables]).astype(np.float64)
    out = {"draw_rate": float((end == 0).mean()), "draws_per_hand": float(draws.mean())}
    if all("claims" in t for t in tables):
        claims = np.concatenate([t["claims"].sum(axis=1) for t in tables])
        out["turns_per_seat"] = float((draws + claims + 1).mean() / 4)
    return out


def run_arena(rules: Rules, challenger: str | PlayerSpec, baseline: str | PlayerSpec = "greedy", *,
              deals: int = DEFAULT_DEALS, seed: int = 0, workers: int | None = 1,
              chunk: int | None = None, progress: Callable[[int, int], None] | None = None) -> ArenaResult:
    """Play `challenger` in each seat against three `baseline`s, and four baselines, on
    deals 0..deals-1 of `seed`; return the paired edge and each player's figures.

    `workers`: processes (None or 0 = all cores; 1 = this process).  `progress(done,
    total)` is called with hands played so far (5 tables x deals in all).
    """
    import time

    from mjsim import runner

    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a mjsim.Rules, got {type(rules).__name__}")
    ch, base = parse_player(challenger), parse_player(baseline)
    deals = runner._positive_int("--deals", deals)
    seed = runner._positive_int("--seed", seed, minimum=0, maximum=runner.MAX_SEED)
    workers = runner.default_workers() if workers in (None, 0) else runner._positive_int("--workers", workers)
    chunk = min(deals, DEFAULT_CHUNK) if chunk is None else runner._positive_int("--chunk", chunk)
    tables = _tables(ch, base)
    # one zero-hand call per distinct seating: the game's own check of players and rules
    from mjsim.game import simulate_chunk

    simulate_chunk(rules, tables[0], seed, 0, 0, 1)
    tasks = [(t, rules, players, seed, start, min(chunk, deals - start))
             for start in range(0, deals, chunk) for t, players in enumerate(tables)]
    total, done = 5 * deals, 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    t0 = time.perf_counter()
    merged = _merge(_run_tasks(tasks, workers, advance), len(tables), deals)
    seconds = time.perf_counter() - t0
    flags = [_seat_flags(cols, deals) for cols in merged]
    base_flags = flags[4]

    def paired(key: str, seat: int | None = None) -> Interval:
        # column j: the challenger's seat j in seating j, minus seat j at the baseline table
        diff = np.stack([flags[j][key][:, j] - base_flags[key][:, j] for j in range(4)], axis=1)
        return clustered_mean(diff if seat is None else diff[:, [seat]])

    keys = ["won", "dealt_in"] + (["claims"] if "claims" in base_flags else [])
    ch_flags = {k: np.stack([flags[j][k][:, j] for j in range(4)], axis=1) for k in base_flags}
    opp = {k: np.concatenate([flags[j][k][:, [s for s in range(4) if s != j]] for j in range(4)], axis=1)
           for k in base_flags}
    ch_stats = _player_stats(str(ch), ch_flags, merged[:4], [[j] for j in range(4)])
    base_stats = _player_stats(f"{base} (4x {base})", base_flags, merged[4:], [[0, 1, 2, 3]])
    opp_stats = _player_stats(f"{base} (with {ch})", opp, merged[:4],
                              [[s for s in range(4) if s != j] for j in range(4)])
    table_figs = {f"4x {base}": _table_figures(merged[4:]), f"{ch} + 3x {base}": _table_figures(merged[:4])}
    return ArenaResult(
        rules=rules, challenger=ch, baseline=base, deals=deals, seed=seed,
        edge=paired("net"), edge_by_seat=tuple(paired("net", j) for j in range(4)),
        differences={k: paired(k) for k in keys},
        challenger_stats=ch_stats, baseline_stats=base_stats, opponents_stats=opp_stats,
        tables=table_figs, seconds=seconds,
    )


def format_lines(result: ArenaResult, top_patterns: int = 6) -> list[str]:
    """A plain-text summary (the CLI prints these lines without markup)."""
    r = result
    lines = [
        f"arena: {r.challenger} vs 3x {r.baseline}, {r.rules.game} ({r.rules.variant}), "
        f"{r.deals:,} deals x 4 seats, seed {r.seed}",
        f"edge (points per seat-hand): {r.edge}   (se {r.edge.se:.4f})",
        "edge by seat: " + "  ".join(f"{j}: {iv}" for j, iv in enumerate(r.edge_by_seat)),
    ]
    diffs = []
    for k, iv in r.differences.items():
        if k == "claims":
            diffs.append(f"claims per hand {iv}")
        else:   # rates in percentage points
            diffs.append(f"{'win rate' if k == 'won' else 'deal-in rate'} {100 * iv.mean:+.2f} "
                         f"[{100 * iv.low:+.2f}, {100 * iv.high:+.2f}] pp")
    lines.append("paired differences: " + "  ".join(diffs))
    lines.append(f"method: {r.method}")
    lines.append(f"{'player':<28} {'seat-hands':>10} {'net':>8} {'win':>7} {'deal-in':>8} {'self-draw':>9} "
                 f"{'win turn':>8} {'claims':>7}")
    for s in (r.challenger_stats, r.opponents_stats, r.baseline_stats):
        claims = "n/a" if s.claims_per_hand is None else f"{s.claims_per_hand:.3f}"
        turn = "n/a" if s.win_turn is None else f"{s.win_turn:.2f}"
        lines.append(f"{s.label:<28} {s.seat_hands:>10,} {s.net:>+8.4f} {100 * s.win_rate:>6.2f}% "
                     f"{100 * s.deal_in_rate:>7.2f}% {100 * s.self_draw_share:>8.2f}% {turn:>8} {claims:>7}")
    lines.append("win, deal-in: share of seat-hands; self-draw: share of its wins; win turn: mean turn of "
                 "its wins; claims: pungs, chows, exposed kongs per seat-hand")
    for s in (r.challenger_stats, r.baseline_stats):
        shown = list(s.patterns.items())[:top_patterns]
        lines.append(f"patterns of {s.label}: " + ", ".join(f"{p} {100 * v:.1f}%" for p, v in shown))
    for name, figs in r.tables.items():
        turns = f", turns per seat {figs['turns_per_seat']:.2f}" if "turns_per_seat" in figs else ""
        lines.append(f"table {name}: draw rate {100 * figs['draw_rate']:.3f}%, "
                     f"live draws per hand {figs['draws_per_hand']:.1f}{turns}")
    lines.append(f"{5 * r.deals:,} hands in {r.seconds:.1f} s")
    return lines
