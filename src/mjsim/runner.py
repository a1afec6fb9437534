"""Millions of seeded hands, in chunks, to a Parquet dataset; a local process pool or Dask.

Layout of an output directory ``DIR``::

    DIR/manifest.json                                   one entry per variant: what made it
    DIR/hands/variant=<v>/chunk-s<seed>-<start>-<count>.parquet
    DIR/wins/variant=<v>/chunk-s<seed>-<start>-<count>.parquet   (same chunk, same name)
    DIR/payments/variant=<v>/chunk-s<seed>-<start>-<count>.parquet

``<v>`` is the variant name URI-encoded (``a=b-1a2b3c4d`` -> ``a%3Db-1a2b3c4d``), the hive
convention pyarrow, pandas, DuckDB and polars all decode; the variant lives in the path only,
never also as a column in the files (two sources of one column is what breaks pandas).

Why it is shaped like this:

- A hand depends only on (rules, players, master seed, hand index) and the earlier hands of
  its session, and a chunk never splits a session, so a chunk's rows do not depend on who
  computes it or on how the run is cut: ``--workers``, ``--chunk`` and the backend change
  the files, never the rows.
- Workers return encoded Parquet bytes and the driver alone writes files (tmp name, then
  ``os.replace``). So a chunk file is complete or absent, an interrupted run leaves only
  finished chunks, and a Dask cluster needs no file system shared with the driver.
- Resume = skip chunks whose two files exist. What shaped the data (rules hash, seed,
  players, session length, chunk size, number of hands) is kept in ``manifest.json``; a
  rerun that differs in any of these is refused with a message instead of mixing data.
- Memory is bounded whatever the number of hands: at most ``2 x workers`` chunks are in
  flight and each is written and dropped as soon as it arrives.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mjsim import evplayer
from mjsim.populations import SEPARATOR
from mjsim.rules import Rules

__all__ = [
    "DEFAULT_CHUNK", "DEFAULT_HANDS", "DEFAULT_OUT", "DEFAULT_PLAYERS", "DEFAULT_SESSION_HANDS", "SIMULATOR",
    "GameUnavailable", "grid_variants", "parse_grid",
    "WIN_KINDS", "RunInterrupted", "RunResult", "RunSpec", "build_chunk", "make_spec",
    "parse_players", "plan_chunks", "read_manifest", "run",
]

#: Where workers find the game loop ("module:function"), imported lazily inside the worker
#: so that mjsim imports without it. The single indirection tests swap for a fake; being a
#: string, it reaches spawned processes and Dask workers, where a monkeypatch would not.
SIMULATOR = "mjsim.game:simulate_chunk"

DEFAULT_HANDS = 100_000
#: Who plays when a run names nobody: ev reads the rules' values, so a changed value changes
#: play ("what if 七小對 pays 10?" gets an answer); greedy is the fast value-blind baseline.
DEFAULT_PLAYERS = "ev"
DEFAULT_SESSION_HANDS = 16     # four rounds of four deals: long enough for fire and dealer runs
DEFAULT_CHUNK = 20_000         # ~1-2 s of work per chunk: smooth progress, cheap files
DEFAULT_OUT = "mjsim-results"
MAX_SEED = 2**64 - 1           # the game's seed is a 64-bit word (replay takes the same range)
#: Upper bounds that keep one request from exhausting memory or time. hand_index is int64
#: and the game takes chunk starts up to 2**62; chunks are planned lazily, so a run of up to
#: MAX_HANDS hands costs memory for the chunks in flight only.
MAX_HANDS = 2**62
MAX_SESSION_HANDS = 100_000    # a session lives inside one chunk
MAX_CHUNK = 1_000_000          # ~100 MB of arrays per chunk in flight
#: hands a worker plays between two progress reports (rounded to whole sessions)
PROGRESS_SLICE = 2_000

#: The game contract's win kinds (mjsim.game.WIN_KINDS wins if the game module defines it).
WIN_KINDS = ("self_draw", "discard", "rob_kong", "gangshanghua", "gangshangpao", "instant")
END_NAMES = ("draw", "win")

#: Layout of the files (file metadata ``mjsim.schema_version``). 2: no ``variant`` column
#: (the hive path holds it, URI-encoded), sweeps' grid values as columns of hands, the
#: payments table, claims_0..3 per hand and turn per win, int64 money.
SCHEMA_VERSION = 2

# Columns the game returns, with the dtypes of the contract (RULES-independent).
HANDS_ARRAYS = {
    "hand_index": np.int64, "session": np.int64, "hand_in_session": np.int32,
    "dealer": np.int8, "dice": np.int8, "wild_indicator": np.int8, "end": np.uint8,
    "draws": np.int16, "wall_left": np.int16, "n_winners": np.int8,
    "kongs_exposed": np.int8, "kongs_added": np.int8, "kongs_concealed": np.int8,
    **{f"delta_{s}": np.int64 for s in range(4)},
    **{f"fire_{s}": np.int8 for s in range(4)},
    **{f"piao_{s}": np.int8 for s in range(4)},
    **{f"claims_{s}": np.int16 for s in range(4)},
}
WINS_ARRAYS = {
    "hand_index": np.int64, "winner": np.int8, "discarder": np.int8, "win_kind": np.uint8,
    "pattern": np.int8, "props": np.uint32, "category": np.int8, "points": np.int32,
    "birds_hit": np.int8, "received": np.int64, "turn": np.int16,
}
PAYMENTS_ARRAYS = {
    "hand_index": np.int64, "payer": np.int8, "receiver": np.int8, "amount": np.int64,
    "reason": np.int8, "pattern": np.int16,
}
#: the game contract's payment reasons (mjsim.game.PAY_REASONS wins if the game defines it)
PAY_REASONS = ("win", "kong_added", "kong_exposed", "kong_concealed", "kong_refund", "instant")
#: the tables of a dataset, one file per chunk in each; a chunk is done when all exist
TABLES = ("hands", "wins", "payments")


class GameUnavailable(RuntimeError):
    """The game loop module cannot be imported (not built, or being rebuilt)."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run; every completed chunk is on disk. `result` says how far it got."""

    def __init__(self, result: RunResult):
        super().__init__("interrupted")
        self.result = result


# ------------------------------------------------------------------------------------
# What to run


@dataclass(frozen=True)
class RunSpec:
    """One variant of a run: everything that determines its rows."""

    rules: Rules
    players: tuple[str, ...]
    hands: int
    session_hands: int
    seed: int
    chunk: int
    label: str = ""   # how a sweep names the variant, e.g. "birds=2"
    swept: tuple = ()  # ((key, value), ...): a sweep's grid values, written as columns of hands
    population: str = ""  # with several --players: the population's name, which leads the label

    @property
    def variant(self) -> str:
        """The partition name: a sweep's label ("birds=2"), else the rules' variant."""
        return self.label or self.rules.variant

    def manifest_entry(self) -> dict:
        """The settings a resumed run must repeat exactly (plus descriptive fields)."""
        from mjsim import __version__

        return {
            "game": self.rules.game,
            "rules_hash": self.rules.hash,
            "seed": self.seed,
            "players": list(self.players),
            "session_hands": self.session_hands,
            "chunk": self.chunk,
            "hands": self.hands,
            "label": self.label,
            "swept": {k: _jsonable(v) for k, v in self.swept},
            **({"population": self.population} if self.population else {}),
            "changes": {k: _jsonable(v) for k, v in self.rules.changes().items()},
            "mjsim_version": __version__,
        }


