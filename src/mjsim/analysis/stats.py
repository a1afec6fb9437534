"""Statistics over an mjsim dataset: every measure with a 95 % interval, and comparisons
of variants that use the pairing the design creates.

Measures (see mjsim.measures): rates per hand or per win, means per hand or per win,
shares of money. Hands of one session are dependent (dealer, 上火), so every standard error
is clustered by session (statsmodels' cluster-robust variance; tests check it).

- A rate's interval is Wilson's score interval on the effective sample size n / deff, where
  deff = clustered variance / binomial variance (at least 1): plain Wilson for hands that
  are independent, wider where a measure carries over within a session (上火). With few
  sessions deff also carries Korn and Graubard's factor (t(G-1) / z)^2, so a rate, like a
  mean, is not more certain than its G sessions can show.
- A mean's interval is mean ± t(G-1) x clustered standard error, G = sessions.

Comparisons (`compare`, `compare_all`):
- paired, when the two variants share game, seed, players, session length and hand range
  (a sweep always does; two runs with one seed do): hand i was dealt the same wall in
  both, so the difference of each measure is estimated from per-hand differences with a
  session-clustered standard error (t with G-1 df), and rare 0/1 events use the exact
  McNemar test on the hands where they differ. The number of hands played identically
  (same dealer, length, claims, kongs, winners and win kinds) is reported;
- unpaired otherwise (independent runs): rates by the two-proportion z-test on effective
  counts with Newcombe's hybrid score interval, or Fisher's exact test when a count is
  small; means by Welch's t-test on the clustered standard errors.
- Many measures are tested at once: each p-value is adjusted (Holm, statsmodels
  multipletests; Benjamini-Hochberg on request) over every comparison of one report, and
  the flag is on the adjusted p. Measures the change itself defines (bird hits when
  `birds` changes, fire rates when `fire` does) and measures identical in every hand are
  shown but not tested.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from mjsim.analysis.measures import GAME_PATTERNS, GAME_PROPERTIES, GAME_WIN_KINDS, WILD_CATEGORIES  # noqa: F401

__all__ = [
    "ALPHA", "Comparison", "Mean", "Rate", "VariantStats", "compare", "compare_all", "connect", "query",
    "query_frame", "summarize", "summarize_all", "two_proportion_z_test", "variant_stats", "variants",
    "welch_t_test", "wilson",
]

ALPHA = 0.05
Z95 = 1.959963984540054     # standard normal 97.5 % quantile
RATE_TEST = "two-proportion z-test (pooled)"
FISHER_TEST = "Fisher's exact test"
MEAN_TEST = "Welch's t-test"
PAIRED_TEST = "paired t-test, session-clustered"
MCNEMAR_TEST = "exact McNemar test"
#: below this many events in a cell (unpaired) or discordant hands (paired), exact tests
EXACT_BELOW = 10
ADJUST = "holm"
ADJUST_NAMES = {"holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}
#: what compare_all takes as `adjust`
ADJUST_METHODS = (*ADJUST_NAMES, "none")


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


def two_proportion_z_test(k1: float, n1: float, k2: float, n2: float) -> tuple[float, float]:
    """(z, two-sided p) for H0: p1 == p2, pooled standard error."""
    from scipy.stats import norm

    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:   # both all-0 or all-1: no evidence of a difference
        return 0.0, 1.0
    z = (p2 - p1) / se
    return z, float(2 * norm.sf(abs(z)))


def newcombe_interval(k1: float, n1: float, k2: float, n2: float, z: float = Z95) -> tuple[float, float]:
    """95 % interval of p2 - p1 (Newcombe 1998, method 10: from the two Wilson intervals)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p2 - p1
    return d - math.hypot(p2 - l2, u1 - p1), d + math.hypot(u2 - p2, p1 - l1)


def welch_t_test(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int):
    """(t, two-sided p, ci_low, ci_high) of mean2 - mean1 by Welch's t-test."""
    return welch_from_se(m1, s1 / math.sqrt(n1), n1 - 1, m2, s2 / math.sqrt(n2), n2 - 1)


def welch_from_se(m1: float, se1: float, df1: float, m2: float, se2: float, df2: float):
    """Welch's test from two standard errors and their degrees of freedom (clustered:
    df = sessions - 1); Welch-Satterthwaite df for the difference."""
    from scipy.stats import t as student

    v1, v2 = se1 * se1, se2 * se2
    d = m2 - m1
    se = math.sqrt(v1 + v2)
    if not (df1 >= 1 and df2 >= 1) or not math.isfinite(se) or se == 0:
        # no variance to test against: two sessions or more with some spread are needed
        return math.nan, math.nan, math.nan, math.nan
    df = (v1 + v2) ** 2 / ((v1 * v1 / df1 if v1 else 0.0) + (v2 * v2 / df2 if v2 else 0.0))
    t = d / se
    p = float(2 * student.sf(abs(t), df))
    half = float(student.ppf(1 - ALPHA / 2, df)) * se
    return t, p, d - half, d + half


