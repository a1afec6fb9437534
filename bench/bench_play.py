"""Cost of one `mjsim.game.play` call from a Python loop (issue 8 item 5).

    python bench/bench_play.py [--hands 2000] [--repeats 5]
    python bench/bench_play.py --instructions [--hands 1000]

Prints the median over repeats of the microseconds per call, for 4x random and 4x greedy
Wanzai, with and without the event log, beside the batch loop's microseconds per hand
(`game.simulate_hands`) on the same hands (seed 1, hands 0..N-1): the difference is what
one call costs on top of playing the hand.  The calls keep their records, as a loop that
inspects hands does, so the figure includes the garbage collector's passes over them.

`--instructions` counts instead, with callgrind: each case runs in a fresh Python playing N
and then 2N calls (or batch hands), and the difference divided by N is the instructions per
call (per hand), so start-up, imports and the table build cancel; the counts do not depend
on the machine's load.  A full pass of the garbage collector (over every object of the
process, millions of instructions) falls inside a window or not: N = 1,000 amortises it (at
N = 300 the same calls counted 251 k or 314 k per call depending on where one fell).
Measure a release build (`python setup.py build_ext --inplace`).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mjsim import Rules
from mjsim.play import game

CHILD = """
import sys
from mjsim import Rules
from mjsim.play import game
rules = Rules.load("wanzai")
players = (sys.argv[1],) * 4
n = int(sys.argv[3])
if sys.argv[2] == "batch":
    game.simulate_hands(rules, 1, 0, 1, players)
    game.simulate_hands(rules, 1, 0, n, players)
else:
    log = sys.argv[2] == "log"
    game.play(rules, 1, 0, players, log=log)          # tables built, game cached
    records = [game.play(rules, 1, i, players, log=log) for i in range(n)]
"""


def per_call_us(fn, n: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(times)


def timings(a) -> None:
    rules = Rules.load("wanzai")
    n = a.hands
    for player in ("random", "greedy"):
        players = (player,) * 4
        game.play(rules, players=players, log=False)         # tables built, game cached
        batch = per_call_us(lambda: game.simulate_hands(rules, 1, 0, n, players), n, a.repeats)
        for log in (False, True):
            us = per_call_us(lambda: [game.play(rules, 1, i, players, log=log) for i in range(n)], n, a.repeats)
            print(f"4x{player:<7} log={log!s:<5}  {us:8.1f} us per play() call   "
                  f"(batch loop {batch:.1f} us per hand)")


def callgrind_total(player: str, mode: str, n: int, workdir: Path) -> int:
    from bench_instructions import callgrind, total

    # the whole process: a play() call is mostly Python, with no one native entry to count in
    return total(callgrind(CHILD, [player, mode, str(n)], None, workdir, f"4x {player} {mode} ({n})"))


def instructions(a) -> None:
    from bench_instructions import debug_build

    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    if debug_build():
        raise SystemExit("mjsim is a debug build (MJSIM_DEBUG=1): rebuild with "
                         "`python setup.py build_ext --inplace` before counting instructions")
    n = a.hands
    with tempfile.TemporaryDirectory() as tmp:
        for player in ("random", "greedy"):
            per = {mode: (callgrind_total(player, mode, 2 * n, Path(tmp)) - callgrind_total(player, mode, n, Path(tmp))) / n
                   for mode in ("batch", "nolog", "log")}
            for mode, log in (("nolog", False), ("log", True)):
                print(f"4x{player:<7} log={log!s:<5}  {per[mode] / 1000:8.1f} k instructions per play() call   "
                      f"(batch loop {per['batch'] / 1000:.1f} k per hand)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=None, help="N calls (default 2000; 1000 with --instructions)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--instructions", action="store_true", help="count instructions with callgrind instead of timing")
    a = ap.parse_args()
    if a.hands is None:
        a.hands = 1000 if a.instructions else 2000
    if a.hands < 1:
        raise SystemExit("--hands must be at least 1")
    (instructions if a.instructions else timings)(a)


if __name__ == "__main__":
    main()
