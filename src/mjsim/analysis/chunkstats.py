"""Sufficient statistics of every measure, computed chunk by chunk and merged (map-reduce).

A summary never holds more than one chunk's rows: sessions never cross chunks, so each
chunk gives, per measure, sums whose merge is exactly what the whole dataset would give,

- per measure: Y = Σy, and over the chunk's sessions the Gram matrix of (e_g, N_g) with
  e_g = Y_g - r N_g centred on the chunk's own ratio r (centring keeps the merge free of
  cancellation when a ratio is large);
- per denominator: N = Σn, the sessions with N_g > 0 and Σ N_g²;
- per mean: Σ of squares, minimum and maximum; and exact value counts for the histograms
  and the session-result quantiles (integers, so few distinct values).

The clustered variance then needs Σ_g (Y_g - R N_g)² for the dataset's ratio R, and with
δ = R - r that is Σ_c [e·e - 2δ e·N + δ² N·N] over the chunks c. A paired comparison does
the same on per-session differences of matched hands (chunk groups where both sides end on
the same hand), with the 4x4 Gram matrix of (e_a, N_a, e_b, N_b).

The map is a pure function of file paths, so it runs on a thread pool here (pyarrow and
numpy release the GIL for the heavy parts) and could run anywhere else.
"""
from __future__ import annotations

import functools
import math
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mjsim.analysis import measures as M

__all__ = ["ChunkFiles", "HandFrame", "PairedSums", "VariantSums", "chunk_groups", "paired_sums", "variant_files",
           "variant_sums"]

_HANDS_COLUMNS = ("session", "hand_index", "dealer", "end", "draws", "n_winners", "kongs_exposed",
                  "kongs_added", "kongs_concealed", *(f"delta_{s}" for s in range(4)),
                  *(f"fire_{s}" for s in range(4)), *(f"claims_{s}" for s in range(4)))
_WINS_COLUMNS = ("hand_index", "winner", "discarder", "win_kind", "pattern", "properties", "category", "points",
                 "birds_hit", "received", "turn")
_PAYMENT_COLUMNS = ("hand_index", "amount", "reason")


# ------------------------------------------------------------------------------------
# Files


@dataclass(frozen=True)
class ChunkFiles:
    """The files of one chunk of one variant (payments None for datasets without them)."""

    start: int
    count: int
    hands: Path
    wins: Path
    payments: Path | None


def variant_files(root: Path, variant: str) -> list[ChunkFiles]:
    """Every chunk of a variant in hand order. The dataset is checked first by its reader
    (stats._dataset_tables): every file is a chunk named as its footer says, and each
    chunk has its file in every table the dataset holds (payments: none in old datasets)."""
    from mjsim.dataset.layout import parse_chunk_name, partition

    def by_name(table: str) -> dict[str, Path]:
        part = partition(root, table, variant)
        return {p.name: p for p in part.glob("*.parquet")} if part.is_dir() else {}

    hands, wins, payments = by_name("hands"), by_name("wins"), by_name("payments")
    out = []
    for name, path in hands.items():
        _, start, count = parse_chunk_name(name)
        out.append(ChunkFiles(start, count, path, wins[name], payments.get(name)))
    return sorted(out, key=lambda c: c.start)


def chunk_groups(a: Sequence[ChunkFiles], b: Sequence[ChunkFiles]) -> list[tuple[list[ChunkFiles], list[ChunkFiles]]]:
    """Runs of consecutive chunks of both sides that end on the same hand: the units of a
    paired merge (with one chunk plan, every chunk is its own group)."""
    groups, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        ga, gb = [a[i]], [b[j]]
        end_a, end_b = a[i].start + a[i].count, b[j].start + b[j].count
        i, j = i + 1, j + 1
        while end_a != end_b and (i < len(a) or j < len(b)):
            if end_a < end_b and i < len(a):
                ga.append(a[i])
                end_a = a[i].start + a[i].count
                i += 1
            elif j < len(b):
                gb.append(b[j])
                end_b = b[j].start + b[j].count
                j += 1
            else:
                ga.append(a[i])
                end_a = a[i].start + a[i].count
                i += 1
        groups.append((ga, gb))
    if i < len(a) or j < len(b):
        groups.append((list(a[i:]), list(b[j:])))
    return groups


