"""Per-process table build: wall time and resident memory of importing mjsim._tables.

    python bench/bench_tables.py             # median of 7 fresh processes
    python bench/bench_tables.py --runs 15

Each run is a fresh Python that imports numpy first (as every mjsim process does), then
times `import mjsim._tables` (the build runs at import) and reads its peak RSS before and
after.  Timings move with the machine's load: compare runs taken side by side.  Measure a
release build.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = """
import json, resource, time
import numpy
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
import mjsim._tables
dt = time.perf_counter() - t
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"s": dt, "rss_mib": (after - before) / 1024}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="fresh processes (default 7)")
    args = ap.parse_args(argv)
    if args.runs < 1:
        raise SystemExit("--runs must be at least 1")
    runs = []
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit("table build failed: " + (out.stderr.strip().splitlines() or ["?"])[-1])
        runs.append(json.loads(out.stdout))
    secs = sorted(r["s"] for r in runs)
    print(f"table build: median {statistics.median(secs):.3f} s (min {secs[0]:.3f}, max {secs[-1]:.3f}, "
          f"{args.runs} processes); memory added {statistics.median(r['rss_mib'] for r in runs):.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
