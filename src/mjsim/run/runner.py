"""Millions of seeded hands, in chunks, to a Parquet dataset; a local process pool or Dask.

The files of an output directory and their names: mjsim.dataset.layout.

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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mjsim.dataset.layout import plan_chunks, n_chunks, chunk_in_plan, chunk_name, parse_chunk_name, partition  # noqa: F401
from mjsim.dataset.manifest import check_manifest, read_manifest, write_manifest, environment  # noqa: F401
from mjsim.dataset.schema import (PAY_REASONS, SCHEMA_VERSION, TABLES, WIN_KINDS, encode_parquet,  # noqa: F401
                                  hands_schema, payments_schema, wins_schema)
from mjsim.dataset.layout import decode_variant, encode_variant  # noqa: F401
from mjsim.dataset.storage import (LOCK_NAME, QUARANTINE, check_not_among_other_files, check_writable, chunk_done, directory_lock,  # noqa: F401
                                   first_line, partition_problem, remove_stale_tmp, store_chunk,
                                   verify_existing, write_atomic)
from mjsim.players import ev as evplayer
from mjsim.players import options as player_options
from mjsim.run import chunks
from mjsim.run.backends.dask import DASK_CONNECT_SECONDS, SchedulerLost
from mjsim.run.backends.local import _execute_pool, _import_arrow, _init_worker, _new_counter, _stop_pool  # noqa: F401
from mjsim.run.chunks import (PROGRESS_SLICE, PROGRESS_TOPIC, ChunkResult, ChunkTask, GameUnavailable,  # noqa: F401
                              _Counter, _simulator_module, build_chunk, resolve_simulator)
from mjsim.run.spec import (DEFAULT_CHUNK, DEFAULT_HANDS, DEFAULT_OUT, DEFAULT_PLAYERS,  # noqa: F401
                            DEFAULT_SESSION_HANDS, MAX_CHUNK, MAX_HANDS, MAX_SEED, MAX_SESSION_HANDS, RunSpec,
                            _not_whole_sessions, _positive_int, _split_top_level, eta_seconds_per_hand, grid_variants, make_spec,
                            parse_grid, parse_players, sweep_specs, worker_count)


SIMULATOR = "mjsim.play.game:simulate_chunk"


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run; every completed chunk is on disk. `result` says how far it got."""

    def __init__(self, result: RunResult):
        super().__init__("interrupted")
        self.result = result


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


#: seconds between two plain progress lines when stderr is not a terminal
PROGRESS_EVERY = 10.0


def rate_text(rate: float) -> str:
    """Hands a second for a progress line: whole numbers, but a slow table (search seats
    play a few hands a second) keeps a decimal rather than showing 0."""
    if rate >= 10 or rate == 0:
        return f"{rate:,.0f}"
    return f"{rate:.1f}" if rate >= 1 else f"{rate:.2f}"


def _say(console, line: str) -> None:
    if console is None:
        import sys

        print(line, file=sys.stderr)
    else:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def run(specs: RunSpec | Sequence[RunSpec], out: str | os.PathLike = DEFAULT_OUT, *,
        workers: int | None = None, backend: str = "local", scheduler: str | None = None,
        progress: bool | Callable[[RunProgress], None] = True, console=None, simulator: str | None = None,
        allow_version_mix: bool = False, scheduler_timeout: float = DASK_CONNECT_SECONDS,
        progress_every: float = PROGRESS_EVERY) -> RunResult:
    """Run every chunk of every spec not yet on disk; return what was done.

    Raises ValueError/OSError for bad input before creating anything, RunInterrupted on
    Ctrl-C and RunFailed on an error mid-run (completed chunks stay in both cases), and
    whatever a worker raised otherwise. Holds DIR's lock for the whole run.

    `progress`: True draws a bar on a terminal (plain lines every `progress_every` seconds
    elsewhere), False says nothing, and a callable is called with a RunProgress that often
    and once at the end, from another thread (for a notebook widget or a log).
    """
    # one spec, or any iterable of them; a string or other single value is named below
    specs = [specs] if isinstance(specs, (RunSpec, str)) or not isinstance(specs, Iterable) else list(specs)
    if not specs:
        raise ValueError("nothing to run")
    wrong = next((s for s in specs if not isinstance(s, RunSpec)), None)
    if wrong is not None:
        raise TypeError(f"runner.run takes RunSpecs (runner.make_spec(Rules.load('wanzai'), ...) or "
                        f"runner.sweep_specs), got {type(wrong).__name__} {wrong!r:.60}")
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
    if not (isinstance(progress, (bool, np.bool_)) or callable(progress)):
        raise TypeError(f"progress must be True, False or a callable taking a runner.RunProgress, "
                        f"got {type(progress).__name__} {progress!r:.60}")
    if isinstance(progress_every, (bool, np.bool_)) or not isinstance(progress_every, (int, float, np.integer, np.floating)) \
            or not 0 < progress_every <= 3600:
        raise ValueError(f"progress_every must be 0..3600 seconds, got {progress_every!r}")
    cores = default_workers()
    workers = worker_count(workers, cores)
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
    check_not_among_other_files(out)
    # the cluster before the lock: an unreachable scheduler leaves nothing behind either
    from mjsim.run.backends import dask as dask_backend

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
            with _progress_bar(progress, console, result, counter, progress_every, _work(specs, done)) as advance:
                for chunk in _execute(todo, n_todo, result.workers, client, counter):
                    t = time.perf_counter()
                    store_chunk(out, chunk)
                    result.write_seconds += time.perf_counter() - t
                    result.chunks_done += 1
                    result.hands_done += chunk.task.count
                    result.simulate_seconds += chunk.simulate_seconds
                    result.encode_seconds += chunk.encode_seconds
                    result.wins += chunk.n_wins
                    advance(chunk.task.count, chunk.task.spec.variant)
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