def verify_file(path: Path) -> None:
    """Read every column of a chunk file, checking each page's checksum (ValueError naming
    the file if one fails): what `query --verify` does before DuckDB, which does not."""
    import pyarrow.parquet as pq

    _read(path, pq.read_schema(path).names)


def _read(path: Path | None, wanted: Sequence[str]):
    """The `wanted` columns a chunk file has. A page that fails its checksum or does not
    decode is a ValueError naming the file: the cheap checks before reading (framing,
    footer) cannot see inside the pages."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mjsim.dataset.storage import first_line

    if path is None:
        return None
    try:
        names = set(pq.read_schema(path).names)
        return pq.read_table(path, columns=[c for c in wanted if c in names], use_threads=False,
                             page_checksum_verification=True)
    except (OSError, pa.ArrowException) as e:
        raise ValueError(f"{path} is damaged ({first_line(e)}): delete it, then resume the run that made "
                         f"the dataset to redo its chunk") from None


def _concat(tables):
    import pyarrow as pa

    tables = [t for t in tables if t is not None]
    if not tables:
        return None
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="default")


def _read_chunks(chunks: Sequence[ChunkFiles]):
    hands = _concat(_read(c.hands, _HANDS_COLUMNS) for c in chunks)
    wins = _concat(_read(c.wins, _WINS_COLUMNS) for c in chunks)
    payments = _concat(_read(c.payments, _PAYMENT_COLUMNS) for c in chunks) \
        if all(c.payments is not None for c in chunks) else None
    return hands, wins, payments


# ------------------------------------------------------------------------------------
# Per-hand columns


def _np(column, fill=0) -> np.ndarray:
    import pyarrow.compute as pc

    if column.null_count:
        column = pc.fill_null(column, fill)
    return column.to_numpy(zero_copy_only=False)


class _Codes:
    """A string column as integer codes, so that each name's mask is one integer compare."""

    def __init__(self, column):
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(column.combine_chunks() if hasattr(column, "combine_chunks") else column)
        self.codes = _np(encoded.indices, -1).astype(np.int32)
        self.index = {str(v): i for i, v in enumerate(encoded.dictionary.to_pylist())}

    def mask(self, value: str) -> np.ndarray:
        code = self.index.get(value)
        return self.codes == code if code is not None else np.zeros(len(self.codes), bool)

    def names(self) -> set[str]:
        return set(self.index)


