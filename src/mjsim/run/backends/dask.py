"""The Dask backend of the runner: chunks through ``Client.map`` with a bounded window, a
scheduler probed before connecting (a server that is not Dask is one line, not a hang), and a
lost scheduler turned into one line that keeps the completed chunks.

Dask is an optional extra (``pip install "mjsim[dask]"``); nothing here imports it until a
run asks for ``--backend dask``.
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from mjsim.dataset.storage import first_line
from mjsim.run.chunks import PROGRESS_TOPIC, ChunkResult, ChunkTask, _count_hands, _take, build_chunk


class SchedulerLost(OSError):
    """The Dask scheduler went away during the run."""


#: seconds to wait for a --scheduler to answer like a Dask scheduler
DASK_CONNECT_SECONDS = 5.0


def _dask_window(client, workers: int) -> int:
    """Chunks in flight: two per worker thread the cluster has now (it may grow)."""
    with contextlib.suppress(Exception):
        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info().get("workers", {}).values())
        return 2 * max(threads, workers, 1)
    return 2 * max(workers, 1)


def distributed_module():
    """dask.distributed, an optional extra: one clear line when it is not installed."""
    try:
        import distributed
    except ImportError:
        raise ValueError('--backend dask needs the optional Dask extra: pip install "mjsim[dask]"') from None
    return distributed


def follow_progress(client, counter) -> None:
    """Add the hands workers report (events on PROGRESS_TOPIC, one per slice played) to
    `counter`, so the bar moves within chunks as it does with the process pool."""
    def on_event(event) -> None:
        _, n = event
        _count_hands(counter, int(n))

    with contextlib.suppress(Exception):     # a scheduler without topics: per-chunk progress
        client.subscribe_topic(PROGRESS_TOPIC, on_event)


def execute(tasks: Iterator[ChunkTask], client, workers: int) -> Iterator[ChunkResult]:
    as_completed = distributed_module().as_completed

    pending = iter(tasks)
    ac = as_completed(client.map(build_chunk, _take(pending, _dask_window(client, workers)), pure=False))
    in_flight = ac.count()
    try:
        for fut in ac:
            try:
                result = fut.result()
            except Exception as e:
                if _scheduler_gone(client, e):
                    where = getattr(getattr(client, "scheduler", None), "address", None)
                    raise SchedulerLost(f"lost the Dask scheduler{f' at {where}' if where else ''} "
                                        f"({type(e).__name__})") from None
                raise
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


def _scheduler_gone(client, e: BaseException) -> bool:
    """Is this future's error the scheduler's loss (and not a worker's own exception)?"""
    import asyncio
    import concurrent.futures as cf

    if isinstance(e, (asyncio.CancelledError, cf.CancelledError, OSError, TimeoutError)):
        return True
    if type(e).__name__ in ("FutureCancelledError", "CommClosedError", "StreamClosedError"):
        return True
    return getattr(client, "status", "running") not in ("running", "newly-created")


def probe_dask_scheduler(address: str, timeout: float) -> None:
    """Fail fast, without allocating, when `address` is not a Dask scheduler.

    Connecting a distributed.Client to a server that answers but is not Dask can hang for
    minutes or read a garbage frame length and allocate gigabytes. A Dask scheduler sends
    its handshake as soon as a connection is accepted: on TCP a frame header of 8-byte
    little-endian words (total length and frame count, or frame count and first frame
    length, depending on the version), both small. Read two words within `timeout` and
    check that shape (TLS and other schemes are not probed).
    """
    import socket
    from urllib.parse import urlsplit

    if "://" not in address:
        address = "tcp://" + address
    parts = urlsplit(address)
    if parts.scheme != "tcp":
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError as e:
        raise ValueError(str(e)) from None
    if not host or port is None:
        raise ValueError("expected tcp://host:port")
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            head = b""
            while len(head) < 16:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                data = sock.recv(16 - len(head))
                if not data:
                    break
                head += data
    except TimeoutError:
        raise OSError(f"{address} did not answer like a Dask scheduler within {timeout:g} s "
                      f"(--scheduler-timeout)") from None
    except OSError as e:
        raise OSError(f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None
    words = [int.from_bytes(head[i:i + 8], "little") for i in (0, 8)] if len(head) == 16 else []
    if not words or not all(0 < w < 1 << 24 for w in words) or min(words) > 64:
        raise OSError(f"{address} answers, but not as a Dask scheduler does")


def _connect_client(address: str, timeout: float):
    """distributed.Client(address), waiting at most `timeout` seconds whatever happens."""
    import threading

    from distributed import Client

    box: dict = {}

    def connect():
        try:
            box["client"] = Client(address, timeout=f"{timeout}s")
        except BaseException as e:    # MemoryError included: reported, never raised in a thread
            box["error"] = e

    thread = threading.Thread(target=connect, daemon=True, name="mjsim-dask-connect")
    thread.start()
    thread.join(timeout + 1.0)
    if "client" in box:
        return box["client"]
    e = box.get("error")
    if isinstance(e, ValueError):
        raise ValueError(first_line(e))
    detail = f": {first_line(e)}" if e is not None else f" within {timeout:g} s (--scheduler-timeout)"
    raise OSError(f"cannot connect to the Dask scheduler at {address}{detail}")


class _QuietLogs:
    """Raise every logger under `prefix` to CRITICAL until restore() (Dask sets levels per logger)."""

    def __init__(self, prefix: str):
        import logging

        names = [prefix] + [n for n in logging.root.manager.loggerDict if n.startswith(prefix + ".")]
        self.saved = {n: logging.getLogger(n).level for n in names}
        for n in names:
            logging.getLogger(n).setLevel(logging.CRITICAL)

    def restore(self) -> None:
        import logging

        for n, level in self.saved.items():
            logging.getLogger(n).setLevel(level)


@contextlib.contextmanager
def dask_client(backend: str, scheduler: str | None, workers: int, timeout: float = DASK_CONNECT_SECONDS):
    """None for the local backend; a connected Client (and maybe a LocalCluster) for Dask."""
    if backend != "dask":
        yield None
        return
    import logging

    Client, LocalCluster = distributed_module().Client, distributed_module().LocalCluster

    # distributed logs its own lines (reconnect attempts, closing...) on stderr: the run
    # reports what matters in one line, so keep them quiet while it runs
    quiet = _QuietLogs("distributed")
    cluster = None
    try:
        if scheduler:
            probe_dask_scheduler(scheduler, timeout)
            client = _connect_client(scheduler, timeout)
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR)
            client = Client(cluster)
            client.wait_for_workers(workers, timeout=120)
    except ValueError as e:   # a malformed address
        quiet.restore()
        raise ValueError(f"--scheduler {scheduler!r}: {first_line(e)}") from None
    except BaseException:
        quiet.restore()
        raise
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.close()
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()
        quiet.restore()