#: manifest fields that shape the data; a mismatch on resume is an error
_SHAPING = ("rules_hash", "seed", "players", "session_hands", "chunk", "hands")
_FLAG = {"rules_hash": "--rules/--set", "seed": "--seed", "players": "--players",
         "session_hands": "--session-hands", "chunk": "--chunk", "hands": "--hands"}


def _jsonable(v):
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


def _positive_int(name: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        hi = f"..{maximum}" if maximum is not None and maximum < 2**31 else " or more"
        raise ValueError(f"{name} must be {minimum}{hi}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {value:,}")
    return value


def parse_players(text: str | Sequence[str]) -> tuple[str, ...]:
    """'greedy' -> 4 x greedy; 'greedy,random,greedy,random' -> one per seat.  A name may
    carry ev options, whose commas stay with it: 'ev:fold=0.5,claim=2,greedy,greedy,greedy'
    (mjsim.evplayer); names are returned in canonical spelling."""
    names = [p.strip() for p in text.split(",")] if isinstance(text, str) else [str(p).strip() for p in text]
    names = evplayer.join_names(names)
    if len(names) == 1 and names[0]:
        names = names * 4
    if len(names) != 4 or not all(names):
        raise ValueError(f"players: give one name for all seats or exactly 4 comma-separated names, got {text!r}")
    return tuple(evplayer.canonical(n) for n in names)


def _not_whole_sessions(hands: int, session_hands: int) -> str:
    """The refusal of a run that would end inside a session, with the nearest counts that work.
    (Refused, not shortened: a shorter last session would make the dataset of --hands N differ
    from the first N hands of a longer run, which resume and --precision rely on.)"""
    below = hands // session_hands * session_hands
    options = [f"--hands {n:,}" for n in (below, below + session_hands) if 0 < n <= MAX_HANDS]
    lengths = [k for k in range(min(hands, MAX_SESSION_HANDS), 0, -1) if hands % k == 0]
    nearest = min(lengths, key=lambda k: (abs(k - session_hands), -k))
    options.append(f"--session-hands {nearest}")
    return (f"--hands {hands:,} is not a whole number of {session_hands}-hand sessions (--session-hands "
            f"{session_hands}); the nearest that work: {' or '.join(options)}")


def make_spec(rules: Rules, *, players=DEFAULT_PLAYERS, hands: int = DEFAULT_HANDS,
              session_hands: int = DEFAULT_SESSION_HANDS, seed: int = 0, chunk: int | None = None,
              label: str = "", swept: Sequence[tuple[str, object]] = (), population: str = "") -> RunSpec:
    """A validated RunSpec; every bad value raises ValueError naming it."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a mjsim.Rules, got {type(rules).__name__}")
    players = parse_players(players)
    hands = _positive_int("--hands (number of hands)", hands, maximum=MAX_HANDS)
    session_hands = _positive_int("--session-hands", session_hands, maximum=MAX_SESSION_HANDS)
    seed = _positive_int("--seed", seed, minimum=0, maximum=MAX_SEED)
    if hands % session_hands:
        raise ValueError(_not_whole_sessions(hands, session_hands))
    if chunk is None:
        # the default chunk is a whole number of sessions, and never more than the run
        chunk = min(hands, max(session_hands, DEFAULT_CHUNK // session_hands * session_hands))
    chunk = _positive_int("--chunk", chunk, maximum=max(MAX_CHUNK, session_hands))
    if chunk % session_hands:
        raise ValueError(f"--chunk {chunk} must be a multiple of --session-hands {session_hands} (a chunk never splits a session)")
    swept = tuple((str(k), v) for k, v in swept)
    clash = [k for k, _ in swept if k in hands_schema().names]
    if clash:
        raise ValueError(f"--grid key {clash[0]!r} has the name of a hands column")
    return RunSpec(rules, players, hands, session_hands, seed, chunk, label, swept, population)


def _split_top_level(text: str) -> list[str]:
    """'1,2' -> ['1', '2']; '[3,1],[2,1]' -> ['[3,1]', '[2,1]'] (commas inside [] or quotes stay)."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def parse_grid(texts: Sequence[str]) -> list[tuple[str, list[str]]]:
    """['birds=1,2', 'values.pinghu=[2,1],[3,1]'] -> [('birds', ['1', '2']), ...] (raw values)."""
    if not texts:
        raise ValueError("a sweep needs at least one --grid key=v1,v2")
    grid = []
    for text in texts:
        key, sep, raw = text.partition("=")
        key = key.strip()
        values = _split_top_level(raw) if sep else []
        if not key or not values or not all(values):
            raise ValueError(f"--grid {text!r}: expected key=v1,v2,... (e.g. birds=1,2)")
        if key in (k for k, _ in grid):
            raise ValueError(f"--grid: key {key!r} given twice")
        grid.append((key, values))
    return grid


def grid_variants(base: Rules, grid: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[str, Rules]]:
    """Every combination of the grid applied to `base`, first values first: [(label, rules)].

    The first combination is the sweep's baseline. Combinations that give identical rules
    are kept once. Bad keys and values raise RulesError naming them.
    """
    import itertools

    from mjsim.rules import parse_override

    out: list[tuple[str, Rules]] = []
    for combo in itertools.product(*[[(k, v) for v in values] for k, values in grid]):
        overrides = dict(parse_override(f"{k}={v}") for k, v in combo)
        rules = base.with_overrides(**overrides)
        label = " ".join(f"{k}={v}" for k, v in combo)
        if all(rules != r for _, r in out):
            out.append((label, rules))
    return out


def sweep_specs(base: Rules, grid: Sequence[tuple[str, Sequence[str]]], *, population: str = "",
                **spec_options) -> list[RunSpec]:
    """One RunSpec per grid combination (see grid_variants), labelled "key=value ..." and
    carrying the swept values, which become columns of its hands table.  With a
    `population` name (a sweep under several --players) the label starts with it:
    "greedy / key=value ...".

    The values of one key get one type across the sweep (ints become floats beside a float),
    so the columns of every variant line up for any reader.
    """
    variants = grid_variants(base, grid)
    keys = [k for k, _ in grid]
    values = {k: [_plain(r[k]) for _, r in variants] for k in keys}
    for k, vs in values.items():
        if any(isinstance(v, float) for v in vs) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vs):
            values[k] = [float(v) for v in vs]
    prefix = population + SEPARATOR if population else ""
    return [make_spec(r, label=prefix + label, swept=[(k, values[k][i]) for k in keys], population=population,
                      **spec_options)
            for i, (label, r) in enumerate(variants)]


