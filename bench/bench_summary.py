"""Summaries of large datasets: wall time, CPU time and peak memory (median of 3).

    python bench/bench_summary.py simulate                # mjsim simulate --hands 1000000 --players greedy
    python bench/bench_summary.py report                  # mjsim report on 5,000,000 one-hand sessions
    python bench/bench_summary.py summary                 # the summary of a 10,000,000-hand greedy dataset,
                                                          # and how it grows from 1M to 10M hands
    python bench/bench_summary.py summary --hands 2000000 # smaller

Each timed command runs in a fresh process (`python -m mjsim.cli ...`, the installed
package), so imports count as a user sees them. Peak resident memory is the child's
(getrusage RUSAGE_CHILDREN of one run). CPU time (user + system) does not move with the
machine's load the way wall time does; both are given. Datasets are built once under
--data (default a temporary directory) and kept with --keep.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# mjsim is the installed package: putting src/ on sys.path would shadow it with a source tree
# that has no built extension
import mjsim  # noqa: F401

GOALS = {"simulate": 15.0, "report": 60.0, "summary": 30.0}
REPORT_PEAK_GOAL = 1.5e9


def run_timed(argv: list[str]) -> dict:
    """Run one command in a child process: wall, CPU and peak RSS of that child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of children is the largest of any child so far: run peak-sensitive cases first
    return {"wall": wall, "cpu": cpu, "peak_rss": after.ru_maxrss * 1024}


def mjsim_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "mjsim.cli", *args]


def build(out: Path, hands: int, players: str, session_hands: int) -> None:
    if (out / "manifest.json").exists():
        return
    print(f"building {out} ({hands:,} hands, {players}, sessions of {session_hands})", flush=True)
    subprocess.run(mjsim_cmd("simulate", "--hands", str(hands), "--players", players, "--session-hands",
                             str(session_hands), "--out", str(out), "--no-progress"),
                   check=True, capture_output=True)


def prefix(full: Path, dest: Path, hands: int) -> Path:
    """A dataset of the first `hands` hands of `full` (symbolic links to its chunk files)."""
    from mjsim.dataset.layout import parse_chunk_name

    if dest.exists():
        shutil.rmtree(dest)
    for table_dir in (full / t for t in ("hands", "wins", "payments")):
        for part in table_dir.iterdir():
            target = dest / table_dir.name / part.name
            target.mkdir(parents=True)
            for f in part.glob("*.parquet"):
                _, start, count = parse_chunk_name(f.name)
                if start + count <= hands:
                    (target / f.name).symlink_to(f)
    shutil.copy(full / "manifest.json", dest / "manifest.json")
    return dest


SUMMARY_SCRIPT = ("import sys; from mjsim import stats; "
                  "print(stats.summarize_all(sys.argv[1])[0].hands)")


def case_simulate(data: Path, hands: int, repeat: int) -> list[dict]:
    runs = []
    for i in range(repeat):
        out = data / f"simulate-{i}"
        shutil.rmtree(out, ignore_errors=True)
        runs.append(run_timed(mjsim_cmd("simulate", "--hands", str(hands), "--players", "greedy", "--out", str(out),
                                        "--no-progress")))
        shutil.rmtree(out, ignore_errors=True)
    return runs


def case_report(data: Path, hands: int, repeat: int) -> list[dict]:
    out = data / f"random-1-{hands}"
    build(out, hands, "random", 1)
    return [run_timed(mjsim_cmd("report", str(out), "--no-html")) for _ in range(repeat)]


def case_summary(data: Path, hands: int, repeat: int) -> tuple[list[dict], list[tuple[int, float, float]]]:
    out = data / f"greedy-16-{hands}"
    build(out, hands, "greedy", 16)
    runs = [run_timed([sys.executable, "-c", SUMMARY_SCRIPT, str(out)]) for _ in range(repeat)]
    growth = []
    for n in sorted({hands // 10, hands // 5, hands // 2}):
        if n >= 20_000:
            sub = prefix(out, data / f"prefix-{n}", n)
            one = [run_timed([sys.executable, "-c", SUMMARY_SCRIPT, str(sub)]) for _ in range(repeat)]
            growth.append((n, statistics.median(r["wall"] for r in one), statistics.median(r["cpu"] for r in one)))
            shutil.rmtree(sub)
    growth.append((hands, statistics.median(r["wall"] for r in runs), statistics.median(r["cpu"] for r in runs)))
    return runs, growth


def describe(name: str, runs: list[dict]) -> dict:
    wall = statistics.median(r["wall"] for r in runs)
    cpu = statistics.median(r["cpu"] for r in runs)
    peak = max(r["peak_rss"] for r in runs)
    walls = ", ".join(f"{r['wall']:.1f}" for r in runs)
    print(f"{name}: median wall {wall:.1f} s (runs {walls}), "
          f"median CPU {cpu:.1f} s, peak RSS {peak / 2**20:,.0f} MiB; goal <= {GOALS[name]:.0f} s")
    return {"case": name, "wall_median": wall, "cpu_median": cpu, "peak_rss": peak, "runs": runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", choices=["simulate", "report", "summary"])
    ap.add_argument("--hands", type=int, help="default: 1M (simulate), 5M (report), 10M (summary)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data", type=Path, help="where datasets are built (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the datasets")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    hands = args.hands or {"simulate": 1_000_000, "report": 5_000_000, "summary": 10_000_000}[args.case]
    data = args.data or Path(tempfile.mkdtemp(prefix="mjsim-bench-summary-"))
    data.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} cores; {hands:,} hands; data in {data}", flush=True)
    try:
        if args.case == "simulate":
            result = describe("simulate", case_simulate(data, hands, args.repeat))
        elif args.case == "report":
            result = describe("report", case_report(data, hands, args.repeat))
            print(f"report peak RSS goal <= {REPORT_PEAK_GOAL / 1e9:.1f} GB: "
                  f"{'met' if result['peak_rss'] <= REPORT_PEAK_GOAL else 'MISSED'}")
        else:
            runs, growth = case_summary(data, hands, args.repeat)
            result = describe("summary", runs)
            print("growth (hands, median wall s, median CPU s): "
                  + "; ".join(f"{n:,}: {w:.1f} / {c:.1f}" for n, w, c in growth))
            result["growth"] = growth
        if args.json:
            args.json.write_text(json.dumps(result, indent=2))
    finally:
        if not args.keep and args.data is None:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