def cluster_variance(ss: float, total_n: float, clusters: int) -> float:
    """Variance of a ratio R = ΣY/ΣN from Σ_g (Y_g - R N_g)^2 over G clusters (CR1)."""
    if clusters < 2 or not total_n:
        return math.nan
    return clusters / (clusters - 1) * ss / (total_n * total_n)


# ------------------------------------------------------------------------------------
# Measures


def _df_factor(df: float) -> float:
    """(t(df) / z)^2 at 95 %: how much fewer sessions than a normal interval assumes widen
    an effective sample size (Korn and Graubard 1998); 1 when df is unknown."""
    from scipy.stats import t as student

    if not (math.isfinite(df) and df >= 1):
        return 1.0
    return (float(student.ppf(1 - ALPHA / 2, df)) / Z95) ** 2


@dataclass(frozen=True)
class Rate:
    """`count` of `n` (hands, wins or points of money) had it."""

    section: str
    name: str
    count: float
    n: float
    unit: str = "hands"    # what n counts
    se: float = math.nan   # session-clustered standard error of freq
    defined_by: tuple[str, ...] = ()
    df: float = math.nan   # degrees of freedom of se (sessions - 1)

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.name)

    @property
    def freq(self) -> float:
        return self.count / self.n if self.n else math.nan

    @property
    def deff(self) -> float:
        """Design effect: clustered over binomial variance, at least 1 (1 when unknown),
        times Korn and Graubard's (1998) degrees-of-freedom factor (t(df) / z)^2. A clustered
        variance from few sessions is itself uncertain, as a mean's t(G-1) interval says;
        with thousands of sessions the factor is 1."""
        p = self.freq
        if not (0 < p < 1) or not math.isfinite(self.se):
            return 1.0
        return max(1.0, self.se * self.se / (p * (1 - p) / self.n)) * _df_factor(self.df)

    @property
    def ci(self) -> tuple[float, float]:
        if self.unit == "points" and not (0 < self.count < self.n):
            # a share of money that is all or nothing: points are not trials, and with no
            # spread there is no design effect to scale them by
            return (math.nan, math.nan)
        d = self.deff
        return wilson(self.count / d, self.n / d)


@dataclass(frozen=True)
class Mean:
    section: str
    name: str
    n: float
    mean: float
    sd: float
    min: float = math.nan
    max: float = math.nan
    se: float = math.nan      # session-clustered standard error of the mean
    df: float = math.nan      # its degrees of freedom (sessions - 1)
    unit: str = "hands"
    defined_by: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.name)

    @property
    def sessions_agree(self) -> bool:
        """Units that vary but sessions that all agree (two sessions of 64 hands with two
        concealed kongs each): a clustered standard error of 0 that measures no spread,
        so there is no interval, not an exact mean."""
        return self._se_df()[0] == 0 and self.sd > 0

    def _se_df(self) -> tuple[float, float]:
        """The session-clustered standard error and its df; NaN when fewer than two sessions
        hold the measure (no interval then, rather than one that takes dependent hands as
        independent)."""
        if math.isfinite(self.se) and math.isfinite(self.df):
            return self.se, self.df
        return math.nan, math.nan

    @property
    def ci(self) -> tuple[float, float]:
        from scipy.stats import t as student

        se, df = self._se_df()
        if not (df >= 1) or self.mean is None or not math.isfinite(se):
            return (math.nan, math.nan)
        if self.sessions_agree:
            return (math.nan, math.nan)
        half = float(student.ppf(1 - ALPHA / 2, df)) * se
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
    root: Path | None = None
    sessions: int = 0
    session_spread: list[dict] = field(default_factory=list)
    rules: object = None                       # mjsim.Rules from the file metadata, when readable
    lists: object = None                       # mjsim.measures.Lists (names present)

    @property
    def label(self) -> str:
        return self.info.get("label") or self.variant

    @property
    def complete(self) -> bool:
        """False for the variant of an interrupted run (its manifest says so): the figures
        are those of the hands played so far; the same command resumes it."""
        return bool(self.info.get("complete", True))

    def section(self, name: str) -> list:
        return [m for m in (*self.rates, *self.means) if m.section == name]

    def frame(self):
        """Every measure as a pandas DataFrame: one row each, estimate, 95 % interval, method."""
        import pandas as pd

        from mjsim.vocab import chinese

        rows = []
        clustered = self.sessions >= 2      # one session: no clustered variance exists
        rate_method = ("Wilson score on effective n (session-clustered, Korn-Graubard df)" if clustered
                       else "Wilson score, hands taken as independent (one session)")
        mean_method = ("t on session-clustered standard error" if clustered
                       else "none: a clustered standard error needs two sessions")
        for r in self.rates:
            lo, hi = r.ci
            rows.append({"variant": self.variant, "section": r.section, "measure": r.name, "chinese": chinese(r.name),
                         "kind": "rate", "unit": r.unit, "estimate": r.freq, "ci_low": lo, "ci_high": hi,
                         "count": r.count, "n": r.n, "se": r.se, "sd": math.nan, "min": math.nan,
                         "max": math.nan, "method": rate_method})
        for m in self.means:
            lo, hi = m.ci
            se = m._se_df()[0]
            method = "none: no spread between sessions" if clustered and m.sessions_agree else mean_method
            rows.append({"variant": self.variant, "section": m.section, "measure": m.name, "chinese": chinese(m.name),
                         "kind": "mean", "unit": m.unit, "estimate": m.mean, "ci_low": lo, "ci_high": hi,
                         "count": math.nan, "n": m.n, "se": se, "sd": m.sd, "min": m.min,
                         "max": m.max, "method": method})
        frame = pd.DataFrame(rows)
        frame.attrs["complete"] = self.complete
        return frame

    def _repr_html_(self) -> str:     # a notebook shows the table, and says when it is partial
        table = self.frame()._repr_html_()
        if self.complete:
            return table
        return (f"<p><b>INCOMPLETE</b>: the {self.hands:,} hands an interrupted run has played so far; "
                f"resume the run for the full dataset</p>" + table)



