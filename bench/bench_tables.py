"""Per-process tables: wall time and resident memory of importing mjsim._tables, built
(the cache off) and mapped from the per-machine cache.

    python bench/bench_tables.py             # median of 7 fresh processes each way
    python bench/bench_tables.py --runs 15

Each run is a fresh Python that imports numpy first (as every mjsim process does), then
times `import mjsim.core._tables` (the tables are built or mapped at import) and reads its peak
RSS before and after.  The cache runs use a temporary cache directory, filled by one
process before they start.  Mapped pages count in RSS but are shared by every process
that maps the file.  Timings move with the machine's load: compare runs taken side by
side.  Measure a release build.
"""
from __future__ import annotations

import argparse
import json
import statistics
import os
import subprocess
import sys
import tempfile

CHILD = """
import json, resource, time
import numpy
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
import mjsim.core._tables
dt = time.perf_counter() - t
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"s": dt, "rss_mib": (after - before) / 1024, "source": mjsim.core._tables.SOURCE}))
"""


def child(env: dict) -> dict:
    full = {k: v for k, v in os.environ.items() if not k.startswith("MJSIM_")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=full)
    if out.returncode != 0:
        raise SystemExit("table import failed: " + (out.stderr.strip().splitlines() or ["?"])[-1])
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="fresh processes (default 7)")
    args = ap.parse_args(argv)
    if args.runs < 1:
        raise SystemExit("--runs must be at least 1")
    with tempfile.TemporaryDirectory() as cache:
        for label, env, want in (("table build (cache off)", {"MJSIM_TABLE_CACHE": "0"}, "built"),
                                 ("table cache load", {"MJSIM_CACHE_DIR": cache}, "cache")):
            if want == "cache":
                child(dict(env))      # fills the cache
            runs = [child(env) for _ in range(args.runs)]
            if any(r["source"] != want for r in runs):
                raise SystemExit(f"{label}: expected the tables to be {want}, got "
                                 + ", ".join(sorted({r['source'] for r in runs})))
            secs = sorted(r["s"] for r in runs)
            print(f"{label}: median {statistics.median(secs):.3f} s (min {secs[0]:.3f}, "
                  f"max {secs[-1]:.3f}, {args.runs} processes); memory added "
                  f"{statistics.median(r['rss_mib'] for r in runs):.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
