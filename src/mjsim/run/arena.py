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

Work is cut into (table, chunk of deals) tasks run by a process pool. As soon as the five
tables of a chunk of deals are in, the chunk is reduced to integer sums (per deal and seat
the differences, and their squares summed per deal) and its rows are dropped, so memory
stays bounded whatever the number of deals. Every figure is a ratio of integer sums, so the
answer does not depend on the number of workers, the chunk size or the order the chunks
arrive in.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from itertools import islice
from dataclasses import dataclass, field

from pathlib import Path

import numpy as np

from mjsim.jsonsafe import null_if_not_finite
from mjsim.players.options import split_name
from mjsim.rulesets.rules import Rules

__all__ = ["DEFAULT_DEALS", "ArenaResult", "Interval", "PlayerSpec", "PlayerStats",
           "parse_player", "run_arena"]

DEFAULT_DEALS = 2_000
DEFAULT_CHUNK = 2_000
#: what search's diagnostic option peek lets a seat see, by its value (players/search.py)
PEEK_SEES = {1: "sees the other seats' concealed hands (peek=1)",
             2: "knows how ready the other seats are (peek=2: their true shanten)"}
METHOD = ("paired differences vs the all-baseline table on the same deals; 95% interval: "
          "deal-clustered (CR1) variance of the mean, as statsmodels OLS on a constant with "
          "cov_type='cluster' by deal gives it, t with deals-1 df")


# ------------------------------------------------------------------------------------
# Players with options


@dataclass(frozen=True)
class PlayerSpec:
    """A built-in player and its options: text ``name`` or ``name:key=value,key=value``."""

    name: str
    options: tuple[tuple[str, float | str], ...] = ()   # numbers; ev's `model` is a file path

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


def parse_player(text: str | PlayerSpec) -> PlayerSpec:
    """'greedy' or 'ev:fold=0.5,claim=1' -> PlayerSpec; ValueError naming what is wrong.
    The options are read by mjsim.players.options, as every other command reads them."""
    if isinstance(text, PlayerSpec):
        text = str(text)
    from mjsim.play import game

    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a player is a name such as greedy (optionally name:key=value,...), got {text!r}")
    name = text.strip().partition(":")[0].strip()
    if "," in name and all(n.strip() in game.PLAYERS for n in name.split(",")):
        raise ValueError(f"{text!r} names several players where one is expected (the arena seats a challenger "
                         f"against three copies of one --baseline)")
    if name not in game.PLAYERS:
        raise ValueError(f"unknown player {name!r} (expected one of {', '.join(game.PLAYERS)})")
    _, options = split_name(text)
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
        return f"{self.mean:+.4f} {self.bounds(lambda v: f'{v:+.4f}')}"

    def bounds(self, show: Callable[[float], str]) -> str:
        """'[low, high]', or why there is none (one deal, or every deal moved alike)."""
        if math.isnan(self.low):
            return "(no interval)"
        return f"[{show(self.low)}, {show(self.high)}]"


@dataclass(frozen=True)
class PlayerStats:
    """One player's figures over its seat-hands (`seat_hands` of them)."""

    label: str
    seat_hands: int
    net: float                 # mean net points per seat-hand
    win_rate: float            # share of seat-hands won (a hand with two wins counts once)
    deal_in_rate: float        # share of seat-hands it paid a win as discarder or robbed kong
    self_draw_share: float     # of its wins, the share won by self-draw (any context); NaN without a win
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


def cpu_seconds(rules: Rules, challenger: str | PlayerSpec, baseline: str | PlayerSpec, deals: int) -> float:
    """A rough CPU cost of an arena: its five tables of `deals` deals (0 unless search plays)."""
    from mjsim.run import spec as runspec

    tables = _tables(parse_player(challenger), parse_player(baseline))
    return deals * sum(runspec.table_seconds_per_hand(rules, t) for t in tables)


def _default_chunk(rules: Rules, tables: list[tuple[str, ...]], deals: int) -> int:
    """DEFAULT_CHUNK deals, or as many as the slowest table plays in the run's slow-chunk
    time (a search seat: about 180 deals), so that progress and Ctrl-C come within seconds."""
    from mjsim.run import spec as runspec

    cost = max(runspec.table_seconds_per_hand(rules, t) for t in tables)
    # every deal is a session of one hand
    return min(deals, runspec.work_limited(DEFAULT_CHUNK, cost, runspec.SLOW_CHUNK_SECONDS, 1))