# ------------------------------------------------------------------------------------
# DuckDB over the dataset


def _sql_str(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _table_files(directory: Path, table: str) -> list[Path]:
    return sorted(p for part in (directory / table).glob("variant=*") if part.is_dir() for p in part.glob("*.parquet"))


def _parquet_view(table: str, files: list[Path]) -> str:
    """A view over these files: listed one by one, so a directory whose name holds glob
    characters ([, *, ?) is read as it is, not taken for a pattern."""
    listed = ", ".join(_sql_str(str(f)) for f in files)
    return (f"CREATE VIEW {table} AS SELECT * FROM read_parquet([{listed}], hive_partitioning = true, "
            f"union_by_name = true)")


def _dataset_tables(root: str | Path, directory: Path) -> list[str]:
    """The tables of a dataset (hands, wins and, from schema 2 on, payments), each
    variant's Parquet files checked first (runner.partition_problem): one line naming a
    damaged, misnamed or foreign file, not a DuckDB traceback or hands counted twice."""
    from mjsim.dataset.storage import live_writer, partition_problem

    writer = live_writer(directory)
    if writer:
        raise ValueError(f"{root} is being written by a running mjsim ({writer}): read it when that run has "
                         f"finished, or stop it (a stopped run keeps its complete chunks)")
    present = []
    names: dict[str, dict[str, set[str]]] = {}     # table -> partition -> chunk file names
    for table in ("hands", "wins", "payments"):
        parts = sorted(p for p in (directory / table).glob("variant=*") if p.is_dir())
        files = {part: sorted(part.glob("*.parquet")) for part in parts}
        if any(files.values()):
            present.append(table)
        elif table != "payments":   # older datasets have no payments table
            raise ValueError(f"{root} holds no mjsim dataset (no {table}/variant=*/*.parquet files)")
        for part in parts:
            problem = partition_problem(files[part], table)
            if problem:
                raise ValueError(f"{problem}: move it away, or resume the run that made {root} to redo it")
        names[table] = {part.name: {f.name for f in fs} for part, fs in files.items()}
    problem = _chunk_set_problem(root, directory, names, present)
    if problem:
        raise ValueError(f"{problem}: resume the run that made {root} to redo it")
    return present


def _chunk_set_problem(root, directory: Path, names: dict[str, dict[str, set[str]]],
                       present: Sequence[str]) -> str | None:
    """Why the tables do not hold the same chunks, or a variant the manifest calls complete
    lacks hands, or None. A chunk is written payments, wins, hands (the hands file last), so
    a chunk cut off between those renames leaves wins without hands: a reader that trusted
    the files would count those wins (query) or report fewer hands without a word."""
    from mjsim.dataset.layout import chunks_of, decode_variant, parse_chunk_name
    from mjsim.dataset.manifest import read_manifest

    hands = names.get("hands", {})
    for table in present:
        if table == "hands":
            continue
        # every variant has wins; a variant may lack payments altogether (written before them)
        parts = sorted(names[table].keys() | (hands.keys() if table == "wins" else set()))
        for part in parts:
            files = names[table].get(part, set())
            extra = sorted(files - hands.get(part, set()))
            if extra:
                return f"{directory / table / part / extra[0]} has no hands file beside it"
            missing = sorted(hands.get(part, set()) - files)
            if missing:
                return f"{directory / 'hands' / part / missing[0]} has no {table} file beside it"
    manifest = read_manifest(Path(root))["variants"]
    for part, files in hands.items():
        entry = manifest.get(decode_variant(part[len("variant="):])) or {}
        total, chunk = entry.get("hands"), entry.get("chunk")
        if not (entry.get("complete") and isinstance(total, int) and isinstance(chunk, int) and chunk > 0):
            continue
        held = {parse_chunk_name(f)[1:] for f in files}
        lost = -(-total // chunk) - len(held)
        if lost > 0:
            # the first planned chunk not held is at most len(held) + 1 chunks in
            start, count = next(c for c in chunks_of(total, chunk) if c not in held)
            return (f"{directory / 'hands' / part} lacks hands {start}..{start + count - 1} "
                    f"({lost} chunk{'s' if lost > 1 else ''}) of the {total:,} its manifest records as complete")
    return None


def _base_connection(memory_limit: str | None):
    """A DuckDB connection with the settings every reader of a dataset wants."""
    import tempfile

    import duckdb

    con = duckdb.connect()
    # our own output is the progress; row order never matters to an aggregate (less memory)
    try:
        con.execute("SET enable_progress_bar = false")
    except duckdb.InvalidInputException:
        # in Jupyter without ipywidgets DuckDB refuses any change to this setting, which is
        # already off there (the example notebook, docs/examples, runs into it)
        pass
    con.execute("SET preserve_insertion_order = false")
    # spill (if ever) to the system's temporary directory, not the current one
    con.execute(f"SET temp_directory = {_sql_str(str(Path(tempfile.gettempdir()) / 'mjsim-duckdb'))}")
    if memory_limit:
        con.execute(f"SET memory_limit = {_sql_str(memory_limit)}")
    return con


def connect(root: str | Path, memory_limit: str | None = None):
    """A sandboxed DuckDB connection with views `hands`, `wins` and (datasets of schema 2 on)
    `payments` over DIR/{hands,wins,payments}/variant=*/.

    What it allows: reading files inside DIR (the views, or read_parquet/read_json of a
    path under DIR) and nothing else. DuckDB's external access is off
    (`enable_external_access = false`) with DIR as the only `allowed_directories` entry, so
    no file outside DIR can be read or written and no extension installed; extension
    autoloading and autoinstalling are off; and `lock_configuration = true` keeps any of
    this from being SET back. (COPY, EXPORT or ATTACH into DIR itself are still possible
    on this connection: `query()` accepts one SELECT statement only.) Temporary spill files
    go to the system's temporary directory. Every Parquet file of DIR is checked to be a
    whole chunk of one run, named as its footer says (runner.partition_problem): a bad one
    is a ValueError naming it.
    """
    root = check_dataset_dir(root)
    real = root.resolve()
    present = _dataset_tables(root, real)
    con = _base_connection(memory_limit)
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute(f"SET allowed_directories = [{_sql_str(str(real) + '/')}]")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    for table in present:
        con.execute(_parquet_view(table, _table_files(real, table)))
    return con


#: the only statement kind a query may be: DuckDB parses WITH ..., FROM ..., DESCRIBE,
#: SHOW and SUMMARIZE as SELECT too; all of them only read
_READ_ONLY = ("SELECT",)


#: SQL comments and blank space before a statement's first keyword
_LEADING_NOISE = r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*"


def _statement_words(text: str) -> str:
    """The keyword a statement starts with, as typed (upper case): DuckDB's statement type
    mislabels some (INSTALL and LOAD are both LOAD, USE is SET, IMPORT DATABASE is PRAGMA),
    and the user should read back the word they wrote."""
    import re

    found = re.match(_LEADING_NOISE + r"([A-Za-z_]+)(?:\s+([A-Za-z_]+))?", text, re.S)
    if not found:
        return "this statement"
    first, second = found.group(1).upper(), (found.group(2) or "").upper()
    return f"{first} {second}" if first == "FORCE" and second else first


def _check_read_only(statement) -> None:
    """A ValueError unless `statement` only reads, naming what it is instead."""
    try:
        kind = statement.type.name
    except ValueError:      # a type the duckdb module's enum lacks (UPDATE EXTENSIONS in 2.0)
        kind = None
    if kind in _READ_ONLY:
        return
    if kind == "MULTI":     # DuckDB's PIVOT without an IN list first creates an ENUM type
        raise ValueError("query: this PIVOT would first create a type, which a read-only query cannot: "
                         "list the values it pivots on, PIVOT ... ON column IN (value, ...)")
    raise ValueError(f"query: only a read-only SELECT is allowed, not {_statement_words(statement.query)} "
                     f"(queries cannot write, attach, install or load extensions, or change settings)")


def query(root: str | Path, sql: str, *, verify: bool = False) -> tuple[list[str], list[tuple]]:
    """Run one read-only SQL statement over the views `hands`, `wins` and `payments`; (column names, rows).

    Exactly one SELECT (WITH ..., FROM ..., DESCRIBE, SUMMARIZE) statement, on a `connect()`
    sandbox: anything else (COPY, ATTACH, EXPORT, CREATE, INSERT, SET, PRAGMA, INSTALL,
    LOAD, several statements) is a ValueError, as is reading outside DIR. DuckDB does not
    check the pages' checksums; `verify` reads every file with pyarrow first, which does
    (about 0.8 s a million hands), and a damaged page is a ValueError naming its file.
    """
    import duckdb

    if not isinstance(sql, str) or not sql.strip():
        raise ValueError("query: give one SELECT statement")
    con = connect(root)
    if verify:
        verify_pages(root)
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise ValueError(f"query failed: {' '.join(str(e).split())}{_keyword_hint(str(e))}") from None
    if len(statements) != 1:
        raise ValueError(f"query: give exactly one SELECT statement, got {len(statements)}")
    _check_read_only(statements[0])
    try:
        rel = con.sql(statements[0].query)
        if rel is None:    # a statement without a result
            return [], []
        return list(rel.columns), rel.fetchall()
    except duckdb.Error as e:
        raise ValueError(f"query failed: {' '.join(str(e).split())}") from None


def _keyword_hint(error: str) -> str:
    """A parser error at a column whose name is a reserved SQL word (`end`): how to write it.
    Only reserved words: the parser also stops at ordinary column names after a typo
    (`WHERE kind = 1 points > 2` fails at "points"), where quoting would not help."""
    import re

    import duckdb

    from mjsim.dataset.schema import hands_schema, payments_schema, wins_schema

    m = re.search(r'at or near "([A-Za-z_]+)"', error)
    if not m:
        return ""
    name = m.group(1).lower()
    columns = {n for schema in (hands_schema(), wins_schema(), payments_schema()) for n in schema.names}
    reserved = {k for (k,) in duckdb.sql("SELECT keyword_name FROM duckdb_keywords() "
                                         "WHERE keyword_category = 'reserved'").fetchall()}
    if name in columns and name in reserved:
        return f' ({name} is a reserved SQL word: write the column as "{name}", in double quotes)'
    return ""


def verify_pages(root: str | Path) -> int:
    """Check every page checksum of every chunk file of the dataset; the number of files."""
    from mjsim.analysis.chunkstats import verify_file
    from mjsim.dataset.schema import TABLES

    files = [f for table in TABLES for f in _table_files(Path(root), table)]
    for f in files:
        verify_file(f)
    return len(files)


def query_frame(root: str | Path, sql: str):
    """`query` as a pandas DataFrame (renders in a notebook)."""
    import pandas as pd

    columns, rows = query(root, sql)
    return pd.DataFrame.from_records(rows, columns=columns)


def check_dataset_dir(root: str | Path) -> Path:
    """`root` as a Path if it is a directory; else an OSError saying what it is instead."""
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise OSError(f"{root} is a file, not a dataset directory")
    if not root.is_dir():
        raise OSError(f"{root}: no such dataset directory")
    return root


def variants(root: str | Path) -> list[str]:
    """The variants present in the dataset, manifest order first."""
    from mjsim.dataset.layout import decode_variant

    root = check_dataset_dir(root)
    on_disk = sorted(decode_variant(p.name.split("=", 1)[1])
                     for p in (root / "hands").glob("variant=*") if any(p.glob("*.parquet")))
    if not on_disk:
        raise ValueError(f"{root} holds no mjsim dataset (no hands/variant=*/*.parquet files)")
    listed = [v for v in _manifest(root) if v in on_disk]
    return listed + [v for v in on_disk if v not in listed]


def incomplete_variants(root: str | Path) -> list[str]:
    """The variants the manifest records as not complete (an interrupted run's)."""
    return sorted(name for name, entry in _manifest(Path(root)).items() if not entry.get("complete", True))


def _manifest(root: Path) -> dict:
    """The manifest's variants ({} without a manifest); OSError naming a damaged one."""
    from mjsim.dataset.manifest import read_manifest

    return read_manifest(root)["variants"]


def summarize(root: str | Path, variant: str | None = None):
    """Statistics of one variant (the only one, when `variant` is None) as a pandas
    DataFrame, one row per measure (`variant_stats` gives the objects behind it).
    `frame.attrs["complete"]` is False for an interrupted run's variant."""
    return variant_stats(root, variant).frame()


def variant_stats(root: str | Path, variant: str | None = None) -> VariantStats:
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
    """Statistics of every variant of a dataset, in `variants()` order. Memory is bounded by
    a chunk: each chunk's sufficient statistics are computed on their own and merged."""
    root = Path(root)
    manifest = _manifest(root)
    names = [v for v in variants(root) if only is None or v in only]
    _dataset_tables(root, root)
    return [_variant_stats(root, v, manifest.get(v, {})) for v in names]


def _file_rules(root: Path, variant: str):
    """The Rules a variant was made with, from a file's metadata (None if unreadable)."""
    import pyarrow.parquet as pq

    from mjsim.rulesets.rules import Rules
    from mjsim.dataset.layout import partition

    try:
        path = next(iter(sorted(partition(root, "hands", variant).glob("*.parquet"))))
        meta = pq.read_schema(path).metadata or {}
        return Rules.from_toml_text(meta[b"mjsim.rules"].decode(), f"{path} metadata")
    except Exception:   # an older or foreign file: the statistics do not need it
        return None


def _variant_stats(root: Path, variant: str, info: dict) -> VariantStats:
    from mjsim.analysis.chunkstats import variant_sums

    sums = variant_sums(root, variant)
    game = sums.game
    st = VariantStats(variant, game, sums.hands, wins=0, info=dict(info), root=root, sessions=sums.sessions,
                      rules=_file_rules(root, variant), lists=sums.lists)
    for i, d in enumerate(sums.defs):
        Y, N, G = sums.Y[i], sums.N[i], sums.G[i]
        se = math.sqrt(cluster_variance(sums.SS[i], N, G)) if G >= 2 and N else math.nan
        if d.kind == "rate":
            st.rates.append(Rate(d.section, d.name, Y, N, d.unit, se, d.defined_by,
                                 G - 1 if G >= 2 else math.nan))
        else:
            mean = Y / N if N else math.nan
            sd = math.nan
            if d.sq and N > 1:
                sd = math.sqrt(max(0.0, (float(sums.Q[i]) - N * mean * mean) / (N - 1)))
            lo, hi = sums.lo[i], sums.hi[i]
            st.means.append(Mean(d.section, d.name, N, mean, sd, math.nan if lo is None else float(lo),
                                 math.nan if hi is None else float(hi), se, G - 1 if G >= 2 else math.nan,
                                 d.unit, d.defined_by))
    st.wins = int(next(m.n for m in st.means if m.key == ("win", "points per win")))
    if st.wins == 0:      # no win: the per-win measures say nothing (kong money is still money)
        st.means = [m for m in st.means if m.unit != "wins"]
        st.rates = [r for r in st.rates if r.unit == "hands" or (r.unit == "points" and r.n > 0)]
    _histograms(st, sums.counts)
    _session_spread(st, sums.counts["session result"])
    return st


def _histograms(st: VariantStats, counts: dict) -> None:
    """Exact value counts (integers), for the plots; the session results pooled over seats."""
    def arrays(counter, pool: str | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out: dict[str, dict] = {}
        for (group, value), c in counter.items():
            g = out.setdefault(pool or str(group), {})
            g[value] = g.get(value, 0) + c
        return {g: (np.asarray(sorted(v)), np.asarray([v[x] for x in sorted(v)])) for g, v in sorted(out.items())}

    st.histograms["live tiles drawn"] = arrays(counts["live tiles drawn"])
    st.histograms["score per hand"] = arrays(counts["score per hand"])
    st.histograms["session result"] = arrays(counts["session result"], pool="seat")


SPREAD_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def _count_quantile(values: np.ndarray, cum: np.ndarray, q: float) -> float:
    """The linearly interpolated quantile (numpy's and DuckDB quantile_cont's rule) of the
    sample that has value values[i] cum[i] - cum[i-1] times."""
    h = (cum[-1] - 1) * q
    lo = int(math.floor(h))
    at = values[np.searchsorted(cum, [lo, min(lo + 1, cum[-1] - 1)], side="right")]
    return float(at[0] + (h - lo) * (at[1] - at[0]))


def _spread_row(seat: str, values: np.ndarray, counts: np.ndarray, per_session: int) -> dict:
    n = int(counts.sum())
    mean = float((values * counts).sum() / n)
    sd = math.sqrt(float((counts * (values - mean) ** 2).sum()) / (n - 1)) if n > 1 else math.nan
    cum = np.cumsum(counts)
    return {"seat": seat, "sessions": n, "hands per session": per_session, "mean": mean, "sd": sd,
            "min": float(values[0]), "max": float(values[-1]),
            **{f"q{round(100 * q)}": _count_quantile(values, cum, q) for q in SPREAD_QUANTILES}}


def _session_spread(st: VariantStats, counter) -> None:
    """The spread of a seat's net result over a whole session, per seat and pooled."""
    per_session = st.hands // max(st.sessions, 1)
    by_seat: dict[str, dict] = {}
    for (seat, value), c in counter.items():
        for key in (str(seat), "all"):
            d = by_seat.setdefault(key, {})
            d[value] = d.get(value, 0) + c
    rows = []
    for seat in sorted(by_seat):
        values = np.asarray(sorted(by_seat[seat]), dtype=float)
        counts = np.asarray([by_seat[seat][v] for v in sorted(by_seat[seat])], dtype=np.int64)
        rows.append(_spread_row(seat, values, counts, per_session))
    st.session_spread = rows


def _sd(x) -> float:
    return math.nan if x is None else float(x)


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
    p: float | None      # None: not tested (see note)
    test: str
    paired: bool = False
    p_adj: float | None = None
    note: str = ""

    @property
    def tested(self) -> bool:
        return self.p is not None

    @property
    def significant(self) -> bool:
        p = self.p_adj if self.p_adj is not None else self.p
        return p is not None and p < ALPHA


#: the note of a difference whose standard error cannot be estimated: fewer than two sessions
#: hold the measure, or those that do show no spread
NO_VARIANCE = "not tested: no variance between sessions to test against"


@dataclass(frozen=True)
class Pairing:
    """How two variants relate: paired (same deals) or not, and why."""

    paired: bool
    reason: str
    hands: int = 0
    identical: int | None = None      # hands played identically (paired only)


def pairing(a: VariantStats, b: VariantStats) -> Pairing:
    """Paired when both share game, seed, players, session length and hand range."""
    if a.game != b.game:
        article = "an" if b.game[:1] in "aeiou" else "a"
        raise ValueError(f"cannot compare a {a.game} dataset with {article} {b.game} one: different games "
                         f"({a.label} vs {b.label})")
    ia, ib = a.info, b.info
    for key, what in (("seed", "seed"), ("players", "players"), ("session_hands", "session length")):
        if key not in ia or key not in ib:
            return Pairing(False, f"unpaired: the {what} of a variant is not recorded")
        if ia[key] != ib[key]:
            return Pairing(False, f"unpaired: different {what} ({_show(ia[key])} vs {_show(ib[key])})")
    if a.hands != b.hands:
        return Pairing(False, f"unpaired: different numbers of hands ({a.hands:,} vs {b.hands:,})")
    return Pairing(True, f"paired: same seed {ia['seed']}, players, session length and {a.hands:,} hands")


def _show(v) -> str:
    return ",".join(map(str, v)) if isinstance(v, list) else str(v)


def _defined_by_change(keys: Sequence[str], a: VariantStats, b: VariantStats) -> str:
    if a.rules is None or b.rules is None:
        return ""
    changed = [k for k in keys if a.rules.get(k) != b.rules.get(k)]
    return f"not tested: defined by the change of {', '.join(changed)}" if changed else ""


def compare(a: VariantStats, b: VariantStats, *, paired: bool | None = None, adjust: str = ADJUST) -> list[Comparison]:
    """Every measure of `a` that `b` has too, b - a, adjusted over this list."""
    return compare_all(a, [b], paired=paired, adjust=adjust)[0][1]


def compare_all(base: VariantStats, others: Sequence[VariantStats], *, paired: bool | None = None,
                adjust: str = ADJUST) -> list[tuple[Pairing, list[Comparison]]]:
    """Each variant against the baseline; p-values adjusted together over every
    comparison of every variant (`adjust`: "holm" or "fdr_bh"; "none" for raw)."""
    if adjust not in ADJUST_METHODS:
        raise ValueError(f"adjust must be one of {', '.join(ADJUST_METHODS)}, got {adjust!r}")
    out = []
    for o in others:
        pair = pairing(base, o)
        use_paired = pair.paired if paired is None else (paired and pair.paired)
        if use_paired:
            pair, comps = _paired(base, o, pair)
        else:
            comps = _unpaired(base, o)
        out.append((pair, comps))
    if adjust != "none":
        from statsmodels.stats.multitest import multipletests

        flat = [(i, j) for i, (_, cs) in enumerate(out) for j, c in enumerate(cs) if c.tested]
        if flat:
            p = np.array([out[i][1][j].p for i, j in flat], float)
            adj = multipletests(p, alpha=ALPHA, method=adjust)[1]
            for (i, j), pa in zip(flat, adj):
                out[i][1][j] = replace(out[i][1][j], p_adj=float(pa))
    return out


def _matched(a: VariantStats, b: VariantStats):
    """Measures both have, in a's order, then b's extra rates (0 on a's side)."""
    bm = {m.key: m for m in (*b.rates, *b.means)}
    am = {m.key: m for m in (*a.rates, *a.means)}
    keys = [m.key for m in (*a.rates, *a.means)] + [k for k in bm if k not in am]
    for key in keys:
        ma, mb = am.get(key), bm.get(key)
        if ma is None or mb is None:
            if key[0] in ("outcome", "kongs", "birds", "fire") or isinstance(ma or mb, Mean):
                continue          # a measure one side does not define
            proto = ma or mb
            ma, mb = ma or _absent(a, proto), mb or _absent(b, proto)
            if ma is None or mb is None:
                continue          # the side without it has nothing to share out (no win, no money)
        yield key, ma, mb


def _absent(side: VariantStats, proto: Rate) -> Rate | None:
    """`proto` on a side that never saw it: 0 of that side's own hands, wins or points of the
    section (None when it has none)."""
    if proto.unit == "hands":
        n = side.hands
    elif proto.unit == "wins":
        n = side.wins
    else:
        n = next((r.n for r in side.rates if r.section == proto.section and r.unit == proto.unit), 0)
    return replace(proto, count=0, n=n, se=0.0) if n else None


def _no_events(ma, mb) -> bool:
    return isinstance(ma, Rate) and ma.count == 0 and mb.count == 0


def _constant_alike(ma, mb) -> bool:
    """The same value in every unit on both sides (a rate of 100 %, a mean without spread)."""
    if isinstance(ma, Rate):
        return ma.count == ma.n and mb.count == mb.n
    return ma.mean == mb.mean and ma.sd == 0 and mb.sd == 0


def _unpaired(a: VariantStats, b: VariantStats) -> list[Comparison]:
    from scipy.stats import fisher_exact

    out = []
    for key, ma, mb in _matched(a, b):
        note = _defined_by_change(ma.defined_by, a, b)
        if isinstance(ma, Rate):
            if not ma.n or not mb.n:
                continue
            diff = mb.freq - ma.freq
            if ma.unit == "points":       # a share of money: not a count of independent units
                _, p, lo, hi = welch_from_se(ma.freq, ma.se, a.sessions - 1, mb.freq, mb.se, b.sessions - 1)
                test = MEAN_TEST
            else:
                da, db = ma.deff, mb.deff
                ci = newcombe_interval(ma.count / da, ma.n / da, mb.count / db, mb.n / db)
                lo, hi = ci
                # effective counts, as the z-test and the interval use (a rate that carries
                # over within a session, such as fire, counts a session about once)
                cells = (ma.count / da, (ma.n - ma.count) / da, mb.count / db, (mb.n - mb.count) / db)
                if min(cells) < EXACT_BELOW:
                    table = [[int(round(cells[0])), int(round(cells[1]))], [int(round(cells[2])), int(round(cells[3]))]]
                    p, test = float(fisher_exact(table)[1]), FISHER_TEST
                else:
                    _, p = two_proportion_z_test(ma.count / da, ma.n / da, mb.count / db, mb.n / db)
                    test = RATE_TEST
        else:
            if ma.mean is None or mb.mean is None or not (math.isfinite(ma.mean) and math.isfinite(mb.mean)):
                continue
            sa, dfa = ma._se_df()
            sb, dfb = mb._se_df()
            _, p, lo, hi = welch_from_se(ma.mean, sa, dfa, mb.mean, sb, dfb)
            diff, test = mb.mean - ma.mean, MEAN_TEST
        if _no_events(ma, mb):
            note = "not tested: no events on either side"
        elif _constant_alike(ma, mb):
            note = note or "not tested: the same on both sides, without spread"
        elif math.isnan(p):
            note = note or NO_VARIANCE
        out.append(Comparison(*key, ma, mb, diff, (lo, hi), None if note else p, test, False, None, note))
    return out


def _paired(a: VariantStats, b: VariantStats, pair: Pairing) -> tuple[Pairing, list[Comparison]]:
    from scipy.stats import t as student
    from statsmodels.stats.contingency_tables import mcnemar

    from mjsim.analysis import measures as M
    from mjsim.analysis.chunkstats import paired_sums

    lists = M.union(a.lists, b.lists)
    fire = any(r.section == "fire" for r in (*a.rates, *b.rates))
    defs = M.definitions(lists, fire=fire)
    sums = paired_sums((a.root, a.variant), (b.root, b.variant), defs, lists)
    pair = replace(pair, hands=sums.hands, identical=sums.identical)
    have = {m.key: m for m in (*a.rates, *a.means)}
    bhave = {m.key: m for m in (*b.rates, *b.means)}
    out = []
    for i, d in enumerate(defs):
        ma, mb = have.get(d.key), bhave.get(d.key)
        if ma is None or mb is None:
            continue
        Ya, Na, Yb, Nb, G = sums.Ya[i], sums.Na[i], sums.Yb[i], sums.Nb[i], sums.G[i]
        if not Na or not Nb:
            continue
        diff = Yb / Nb - Ya / Na
        var = G / (G - 1) * sums.SS[i] if G >= 2 else math.nan
        se = math.sqrt(var) if math.isfinite(var) else math.nan
        df = G - 1
        note = _defined_by_change(d.defined_by, a, b)
        if diff == 0 and se == 0:
            p, lo, hi = 1.0, 0.0, 0.0
            note = note or "not tested: identical in every hand"
        elif not math.isfinite(se) or se == 0:
            # fewer than two sessions hold it, or the few that do differ alike: a zero
            # spread is no evidence of an exact difference
            p, lo, hi = math.nan, math.nan, math.nan
            note = note or NO_VARIANCE
        else:
            t = diff / se
            p = float(2 * student.sf(abs(t), df))
            half = float(student.ppf(1 - ALPHA / 2, df)) * se
            lo, hi = diff - half, diff + half
        test = PAIRED_TEST
        if d.binary and sums.up[i] is not None and 0 < sums.up[i] + sums.down[i] < EXACT_BELOW:
            up, down = sums.up[i], sums.down[i]
            p = float(mcnemar([[0, down], [up, 0]], exact=True).pvalue)
            test = MCNEMAR_TEST
        if _no_events(ma, mb):
            note = "not tested: no events on either side"
        out.append(Comparison(d.section, d.name, ma, mb, diff, (lo, hi), None if note else p, test, True, None, note))
    return pair, out