def _work(specs: Sequence[RunSpec], done: dict) -> list[tuple[str, int, float]]:
    """[(variant, hands still to play, seconds a hand of its table)] in the run's order."""
    return [(s.variant, s.hands - sum(done[s.variant].values()), eta_seconds_per_hand(s.rules, s.players))
            for s in specs]


def failed_message(e: OSError, result: RunResult) -> str:
    what = str(e) if isinstance(e, SchedulerLost) else \
        f"{e.strerror or first_line(e)}" + (f" ({e.filename})" if e.filename else "")
    return (f"run stopped: {what}; {result.chunks_done + result.chunks_skipped:,} of {result.chunks_total:,} chunks "
            f"({result.hands_done + result.hands_skipped:,} hands) are complete in {result.out}; "
            f"run the same command again to resume")


def validate_players_and_rules(spec: RunSpec, simulator: str) -> None:
    """Ask the game itself, in this process, before any work: unknown players, a rule set
    it cannot play yet. A zero-hand call is the cheapest complete check of the contract."""
    module = _simulator_module_or_error(simulator)
    known = getattr(module, "PLAYERS", None)
    if known is not None:
        for seat, name in enumerate(spec.players):
            if player_options.split_name(name)[0] not in known:
                raise ValueError(f"unknown player {name!r} for seat {seat} (expected one of {', '.join(known)})")
    resolve_simulator(simulator)(spec.rules, spec.players, spec.seed, 0, 0, spec.session_hands)


def _simulator_module_or_error(simulator: str):
    try:
        return _simulator_module(simulator)
    except ImportError as e:
        raise GameUnavailable(f"the game loop {simulator!r} is not available: {e}") from e


def _execute(tasks: Iterator[ChunkTask], n_tasks: int, workers: int, client, counter=None) -> Iterator[ChunkResult]:
    """Chunk results in completion order (any order: file names carry the position)."""
    if not n_tasks:
        return iter(())
    if client is not None:
        from mjsim.run.backends import dask as dask_backend

        chunks.set_progress_counter(None)   # in-process Dask workers report by event, like remote ones
        if counter is not None:
            dask_backend.follow_progress(client, counter)
        return dask_backend.execute(tasks, client, workers)
    if workers == 1 or n_tasks == 1:
        _import_arrow()
        chunks.set_progress_counter(counter)
        return (build_chunk(t) for t in tasks)   # no pool to start for one worker
    return _execute_pool(tasks, min(workers, n_tasks), counter)