def _plain(v):
    """A rules value as plain Python (frozen tuples and mappings thawed)."""
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "items"):
        return {k: _plain(x) for k, x in v.items()}
    return v


_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def encode_variant(variant: str) -> str:
    """A variant name as one safe path segment: URI percent-encoding (UTF-8) of everything
    but ASCII letters, digits, ``-_.~`` and printable non-ASCII (萬載 stays readable).

    ``=``, ``/``, ``%``, spaces, brackets and glob characters are all encoded, and every
    reader of hive partitions (pyarrow, pandas, DuckDB, polars) decodes the segment back.
    """
    out = []
    for ch in str(variant):
        if ch in _SAFE or (ord(ch) > 127 and ch.isprintable()):
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
    return "".join(out)


def decode_variant(segment: str) -> str:
    """The inverse of encode_variant (of the part after ``variant=``)."""
    from urllib.parse import unquote

    return unquote(segment, errors="strict")


def plan_chunks(spec: RunSpec) -> Iterator[tuple[int, int]]:
    """(start, count) of every chunk, lazily; the last one may be shorter (still whole sessions)."""
    return ((start, min(spec.chunk, spec.hands - start)) for start in range(0, spec.hands, spec.chunk))


def n_chunks(spec: RunSpec) -> int:
    return -(-spec.hands // spec.chunk)


def chunk_in_plan(spec: RunSpec, start: int, count: int) -> bool:
    """Is (start, count) one of plan_chunks(spec)? (arithmetic: the plan is never listed)"""
    return 0 <= start < spec.hands and start % spec.chunk == 0 and count == min(spec.chunk, spec.hands - start)


def parse_chunk_name(name: str) -> tuple[int, int, int] | None:
    """'chunk-s<seed>-<start>-<count>.parquet' -> (seed, start, count), None for other names."""
    stem = name[:-len(".parquet")] if name.endswith(".parquet") else None
    parts = stem.split("-") if stem and stem.startswith("chunk-s") else []
    if len(parts) != 4 or not all(p.isdigit() for p in (parts[1][1:], parts[2], parts[3])):
        return None
    return int(parts[1][1:]), int(parts[2]), int(parts[3])


def chunk_name(spec: RunSpec, start: int, count: int) -> str:
    # zero-padded start: files sort in hand order
    return f"chunk-s{spec.seed}-{start:012d}-{count}.parquet"


def partition(out: Path, table: str, variant: str) -> Path:
    return Path(out) / table / f"variant={encode_variant(variant)}"


# ------------------------------------------------------------------------------------
# The worker: simulate one chunk and encode it


@dataclass(frozen=True)
class ChunkTask:
    spec: RunSpec
    start: int
    count: int
    simulator: str


@dataclass
class ChunkResult:
    task: ChunkTask
    hands: bytes
    wins: bytes
    n_wins: int
    simulate_seconds: float
    encode_seconds: float
    payments: bytes = b""


_RESOLVED: dict[str, Callable] = {}


def resolve_simulator(path: str) -> Callable:
    """'module:function' -> the function (imported once per process)."""
    fn = _RESOLVED.get(path)
    if fn is None:
        module_name, _, attr = path.partition(":")
        try:
            module = importlib.import_module(module_name)
            fn = getattr(module, attr or "simulate_chunk")
        except (ImportError, AttributeError) as e:
            raise GameUnavailable(f"the game loop {path!r} is not available: {e}") from e
        _RESOLVED[path] = fn
    return fn


def _simulator_module(path: str):
    return importlib.import_module(path.partition(":")[0])


def build_chunk(task: ChunkTask) -> ChunkResult:
    """Play hands [start, start+count) and encode them as two Parquet files (bytes).

    Runs in a worker process (or Dask worker); pure apart from CPU time.
    """
    spec = task.spec
    simulate = resolve_simulator(task.simulator)
    t0 = time.perf_counter()
    hands, wins, payments = _simulate_in_slices(simulate, spec, task.start, task.count)
    t1 = time.perf_counter()
    module = _simulator_module(task.simulator)
    hands_t = hands_table(spec, task.start, task.count, hands)
    wins_t = wins_table(spec, wins, getattr(module, "WIN_KINDS", WIN_KINDS))
    payments_t = payments_table(spec, payments, getattr(module, "PAY_REASONS", PAY_REASONS))
    meta = file_metadata(spec, task.start, task.count)
    hands_b = encode_parquet(hands_t, meta)
    wins_b = encode_parquet(wins_t, meta)
    payments_b = encode_parquet(payments_t, meta)
    t2 = time.perf_counter()
    return ChunkResult(task, hands_b, wins_b, wins_t.num_rows, t1 - t0, t2 - t1, payments_b)


class _Counter:
    """Hands played so far, in-process (the pool's workers get a shared multiprocessing.Value)."""

    def __init__(self):
        self.value = 0
        import threading

        self._lock = threading.Lock()

    def get_lock(self):
        return self._lock


#: where build_chunk reports hands as it plays them: set per process by the driver or by
#: the pool's initializer; None (Dask workers) = no report within a chunk
_PROGRESS_COUNTER = None


def _simulate_in_slices(simulate: Callable, spec: RunSpec, start: int, count: int):
    """One chunk's (hands, wins, payments), played in slices of whole sessions, reporting progress
    after each. A hand depends only on its session's earlier hands, so the concatenated
    slices are exactly the rows of one call (the tests compare chunkings row for row)."""
    step = max(spec.session_hands, PROGRESS_SLICE // spec.session_hands * spec.session_hands)
    report = _progress_reporter()
    if report is None or count <= step:
        out = simulate(spec.rules, spec.players, spec.seed, start, count, spec.session_hands, payments=True)
        if report is not None:
            report(count)
        return out
    parts = []
    for s in range(start, start + count, step):
        n = min(step, start + count - s)
        parts.append(simulate(spec.rules, spec.players, spec.seed, s, n, spec.session_hands, payments=True))
        report(n)
    return tuple({k: np.concatenate([p[i][k] for p in parts]) for k in parts[0][i]} for i in range(len(parts[0])))


#: the Dask event topic on which workers report hands played (the client adds them up)
PROGRESS_TOPIC = "mjsim-progress"


def _progress_reporter() -> Callable[[int], None] | None:
    """Where this process reports hands as it plays them: the shared counter of a local run,
    else (inside a Dask worker) an event to the client; None when nobody listens."""
    counter = _PROGRESS_COUNTER
    if counter is not None:
        return lambda n: _count_hands(counter, n)
    import sys

    if "distributed" not in sys.modules:    # only a Dask worker has it loaded
        return None
    try:
        from distributed import get_worker

        worker = get_worker()
    except Exception:                       # not running inside a Dask worker
        return None
    return lambda n: worker.log_event(PROGRESS_TOPIC, n)


def _count_hands(counter, n: int) -> None:
    if counter is not None:
        with counter.get_lock():
            counter.value += n


def _columns(arrays: dict, spec_dtypes: dict, what: str) -> dict[str, np.ndarray]:
    """The contract's columns as numpy arrays of the contract's dtypes, equal lengths."""
    missing = [k for k in spec_dtypes if k not in arrays]
    if missing:
        raise ValueError(f"simulate_chunk returned no {what} column(s) {', '.join(missing)}")
    out = {k: np.asarray(arrays[k]).astype(dt, copy=False) for k, dt in spec_dtypes.items()}
    lengths = {len(v) for v in out.values()}
    if len(lengths) > 1:
        raise ValueError(f"simulate_chunk returned {what} columns of different lengths {sorted(lengths)}")
    return out


def _names(codes: np.ndarray, names: Sequence, column: str, null_code: int | None = None):
    """Integer codes -> an Arrow string array (null where code == null_code)."""
    import pyarrow as pa

    codes = codes.astype(np.int32)
    mask = codes == null_code if null_code is not None else None
    valid = codes[~mask] if mask is not None else codes
    if valid.size and (valid.min() < 0 or valid.max() >= len(names)):
        bad = valid[(valid < 0) | (valid >= len(names))][0]
        raise ValueError(f"simulate_chunk returned {column} code {bad}, outside 0..{len(names) - 1}")
    if mask is not None:
        codes = np.where(mask, 0, codes)
    return pa.array(list(names), pa.string()).take(pa.array(codes, mask=mask))


def _property_lists(props: np.ndarray):
    """uint32 bit sets -> list<string> (bit i = mjsim.PROPERTIES[i]), vectorised."""
    import pyarrow as pa

    from mjsim import PROPERTIES

    n_bits = len(PROPERTIES)
    if props.size and int(props.max()) >> n_bits:
        raise ValueError(f"simulate_chunk returned a props bit beyond the {n_bits} known PROPERTIES")
    bits = (props[:, None] >> np.arange(n_bits, dtype=np.uint32)) & np.uint32(1)
    _, cols = np.nonzero(bits)           # row-major: each row's properties in PROPERTIES order
    offsets = np.zeros(len(props) + 1, np.int32)
    np.cumsum(bits.sum(axis=1, dtype=np.int32), out=offsets[1:])
    values = pa.array(list(PROPERTIES), pa.string()).take(pa.array(cols.astype(np.int32)))
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def _constant(value, n: int, type_):
    import pyarrow as pa

    return pa.repeat(pa.scalar(value, type_), n)


def hands_table(spec: RunSpec, start: int, count: int, arrays: dict):
    import pyarrow as pa

    from mjsim.tiles import kind_name

    c = _columns(arrays, HANDS_ARRAYS, "hands")
    n = len(c["hand_index"])
    if n != count or not np.array_equal(c["hand_index"], np.arange(start, start + count)):
        raise ValueError(f"simulate_chunk returned hands that are not exactly {start}..{start + count - 1}")
    tiles = [kind_name(k) for k in range(34)]
    cols = {
        "rules": _constant(spec.rules.game, n, pa.string()),
        "seed": _constant(spec.seed, n, pa.uint64()),
        "hand_index": c["hand_index"],
        "session": c["session"],
        "hand_in_session": c["hand_in_session"],
        "dealer": c["dealer"],
        "dice": c["dice"],
        "wild_indicator": _names(c["wild_indicator"], tiles, "wild_indicator", null_code=-1),
        "end": _names(c["end"], END_NAMES, "end"),
        **{k: c[k] for k in ("draws", "wall_left", "n_winners", "kongs_exposed", "kongs_added", "kongs_concealed")},
        **{f"delta_{s}": c[f"delta_{s}"] for s in range(4)},
        **{f"fire_{s}": c[f"fire_{s}"] for s in range(4)},
        **{f"piao_{s}": c[f"piao_{s}"] for s in range(4)},
        **{f"claims_{s}": c[f"claims_{s}"] for s in range(4)},
    }
    table = pa.table(cols, schema=hands_schema())
    for key, value in spec.swept:      # constant columns after the contract's
        table = table.append_column(key, pa.repeat(pa.scalar(value), n))
    return table


def wins_table(spec: RunSpec, arrays: dict, win_kinds: Sequence[str] = WIN_KINDS):
    import pyarrow as pa

    from mjsim import PATTERNS
    from mjsim._core import CATEGORIES

    c = _columns(arrays, WINS_ARRAYS, "wins")
    n = len(c["hand_index"])
    cols = {
        "seed": _constant(spec.seed, n, pa.uint64()),
        "hand_index": c["hand_index"],
        "winner": c["winner"],
        "discarder": pa.array(c["discarder"], mask=c["discarder"] < 0),
        "win_kind": _names(c["win_kind"], win_kinds, "win_kind"),
        "pattern": _names(c["pattern"], PATTERNS, "pattern"),
        "properties": _property_lists(c["props"]),
        "category": _names(c["category"], CATEGORIES, "category", null_code=0),
        "points": c["points"],
        "birds_hit": c["birds_hit"],
        "received": c["received"],
        "turn": c["turn"],
    }
    return pa.table(cols, schema=wins_schema())


def payments_table(spec: RunSpec, arrays: dict, reasons: Sequence[str] = PAY_REASONS):
    """One row per payment: who paid whom how much, why, and for which pattern's win."""
    import pyarrow as pa

    from mjsim import PATTERNS

    c = _columns(arrays, PAYMENTS_ARRAYS, "payments")
    n = len(c["hand_index"])
    cols = {
        "seed": _constant(spec.seed, n, pa.uint64()),
        "hand_index": c["hand_index"],
        "payer": c["payer"],
        "receiver": c["receiver"],
        "amount": c["amount"],
        "reason": _names(c["reason"], reasons, "reason"),
        "pattern": _names(c["pattern"], PATTERNS, "pattern", null_code=-1),
    }
    return pa.table(cols, schema=payments_schema())


def payments_schema():
    import pyarrow as pa

    return pa.schema([
        ("seed", pa.uint64()), ("hand_index", pa.int64()), ("payer", pa.int8()), ("receiver", pa.int8()),
        ("amount", pa.int64()), ("reason", pa.string()), ("pattern", pa.string()),
    ])


def hands_schema():
    import pyarrow as pa

    return pa.schema([
        ("rules", pa.string()), ("seed", pa.uint64()),
        ("hand_index", pa.int64()), ("session", pa.int64()), ("hand_in_session", pa.int32()),
        ("dealer", pa.int8()), ("dice", pa.int8()), ("wild_indicator", pa.string()),
        ("end", pa.string()), ("draws", pa.int16()), ("wall_left", pa.int16()),
        ("n_winners", pa.int8()), ("kongs_exposed", pa.int8()), ("kongs_added", pa.int8()),
        ("kongs_concealed", pa.int8()),
        *[(f"delta_{s}", pa.int64()) for s in range(4)],
        *[(f"fire_{s}", pa.int8()) for s in range(4)],
        *[(f"piao_{s}", pa.int8()) for s in range(4)],
        *[(f"claims_{s}", pa.int16()) for s in range(4)],
    ])


def wins_schema():
    import pyarrow as pa

    return pa.schema([
        ("seed", pa.uint64()), ("hand_index", pa.int64()),
        ("winner", pa.int8()), ("discarder", pa.int8()), ("win_kind", pa.string()),
        ("pattern", pa.string()), ("properties", pa.list_(pa.string())),
        ("category", pa.string()), ("points", pa.int32()), ("birds_hit", pa.int8()),
        ("received", pa.int64()), ("turn", pa.int16()),
    ])


def file_metadata(spec: RunSpec, start: int, count: int) -> dict[str, str]:
    """Key-value metadata of every file: enough to know what made it without the manifest."""
    from mjsim import __version__

    return {
        "mjsim.schema_version": str(SCHEMA_VERSION),
        "mjsim.version": __version__,
        "mjsim.rules": spec.rules.to_toml(),
        "mjsim.rules_hash": spec.rules.hash,
        "mjsim.variant": spec.variant,
        "mjsim.seed": str(spec.seed),
        "mjsim.players": ",".join(spec.players),
        "mjsim.session_hands": str(spec.session_hands),
        "mjsim.chunk": f"{start},{count}",
        "mjsim.label": spec.label,
        "mjsim.swept": json.dumps({k: _jsonable(v) for k, v in spec.swept}, ensure_ascii=False),
    }


def encode_parquet(table, metadata: dict[str, str]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    # zstd level 1: about as fast as snappy here and a third smaller
    pq.write_table(table.replace_schema_metadata(metadata), sink, compression="zstd",
                   compression_level=1)
    return sink.getvalue().to_pybytes()


# ------------------------------------------------------------------------------------
# Output directory: checks, manifest, atomic writes


def check_writable(out: Path) -> None:
    """Fail before any work if `out` cannot hold the dataset; creates nothing."""
    out = Path(out)
    probe_dir = out
    while not probe_dir.exists():
        if probe_dir.parent == probe_dir:
            break
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise OSError(f"--out {out}: {probe_dir} exists and is not a directory")
    try:  # a real write: os.access is blind to read-only mounts for some setups and to root
        fd, probe = tempfile.mkstemp(prefix=".mjsim-probe-", dir=probe_dir)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise OSError(f"--out {out}: cannot write in {probe_dir} ({e.strerror or e})") from None


def read_manifest(out: Path) -> dict:
    path = Path(out) / "manifest.json"
    if not path.exists():
        return {"variants": {}}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise OSError(f"{path}: unreadable manifest ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("variants"), dict):
        raise OSError(f"{path}: not an mjsim manifest")
    return data


def check_manifest(out: Path, specs: Sequence[RunSpec], allow_version_mix: bool = False) -> None:
    """A directory may only be resumed with the settings (and the mjsim version) that made it."""
    from mjsim import __version__

    known = read_manifest(out)["variants"]
    for spec in specs:
        old = known.get(spec.variant)
        if old is None:
            continue
        new = spec.manifest_entry()
        diffs = [f"{_FLAG[k]} {_show(old.get(k))} (now {_show(new[k])})" for k in _SHAPING if old.get(k) != new[k]]
        if diffs:
            raise ValueError(
                f"{out} already holds variant {spec.variant} made with {'; '.join(diffs)}: "
                f"rerun with those settings to resume, or choose another --out"
            )
        if not allow_version_mix and old.get("mjsim_version", __version__) != __version__:
            raise ValueError(_version_mix_message(out, spec.variant, old.get("mjsim_version"), __version__))


def _version_mix_message(out, variant: str, old: str | None, new: str) -> str:
    return (f"{out} holds variant {variant} written by mjsim {old}, this is mjsim {new}: resuming would "
            f"mix two versions in one dataset; choose another --out, or pass --allow-version-mix")


def _show(v) -> str:
    return ",".join(map(str, v)) if isinstance(v, list) else str(v)


def write_manifest(out: Path, specs: Sequence[RunSpec], complete: dict[str, bool]) -> None:
    """Record the variants of a run; called once when a run starts (nothing complete yet)
    and once when it ends. Each run also appends to ``runs``: the command line, the start
    and end times (UTC) and the environment that made the data (mjsim, Python, platform,
    dependency versions)."""
    data = read_manifest(out)
    for spec in specs:
        data["variants"][spec.variant] = {**spec.manifest_entry(), "complete": complete.get(spec.variant, False)}
    names = [s.variant for s in specs]
    runs = data.setdefault("runs", [])
    if not any(complete.values()):
        runs.append({"command": _command_line(), "started": _now(), "finished": None, "variants": names,
                     **environment()})
    else:
        for entry in reversed(runs):
            if entry.get("variants") == names and entry.get("finished") is None:
                entry["finished"] = _now()
                break
    write_atomic(Path(out) / "manifest.json", (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _command_line() -> list[str]:
    import sys

    return [os.path.basename(sys.argv[0]) if sys.argv else "", *sys.argv[1:]]


#: distributions whose versions can change the data or how it is read
_DEPENDENCIES = ("numpy", "pyarrow", "duckdb", "scipy", "statsmodels", "pandas", "Cython", "typer", "rich",
                 "matplotlib", "dask", "distributed")


def environment() -> dict:
    """mjsim, Python, platform and dependency versions (absent ones left out)."""
    import platform
    from importlib import metadata

    from mjsim import __version__

    versions = {}
    for name in _DEPENDENCIES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    return {"mjsim_version": __version__, "python": platform.python_version(),
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            "machine": platform.machine(), "dependencies": versions}


def write_atomic(path: Path, data: bytes) -> None:
    """Never a partial file under the final name: write a temporary file beside it, then
    rename. The temporary name is unique (mkstemp), so two writers never share one."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def remove_stale_tmp(out: Path, specs: Sequence[RunSpec]) -> None:
    """Leftovers of a run killed mid-write (SIGKILL, power loss). Called under the
    directory lock only, so no other run's temporary file can be removed."""
    out = Path(out)
    for tmp in out.glob(".manifest.json.*.tmp"):
        tmp.unlink(missing_ok=True)
    for spec in specs:
        for table in TABLES:
            for tmp in partition(out, table, spec.variant).glob("*.tmp"):
                tmp.unlink(missing_ok=True)


LOCK_NAME = ".mjsim.lock"


@contextlib.contextmanager
def directory_lock(out: Path):
    """One writer per dataset: an exclusive flock on DIR/.mjsim.lock for the whole run.

    A second run into the same directory is refused at once (it does not wait) with a line
    naming the process that holds the lock. The kernel drops the lock when its holder dies
    (even by SIGKILL), so a crashed run never leaves the directory locked.
    """
    try:
        import fcntl
    except ImportError:     # not POSIX: no lock (documented)
        yield
        return
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
            raise ValueError(f"{out} is being written by another mjsim run ({holder}): wait for it to "
                             f"finish, or choose another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)   # releases the lock


QUARANTINE = "quarantine"


def chunk_file_problem(path: Path) -> str | None:
    """A cheap look at a Parquet file's frame (magic bytes, footer length): why it cannot be
    read, or None. Catches truncated and garbage files without parsing them."""
    try:
        size = path.stat().st_size
        if size < 12:
            return f"{size} bytes: truncated or empty"
        with open(path, "rb") as f:
            head = f.read(4)
            f.seek(size - 8)
            tail = f.read(8)
    except OSError as e:
        return f"unreadable ({e.strerror or e})"
    if head != b"PAR1" or tail[4:] != b"PAR1":
        return "not a Parquet file (truncated or overwritten)"
    if int.from_bytes(tail[:4], "little") > size - 12:
        return "truncated (its footer is cut off)"
    return None


def _footer(path: Path):
    """(mjsim metadata, row count) of a Parquet file, or a string saying why not."""
    problem = chunk_file_problem(path)
    if problem:
        return problem
    import pyarrow.parquet as pq

    try:
        md = pq.read_metadata(path)
    except Exception as e:   # pyarrow raises ArrowInvalid, OSError...
        return f"not a readable Parquet file ({_first_line(e)})"
    meta = {k.decode(errors="replace"): v.decode(errors="replace") for k, v in (md.metadata or {}).items()}
    return meta, md.num_rows


def footer_chunk(meta: dict) -> tuple[int, int] | None:
    """(start, count) of the chunk a file's mjsim metadata names, or None."""
    start, _, count = meta.get("mjsim.chunk", "").partition(",")
    return (int(start), int(count)) if start.isdigit() and count.isdigit() else None


#: the footer keys that make two chunk files parts of one run
RUN_KEYS = ("mjsim.seed", "mjsim.rules_hash", "mjsim.players", "mjsim.session_hands")


def partition_problem(files: list[Path], table: str) -> str | None:
    """Why the Parquet files of one table and variant are not one run's chunks, or None.

    Each file is whole and its footer names the chunk its file name does (a chunk copied
    under another name would count its hands twice), all come from one run (seed, rules
    hash, players, session length), no two overlap, and a hands file holds a row per hand.
    A reader (report, query) reads every footer for this: about 0.4 ms a file."""
    first = run = None
    spans = []
    for path in files:
        footer = _footer(path)
        if isinstance(footer, str):
            return f"{path} is damaged ({footer})"
        meta, rows = footer
        chunk = footer_chunk(meta)
        if chunk is None:
            return f"{path} is not an mjsim chunk (its metadata names no chunk)"
        (start, count), seed = chunk, meta.get("mjsim.seed", "")
        if not seed.isdigit() or parse_chunk_name(path.name) != (int(seed), start, count):
            return (f"{path} holds hands {start}..{start + count - 1} of seed {seed}, "
                    f"not the chunk its name says (a copy under another name?)")
        identity = tuple(meta.get(k) for k in RUN_KEYS)
        if run is None:
            first, run = path, identity
        elif identity != run:
            return f"{path} and {first} are chunks of two different runs in one variant"
        if table == "hands" and rows != count:
            return f"{path} holds {rows} rows, not the {count} hands of its chunk"
        spans.append((start, count, path))
    spans.sort()
    for (a, n, pa), (b, _, pb) in zip(spans, spans[1:]):
        if b < a + n:
            return f"{pb} overlaps {pa} (hands {b}.. against {a}..{a + n - 1})"
    return None


def _move_aside(out: Path, path: Path, table: str, variant: str) -> Path:
    dest_dir = out / QUARANTINE / table / partition(out, table, variant).name
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / path.name
    n = 1
    while dest.exists():
        dest = dest_dir / f"{path.name}.{n}"
        n += 1
    os.replace(path, dest)
    return dest


def verify_existing(out: Path, spec: RunSpec, *, allow_version_mix: bool = False,
                    say: Callable[[str], None] = lambda line: None) -> dict[int, int]:
    """The chunks of `spec` already complete on disk, checked by content: {start: count}.

    Each file's footer must say it is this run's chunk (seed, rules hash, players, session
    length, chunk start and count; a hands file also the row count). A file that cannot be
    read, or whose content is another chunk than its name says, is moved to
    DIR/quarantine/<table>/variant=<v>/ (and said so) and its chunk is redone. A readable
    file of another run (another seed or rules, e.g. with manifest.json deleted) refuses
    the resume instead: two datasets never mix in one variant. So does a file written by
    another mjsim version, unless allow_version_mix.
    """
    from mjsim import __version__

    out = Path(out)
    good: dict[str, dict[int, int]] = {}
    for table in TABLES:
        good[table] = {}
        part = partition(out, table, spec.variant)
        if not part.is_dir():
            continue
        for path in sorted(part.iterdir()):
            if not path.name.endswith(".parquet") or not path.is_file():
                continue
            footer = _footer(path)
            problem = footer if isinstance(footer, str) else None
            if problem is None:
                meta, rows = footer
                _refuse_foreign(out, path, spec, meta)
                if not allow_version_mix and meta.get("mjsim.version") != __version__:
                    raise ValueError(f"{path} was written by mjsim {meta.get('mjsim.version')}, this is mjsim "
                                     f"{__version__}: resuming would mix two versions in one dataset; choose "
                                     f"another --out, or pass --allow-version-mix")
                chunk = footer_chunk(meta)
                named = parse_chunk_name(path.name)
                if chunk is None:
                    problem = "its metadata names no chunk"
                else:
                    start, count = chunk
                    if named != (spec.seed, start, count):
                        problem = f"it holds chunk {start},{count} of seed {spec.seed}: misnamed"
                    elif not chunk_in_plan(spec, start, count):
                        raise ValueError(f"{path} is a chunk of another plan (hands {start}..{start + count - 1}, "
                                         f"not a chunk of --hands {spec.hands} --chunk {spec.chunk}): "
                                         f"choose another --out")
                    elif table == "hands" and rows != count:
                        problem = f"it holds {rows} rows, not {count}"
            if problem:
                dest = _move_aside(out, path, table, spec.variant)
                say(f"{path}: {problem}; moved to {dest}, the chunk will be redone")
                continue
            good[table][start] = count
    return {start: count for start, count in good["hands"].items()
            if all(good[t].get(start) == count for t in TABLES)}


def _refuse_foreign(out: Path, path: Path, spec: RunSpec, meta: dict) -> None:
    mine = dict(zip(RUN_KEYS, (str(spec.seed), spec.rules.hash, ",".join(spec.players), str(spec.session_hands))))
    flags = {"mjsim.seed": "--seed", "mjsim.rules_hash": "rules hash", "mjsim.players": "--players",
             "mjsim.session_hands": "--session-hands"}
    diffs = [f"{flags[k]} {meta.get(k)} (now {v})" for k, v in mine.items() if meta.get(k) != v]
    if diffs:
        raise ValueError(f"{path} belongs to another run ({'; '.join(diffs)}): {out} cannot be resumed "
                         f"with these settings without mixing two datasets; choose another --out")


def chunk_done(out: Path, spec: RunSpec, start: int, count: int) -> bool:
    name = chunk_name(spec, start, count)
    return all((partition(out, t, spec.variant) / name).exists() for t in TABLES)


def store_chunk(out: Path, result: ChunkResult) -> None:
    task = result.task
    name = chunk_name(task.spec, task.start, task.count)
    # payments and wins first: the hands file is the last to appear, and a chunk counts as
    # done only when all exist, so an interruption between the renames just redoes the chunk
    write_atomic(partition(out, "payments", task.spec.variant) / name, result.payments)
    write_atomic(partition(out, "wins", task.spec.variant) / name, result.wins)
    write_atomic(partition(out, "hands", task.spec.variant) / name, result.hands)


# ------------------------------------------------------------------------------------
# Running


@dataclass
class RunResult:
    out: Path
    variants: list[str]
    hands_total: int = 0
    hands_done: int = 0          # by this run
    hands_skipped: int = 0       # already on disk
    chunks_total: int = 0
    chunks_done: int = 0
    chunks_skipped: int = 0
    seconds: float = 0.0
    simulate_seconds: float = 0.0  # summed over workers
    encode_seconds: float = 0.0    # Arrow + Parquet encoding, summed over workers
    write_seconds: float = 0.0     # driver: writing files
    wins: int = 0
    backend: str = "local"
    workers: int = 1

    @property
    def complete(self) -> bool:
        return self.chunks_done + self.chunks_skipped == self.chunks_total


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class RunFailed(OSError):
    """A run stopped by an error after it started writing (a full disk, a lost Dask
    scheduler); every completed chunk is kept. The message says how far it got."""

    def __init__(self, message: str, result: RunResult):
        super().__init__(message)
        self.result = result


class SchedulerLost(OSError):
    """The Dask scheduler went away during the run."""


#: seconds to wait for a --scheduler to answer like a Dask scheduler
DASK_CONNECT_SECONDS = 5.0
#: seconds between two plain progress lines when stderr is not a terminal
PROGRESS_EVERY = 10.0


def _say(console, line: str) -> None:
    if console is None:
        import sys

        print(line, file=sys.stderr)
    else:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def run(specs: RunSpec | Sequence[RunSpec], out: str | os.PathLike = DEFAULT_OUT, *,
        workers: int | None = None, backend: str = "local", scheduler: str | None = None,
        progress: bool = True, console=None, simulator: str | None = None,
        allow_version_mix: bool = False, scheduler_timeout: float = DASK_CONNECT_SECONDS,
        progress_every: float = PROGRESS_EVERY) -> RunResult:
    """Run every chunk of every spec not yet on disk; return what was done.

    Raises ValueError/OSError for bad input before creating anything, RunInterrupted on
    Ctrl-C and RunFailed on an error mid-run (completed chunks stay in both cases), and
    whatever a worker raised otherwise. Holds DIR's lock for the whole run.
    """
    specs = [specs] if isinstance(specs, RunSpec) else list(specs)
    if not specs:
        raise ValueError("nothing to run")
    if out is None or not str(out).strip():
        raise ValueError("--out is empty: give the output directory")
    if len({s.variant for s in specs}) != len(specs):
        raise ValueError("two variants of the run have the same rules")
    if backend not in ("local", "dask"):
        raise ValueError(f"--backend must be 'local' or 'dask', got {backend!r}")
    if scheduler and backend != "dask":
        raise ValueError("--scheduler needs --backend dask")
    if isinstance(scheduler_timeout, bool) or not isinstance(scheduler_timeout, (int, float)) \
            or not 0 < scheduler_timeout <= 3600:
        raise ValueError(f"--scheduler-timeout must be 0..3600 seconds, got {scheduler_timeout!r}")
    cores = default_workers()
    workers = cores if workers in (None, 0) else _positive_int("--workers", workers)
    if workers > cores and not scheduler:   # processes on this machine: more than cores only slows it
        _say(console, f"--workers {workers} capped at {cores}, the number of cores this process may use")
        workers = cores
    simulator = simulator or SIMULATOR
    out = Path(out)

    # every check before the first file: bad input leaves nothing behind
    for spec in specs:
        validate_players_and_rules(spec, simulator)
    check_manifest(out, specs, allow_version_mix)
    check_writable(out)
    # the cluster before the lock: an unreachable scheduler leaves nothing behind either
    from mjsim import dask_backend

    with dask_backend.dask_client(backend, scheduler, workers, scheduler_timeout) as client, directory_lock(out):
        for spec in specs:
            for table in TABLES:
                partition(out, table, spec.variant).mkdir(parents=True, exist_ok=True)
        remove_stale_tmp(out, specs)
        check_manifest(out, specs, allow_version_mix)   # again, now that no one else writes
        done = {s.variant: verify_existing(out, s, allow_version_mix=allow_version_mix,
                                           say=lambda line: _say(console, line)) for s in specs}
        write_manifest(out, specs, complete={})
        result = RunResult(out, [s.variant for s in specs], backend=backend, workers=workers)
        result.chunks_total = sum(n_chunks(s) for s in specs)
        result.hands_total = sum(s.hands for s in specs)
        result.chunks_skipped = sum(len(d) for d in done.values())
        result.hands_skipped = sum(sum(d.values()) for d in done.values())
        n_todo = result.chunks_total - result.chunks_skipped
        if client is None:
            result.workers = max(1, min(workers, n_todo))
        todo = (ChunkTask(spec, start, count, simulator) for spec in specs
                for start, count in plan_chunks(spec) if done[spec.variant].get(start) != count)
        counter = _Counter() if client is not None else _new_counter(result.workers)
        t0 = time.perf_counter()
        try:
            with _progress_bar(progress, console, result, counter, progress_every) as advance:
                for chunk in _execute(todo, n_todo, result.workers, client, counter):
                    t = time.perf_counter()
                    store_chunk(out, chunk)
                    result.write_seconds += time.perf_counter() - t
                    result.chunks_done += 1
                    result.hands_done += chunk.task.count
                    result.simulate_seconds += chunk.simulate_seconds
                    result.encode_seconds += chunk.encode_seconds
                    result.wins += chunk.n_wins
                    advance(chunk.task.count)
        except KeyboardInterrupt:
            result.seconds = time.perf_counter() - t0
            remove_stale_tmp(out, specs)
            raise RunInterrupted(result) from None
        except OSError as e:      # a full disk, a read-only remount, a lost scheduler
            result.seconds = time.perf_counter() - t0
            remove_stale_tmp(out, specs)
            raise RunFailed(failed_message(e, result), result) from None
        except BaseException:
            remove_stale_tmp(out, specs)
            raise
        result.seconds = time.perf_counter() - t0
        write_manifest(out, specs, complete={s.variant: True for s in specs})
    return result


def failed_message(e: OSError, result: RunResult) -> str:
    what = str(e) if isinstance(e, SchedulerLost) else \
        f"{e.strerror or _first_line(e)}" + (f" ({e.filename})" if e.filename else "")
    return (f"run stopped: {what}; {result.chunks_done + result.chunks_skipped:,} of {result.chunks_total:,} chunks "
            f"({result.hands_done + result.hands_skipped:,} hands) are complete in {result.out}; "
            f"run the same command again to resume")


def _new_counter(workers: int):
    if workers == 1:
        return _Counter()
    import multiprocessing

    return multiprocessing.get_context("spawn").Value("q", 0)


def validate_players_and_rules(spec: RunSpec, simulator: str) -> None:
    """Ask the game itself, in this process, before any work: unknown players, a rule set
    it cannot play yet. A zero-hand call is the cheapest complete check of the contract."""
    module = _simulator_module_or_error(simulator)
    known = getattr(module, "PLAYERS", None)
    if known is not None:
        for seat, name in enumerate(spec.players):
            if evplayer.split_name(name)[0] not in known:
                raise ValueError(f"unknown player {name!r} for seat {seat} (expected one of {', '.join(known)})")
    resolve_simulator(simulator)(spec.rules, spec.players, spec.seed, 0, 0, spec.session_hands)


def _simulator_module_or_error(simulator: str):
    try:
        return _simulator_module(simulator)
    except ImportError as e:
        raise GameUnavailable(f"the game loop {simulator!r} is not available: {e}") from e


def _execute(tasks: Iterator[ChunkTask], n_tasks: int, workers: int, client, counter=None) -> Iterator[ChunkResult]:
    """Chunk results in completion order (any order: file names carry the position)."""
    global _PROGRESS_COUNTER
    if not n_tasks:
        return iter(())
    if client is not None:
        from mjsim import dask_backend

        _PROGRESS_COUNTER = None     # in-process Dask workers report by event, like remote ones
        if counter is not None:
            dask_backend.follow_progress(client, counter)
        return dask_backend.execute(tasks, client, workers)
    if workers == 1 or n_tasks == 1:
        _import_arrow()
        _PROGRESS_COUNTER = counter
        return (build_chunk(t) for t in tasks)   # no pool to start for one worker
    return _execute_pool(tasks, min(workers, n_tasks), counter)


def _init_worker(counter=None) -> None:
    # Ctrl-C goes to the whole process group: only the driver handles it (and then stops
    # the workers), so workers do not print a traceback each
    global _PROGRESS_COUNTER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _PROGRESS_COUNTER = counter
    _import_arrow()


def _import_arrow() -> None:
    """pyarrow's one-time import (~0.3 s) is worker start-up, not the Parquet cost of a chunk."""
    import pyarrow.parquet  # noqa: F401


def _execute_pool(tasks: Iterator[ChunkTask], workers: int, counter=None) -> Iterator[ChunkResult]:
    import concurrent.futures as cf
    import multiprocessing

    # "spawn", not fork: the driver runs threads (rich's progress refresh, maybe DuckDB or
    # Dask), and forking a threaded process can deadlock on locks held at fork time. The
    # price is one import of mjsim per worker (under a second), once per run.
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=_init_worker, initargs=(counter,))
    pending = iter(tasks)
    in_flight: set = set()
    try:
        for task in _take(pending, 2 * workers):   # bounded: memory does not grow with N
            in_flight.add(pool.submit(build_chunk, task))
        while in_flight:
            done, in_flight = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                result = fut.result()
                for task in _take(pending, 1):
                    in_flight.add(pool.submit(build_chunk, task))
                yield result
        pool.shutdown(wait=True)
    except BaseException:
        _stop_pool(pool)
        raise


def _stop_pool(pool) -> None:
    """Do not wait for running chunks after Ctrl-C or an error: stop the workers now."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public API before 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()


def _take(it: Iterator, n: int) -> list:
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


class _Progress:
    """Hands done so far: those stored plus, when workers report them, those played inside
    chunks not yet stored. One definition of the rate (hands done by this run / seconds
    since it started) serves the bar, the plain lines and the final line."""

    def __init__(self, result: RunResult, counter):
        self.result, self.counter, self.t0 = result, counter, time.perf_counter()
        self.stored = 0

    def hands(self) -> int:
        played = self.counter.value if self.counter is not None else 0
        return self.result.hands_skipped + min(max(self.stored, played), self.result.hands_total)

    def rate(self) -> float:
        elapsed = time.perf_counter() - self.t0
        return (self.hands() - self.result.hands_skipped) / elapsed if elapsed > 0 else 0.0

    def line(self, label: str) -> str:
        done, total, rate = self.hands(), self.result.hands_total, self.rate()
        eta = f"{(total - done) / rate:,.0f} s" if rate > 0 else "-"
        return (f"{label}: {done:,}/{total:,} hands ({100 * done / max(total, 1):.0f}%), "
                f"{rate:,.0f} hands/s, ETA {eta}")


@contextlib.contextmanager
def _progress_bar(enabled: bool, console, result: RunResult, counter=None, every: float = PROGRESS_EVERY):
    """Progress on stderr; yields advance(n) for each stored chunk.

    A terminal gets a rich bar refreshed 4 times a second from the workers' shared hand
    counter (so it moves within chunks); anything else gets a plain line every `every`
    seconds and one at the end.
    """
    if not enabled:
        yield lambda n: None
        return
    import threading

    from rich.console import Console
    from rich.markup import escape

    console = console or Console(stderr=True)
    state = _Progress(result, counter)
    label = result.variants[0] if len(result.variants) == 1 else f"{len(result.variants)} variants"

    def advance(n: int) -> None:
        state.stored += n

    stop = threading.Event()
    if not console.is_terminal:
        def lines():
            while not stop.wait(every):
                _say(console, state.line(label))

        thread = threading.Thread(target=lines, daemon=True, name="mjsim-progress")
        thread.start()
        try:
            yield advance
        finally:
            stop.set()
            thread.join()
            _say(console, state.line(label))
        return

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            rate = state.rate()
            eta = (task.total - task.completed) / rate if rate > 0 else None
            text = f"{rate:,.0f} hands/s ETA " + (f"{int(eta) // 60}:{int(eta) % 60:02d}" if eta is not None else "-")
            return Text(text, style="progress.data.speed")

    bar = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("hands"), Rate(), TimeElapsedColumn(),
        console=console, transient=False, refresh_per_second=4,
    )
    with bar:
        task = bar.add_task(escape(label), total=result.hands_total, completed=result.hands_skipped)

        def poll():
            while not stop.wait(0.25):
                bar.update(task, completed=state.hands())

        thread = threading.Thread(target=poll, daemon=True, name="mjsim-progress")
        thread.start()
        try:
            yield advance
        finally:
            stop.set()
            thread.join()
            bar.update(task, completed=state.hands())


def interrupted_message(result: RunResult) -> str:
    return (f"interrupted: {result.chunks_done + result.chunks_skipped:,} of {result.chunks_total:,} chunks "
            f"({result.hands_done + result.hands_skipped:,} hands) are complete in {result.out}; "
            f"run the same command again to resume")