class HandFrame:
    """Per-hand columns (float64, one value per hand in hand order) of some chunks' hands,
    wins and payments, computed on first use. The keys are what measures.Def names:

    ``one``; ``col:C`` a hands column; ``any:C`` (C > 0); ``end:win``/``end:draw``;
    ``several``; ``dealer``; ``dealer_edge``; ``claims``; ``sq:K`` the square of key K;
    over the hand's wins: ``nw``, ``bw``, ``sum:C``, ``sum2:C``, ``min:C``, ``max:C``,
    ``pat:P``/``patn:P``/``patp:P``/``patr:P`` (has, count, points, received of pattern P),
    ``kind:K``, ``prop:P``, ``propr:P``, ``cat:C``, ``won:S``, ``dealt:S``; over payments:
    ``pay_all``, ``payr:R``.
    """

    def __init__(self, hands, wins, payments=None):
        """`hands` in hand order; `wins` and `payments` may hold rows of other hands too."""
        self.hands = hands
        self.hand_index = _np(self.hands.column("hand_index")).astype(np.int64)
        self.size = len(self.hand_index)
        self.wins = wins
        self.payments = payments
        self._cache: dict[str, np.ndarray] = {}
        self._codes: dict[tuple[str, str], _Codes] = {}
        self._columns: dict[tuple[str, str], np.ndarray] = {}
        self._win_pos = self._positions(wins)
        self._pay_pos = self._positions(payments)

    def _positions(self, table) -> tuple[np.ndarray, np.ndarray] | None:
        """(row mask of the table's rows that belong to these hands, their hand positions)."""
        if table is None:
            return None
        idx = _np(table.column("hand_index")).astype(np.int64)
        pos = np.searchsorted(self.hand_index, idx)
        pos_c = np.minimum(pos, max(self.size - 1, 0))
        keep = (pos < self.size) & (self.hand_index[pos_c] == idx) if self.size else np.zeros(len(idx), bool)
        return keep, pos[keep]

    def _coded(self, table: str, column: str) -> _Codes:
        key = (table, column)
        if key not in self._codes:
            t = {"hands": self.hands, "wins": self.wins, "payments": self.payments}[table]
            self._codes[key] = _Codes(t.column(column))
        return self._codes[key]

    def _property_codes(self) -> tuple[_Codes, np.ndarray]:
        """The wins' properties flattened to codes, with the win row of each."""
        import pyarrow.compute as pc

        if ("wins", "properties") not in self._codes:
            column = self.wins.column("properties").combine_chunks()   # parent indices are per chunk
            self._codes["wins", "properties"] = _Codes(pc.list_flatten(column))
            self._prop_parents = _np(pc.list_parent_indices(column)).astype(np.int64)
        return self._codes["wins", "properties"], self._prop_parents

    def has(self, table: str, column: str) -> bool:
        t = {"hands": self.hands, "wins": self.wins, "payments": self.payments}[table]
        return t is not None and column in t.column_names

    def __getitem__(self, key: str) -> np.ndarray:
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = np.asarray(self._compute(key), dtype=np.float64)
        return got

    # -- the hands table

    def _hcol(self, name: str) -> np.ndarray:
        return self[f"col:{name}"]

    def _dealer_delta(self) -> np.ndarray:
        deltas = np.stack([self._hcol(f"delta_{s}") for s in range(4)], axis=1)
        dealer = _np(self.hands.column("dealer")).astype(np.int64)
        return deltas[np.arange(self.size), dealer]

    # -- the wins and payments tables, summed per hand

    def _per_hand(self, which, values: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        keep, pos = which
        w = None if values is None else values[keep]
        if rows is not None:
            rows = rows[keep]
            pos = pos[rows]
            w = None if w is None else w[rows]
        return np.bincount(pos, weights=w, minlength=self.size)[:self.size]

    def _extreme(self, values: np.ndarray, fn) -> np.ndarray:
        keep, pos = self._win_pos
        out = np.full(self.size, np.nan)
        fn.at(out, pos, values[keep].astype(np.float64))
        return out

    def _wcol(self, name: str, fill=0) -> np.ndarray:
        """A wins column as float64 (nulls as `fill`), converted once."""
        key = ("wins", name)
        if key not in self._columns:
            self._columns[key] = _np(self.wins.column(name), fill).astype(np.float64)
        return self._columns[key]

    def _property_rows(self, prop: str) -> np.ndarray:
        """A row mask of the wins that list `prop` among their properties."""
        codes, parents = self._property_codes()
        hits = parents[codes.mask(prop)]
        rows = np.zeros(self.wins.num_rows, bool)
        rows[hits] = True
        return rows

    def _compute(self, key: str):
        kind, _, arg = key.partition(":")
        if key == "one":
            return np.ones(self.size)
        if kind == "sq":
            return self[arg] * self[arg]
        if kind == "col":
            return _np(self.hands.column(arg))
        if kind == "any":
            return self._hcol(arg) > 0
        if kind == "end":
            return self._coded("hands", "end").mask(arg)
        if key == "several":
            return self._hcol("n_winners") > 1
        if key == "dealer":
            return self._dealer_delta()
        if key == "dealer_edge":
            total = sum(self._hcol(f"delta_{s}") for s in range(4))
            dealer = self._dealer_delta()
            return dealer - (total - dealer) / 3.0
        if key == "claims":
            return sum(self._hcol(f"claims_{s}") for s in range(4))
        if kind in ("pay_all", "payr"):
            if self._pay_pos is None:
                return np.zeros(self.size)
            amount = _np(self.payments.column("amount")).astype(np.float64)
            rows = None if kind == "pay_all" else self._coded("payments", "reason").mask(arg)
            return self._per_hand(self._pay_pos, amount, rows)
        return self._wins_key(kind, arg)

    def _wins_key(self, kind: str, arg: str):
        wp = self._win_pos
        if kind == "nw":
            return self._per_hand(wp)
        if kind == "bw":
            return self._per_hand(wp, rows=self._wcol("birds_hit") > 0)
        if kind == "sum":
            return self._per_hand(wp, self._wcol(arg))
        if kind == "sum2":
            v = self._wcol(arg)
            return self._per_hand(wp, v * v)
        if kind == "min":
            return self._extreme(self._wcol(arg), np.fmin)
        if kind == "max":
            return self._extreme(self._wcol(arg), np.fmax)
        if kind in ("pat", "patn", "patp", "patr"):
            rows = self._coded("wins", "pattern").mask(arg)
            if kind == "pat":
                return self._per_hand(wp, rows=rows) > 0
            if kind == "patn":
                return self._per_hand(wp, rows=rows)
            return self._per_hand(wp, self._wcol("points" if kind == "patp" else "received"), rows)
        if kind in ("prop", "propr"):
            rows = self._property_rows(arg)
            if kind == "prop":
                return self._per_hand(wp, rows=rows) > 0
            return self._per_hand(wp, self._wcol("received"), rows)
        if kind in ("kind", "cat"):
            rows = self._coded("wins", "win_kind" if kind == "kind" else "category").mask(arg)
            return self._per_hand(wp, rows=rows) > 0
        if kind in ("won", "dealt"):
            col = self._wcol("winner" if kind == "won" else "discarder", -1)
            return self._per_hand(wp, rows=col == int(arg)) > 0
        raise KeyError(f"no per-hand column {kind}:{arg}")

    # -- names and signatures

    def names(self) -> dict[str, set[str]]:
        """The names this chunk's wins and payments use."""
        w = self.wins
        found = {"patterns": self._coded("wins", "pattern").names(), "kinds": self._coded("wins", "win_kind").names(),
                 "properties": self._property_codes()[0].names(),
                 "categories": self._coded("wins", "category").names() if "category" in w.column_names else set()}
        if self.payments is not None:
            found["reasons"] = self._coded("payments", "reason").names()
        return found

    def play_signature(self, kinds: dict[str, int], claims: bool) -> np.ndarray:
        """One 64-bit word per hand that changes with how it was played (dealer, end, draws,
        winners, kongs, claims and each win's winner, discarder and kind), not with scoring."""
        cols = ["dealer", "draws", "n_winners", "kongs_exposed", "kongs_added", "kongs_concealed"]
        cols += [f"claims_{s}" for s in range(4)] if claims else []
        word = self._coded("hands", "end").mask("win").astype(np.uint64)
        for c in cols:
            word = _mix(word * np.uint64(0x100000001B3) + self._hcol(c).astype(np.int64).astype(np.uint64))
        keep, pos = self._win_pos
        w = self.wins
        kind_codes = np.array([kinds[k] for k in w.column("win_kind").to_pylist()], np.uint64)
        code = (_np(w.column("winner"), -1).astype(np.int64).astype(np.uint64) * np.uint64(64)
                + (_np(w.column("discarder"), -1).astype(np.int64) + 1).astype(np.uint64) * np.uint64(8)
                + kind_codes * np.uint64(4096))
        mixed = _mix(code[keep] + np.uint64(0x9E3779B97F4A7C15))
        # an order-free sum of well-mixed words per hand (winners are distinct within a hand)
        wins_word = np.zeros(self.size, np.uint64)
        np.add.at(wins_word, pos, mixed)
        return _mix(word ^ wins_word)


_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, vectorised."""
    x = np.asarray(x, np.uint64)
    with np.errstate(over="ignore"):
        x = ((x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _M64
        x = ((x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _M64
    return x ^ (x >> np.uint64(31))


def _session_starts(session: np.ndarray) -> np.ndarray:
    """Where each session's run of hands starts; the hands are in hand order, so a session
    is one run (a session that came back later would be a damaged dataset)."""
    if not len(session):
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, session[1:] != session[:-1]])
    if len(starts) != len(np.unique(session)):
        raise ValueError("a session's hands are not consecutive in the dataset (damaged or mixed files)")
    return starts


def _session_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.add.reduceat(values, starts) if len(starts) else np.zeros(0)


# ------------------------------------------------------------------------------------
# One variant


@dataclass
class _Part:
    """What one chunk (or group of chunks) contributes; keyed by measure and denominator."""

    hands: int = 0
    sessions: int = 0
    found: dict = field(default_factory=dict)
    has_turn: bool = True
    has_claims: bool = True
    has_payments: bool = True
    fire: bool = False
    game: str | None = None
    y: dict = field(default_factory=dict)        # measure key -> (Y, r, e·e, e·N)
    n: dict = field(default_factory=dict)        # denominator -> (N, sessions with N_g > 0, N·N)
    moments: dict = field(default_factory=dict)  # measure key -> (Σ sq, min, max)
    counts: dict = field(default_factory=dict)   # histogram name -> Counter((group, value) -> count)


def game_of(chunk: ChunkFiles) -> str:
    """The game a chunk was played under (its `rules` column; read once per variant, since
    decoding that column is the dearest part of reading a chunk)."""
    import pyarrow.parquet as pq

    column = pq.ParquetFile(chunk.hands).read_row_group(0, columns=["rules"]).column("rules")
    return str(column[0]) if len(column) else ""


#: hands per slice of a chunk: a slice's per-hand columns (a few hundred float64 arrays) are
#: what a reader holds at once, whatever the chunk size (--chunk goes up to 1,000,000)
SLICE_HANDS = 16_384


def _in_hand_order(table):
    if table is None:
        return None
    idx = _np(table.column("hand_index"))
    if len(idx) < 2 or bool((np.diff(idx) >= 0).all()):
        return table
    return table.take(np.argsort(idx, kind="stable"))


class _Tables:
    """A chunk's (or chunk group's) three tables in hand order, cut into frames of whole
    sessions of at most about SLICE_HANDS hands."""

    def __init__(self, chunks: Sequence[ChunkFiles]):
        hands, wins, payments = _read_chunks(chunks)
        self.hands, self.wins, self.payments = map(_in_hand_order, (hands, wins, payments))
        self.hand_index = _np(self.hands.column("hand_index")).astype(np.int64)
        self._wins_index = _np(self.wins.column("hand_index")).astype(np.int64)
        self._pay_index = None if self.payments is None else _np(self.payments.column("hand_index")).astype(np.int64)

    def _rows_of(self, table, index: np.ndarray, first: int, last: int):
        if table is None:
            return None
        lo = int(np.searchsorted(index, first, side="left"))
        hi = int(np.searchsorted(index, last, side="right"))
        return table.slice(lo, hi - lo)

    def frame(self, rows: np.ndarray) -> HandFrame:
        """The frame of these hand rows (increasing positions in hand order)."""
        contiguous = len(rows) == 0 or rows[-1] - rows[0] + 1 == len(rows)
        hands = self.hands.slice(int(rows[0]), len(rows)) if contiguous and len(rows) else self.hands.take(rows)
        first, last = (int(self.hand_index[rows[0]]), int(self.hand_index[rows[-1]])) if len(rows) else (0, -1)
        return HandFrame(hands, self._rows_of(self.wins, self._wins_index, first, last),
                         self._rows_of(self.payments, self._pay_index, first, last))

    def slices(self, rows: np.ndarray) -> list[np.ndarray]:
        """`rows` cut into runs of whole sessions of at most about SLICE_HANDS hands."""
        session = _np(self.hands.column("session"))[rows]
        starts = _session_starts(session)
        cuts, last = [0], 0
        for st in starts[1:]:
            if st - last >= SLICE_HANDS:
                cuts.append(int(st))
                last = int(st)
        cuts.append(len(rows))
        return [rows[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]


def _chunk_parts(chunks: Sequence[ChunkFiles], game: str) -> tuple:
    tables = _Tables(chunks)
    rows = np.arange(tables.hands.num_rows)
    return tuple(_frame_part(tables.frame(r), game) for r in tables.slices(rows))


def _frame_part(f: HandFrame, game: str) -> _Part:
    part = _Part(hands=f.size)
    part.game = game
    part.found = f.names()
    part.has_turn = f.has("wins", "turn")
    part.has_claims = f.has("hands", "claims_0")
    part.has_payments = f.payments is not None
    has_fire = f.has("hands", "fire_0")
    part.fire = has_fire and any(f[f"any:fire_{s}"].any() for s in range(4))
    lists = M.lists_for(part.game or "", part.found, part.has_turn, part.has_claims, part.has_payments)
    defs = M.definitions(lists, fire=has_fire)
    starts = _session_starts(_np(f.hands.column("session")))
    part.sessions = len(starts)
    sums: dict[str, np.ndarray] = {}

    def g(key: str) -> np.ndarray:
        if key not in sums:
            sums[key] = _session_sums(f[key], starts)
        return sums[key]

    for d in defs:
        if d.n not in part.n:
            ng = g(d.n)
            part.n[d.n] = (float(ng.sum()), int((ng > 0).sum()), _dot(ng, ng))
        yg, ng = g(d.y), g(d.n)
        y_total, n_total = float(yg.sum()), part.n[d.n][0]
        r = y_total / n_total if n_total else 0.0
        e = _snap(yg - r * ng, np.abs(yg) + abs(r) * ng)
        part.y[d.key] = (y_total, r, _dot(e, e), _dot(e, ng))
        if d.kind == "mean" and d.sq:
            lo, hi = f[d.lo], f[d.hi]
            part.moments[d.key] = (float(f[d.sq].sum()), _nan_extreme(np.nanmin, lo), _nan_extreme(np.nanmax, hi))
    part.counts = _chunk_counts(f, starts)
    return part


#: a per-session residual within this many units in the last place of the terms it was
#: computed from is rounding error (real residuals of integer-valued sums are far larger)
_ROUNDING = 8 * float(np.finfo(np.float64).eps)


def _snap(e: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Per-session residuals `e` with those that are rounding error of terms of magnitude
    `size` set to exact zeros. Sessions that share one ratio (two sessions of 28 wins in
    100 hands: r = 0.28 is no binary fraction) leave e = y - r n of about 1e-15, and the
    sum of their squares is no variance: it was taken for one (a standard error of 1e-17,
    and a paired difference whose two sessions differ alike flagged at p = 1e-14 instead of
    "no variance between sessions")."""
    return np.where(np.abs(e) <= _ROUNDING * size, 0.0, e)


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a·b without BLAS: OpenBLAS's threads, on a loaded machine, made a dot product of a
    few thousand numbers cost milliseconds, and a summary makes hundreds per slice."""
    return float(np.multiply(a, b).sum())


def _gram(v: np.ndarray) -> np.ndarray:
    """v·vᵀ of a few rows (see _dot)."""
    k = len(v)
    out = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = _dot(v[i], v[j])
    return out


def _nan_extreme(fn, values: np.ndarray) -> float:
    finite = values[~np.isnan(values)]
    return float(fn(finite)) if len(finite) else math.nan


def _value_counts(groups: Iterable[tuple[str, np.ndarray]]) -> Counter:
    out: Counter = Counter()
    for group, values in groups:
        vals, counts = np.unique(values, return_counts=True)
        out.update({(group, v): int(c) for v, c in zip(vals.tolist(), counts.tolist())})
    return out


def _chunk_counts(f: HandFrame, starts: np.ndarray) -> dict[str, Counter]:
    """Exact value counts: draws by end, score per hand by role, session result by seat."""
    ends = f._coded("hands", "end")
    draws = f["col:draws"].astype(np.int64)
    drawn = _value_counts((end, draws[ends.mask(end)]) for end in ends.names())
    dealer = _np(f.hands.column("dealer")).astype(np.int64)
    role = []
    for s in range(4):
        d = f[f"col:delta_{s}"].astype(np.int64)
        role += [("dealer", d[dealer == s]), ("non-dealer", d[dealer != s])]
    session = _value_counts((str(s), _session_sums(f[f"col:delta_{s}"], starts).astype(np.int64)) for s in range(4))
    return {"live tiles drawn": drawn, "score per hand": _value_counts(role), "session result": session}


@dataclass
class VariantSums:
    """The merged sums of one variant, in `definitions(lists)` order (what stats reads)."""

    game: str
    lists: M.Lists
    defs: list
    hands: int
    sessions: int
    fire: bool
    Y: list
    N: list
    G: list
    SS: list
    Q: list
    lo: list
    hi: list
    counts: dict


def _workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def _map(fn, items: Sequence, workers: int | None = None) -> list:
    workers = workers or _workers()
    if workers == 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, items))


def variant_sums(root: Path, variant: str, workers: int | None = None) -> VariantSums:
    """Map every chunk of a variant to its part and merge them."""
    chunks = variant_files(Path(root), variant)
    if not chunks:
        raise ValueError(f"{root} has no hands of variant {variant!r}")
    game = game_of(chunks[0])
    parts = _map(lambda c: _cached_parts(_identity(c), game), chunks, workers)
    return _merge([p for chunk_parts in parts for p in chunk_parts])


def _identity(chunk: ChunkFiles) -> tuple:
    """A chunk's files with their size and modification time: a file rewritten (a resumed
    or redone chunk) is a new identity, so a cached part is never stale."""
    def stamp(path: Path | None):
        if path is None:
            return None
        st = path.stat()
        return (str(path), st.st_size, st.st_mtime_ns)

    return (chunk.start, chunk.count, stamp(chunk.hands), stamp(chunk.wins), stamp(chunk.payments))


@functools.lru_cache(maxsize=1024)
def _cached_parts(identity: tuple, game: str) -> tuple:
    """A chunk's parts, kept for the process: a precision run or a balance search summarises
    a growing dataset again and again, and each chunk is then read once (a chunk's parts are
    about 100 kB: at most 1,024 chunks are kept, about 100 MB)."""
    start, count, hands, wins, payments = identity
    chunk = ChunkFiles(start, count, Path(hands[0]), Path(wins[0]), Path(payments[0]) if payments else None)
    return _chunk_parts([chunk], game)


def _merge(parts: list[_Part]) -> VariantSums:
    game = next((p.game for p in parts if p.game), "")
    found: dict[str, set] = {}
    for p in parts:
        for k, v in p.found.items():
            found.setdefault(k, set()).update(v)
    has_payments = all(p.has_payments for p in parts)
    lists = M.lists_for(game, found, all(p.has_turn for p in parts), all(p.has_claims for p in parts), has_payments)
    fire = any(p.fire for p in parts)
    defs = M.definitions(lists, fire=fire)
    Y, N, G, SS, Q, lo, hi = [], [], [], [], [], [], []
    for d in defs:
        n_total = sum(p.n.get(d.n, (0.0, 0, 0.0))[0] for p in parts)
        y_total = sum(p.y.get(d.key, (0.0,))[0] for p in parts)
        R = y_total / n_total if n_total else 0.0
        ss = scale = 0.0
        for p in parts:
            _, r, ee, en = p.y.get(d.key, (0.0, 0.0, 0.0, 0.0))
            nn = p.n.get(d.n, (0.0, 0, 0.0))[2]
            delta = R - r
            ss += ee - 2 * delta * en + delta * delta * nn
            scale += ee + abs(2 * delta * en) + delta * delta * nn
        Y.append(y_total)
        N.append(n_total)
        G.append(sum(p.n.get(d.n, (0.0, 0, 0.0))[1] for p in parts))
        SS.append(_rounding_zero(ss, scale))
        if d.kind == "mean" and d.sq:
            moments = [p.moments[d.key] for p in parts if d.key in p.moments]
            Q.append(sum(m[0] for m in moments))
            lo.append(_nan_extreme(np.nanmin, np.array([m[1] for m in moments], float)) if moments else math.nan)
            hi.append(_nan_extreme(np.nanmax, np.array([m[2] for m in moments], float)) if moments else math.nan)
        else:
            Q.append(None)
            lo.append(None)
            hi.append(None)
    counts: dict[str, Counter] = {}
    for p in parts:
        for name, c in p.counts.items():
            counts.setdefault(name, Counter()).update(c)
    return VariantSums(game, lists, defs, sum(p.hands for p in parts), sum(p.sessions for p in parts), fire,
                       Y, N, G, SS, Q, lo, hi, counts)


def _rounding_zero(ss: float, scale: float) -> float:
    """A sum of squares that is rounding error of terms of size `scale` is 0: an identical
    or exactly proportional pair has no variance, and the tests then say so."""
    return 0.0 if ss <= 1e-12 * scale else ss


# ------------------------------------------------------------------------------------
# Two variants, paired hand by hand


@dataclass
class PairedSums:
    """The merged sums of a paired comparison, in `defs` order (what stats reads)."""

    hands: int
    sessions: int
    identical: int
    Ya: list
    Yb: list
    Na: list
    Nb: list
    G: list
    SS: list
    up: list
    down: list


def _paired_parts(group, defs: Sequence, lists: M.Lists) -> list[dict]:
    """The parts of one chunk group: its matched hands cut into slices of whole sessions."""
    ta, tb = _Tables(group[0]), _Tables(group[1])
    common = np.intersect1d(ta.hand_index, tb.hand_index)
    ra, rb = np.searchsorted(ta.hand_index, common), np.searchsorted(tb.hand_index, common)
    out = []
    for rows in ta.slices(np.arange(len(common))):
        out.append(_paired_part(ta.frame(ra[rows]), tb.frame(rb[rows]), defs, lists))
    return out


def _paired_part(fa: HandFrame, fb: HandFrame, defs: Sequence, lists: M.Lists) -> dict:
    starts = _session_starts(_np(fa.hands.column("session")))
    kinds = {k: i for i, k in enumerate(sorted(set(lists.kinds) | set(fa.names()["kinds"]) | set(fb.names()["kinds"])))}
    same = int((fa.play_signature(kinds, lists.has_claims) == fb.play_signature(kinds, lists.has_claims)).sum())
    out = {"hands": fa.size, "sessions": len(starts), "same": same, "m": {}, "n": {}}
    sums: dict = {}

    def g(frame, side: str, key: str) -> np.ndarray:
        if (side, key) not in sums:
            sums[side, key] = _session_sums(frame[key], starts)
        return sums[side, key]

    for d in defs:
        na, nb = g(fa, "a", d.n), g(fb, "b", d.n)
        ya, yb = g(fa, "a", d.y), g(fb, "b", d.y)
        Na, Nb, Ya, Yb = float(na.sum()), float(nb.sum()), float(ya.sum()), float(yb.sum())
        ra = Ya / Na if Na else 0.0
        rb = Yb / Nb if Nb else 0.0
        size_a, size_b = np.abs(ya) + abs(ra) * na, np.abs(yb) + abs(rb) * nb
        ea, eb = _snap(ya - ra * na, size_a), _snap(yb - rb * nb, size_b)
        # (e_a, N_a, e_b - e_a, N_b - N_a): identical sides give exact zeros, hence an exact 0
        # variance; so do sessions that all differ alike (e_b - e_a is then rounding error only)
        v = np.stack([ea, na, _snap(eb - ea, size_a + size_b), nb - na])
        up = down = None
        if d.binary:
            hya, hyb = fa[d.y], fb[d.y]
            up, down = int((hyb > hya).sum()), int((hyb < hya).sum())
        out["m"][d.key] = (Ya, Yb, Na, Nb, ra, rb, _gram(v), int(((na > 0) | (nb > 0)).sum()), up, down)
    return out


def paired_sums(a: tuple[Path, str], b: tuple[Path, str], defs: Sequence, lists: M.Lists,
                workers: int | None = None) -> PairedSums:
    """Per measure of `defs`, both variants' totals and Σ_g u_g² of the paired difference of
    the two ratios over hands matched by hand_index, u_g = (Yb_g - Rb Nb_g)/ΣNb - (Ya_g - Ra Na_g)/ΣNa."""
    groups = chunk_groups(variant_files(Path(a[0]), a[1]), variant_files(Path(b[0]), b[1]))
    parts = [p for group_parts in _map(lambda grp: _paired_parts(grp, defs, lists), groups, workers)
             for p in group_parts]
    Ya, Yb, Na, Nb, G, SS, up, down = ([] for _ in range(8))
    for d in defs:
        rows = [p["m"][d.key] for p in parts]
        ya, yb = sum(r[0] for r in rows), sum(r[1] for r in rows)
        na, nb = sum(r[2] for r in rows), sum(r[3] for r in rows)
        Ra, Rb = (ya / na if na else 0.0), (yb / nb if nb else 0.0)
        ss = scale = 0.0
        for r in rows:
            # u_g = c · (e_a, N_a, e_b, N_b) with e centred on the group's own ratios, written
            # in the basis (e_a, N_a, e_b - e_a, N_b - N_a) the part stores
            c1, c2 = (-1 / na, (Ra - r[4]) / na) if na else (0.0, 0.0)
            c3, c4 = (1 / nb, -(Rb - r[5]) / nb) if nb else (0.0, 0.0)
            c = np.array([c1 + c3, c2 + c4, c3, c4])
            ss += float(c @ r[6] @ c)
            scale += float(np.abs(c) @ np.abs(r[6]) @ np.abs(c))
        Ya.append(ya)
        Yb.append(yb)
        Na.append(na)
        Nb.append(nb)
        G.append(sum(r[7] for r in rows))
        SS.append(_rounding_zero(ss, scale))
        up.append(None if rows and rows[0][8] is None else sum(r[8] for r in rows))
        down.append(None if rows and rows[0][9] is None else sum(r[9] for r in rows))
    return PairedSums(sum(p["hands"] for p in parts), sum(p["sessions"] for p in parts),
                      sum(p["same"] for p in parts), Ya, Yb, Na, Nb, G, SS, up, down)
