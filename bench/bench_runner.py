"""End to end: N seeded Wanzai hands, greedy players, all cores, Parquet included.

Greedy, not the default ev, so that the game loop stays light and the runner's own cost
(Arrow, Parquet, the pool) shows; `--players ev` measures the default player's run.

    python bench/bench_runner.py                      # 1,000,000 hands (the issue's figure)
    python bench/bench_runner.py --hands 10000000     # the memory bound (peak RSS < 1 GiB)
    pytest bench/bench_runner.py --benchmark-only     # MJSIM_BENCH_HANDS hands (default 200,000)

Reports wall time, hands/s, the share of worker time spent turning a chunk into Arrow
columns and Parquet bytes plus the driver's file writes (goal: under 10 %), and the peak
resident memory of the whole process tree (driver + workers), sampled every 50 ms with
psutil (the sum of the processes' RSS, so shared pages count more than once: an upper bound).
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

# mjsim is the installed package (`pip install .` or `pip install -e .`): putting src/ on
# sys.path would shadow it with a source tree that has no built extension
import mjsim
from mjsim.run import runner

GOAL_SECONDS = 60.0          # 1,000,000 hands on the 2-core machine
GOAL_PARQUET_SHARE = 0.10
GOAL_PEAK_BYTES = 1 << 30    # 1 GiB


class PeakRSS:
    """Peak summed RSS of this process and all its descendants, sampled in a thread."""

    def __init__(self, interval: float = 0.05):
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> int:
        import psutil

        me = psutil.Process()
        total = 0
        for p in [me, *me.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:   # a worker that just exited
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._sample())


def bench(hands: int, workers: int | None = None, chunk: int | None = None, simulator: str | None = None,
          out: str | None = None, progress: bool = True, players: str = "greedy") -> dict:
    spec = runner.make_spec(mjsim.Rules.load("wanzai"), hands=hands, chunk=chunk, seed=12345, players=players)
    tmp = Path(out) if out else Path(tempfile.mkdtemp(prefix="mjsim-bench-"))
    try:
        t0 = time.perf_counter()
        with PeakRSS() as rss:
            result = runner.run(spec, tmp / "data", workers=workers, progress=progress, simulator=simulator)
        wall = time.perf_counter() - t0
        size = sum(f.stat().st_size for f in (tmp / "data").rglob("*.parquet"))
    finally:
        if not out:
            shutil.rmtree(tmp, ignore_errors=True)
    worker_time = result.simulate_seconds + result.encode_seconds
    return {
        "hands": hands,
        "players": ",".join(spec.players),
        "workers": result.workers,
        "chunk": spec.chunk,
        "wall_s": wall,
        "hands_per_s": hands / wall,
        "simulate_cpu_s": result.simulate_seconds,
        "parquet_cpu_s": result.encode_seconds + result.write_seconds,
        "parquet_share": (result.encode_seconds + result.write_seconds) / worker_time if worker_time else 0.0,
        "peak_rss_mib": rss.peak / 2**20,
        "dataset_mib": size / 2**20,
        "bytes_per_hand": size / hands,
    }


def show(r: dict) -> str:
    lines = [
        f"hands              {r['hands']:,} ({r['players']}; {r['workers']} workers, chunk {r['chunk']:,})",
        f"wall time          {r['wall_s']:.1f} s   (goal for 1,000,000 hands: < {GOAL_SECONDS:.0f} s)",
        f"throughput         {r['hands_per_s']:,.0f} hands/s",
        f"game loop          {r['simulate_cpu_s']:.1f} s of worker time",
        f"Arrow + Parquet    {r['parquet_cpu_s']:.1f} s = {100 * r['parquet_share']:.1f}% of worker time (goal < 10%)",
        f"peak RSS, all      {r['peak_rss_mib']:,.0f} MiB (goal < 1024 MiB)",
        f"dataset            {r['dataset_mib']:,.1f} MiB ({r['bytes_per_hand']:.1f} bytes per hand)",
    ]
    return "\n".join(lines)


def test_runner_end_to_end(benchmark):
    hands = int(os.environ.get("MJSIM_BENCH_HANDS", 200_000))
    result = benchmark.pedantic(bench, args=(hands,), kwargs={"progress": False}, rounds=1, iterations=1)
    benchmark.extra_info.update({k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()})
    print("\n" + show(result))
    assert result["parquet_share"] < GOAL_PARQUET_SHARE
    assert result["peak_rss_mib"] * 2**20 < GOAL_PEAK_BYTES


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--chunk", type=int, default=None)
    ap.add_argument("--simulator", default=None, help="module:function (e.g. fake_game:simulate_chunk with tests/ on PYTHONPATH)")
    ap.add_argument("--out", default=None, help="keep the dataset here (default: a temporary directory)")
    ap.add_argument("--players", default="greedy", help="as simulate's --players (default greedy, see above)")
    args = ap.parse_args()
    print(show(bench(args.hands, args.workers, args.chunk, args.simulator, args.out, players=args.players)))
