"""Instructions per row of the batch API (evaluate_batch, shanten_batch), counted by callgrind.

    python bench/bench_batch_instructions.py                 # the 4 batch cases + the row check alone
    python bench/bench_batch_instructions.py --rows 5000 --cases wanzai-evaluate

The rows are bench/bench_evaluate.py's samples (bench/hands.py: random concealed hands
drawn from a shuffled wall; Anhua with the indicator 5m turned up, so wilds 5m and 6m),
written once to a temporary .npy file that every child loads whole.  Each case runs in a
fresh Python under ``valgrind --tool=callgrind`` twice, on the first N and then the first
2N rows, collecting only inside the batch call (as bench_instructions.py does inside the
hand loop: the interpreter's start-up is not exactly the same from run to run);
instructions per row is the difference of the two totals divided by N, so the call's own
set-up cancels.  The same
difference is taken of the instructions spent inside `_eval.evaluate` / `_eval.shanten`
(callgrind's inclusive cost of their calls), so "outside" is what the batch wrapper adds
per row: the loop, storing results and validating the row.  The case `check` runs the
row check alone (`_core.find_bad_row`, the pass the error path uses).  As in
bench_instructions.py the children run with one OpenBLAS thread and a fixed hash seed, and
the script refuses a debug build.  Nothing is written outside a temporary directory.
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_instructions import callgrind, debug_build, total  # noqa: E402
from hands import random_hands  # noqa: E402

# (game, function, sample) -> the callgrind symbol of the per-row native call
CASES = {
    "wanzai-evaluate": ("wanzai", "evaluate", "wanzai14"),
    "wanzai-shanten": ("wanzai", "shanten", "wanzai13"),
    "anhua-evaluate": ("anhua", "evaluate", "anhua14"),
    "anhua-shanten": ("anhua", "shanten", "anhua14"),
    "wanzai-check": ("wanzai", "check", "wanzai14"),
    "anhua-check": ("anhua", "check", "anhua14"),
}
WILD = "5m"
INDICATOR = 4
INNER = {"evaluate": "__pyx_f_5mjsim_4core_5_eval_evaluate", "shanten": "__pyx_f_5mjsim_4core_5_eval_shanten"}
# the batch calls' C names (Cython's pw_ wrappers: their bodies are inlined into them)
OUTER = {"evaluate": "__pyx_pw_5mjsim_5_core_*evaluate_batch", "shanten": "__pyx_pw_5mjsim_5_core_*shanten_batch",
         "check": "__pyx_pw_5mjsim_5_core_*find_bad_row"}

CHILD = """
import sys
import numpy as np
import mjsim
from mjsim import Rules, _core
game, what, path, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rules = Rules.load(game)
rows = np.load(path)
wild = "5m" if game == "anhua" else None
if what == "evaluate":
    call = lambda a: mjsim.evaluate_batch(rules, a, wild=wild)
elif what == "shanten":
    call = lambda a: mjsim.shanten_batch(rules, a, wild=wild)
else:
    call = lambda a: _core.find_bad_row(a, 14, 14, 34 if game == "wanzai" else 27, -1 if wild is None else 4)
call(rows[:1])             # the config, the tables and the first call outside N
call(rows[:n])
"""


def samples(rows: int) -> dict[str, np.ndarray]:
    """bench_evaluate.py's generators and seeds, 2N rows each."""
    return {
        "wanzai14": random_hands(rows, 34, 14),
        "wanzai13": random_hands(rows, 34, 13, seed=3),
        "anhua14": random_hands(rows, 27, 14, seed=2, turned_up=INDICATOR),
    }


def inclusive(text: str, symbol: str) -> int:
    """Sum of the inclusive costs callgrind records for the calls to `symbol`.

    A call is a `cfn=` line naming the callee (by name, or by the id a name was first given
    with), a `calls=` line, then the call's cost line `<position> <Ir>`.
    """
    names: dict[str, str] = {}
    total = 0
    lines = text.splitlines()
    callee = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"c?fn=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(2) is not None:
                names[m.group(1)] = m.group(2)
            if line.startswith("cfn="):
                callee = names.get(m.group(1))
        elif line.startswith("calls=") and i + 1 < len(lines):
            if callee == symbol:
                total += int(lines[i + 1].split()[1])
            i += 1
        i += 1
    return total


def run(game: str, what: str, path: Path, rows: int, workdir: Path) -> tuple[int, int]:
    """(instructions inside the batch call, of those inside the per-row native call) of one
    child."""
    text = callgrind(CHILD, [game, what, str(path), str(rows)], OUTER[what], workdir,
                     f"{game} {what} ({rows} rows)", ("--compress-pos=no",))
    return total(text), inclusive(text, INNER[what]) if what in INNER else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20_000, help="N: runs of N and 2N rows (default 20000)")
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    args = ap.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    bad = [c for c in cases if c not in CASES]
    if bad:
        raise SystemExit(f"unknown case {bad[0]!r} (expected one of {', '.join(CASES)})")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    if args.rows < 1:
        raise SystemExit("--rows must be at least 1")
    if debug_build():
        raise SystemExit("mjsim is a debug build (MJSIM_DEBUG=1): rebuild with "
                         "`python setup.py build_ext --inplace` before counting instructions")
    n = args.rows
    results = []
    with tempfile.TemporaryDirectory(prefix="mjsim-callgrind-") as tmp:
        paths = {}
        for name, arr in samples(2 * n).items():
            paths[name] = Path(tmp) / f"{name}.npy"
            np.save(paths[name], arr)
        for case in cases:
            game, what, sample = CASES[case]
            one, in_one = run(game, what, paths[sample], n, Path(tmp))
            two, in_two = run(game, what, paths[sample], 2 * n, Path(tmp))
            per_row, inside = (two - one) / n, (in_two - in_one) / n
            results.append((case, per_row, inside))
            print(f"  {case:<16} {per_row:8.1f} instructions per row", file=sys.stderr)
    print(f"instructions per row (callgrind, ({2 * n} rows - {n} rows) / {n}; bench/hands.py samples, "
          f"Anhua wild {WILD})")
    print(f"{'case':<17} {'per row':>9} {'in _eval':>9} {'outside':>9}")
    for case, per_row, inside in results:
        if CASES[case][1] in INNER:
            print(f"{case:<17} {per_row:>9.1f} {inside:>9.1f} {per_row - inside:>9.1f}")
        else:
            print(f"{case:<17} {per_row:>9.1f} {'':>9} {per_row:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
