"""Statistics over an mjsim dataset: DuckDB aggregation, Wilson intervals, comparisons.

Every rate is "hands (or wins) in which X happened / hands (or wins)", a true proportion,
so its 95 % interval is a Wilson score interval. A hand with two winners of the same
pattern counts once for that pattern.

Comparisons between two variants (or two datasets):
- rates: two-sided two-proportion z-test with the pooled proportion; the interval of the
  difference is Newcombe's hybrid score interval (built from the two Wilson intervals);
- means: Welch's unequal-variance t-test; the interval uses the Welch-Satterthwaite df.
A difference is flagged significant at p < 0.05 per measure, without correction for
multiple comparisons: among many measures that truly do not differ, about 1 in 20 is
flagged by chance. Variants of one sweep share the seed, and so deal the same walls: their
samples are positively correlated and the unpaired tests above are then conservative.
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "ALPHA", "Comparison", "Mean", "Rate", "VariantStats", "compare", "connect", "query",
    "summarize", "summarize_all", "two_proportion_z_test", "variants", "welch_t_test", "wilson",
]

ALPHA = 0.05
Z95 = 1.959963984540054     # standard normal 97.5 % quantile
RATE_TEST = "two-proportion z-test (pooled)"
MEAN_TEST = "Welch's t-test"

_WANZAI_PATTERNS = (
    "pinghu", "shisanlan", "qixing_shisanlan", "quanqiuren", "daqidui", "qixiaodui",
    "haohua_qixiaodui", "shuang_haohua_qixiaodui", "san_haohua_qixiaodui", "qingyise_pinghu",
    "qingyise_daqidui", "qingyise_qixiaodui", "qingyise_haohua_qixiaodui",
    "qingyise_shuang_haohua_qixiaodui", "qingyise_san_haohua_qixiaodui",
)
_WILD_CATEGORIES = ("dan_wang", "san_wang", "si_wang", "liu_wang", "qi_wang")
#: listed even when they never occurred: a zero count still has an informative upper bound
GAME_PATTERNS = {"wanzai": _WANZAI_PATTERNS, "anhua": ("yingzhuang", "pinghu")}
GAME_PROPERTIES = {
    "wanzai": _WANZAI_PATTERNS[:9] + ("qingyise",),
    "anhua": ("qingyise", "xiaoqidui", *_WILD_CATEGORIES, "gangshanghua", "qiangganghu", "gangshangpao"),
}
GAME_WIN_KINDS = {
    "wanzai": ("self_draw", "discard", "rob_kong"),
    "anhua": ("self_draw", "discard", "rob_kong", "gangshanghua", "gangshangpao", "instant"),
}


# ------------------------------------------------------------------------------------
# Intervals and tests


def wilson(k, n, z: float = Z95):
    """Wilson score interval for k successes in n trials (vectorised); (nan, nan) for n = 0."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        lo, hi = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
        # exact ends where rounding would leave 1e-21 instead of 0
        lo = np.where((k == 0) & (n > 0), 0.0, lo)
        hi = np.where((k == n) & (n > 0), 1.0, hi)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def two_proportion_z_test(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """(z, two-sided p) for H0: p1 == p2, pooled standard error."""
    from scipy.stats import norm

    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:   # both all-0 or all-1: no evidence of a difference
        return 0.0, 1.0
    z = (p2 - p1) / se
    return z, float(2 * norm.sf(abs(z)))


def newcombe_interval(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """95 % interval of p2 - p1 (Newcombe 1998, method 10: from the two Wilson intervals)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p2 - p1
    return d - math.hypot(p2 - l2, u1 - p1), d + math.hypot(u2 - p2, p1 - l1)


def welch_t_test(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int):
    """(t, two-sided p, ci_low, ci_high) of mean2 - mean1 by Welch's t-test."""
    from scipy.stats import t as student

    v1, v2 = s1 * s1 / n1, s2 * s2 / n2
    d = m2 - m1
    se = math.sqrt(v1 + v2)
    if se == 0 or n1 < 2 or n2 < 2:
        return (0.0, 1.0, d, d) if d == 0 else (math.inf, 0.0, d, d)
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    t = d / se
    p = float(2 * student.sf(abs(t), df))
    half = float(student.ppf(1 - ALPHA / 2, df)) * se
    return t, p, d - half, d + half


# ------------------------------------------------------------------------------------
# Measures


@dataclass(frozen=True)
class Rate:
    """`count` of `n` (hands or wins) had it."""

    section: str
    name: str
    count: int
    n: int
    unit: str = "hands"    # what n counts

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.name)

    @property
    def freq(self) -> float:
        return self.count / self.n if self.n else math.nan

    @property
    def ci(self) -> tuple[float, float]:
        return wilson(self.count, self.n)


@dataclass(frozen=True)
class Mean:
    section: str
    name: str
    n: int
    mean: float
    sd: float
    min: float = math.nan
    max: float = math.nan

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.name)

    @property
    def ci(self) -> tuple[float, float]:
        from scipy.stats import t as student

        if self.n < 2:
            return (math.nan, math.nan)
        half = float(student.ppf(1 - ALPHA / 2, self.n - 1)) * self.sd / math.sqrt(self.n)
        return self.mean - half, self.mean + half


