"""Millions of seeded hands, in chunks, to a Parquet dataset; a local process pool or Dask.

Layout of an output directory ``DIR``::

    DIR/manifest.json                                   one entry per variant: what made it
    DIR/hands/variant=<v>/chunk-s<seed>-<start>-<count>.parquet
    DIR/wins/variant=<v>/chunk-s<seed>-<start>-<count>.parquet   (same chunk, same name)

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
from mjsim.rules import Rules

__all__ = [
    "DEFAULT_CHUNK", "DEFAULT_HANDS", "DEFAULT_OUT", "DEFAULT_SESSION_HANDS", "SIMULATOR",
    "GameUnavailable", "grid_variants", "parse_grid",
    "WIN_KINDS", "RunInterrupted", "RunResult", "RunSpec", "build_chunk", "make_spec",
    "parse_players", "plan_chunks", "read_manifest", "run",
]

#: Where workers find the game loop ("module:function"), imported lazily inside the worker
#: so that mjsim imports without it. The single indirection tests swap for a fake; being a
#: string, it reaches spawned processes and Dask workers, where a monkeypatch would not.
SIMULATOR = "mjsim.game:simulate_chunk"

DEFAULT_HANDS = 100_000
DEFAULT_SESSION_HANDS = 16     # four rounds of four deals: long enough for fire and dealer runs
DEFAULT_CHUNK = 20_000         # ~1-2 s of work per chunk: smooth progress, cheap files
DEFAULT_OUT = "mjsim-results"
MAX_SEED = 2**63 - 1           # the seed is stored as int64

#: The game contract's win kinds (mjsim.game.WIN_KINDS wins if the game module defines it).
WIN_KINDS = ("self_draw", "discard", "rob_kong", "gangshanghua", "gangshangpao", "instant")
END_NAMES = ("draw", "win")

# Columns the game returns, with the dtypes of the contract (RULES-independent).
HANDS_ARRAYS = {
    "hand_index": np.int64, "session": np.int64, "hand_in_session": np.int32,
    "dealer": np.int8, "dice": np.int8, "wild_indicator": np.int8, "end": np.uint8,
    "draws": np.int16, "wall_left": np.int16, "n_winners": np.int8,
    "kongs_exposed": np.int8, "kongs_added": np.int8, "kongs_concealed": np.int8,
    **{f"delta_{s}": np.int32 for s in range(4)},
    **{f"fire_{s}": np.int8 for s in range(4)},
    **{f"piao_{s}": np.int8 for s in range(4)},
}
WINS_ARRAYS = {
    "hand_index": np.int64, "winner": np.int8, "discarder": np.int8, "win_kind": np.uint8,
    "pattern": np.int8, "props": np.uint32, "category": np.int8, "points": np.int32,
    "birds_hit": np.int8, "received": np.int32,
}


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

    @property
    def variant(self) -> str:
        return self.rules.variant

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
    if value < minimum or (maximum is not None and value > maximum):
        hi = f"..{maximum}" if maximum is not None else " or more"
        raise ValueError(f"{name} must be {minimum}{hi}, got {value}")
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


def make_spec(rules: Rules, *, players="greedy", hands: int = DEFAULT_HANDS,
              session_hands: int = DEFAULT_SESSION_HANDS, seed: int = 0, chunk: int | None = None,
              label: str = "") -> RunSpec:
    """A validated RunSpec; every bad value raises ValueError naming it."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a mjsim.Rules, got {type(rules).__name__}")
    players = parse_players(players)
    hands = _positive_int("--hands (number of hands)", hands)
    session_hands = _positive_int("--session-hands", session_hands)
    seed = _positive_int("--seed", seed, minimum=0, maximum=MAX_SEED)
    if hands % session_hands:
        raise ValueError(f"--hands {hands} is not a whole number of sessions of --session-hands {session_hands}")
    if chunk is None:
        # the default chunk is a whole number of sessions, and never more than the run
        chunk = min(hands, max(session_hands, DEFAULT_CHUNK // session_hands * session_hands))
    chunk = _positive_int("--chunk", chunk)
    if chunk % session_hands:
        raise ValueError(f"--chunk {chunk} must be a multiple of --session-hands {session_hands} (a chunk never splits a session)")
    return RunSpec(rules, players, hands, session_hands, seed, chunk, label)


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


def plan_chunks(spec: RunSpec) -> list[tuple[int, int]]:
    """(start, count) of every chunk; the last one may be shorter (still whole sessions)."""
    return [(start, min(spec.chunk, spec.hands - start)) for start in range(0, spec.hands, spec.chunk)]


def chunk_name(spec: RunSpec, start: int, count: int) -> str:
    # zero-padded start: files sort in hand order
    return f"chunk-s{spec.seed}-{start:012d}-{count}.parquet"


def partition(out: Path, table: str, variant: str) -> Path:
    return out / table / f"variant={variant}"


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
    hands, wins = simulate(spec.rules, spec.players, spec.seed, task.start, task.count, spec.session_hands)
    t1 = time.perf_counter()
    win_kinds = getattr(_simulator_module(task.simulator), "WIN_KINDS", WIN_KINDS)
    hands_t = hands_table(spec, task.start, task.count, hands)
    wins_t = wins_table(spec, wins, win_kinds)
    meta = file_metadata(spec, task.start, task.count)
    hands_b = encode_parquet(hands_t, meta)
    wins_b = encode_parquet(wins_t, meta)
    t2 = time.perf_counter()
    return ChunkResult(task, hands_b, wins_b, wins_t.num_rows, t1 - t0, t2 - t1)


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
        "variant": _constant(spec.variant, n, pa.string()),
        "rules": _constant(spec.rules.game, n, pa.string()),
        "seed": _constant(spec.seed, n, pa.int64()),
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
    }
    return pa.table(cols, schema=hands_schema())


def wins_table(spec: RunSpec, arrays: dict, win_kinds: Sequence[str] = WIN_KINDS):
    import pyarrow as pa

    from mjsim import PATTERNS
    from mjsim._core import CATEGORIES

    c = _columns(arrays, WINS_ARRAYS, "wins")
    n = len(c["hand_index"])
    cols = {
        "variant": _constant(spec.variant, n, pa.string()),
        "seed": _constant(spec.seed, n, pa.int64()),
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
    }
    return pa.table(cols, schema=wins_schema())


def hands_schema():
    import pyarrow as pa

    return pa.schema([
        ("variant", pa.string()), ("rules", pa.string()), ("seed", pa.int64()),
        ("hand_index", pa.int64()), ("session", pa.int64()), ("hand_in_session", pa.int32()),
        ("dealer", pa.int8()), ("dice", pa.int8()), ("wild_indicator", pa.string()),
        ("end", pa.string()), ("draws", pa.int16()), ("wall_left", pa.int16()),
        ("n_winners", pa.int8()), ("kongs_exposed", pa.int8()), ("kongs_added", pa.int8()),
        ("kongs_concealed", pa.int8()),
        *[(f"delta_{s}", pa.int32()) for s in range(4)],
        *[(f"fire_{s}", pa.int8()) for s in range(4)],
        *[(f"piao_{s}", pa.int8()) for s in range(4)],
    ])


def wins_schema():
    import pyarrow as pa

    return pa.schema([
        ("variant", pa.string()), ("seed", pa.int64()), ("hand_index", pa.int64()),
        ("winner", pa.int8()), ("discarder", pa.int8()), ("win_kind", pa.string()),
        ("pattern", pa.string()), ("properties", pa.list_(pa.string())),
        ("category", pa.string()), ("points", pa.int32()), ("birds_hit", pa.int8()),
        ("received", pa.int32()),
    ])


def file_metadata(spec: RunSpec, start: int, count: int) -> dict[str, str]:
    """Key-value metadata of every file: enough to know what made it without the manifest."""
    from mjsim import __version__

    return {
        "mjsim.version": __version__,
        "mjsim.rules": spec.rules.to_toml(),
        "mjsim.rules_hash": spec.rules.hash,
        "mjsim.variant": spec.variant,
        "mjsim.seed": str(spec.seed),
        "mjsim.players": ",".join(spec.players),
        "mjsim.session_hands": str(spec.session_hands),
        "mjsim.chunk": f"{start},{count}",
        "mjsim.label": spec.label,
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


def check_manifest(out: Path, specs: Sequence[RunSpec]) -> None:
    """A directory may only be resumed with the settings that made it."""
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


def _show(v) -> str:
    return ",".join(map(str, v)) if isinstance(v, list) else str(v)


def write_manifest(out: Path, specs: Sequence[RunSpec], complete: dict[str, bool]) -> None:
    data = read_manifest(out)
    for spec in specs:
        data["variants"][spec.variant] = {**spec.manifest_entry(), "complete": complete.get(spec.variant, False)}
    write_atomic(Path(out) / "manifest.json", (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def write_atomic(path: Path, data: bytes) -> None:
    """Never a partial file under the final name: write `<name>.tmp`, then rename."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def remove_stale_tmp(out: Path, specs: Sequence[RunSpec]) -> None:
    """Leftovers of a run killed mid-write (SIGKILL, power loss)."""
    for spec in specs:
        for table in ("hands", "wins"):
            for tmp in partition(out, table, spec.variant).glob("*.tmp"):
                tmp.unlink(missing_ok=True)


def chunk_done(out: Path, spec: RunSpec, start: int, count: int) -> bool:
    name = chunk_name(spec, start, count)
    return all((partition(out, t, spec.variant) / name).exists() for t in ("hands", "wins"))


def store_chunk(out: Path, result: ChunkResult) -> None:
    task = result.task
    name = chunk_name(task.spec, task.start, task.count)
    # wins first: the hands file is the last to appear, and a chunk counts as done only
    # when both exist, so an interruption between the two renames just redoes the chunk
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


def run(specs: RunSpec | Sequence[RunSpec], out: str | os.PathLike = DEFAULT_OUT, *,
        workers: int | None = None, backend: str = "local", scheduler: str | None = None,
        progress: bool = True, console=None, simulator: str | None = None) -> RunResult:
    """Run every chunk of every spec not yet on disk; return what was done.

    Raises ValueError/OSError for bad input before creating anything, RunInterrupted on
    Ctrl-C (completed chunks stay), and whatever a worker raised otherwise.
    """
    specs = [specs] if isinstance(specs, RunSpec) else list(specs)
    if not specs:
        raise ValueError("nothing to run")
    if len({s.variant for s in specs}) != len(specs):
        raise ValueError("two variants of the run have the same rules")
    if backend not in ("local", "dask"):
        raise ValueError(f"--backend must be 'local' or 'dask', got {backend!r}")
    if scheduler and backend != "dask":
        raise ValueError("--scheduler needs --backend dask")
    workers = default_workers() if workers in (None, 0) else _positive_int("--workers", workers)
    simulator = simulator or SIMULATOR
    out = Path(out)

    # every check before the first file: bad input leaves nothing behind
    for spec in specs:
        validate_players_and_rules(spec, simulator)
    check_manifest(out, specs)
    check_writable(out)
    with _dask_client(backend, scheduler, workers) as client:
        for spec in specs:
            for table in ("hands", "wins"):
                partition(out, table, spec.variant).mkdir(parents=True, exist_ok=True)
        remove_stale_tmp(out, specs)
        write_manifest(out, specs, complete={})

        result = RunResult(out, [s.variant for s in specs], backend=backend, workers=workers)
        todo: list[ChunkTask] = []
        for spec in specs:
            for start, count in plan_chunks(spec):
                result.chunks_total += 1
                result.hands_total += count
                if chunk_done(out, spec, start, count):
                    result.chunks_skipped += 1
                    result.hands_skipped += count
                else:
                    todo.append(ChunkTask(spec, start, count, simulator))
        t0 = time.perf_counter()
        try:
            with _progress_bar(progress, console, result) as advance:
                for chunk in _execute(todo, workers, client):
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
        except BaseException:
            remove_stale_tmp(out, specs)   # e.g. a full disk mid-write
            raise
        result.seconds = time.perf_counter() - t0
        write_manifest(out, specs, complete={s.variant: True for s in specs})
    return result


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


def _execute(tasks: list[ChunkTask], workers: int, client) -> Iterator[ChunkResult]:
    """Chunk results in completion order (any order: file names carry the position)."""
    if not tasks:
        return iter(())
    if client is not None:
        return _execute_dask(tasks, client, workers)
    if workers == 1 or len(tasks) == 1:
        _import_arrow()
        return (build_chunk(t) for t in tasks)   # no pool to start for one worker
    return _execute_pool(tasks, min(workers, len(tasks)))


def _init_worker() -> None:
    # Ctrl-C goes to the whole process group: only the driver handles it (and then stops
    # the workers), so workers do not print a traceback each
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _import_arrow()


def _import_arrow() -> None:
    """pyarrow's one-time import (~0.3 s) is worker start-up, not the Parquet cost of a chunk."""
    import pyarrow.parquet  # noqa: F401


def _execute_pool(tasks: list[ChunkTask], workers: int) -> Iterator[ChunkResult]:
    import concurrent.futures as cf
    import multiprocessing

    # "spawn", not fork: the driver runs threads (rich's progress refresh, maybe DuckDB or
    # Dask), and forking a threaded process can deadlock on locks held at fork time. The
    # price is one import of mjsim per worker (under a second), once per run.
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=_init_worker)
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


def _dask_window(client, workers: int) -> int:
    """Chunks in flight: two per worker thread the cluster has now (it may grow)."""
    with contextlib.suppress(Exception):
        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info().get("workers", {}).values())
        return 2 * max(threads, workers, 1)
    return 2 * max(workers, 1)


def _execute_dask(tasks: list[ChunkTask], client, workers: int) -> Iterator[ChunkResult]:
    from distributed import as_completed

    pending = iter(tasks)
    ac = as_completed(client.map(build_chunk, _take(pending, _dask_window(client, workers)), pure=False))
    in_flight = ac.count()
    try:
        for fut in ac:
            result = fut.result()
            fut.release()            # the client holds the result now: free the worker's copy
            in_flight -= 1
            for task in _take(pending, max(1, _dask_window(client, workers) - in_flight)):
                ac.add(client.submit(build_chunk, task, pure=False))
                in_flight += 1
            yield result
    except BaseException:
        with contextlib.suppress(Exception):
            client.cancel(list(ac.futures))
        raise


@contextlib.contextmanager
def _dask_client(backend: str, scheduler: str | None, workers: int):
    """None for the local backend; a connected Client (and maybe a LocalCluster) for Dask."""
    if backend != "dask":
        yield None
        return
    import logging

    from distributed import Client, LocalCluster

    cluster = None
    try:
        if scheduler:
            try:
                client = Client(scheduler, timeout="3s")
            except (OSError, TimeoutError) as e:
                raise OSError(f"cannot reach the Dask scheduler at {scheduler}: {_first_line(e)}") from None
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR)
            client = Client(cluster)
            client.wait_for_workers(workers, timeout=120)
    except ValueError as e:   # a malformed address
        raise ValueError(f"--scheduler {scheduler!r}: {_first_line(e)}") from None
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.close()
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


@contextlib.contextmanager
def _progress_bar(enabled: bool, console, result: RunResult):
    """A rich bar in hands with hands/s and ETA; yields advance(n)."""
    if not enabled:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn,
                               TextColumn, TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class HandsPerSecond(ProgressColumn):
        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.0f} hands/s" if speed else "- hands/s", style="progress.data.speed")

    label = result.variants[0] if len(result.variants) == 1 else f"{len(result.variants)} variants"
    bar = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("hands"), HandsPerSecond(), TimeElapsedColumn(), TextColumn("ETA"),
        TimeRemainingColumn(), console=console or Console(stderr=True), transient=False,
    )
    with bar:
        # hands already on disk start the bar without counting towards the speed
        task = bar.add_task(label, total=result.hands_total, completed=result.hands_skipped)
        yield lambda n: bar.advance(task, n)


def interrupted_message(result: RunResult) -> str:
    return (f"interrupted: {result.chunks_done + result.chunks_skipped} of {result.chunks_total} chunks "
            f"({result.hands_done + result.hands_skipped:,} hands) are complete in {result.out}; "
            f"run the same command again to resume")