class _Progress:
    """Hands done so far: those stored plus, when workers report them, those played inside
    chunks not yet stored. One definition of the rate (hands done by this run / seconds
    since it started) serves the bar, the plain lines and the final line.

    The time left weighs each variant's hands by what a hand of its table costs
    (`work`: [(variant, hands to do, seconds a hand)], in the order the run plays them), so
    that a run of a fast and a slow population does not promise the slow one at the fast
    one's rate. Hands played but not yet stored count at the cost of the first variant not
    yet stored in full: chunks are handed out in that order."""

    def __init__(self, result: RunResult, counter, work: Sequence[tuple[str, int, float]] = ()):
        self.result, self.counter, self.t0 = result, counter, time.perf_counter()
        self.stored = 0
        self.work = list(work)
        self.stored_of = dict.fromkeys((v for v, _, _ in self.work), 0)

    def advance(self, n: int, variant: str | None = None) -> None:
        self.stored += n
        if variant in self.stored_of:
            self.stored_of[variant] += n

    def hands(self) -> int:
        played = self.counter.value if self.counter is not None else 0
        return self.result.hands_skipped + min(max(self.stored, played), self.result.hands_total)

    def rate(self) -> float:
        elapsed = time.perf_counter() - self.t0
        return (self.hands() - self.result.hands_skipped) / elapsed if elapsed > 0 else 0.0

    def eta(self) -> float | None:
        """Seconds left, or None before anything is done."""
        elapsed = time.perf_counter() - self.t0
        done = self.hands() - self.result.hands_skipped
        left = self.result.hands_total - self.hands()
        if elapsed <= 0 or done <= 0:
            return None
        if len({cost for _, _, cost in self.work}) < 2:
            return left / (done / elapsed)
        total = sum(n * cost for _, n, cost in self.work)
        work_done = sum(self.stored_of[v] * cost for v, _, cost in self.work)
        current = next((cost for v, n, cost in self.work if self.stored_of[v] < n), 0.0)
        work_done += (done - self.stored) * current
        return (total - work_done) / (work_done / elapsed) if work_done > 0 else None

    def line(self, label: str) -> str:
        return progress_line(label, self.hands(), self.result.hands_total, self.rate(), self.eta())


def progress_line(label: str, done: int, total: int, rate: float, eta: float | None = None) -> str:
    """The plain progress line (off a terminal) of a run, an arena or a fit; the time left
    is `eta` seconds, or what is left at `rate` when not given."""
    if eta is None and rate > 0:
        eta = (total - done) / rate
    eta_text = f"{eta:,.0f} s" if eta is not None else "-"
    return (f"{label}: {done:,}/{total:,} hands ({100 * done / max(total, 1):.0f}%), "
            f"{rate_text(rate)} hands/s, ETA {eta_text}")


@contextlib.contextmanager
def periodic_lines(console, line: Callable[[], str], every: float = PROGRESS_EVERY):
    """Progress off a terminal: `line()` printed every `every` seconds from a thread while
    the block runs, and once more when it ends (an interrupt included)."""
    with periodic_calls(lambda: _say(console, line()), every):
        yield


@contextlib.contextmanager
def periodic_calls(call: Callable[[], None], every: float = PROGRESS_EVERY):
    """`call()` every `every` seconds from a thread while the block runs, and once more when
    it ends (an interrupt included)."""
    import threading

    stop = threading.Event()

    def calls():
        while not stop.wait(every):
            call()

    thread = threading.Thread(target=calls, daemon=True, name="mjsim-progress")
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        call()


@dataclass(frozen=True)
class RunProgress:
    """What `runner.run(progress=callback)` hands its callback: hands done (resumed ones
    included) of `total`, this run's rate in hands a second, and the seconds left (None
    before anything is done)."""

    done: int
    total: int
    rate: float
    eta: float | None


@contextlib.contextmanager
def _progress_bar(enabled, console, result: RunResult, counter=None, every: float = PROGRESS_EVERY,
                  work: Sequence[tuple[str, int, float]] = ()):
    """Progress on stderr, or to a callback; yields advance(n, variant) for each stored
    chunk (`work`: see _Progress).

    A terminal gets a rich bar refreshed 4 times a second from the workers' shared hand
    counter (so it moves within chunks); anything else gets a plain line every `every`
    seconds and one at the end.
    """
    if not enabled:
        yield lambda n, variant=None: None
        return
    if callable(enabled):
        state = _Progress(result, counter, work)
        with periodic_calls(lambda: enabled(RunProgress(state.hands(), result.hands_total, state.rate(), state.eta())),
                            every):
            yield state.advance
        return
    import threading

    from rich.console import Console
    from rich.markup import escape

    console = console or Console(stderr=True)
    state = _Progress(result, counter, work)
    label = result.variants[0] if len(result.variants) == 1 else f"{len(result.variants)} variants"
    advance = state.advance
    if not console.is_terminal:
        with periodic_lines(console, lambda: state.line(label), every):
            yield advance
        return

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            eta = state.eta()
            text = f"{rate_text(state.rate())} hands/s ETA " + (f"{int(eta) // 60}:{int(eta) % 60:02d}" if eta is not None else "-")
            return Text(text, style="progress.data.speed")

    bar = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("hands"), Rate(), TimeElapsedColumn(),
        console=console, transient=False, refresh_per_second=4,
    )
    stop = threading.Event()
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