@dataclass
class VariantStats:
    variant: str
    game: str
    hands: int
    wins: int
    rates: list[Rate] = field(default_factory=list)
    means: list[Mean] = field(default_factory=list)
    histograms: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    info: dict = field(default_factory=dict)   # manifest entry: seed, players, label, ...

    @property
    def label(self) -> str:
        return self.info.get("label") or self.variant

    def section(self, name: str) -> list:
        return [m for m in (*self.rates, *self.means) if m.section == name]


# ------------------------------------------------------------------------------------
# DuckDB over the dataset


def _sql_str(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


#: DuckDB memory cap for the summaries: keeps `mjsim simulate` of 10 million hands (pool,
#: then summary) under 1 GiB; DuckDB spills the large aggregates to a temporary directory
SUMMARY_MEMORY = "512MB"


def connect(root: str | Path, memory_limit: str | None = None):
    """A sandboxed DuckDB connection with views `hands` and `wins` over DIR/{hands,wins}/variant=*/.

    What it allows: reading files inside DIR (the views, or read_parquet/read_json of a
    path under DIR) and nothing else. DuckDB's external access is off
    (`enable_external_access = false`) with DIR as the only `allowed_directories` entry, so
    no file outside DIR can be read or written and no extension installed; extension
    autoloading and autoinstalling are off; and `lock_configuration = true` keeps any of
    this from being SET back. (COPY, EXPORT or ATTACH into DIR itself are still possible
    on this connection: `query()` accepts one SELECT statement only.) Temporary spill files
    go to the system's temporary directory. Every Parquet file of DIR is checked to be a
    whole Parquet file first: a truncated or overwritten one is a ValueError naming it.
    """
    import tempfile

    import duckdb

    from mjsim.runner import chunk_file_problem

    root = Path(root)
    if not root.is_dir():
        raise OSError(f"{root}: no such dataset directory")
    real = root.resolve()
    for table in ("hands", "wins"):
        files = sorted((real / table).glob("variant=*/*.parquet"))
        if not files:
            raise ValueError(f"{root} holds no mjsim dataset (no {table}/variant=*/*.parquet files)")
        for f in files:
            problem = chunk_file_problem(f)
            if problem:
                raise ValueError(f"{f} is damaged ({problem}): move it away, or resume the run "
                                 f"that made {root} to redo it")
    con = duckdb.connect()
    # our own output is the progress; row order never matters to an aggregate (less memory)
    con.execute("SET enable_progress_bar = false")
    con.execute("SET preserve_insertion_order = false")
    # spill (if ever) to the system's temporary directory, not the current one
    con.execute(f"SET temp_directory = {_sql_str(str(Path(tempfile.gettempdir()) / 'mjsim-duckdb'))}")
    if memory_limit:
        con.execute(f"SET memory_limit = {_sql_str(memory_limit)}")
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute(f"SET allowed_directories = [{_sql_str(str(real) + '/')}]")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    for table in ("hands", "wins"):
        glob = str(real / table / "variant=*" / "*.parquet")
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet({_sql_str(glob)}, "
                    f"hive_partitioning = true, union_by_name = true)")
    return con


#: the only statement kind a query may be: DuckDB parses WITH ..., FROM ..., DESCRIBE,
#: SHOW and SUMMARIZE as SELECT too; all of them only read
_READ_ONLY = ("SELECT",)


def query(root: str | Path, sql: str) -> tuple[list[str], list[tuple]]:
    """Run one read-only SQL statement over the views `hands` and `wins`; (column names, rows).

    Exactly one SELECT (WITH ..., FROM ..., DESCRIBE, SUMMARIZE) statement, on a `connect()`
    sandbox: anything else (COPY, ATTACH, EXPORT, CREATE, INSERT, SET, PRAGMA, INSTALL,
    LOAD, several statements) is a ValueError, as is reading outside DIR.
    """
    import duckdb

    if not isinstance(sql, str) or not sql.strip():
        raise ValueError("query: give one SELECT statement")
    con = connect(root)
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise ValueError(f"query failed: {' '.join(str(e).split())}") from None
    if len(statements) != 1:
        raise ValueError(f"query: give exactly one SELECT statement, got {len(statements)}")
    kind = statements[0].type.name
    if kind not in _READ_ONLY:
        raise ValueError(f"query: only a read-only SELECT is allowed, not {kind} "
                         f"(queries cannot write, attach, load or change settings)")
    try:
        rel = con.sql(statements[0].query)
        if rel is None:    # a statement without a result
            return [], []
        return list(rel.columns), rel.fetchall()
    except duckdb.Error as e:
        raise ValueError(f"query failed: {' '.join(str(e).split())}") from None


def variants(root: str | Path) -> list[str]:
    """The variants present in the dataset, manifest order first."""
    root = Path(root)
    if not root.is_dir():
        raise OSError(f"{root}: no such dataset directory")
    from mjsim.runner import decode_variant

    on_disk = sorted(decode_variant(p.name.split("=", 1)[1])
                     for p in (root / "hands").glob("variant=*") if any(p.glob("*.parquet")))
    if not on_disk:
        raise ValueError(f"{root} holds no mjsim dataset (no hands/variant=*/*.parquet files)")
    listed = [v for v in _manifest(root) if v in on_disk]
    return listed + [v for v in on_disk if v not in listed]


def _manifest(root: Path) -> dict:
    path = Path(root) / "manifest.json"
    try:
        return json.loads(path.read_text()).get("variants", {})
    except (OSError, ValueError):
        return {}


def summarize(root: str | Path, variant: str | None = None) -> VariantStats:
    """Statistics of one variant (the only one, when `variant` is None)."""
    found = variants(root)
    if variant is None:
        if len(found) != 1:
            raise ValueError(f"{root} holds {len(found)} variants ({', '.join(found)}); name one")
        variant = found[0]
    elif variant not in found:
        raise ValueError(f"{root} has no variant {variant!r} (it has {', '.join(found) or 'none'})")
    return summarize_all(root, [variant])[0]


def summarize_all(root: str | Path, only: Sequence[str] | None = None) -> list[VariantStats]:
    """Statistics of every variant of a dataset, in `variants()` order."""
    root = Path(root)
    con = connect(root, memory_limit=SUMMARY_MEMORY)
    manifest = _manifest(root)
    names = [v for v in variants(root) if only is None or v in only]
    return [_variant_stats(con, v, manifest.get(v, {})) for v in names]


def _one(con, sql: str, params: list):
    return con.execute(sql, params).fetchone()


def _all(con, sql: str, params: list):
    return con.execute(sql, params).fetchall()


def _seat_dealer_sql() -> str:
    return "CASE dealer " + " ".join(f"WHEN {s} THEN delta_{s}" for s in range(4)) + " END"


def _variant_stats(con, variant: str, info: dict) -> VariantStats:
    v = [variant]
    dd = _seat_dealer_sql()
    seat_cols = ", ".join(
        f"avg(delta_{s}), stddev_samp(delta_{s}), min(delta_{s}), max(delta_{s})" for s in range(4))
    kong_cols = ", ".join(
        f"count_if({k} > 0), avg({k}), stddev_samp({k})" for k in ("kongs_exposed", "kongs_added", "kongs_concealed"))
    fire_cols = ", ".join(f"count_if(fire_{s} > 0)" for s in range(4))
    total = " + ".join(f"delta_{s}" for s in range(4))
    squares = " + ".join(f"delta_{s}::DOUBLE * delta_{s}" for s in range(4))
    row = _one(con, f"""
        SELECT any_value(rules), count(*), count_if("end" = 'win'), count_if("end" = 'draw'),
               count_if(n_winners > 1), avg(draws), stddev_samp(draws), min(draws), max(draws),
               {seat_cols},
               avg({dd}), stddev_samp({dd}), min({dd}), max({dd}),
               sum(({total}) - ({dd})), sum(({squares}) - ({dd})::DOUBLE * ({dd})),
               {kong_cols}, {fire_cols}
        FROM hands WHERE variant = ?""", v)
    game, n = row[0], int(row[1])
    st = VariantStats(variant, game, n, wins=0, info=dict(info))
    st.rates += [Rate("outcome", "win", row[2], n), Rate("outcome", "draw", row[3], n),
                 Rate("outcome", "several winners", row[4], n)]
    st.means.append(Mean("hand", "live tiles drawn", n, row[5], _sd(row[6]), row[7], row[8]))
    i = 9
    for s in range(4):
        st.means.append(Mean("score", f"seat {s}", n, row[i], _sd(row[i + 1]), row[i + 2], row[i + 3]))
        i += 4
    st.means.append(Mean("score", "dealer", n, row[i], _sd(row[i + 1]), row[i + 2], row[i + 3]))
    i += 4
    # non-dealer seats pooled: three values per hand, from sums so nothing is materialised
    m = 3 * n
    s1, s2 = float(row[i] or 0), float(row[i + 1] or 0)
    mean = s1 / m if m else math.nan
    var = (s2 - m * mean * mean) / (m - 1) if m > 1 else math.nan
    st.means.append(Mean("score", "non-dealer", m, mean, math.sqrt(max(var, 0.0))))
    i += 2
    for kind in ("exposed", "added", "concealed"):
        st.rates.append(Rate("kongs", f"hands with {kind} kong", row[i], n))
        st.means.append(Mean("kongs", f"{kind} kongs per hand", n, row[i + 1], _sd(row[i + 2])))
        i += 3
    fire = row[i:i + 4]
    if any(fire):
        st.rates += [Rate("fire", f"seat {s} on fire", int(c), n) for s, c in enumerate(fire)]

    _win_stats(con, st)
    _histograms(con, st)
    return st


def _sd(x) -> float:
    return math.nan if x is None else float(x)


def _win_stats(con, st: VariantStats) -> None:
    v = [st.variant]
    n = st.hands
    wins, points_avg, points_sd, recv_avg, recv_sd, bird_wins, birds_avg, birds_sd = _one(con, """
        SELECT count(*), avg(points), stddev_samp(points), avg(received), stddev_samp(received),
               count_if(birds_hit > 0), avg(birds_hit), stddev_samp(birds_hit)
        FROM wins WHERE variant = ?""", v)
    st.wins = int(wins)

    def per_hand(column: str, section: str, listed: Sequence[str]):
        seen = dict(_all(con, f"""SELECT {column}, count(DISTINCT hand_index) FROM wins
                                  WHERE variant = ? AND {column} IS NOT NULL GROUP BY 1""", v))
        for name in [*listed, *sorted(k for k in seen if k not in listed)]:
            st.rates.append(Rate(section, name, int(seen.get(name, 0)), n))

    per_hand("win_kind", "win kind", GAME_WIN_KINDS.get(st.game, ()))
    per_hand("pattern", "pattern", GAME_PATTERNS.get(st.game, ()))
    props = dict(_all(con, """SELECT p, count(DISTINCT hand_index) FROM
                                (SELECT hand_index, unnest(properties) AS p FROM wins WHERE variant = ?)
                              GROUP BY 1""", v))
    listed = GAME_PROPERTIES.get(st.game, ())
    for name in [*listed, *sorted(k for k in props if k not in listed)]:
        st.rates.append(Rate("property", name, int(props.get(name, 0)), n))
    if st.wins:
        st.means.append(Mean("win", "points per win", st.wins, points_avg, _sd(points_sd)))
        st.means.append(Mean("win", "received per win", st.wins, recv_avg, _sd(recv_sd)))
    if st.game == "anhua":
        per_hand("category", "wild category", _WILD_CATEGORIES)
        if st.wins:
            st.rates.append(Rate("birds", "wins with a bird hit", int(bird_wins), st.wins, unit="wins"))
            st.means.append(Mean("birds", "birds hit per win", st.wins, birds_avg, _sd(birds_sd)))


def _histograms(con, st: VariantStats) -> None:
    """Exact value counts (bounded: integers), for the plots."""
    v = [st.variant]

    def counts(sql: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out: dict[str, tuple[list, list]] = {}
        for group, value, c in _all(con, sql, v):
            xs, ys = out.setdefault(str(group), ([], []))
            xs.append(value)
            ys.append(c)
        return {g: (np.asarray(x), np.asarray(y)) for g, (x, y) in sorted(out.items())}

    st.histograms["live tiles drawn"] = counts(
        """SELECT "end", draws, count(*) FROM hands WHERE variant = ? GROUP BY ALL ORDER BY 1, 2""")
    role = " UNION ALL ".join(
        f"SELECT CASE WHEN dealer = {s} THEN 'dealer' ELSE 'non-dealer' END AS role, delta_{s} AS d "
        f"FROM hands WHERE variant = $1" for s in range(4))
    st.histograms["score per hand"] = counts(f"SELECT role, d, count(*) FROM ({role}) GROUP BY ALL ORDER BY 1, 2")


# ------------------------------------------------------------------------------------
# Comparisons


@dataclass(frozen=True)
class Comparison:
    section: str
    name: str
    a: Rate | Mean
    b: Rate | Mean
    diff: float          # b - a
    ci: tuple[float, float]
    p: float
    test: str

    @property
    def significant(self) -> bool:
        return self.p < ALPHA


def compare(a: VariantStats, b: VariantStats) -> list[Comparison]:
    """Every measure of `a` that `b` has too (rates absent from one side count as 0)."""
    out = []
    b_rates = {r.key: r for r in b.rates}
    keys = [r.key for r in a.rates] + [r.key for r in b.rates if r.key not in {x.key for x in a.rates}]
    a_rates = {r.key: r for r in a.rates}
    for key in keys:
        ra, rb = a_rates.get(key), b_rates.get(key)
        if ra is None or rb is None:
            if key[0] in ("outcome", "kongs", "birds"):
                continue          # a measure one side does not define
            ra = ra or Rate(*key, 0, a.hands)
            rb = rb or Rate(*key, 0, b.hands)
        if not ra.n or not rb.n:
            continue
        _, p = two_proportion_z_test(ra.count, ra.n, rb.count, rb.n)
        ci = newcombe_interval(ra.count, ra.n, rb.count, rb.n)
        out.append(Comparison(*key, ra, rb, rb.freq - ra.freq, ci, p, RATE_TEST))
    b_means = {m.key: m for m in b.means}
    for ma in a.means:
        mb = b_means.get(ma.key)
        if mb is None or ma.mean is None or mb.mean is None:
            continue
        _, p, lo, hi = welch_t_test(ma.mean, ma.sd, ma.n, mb.mean, mb.sd, mb.n)
        out.append(Comparison(*ma.key, ma, mb, mb.mean - ma.mean, (lo, hi), p, MEAN_TEST))
    return out
