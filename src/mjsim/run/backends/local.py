"""The local backend: chunks on a pool of spawned worker processes (or in this process for
one worker), with a shared counter for progress."""
from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator

from mjsim.run.chunks import ChunkResult, ChunkTask, _Counter, _take, build_chunk, set_progress_counter


def _new_counter(workers: int):
    if workers == 1:
        return _Counter()
    import multiprocessing

    return multiprocessing.get_context("spawn").Value("q", 0)


def _init_worker(counter=None) -> None:
    # Ctrl-C goes to the whole process group: only the driver handles it (and then stops
    # the workers), so workers do not print a traceback each
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    set_progress_counter(counter)
    _import_arrow()


def _die_with_parent() -> None:
    """On Linux a worker gets SIGTERM when the driver dies, however it dies (kill -9
    included), so no worker is left computing chunks nobody will collect."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        import multiprocessing

        parent = multiprocessing.parent_process()
        if parent is not None and os.getppid() != parent.pid:   # the driver was already gone
            os._exit(1)


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


#: seconds to wait for a stopped pool's manager thread (it only joins terminated workers)
POOL_MANAGER_JOIN_SECONDS = 10.0


def _stop_pool(pool) -> None:
    """Do not wait for running chunks after Ctrl-C or an error: stop the workers now.

    Then wait for the pool's manager thread to finish closing its wake-up pipe. Before
    Python 3.12 the interpreter's exit hook for process pools checks that pipe and writes to
    it without a lock, so a manager thread closing it at that moment printed "OSError: [Errno
    9] Bad file descriptor" with a traceback after the run had said it was interrupted."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public API before 3.14
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    if manager is not None:
        manager.join(POOL_MANAGER_JOIN_SECONDS)
