"""One chunk of hands in a worker: resolve the game loop, simulate in slices (reporting
progress), and encode the three tables to Parquet bytes for the driver to write."""
from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from mjsim.dataset.schema import (PAY_REASONS, WIN_KINDS, encode_parquet, file_metadata, hands_table,
                                  payments_table, wins_table)
from mjsim.run.spec import RunSpec, progress_slice


PROGRESS_SLICE = 2_000


class GameUnavailable(RuntimeError):
    """The game loop module cannot be imported (not built, or being rebuilt)."""


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
_PROGRESS_COUNTER = None   # this process's shared progress counter (set per worker process)


def set_progress_counter(counter) -> None:
    """Where this process's chunks count their hands (None: report by Dask event or not at all)."""
    global _PROGRESS_COUNTER
    _PROGRESS_COUNTER = counter


def _simulate_in_slices(simulate: Callable, spec: RunSpec, start: int, count: int):
    """One chunk's (hands, wins, payments), played in slices of whole sessions, reporting progress
    after each. A hand depends only on its session's earlier hands, so the concatenated
    slices are exactly the rows of one call (the tests compare chunkings row for row)."""
    step = progress_slice(spec.rules, spec.players, PROGRESS_SLICE, spec.session_hands)
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


def _take(it: Iterator, n: int) -> list:
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