def _play_chunk(task, slice_deals: int | None = None) -> tuple[int, int, dict]:
    """One (table, chunk): the few columns the arena needs (runs in a worker). With
    `slice_deals`, played that many deals at a time (every deal is a session of its own, so
    the rows are the same): in this process Ctrl-C is seen when a native call returns."""
    table, rules, players, seed, start, count = task
    if slice_deals is None or slice_deals >= count:
        return table, start, _deal_columns(rules, players, seed, start, count)
    parts = [_deal_columns(rules, players, seed, at, min(slice_deals, start + count - at))
             for at in range(start, start + count, slice_deals)]
    return table, start, {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _deal_columns(rules: Rules, players, seed: int, start: int, count: int) -> dict:
    from mjsim.play.game import simulate_chunk

    hands, wins = simulate_chunk(rules, players, seed, start, count, 1)
    keep = {"deltas": np.stack([hands[f"delta_{s}"] for s in range(4)], axis=1).astype(np.int64),
            "end": np.asarray(hands["end"], np.uint8), "draws": np.asarray(hands["draws"], np.int32)}
    if all(f"claims_{s}" in hands for s in range(4)):
        keep["claims"] = np.stack([hands[f"claims_{s}"] for s in range(4)], axis=1).astype(np.int32)
    for k in ("hand_index", "winner", "discarder", "win_kind", "pattern", "turn"):
        if k in wins:
            keep["w_" + k] = np.asarray(wins[k])
    return keep


def _slice_deals(task) -> int:
    """Deals of a task played in one native call in this process: a progress slice (a
    search table's task is about 20 s, which Ctrl-C would wait for); every deal is a
    session of one hand."""
    from mjsim.run import spec as runspec

    _, rules, players, _, _, count = task
    return runspec.progress_slice(rules, players, count, 1)


def _run_tasks(tasks: Iterable[tuple], n_tasks: int, workers: int, take: Callable[[tuple], None]) -> None:
    """Play every task, handing each result to `take` as it arrives (then dropping it)."""
    if workers <= 1 or n_tasks <= 1:
        for t in tasks:
            take(_play_chunk(t, _slice_deals(t)))
        return
    import concurrent.futures as cf
    import multiprocessing

    from mjsim.run import runner

    # the runner's choices: spawn (the driver may run threads), workers ignore Ctrl-C
    pool = cf.ProcessPoolExecutor(max_workers=min(workers, n_tasks),
                                  mp_context=multiprocessing.get_context("spawn"),
                                  initializer=runner._init_worker)
    try:
        # a window of tasks in flight, in deal order, so that finished chunks are reduced
        # and dropped while the rest are still playing
        pending = iter(tasks)
        window = {pool.submit(_play_chunk, t) for t in islice(pending, 2 * workers + 5)}
        while window:
            done, window = cf.wait(window, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                take(fut.result())
            window |= {pool.submit(_play_chunk, t) for t in islice(pending, len(done))}
        pool.shutdown(wait=True)
    except BaseException:
        runner._stop_pool(pool)
        raise


def _seat_flags(cols: dict, start: int, deals: int) -> dict[str, np.ndarray]:
    """(deals, 4) per-seat integers: net score, won, dealt in; and claims if recorded."""
    idx = cols["w_hand_index"].astype(np.int64) - start
    winner = cols["w_winner"].astype(np.int64)
    disc = cols["w_discarder"].astype(np.int64)
    won = np.zeros((deals, 4), np.int64)
    won[idx, winner] = 1
    dealt = np.zeros((deals, 4), np.int64)
    has = disc >= 0
    dealt[idx[has], disc[has]] = 1
    out = {"net": cols["deltas"].astype(np.int64), "won": won, "dealt_in": dealt}
    if "claims" in cols:
        out["claims"] = cols["claims"].astype(np.int64)
    return out


@dataclass
class _ClusterSums:
    """Exact sums for a mean of k values per deal, clustered by deal: Σ over deals of the
    deal's sum S_g and of S_g² (Python integers: no rounding, no order dependence)."""

    k: int
    deals: int = 0
    total: int = 0
    squares: int = 0

    def add(self, per_deal: np.ndarray) -> None:
        s = per_deal.astype(np.int64).sum(axis=1) if per_deal.ndim == 2 else per_deal.astype(np.int64)
        self.deals += len(s)
        self.total += int(s.sum())
        self.squares += sum(int(x) * int(x) for x in s.tolist())

    def interval(self) -> Interval:
        from scipy.stats import t as student

        G, n = self.deals, self.deals * self.k
        mean = self.total / n if n else float("nan")
        if G < 2:
            return Interval(mean, float("nan"), float("nan"), float("nan"))
        # Σ_g (S_g - k mean)² = ΣS² - (ΣS)²/G, exactly, then CR1: G/(G-1)
        spread = (G * self.squares - self.total * self.total) / G
        if spread == 0 and self.total != 0:
            # every deal moved alike (few deals): no evidence of an exact difference; an
            # exact 0 (identical players) keeps its zero-width interval
            return Interval(mean, float("nan"), float("nan"), float("nan"))
        se = math.sqrt(G / (G - 1) * spread) / n
        half = float(student.ppf(0.975, G - 1)) * se
        return Interval(mean, mean - half, mean + half, se)


def clustered_mean(diff: np.ndarray) -> Interval:
    """Mean of a (deals, k) array with its 95% interval clustered by deal (rows).

    statsmodels OLS on a constant, cov_type='cluster' with the deal as group, t with
    deals-1 df (statsmodels' default for clustered t tests). The arena itself uses the
    same estimator from exact per-deal sums (_ClusterSums); this is its reference.
    """
    import statsmodels.api as sm

    deals, k = diff.shape
    y = diff.ravel()
    if deals < 2:
        m = float(y.mean()) if y.size else float("nan")
        return Interval(m, float("nan"), float("nan"), float("nan"))
    sums = diff.sum(axis=1)
    if np.all(sums == sums[0]) and sums[0] != 0:     # every deal alike: see _ClusterSums.interval
        return Interval(float(y.mean()), float("nan"), float("nan"), float("nan"))
    groups = np.repeat(np.arange(deals), k)
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    low, high = fit.conf_int(alpha=0.05)[0]
    return Interval(float(fit.params[0]), float(low), float(high), float(fit.bse[0]))


@dataclass
class _PlayerSums:
    """Integer sums over one player's seat-hands (see PlayerStats)."""

    seat_hands: int = 0
    sums: dict = field(default_factory=dict)       # net, won, dealt_in, claims
    wins: int = 0
    self_draws: int = 0
    turns: int = 0
    has_turn: bool = True
    patterns: dict = field(default_factory=dict)

    def add(self, flags: dict, cols: dict, seats: list[int]) -> None:
        for key, values in flags.items():
            self.sums[key] = self.sums.get(key, 0) + int(values[:, seats].sum())
        self.seat_hands += len(flags["net"]) * len(seats)
        sel = np.isin(cols["w_winner"], seats)
        self.wins += int(sel.sum())
        self.has_turn = self.has_turn and "w_turn" in cols
        self.turns += int(cols["w_turn"][sel].sum()) if "w_turn" in cols else 0
        self.self_draws += int((cols["w_discarder"][sel] < 0).sum())
        for code, c in zip(*np.unique(cols["w_pattern"][sel], return_counts=True)):
            self.patterns[int(code)] = self.patterns.get(int(code), 0) + int(c)

    def stats(self, label: str) -> PlayerStats:
        from mjsim.play.engine import PATTERNS

        n, s, total = self.seat_hands, self.sums, self.wins
        counts = {PATTERNS[code]: c for code, c in self.patterns.items()}
        shares = {p: c / total for p, c in sorted(counts.items(), key=lambda x: -x[1])} if total else {}
        return PlayerStats(label, n, s["net"] / n, s["won"] / n, s["dealt_in"] / n,
                           self.self_draws / total if total else math.nan,
                           s["claims"] / n if "claims" in s else None,
                           self.turns / total if total and self.has_turn else None, shares)


@dataclass
class _TableSums:
    """Draws, live draws and (with claims recorded) turns over a kind of table's hands."""

    hands: int = 0
    draws: int = 0
    live: int = 0
    turns: int | None = 0

    def add(self, cols: dict) -> None:
        self.hands += len(cols["end"])
        self.draws += int((cols["end"] == 0).sum())
        draws = cols["draws"].astype(np.int64)
        self.live += int(draws.sum())
        if "claims" in cols and self.turns is not None:
            self.turns += int((draws + cols["claims"].astype(np.int64).sum(axis=1) + 1).sum())
        else:
            self.turns = None

    def figures(self) -> dict[str, float]:
        """Draw rate, live draws per hand and turns per seat per hand: every turn starts
        with a live draw or a claim, and the dealer's first with neither."""
        out = {"draw_rate": self.draws / self.hands, "draws_per_hand": self.live / self.hands}
        if self.turns is not None:
            out["turns_per_seat"] = self.turns / self.hands / 4
        return out


class _Reducer:
    """Takes (table, start, columns) results and reduces each chunk of deals to sums once
    its five tables are in."""

    def __init__(self, chunk_deals: Callable[[int], int]):
        self.chunk_deals = chunk_deals        # start -> deals in the chunk
        self.waiting: dict[int, dict] = {}
        self.edge = _ClusterSums(4)
        self.by_seat = [_ClusterSums(1) for _ in range(4)]
        self.diffs: dict[str, _ClusterSums] = {}
        self.challenger, self.baseline, self.opponents = _PlayerSums(), _PlayerSums(), _PlayerSums()
        self.base_table, self.mixed_tables = _TableSums(), _TableSums()

    def take(self, result: tuple) -> None:
        table, start, cols = result
        got = self.waiting.setdefault(start, {})
        got[table] = cols
        if len(got) == 5:
            self._reduce(start, self.waiting.pop(start))

    def _reduce(self, start: int, cols: dict) -> None:
        deals = self.chunk_deals(start)
        flags = {t: _seat_flags(cols[t], start, deals) for t in range(5)}
        base = flags[4]
        for key in base:
            diff = np.stack([flags[j][key][:, j] - base[key][:, j] for j in range(4)], axis=1)
            if key == "net":
                self.edge.add(diff)
                for j in range(4):
                    self.by_seat[j].add(diff[:, j])
            else:
                self.diffs.setdefault(key, _ClusterSums(4)).add(diff)
        for j in range(4):
            self.challenger.add(flags[j], cols[j], [j])
            self.opponents.add(flags[j], cols[j], [s for s in range(4) if s != j])
            self.mixed_tables.add(cols[j])
        self.baseline.add(base, cols[4], [0, 1, 2, 3])
        self.base_table.add(cols[4])


def run_arena(rules: Rules, challenger: str | PlayerSpec, baseline: str | PlayerSpec = "ev", *,
              deals: int = DEFAULT_DEALS, seed: int = 0, workers: int | None = 1,
              chunk: int | None = None, progress: Callable[[int, int], None] | None = None) -> ArenaResult:
    """Play `challenger` in each seat against three `baseline`s, and four baselines, on
    deals 0..deals-1 of `seed`; return the paired edge and each player's figures.

    `workers`: processes (None or 0 = all cores; 1 = this process).  `progress(done,
    total)` is called with hands played so far (5 tables x deals in all).
    """
    import time

    from mjsim.run import runner

    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a mjsim.Rules, got {type(rules).__name__}")
    ch, base = parse_player(challenger), parse_player(baseline)
    # deal indices are hand indices of the seed's stream (five tables play each deal)
    deals = runner._positive_int("--deals", deals, maximum=runner.MAX_HANDS // 5)
    seed = runner._positive_int("--seed", seed, minimum=0, maximum=runner.MAX_SEED)
    workers = runner.worker_count(workers, runner.default_workers())
    tables = _tables(ch, base)
    chunk = _default_chunk(rules, tables, deals) if chunk is None else runner._positive_int(
        "--chunk", chunk, maximum=runner.MAX_CHUNK)
    # one zero-hand call per distinct seating: the game's own check of players and rules
    from mjsim.play.game import simulate_chunk

    simulate_chunk(rules, tables[0], seed, 0, 0, 1)
    # planned lazily: any number of deals starts at once, in the memory of the chunks in flight
    n_chunks = -(-deals // chunk)
    tasks = ((t, rules, players, seed, start, min(chunk, deals - start))
             for start in range(0, deals, chunk) for t, players in enumerate(tables))
    total, done = 5 * deals, 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    t0 = time.perf_counter()
    reducer = _Reducer(lambda start: min(chunk, deals - start))

    def take(result: tuple) -> None:
        reducer.take(result)
        advance(len(result[2]["end"]))

    advance(0)      # progress from the start (a search table's first task takes about 20 s)
    _run_tasks(tasks, 5 * n_chunks, workers, take)
    seconds = time.perf_counter() - t0
    r = reducer
    return ArenaResult(
        rules=rules, challenger=ch, baseline=base, deals=deals, seed=seed,
        edge=r.edge.interval(), edge_by_seat=tuple(s.interval() for s in r.by_seat),
        differences={k: r.diffs[k].interval() for k in ("won", "dealt_in", "claims") if k in r.diffs},
        challenger_stats=r.challenger.stats(str(ch)), baseline_stats=r.baseline.stats(f"{base} (4x {base})"),
        opponents_stats=r.opponents.stats(f"{base} (with {ch})"),
        tables={f"4x {base}": r.base_table.figures(), f"{ch} + 3x {base}": r.mixed_tables.figures()},
        seconds=seconds,
    )


def format_lines(result: ArenaResult, top_patterns: int = 6) -> list[str]:
    """A plain-text summary (the CLI prints these lines without markup)."""
    r = result
    lines = [
        f"arena: {r.challenger} vs 3x {r.baseline}, {r.rules.game} ({r.rules.variant}), "
        f"{r.deals:,} deal{'s' if r.deals != 1 else ''} x 4 seats, seed {r.seed}",
        f"edge (points per seat-hand): {r.edge}" + ("" if math.isnan(r.edge.se) else f"   (se {r.edge.se:.4f})"),
        "edge by seat: " + "  ".join(f"{j}: {iv}" for j, iv in enumerate(r.edge_by_seat)),
    ]
    diffs = []
    for k, iv in r.differences.items():
        if k == "claims":
            diffs.append(f"claims per hand {iv}")
        else:   # rates in percentage points
            diffs.append(f"{'win rate' if k == 'won' else 'deal-in rate'} {100 * iv.mean:+.2f} "
                         f"{iv.bounds(lambda v: f'{100 * v:+.2f}')} pp")
    lines.append("paired differences: " + "  ".join(diffs))
    lines.append(f"method: {r.method}")
    if any(math.isnan(iv.low) for iv in (r.edge, *r.edge_by_seat, *r.differences.values())):
        lines.append("no interval: fewer than two deals, or every deal moved alike (play more --deals)")
    # search's diagnostic option peek cheats: say so beside the edge it produced
    for p in (r.challenger, r.baseline):
        peek = int(dict(p.options).get("peek", 0))
        if peek:
            lines.append(f"note: {p} {PEEK_SEES[peek]}: a bound on what reading them is worth, not a player")
    lines.append(f"{'player':<28} {'seat-hands':>10} {'net':>8} {'win':>7} {'deal-in':>8} {'self-draw':>9} "
                 f"{'win turn':>8} {'claims':>7}")
    for s in (r.challenger_stats, r.opponents_stats, r.baseline_stats):
        claims = "n/a" if s.claims_per_hand is None else f"{s.claims_per_hand:.3f}"
        turn = "n/a" if s.win_turn is None else f"{s.win_turn:.2f}"
        tsumo = "n/a" if math.isnan(s.self_draw_share) else f"{100 * s.self_draw_share:.2f}%"
        lines.append(f"{s.label:<28} {s.seat_hands:>10,} {s.net:>+8.4f} {100 * s.win_rate:>6.2f}% "
                     f"{100 * s.deal_in_rate:>7.2f}% {tsumo:>9} {turn:>8} {claims:>7}")
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


def result_dict(result: ArenaResult) -> dict:
    """Every figure of a result as plain JSON-able values (intervals as mean/low/high/se)."""
    import dataclasses

    out = {}
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, Rules):
            value = {"game": value.game, "variant": value.variant, "hash": value.hash}
        elif isinstance(value, PlayerSpec):
            value = str(value)
        elif dataclasses.is_dataclass(value):
            value = dataclasses.asdict(value)
        elif isinstance(value, tuple):
            value = [dataclasses.asdict(v) for v in value]
        elif isinstance(value, dict):
            value = {k: dataclasses.asdict(v) if dataclasses.is_dataclass(v) else v for k, v in value.items()}
        out[f.name] = value
    return null_if_not_finite(out)


def write_json(result: ArenaResult, path) -> Path:
    """The result as one JSON file (written beside and renamed: complete or absent)."""
    import json

    from mjsim.dataset.storage import write_output

    return write_output(path, json.dumps(result_dict(result), ensure_ascii=False, indent=1,
                                         default=float).encode("utf-8"))
