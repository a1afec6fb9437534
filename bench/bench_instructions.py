"""Instructions per hand of game.simulate_chunk, counted by callgrind.

    python bench/bench_instructions.py                    # Wanzai, Anhua x 4x random, 4x greedy
    python bench/bench_instructions.py ev "ev:fold=0.5"   # more players (4 of each)
    python bench/bench_instructions.py --hands 1000 --games anhua

Each case runs in a fresh Python under ``valgrind --tool=callgrind`` twice, playing N and
then 2N hands (seed 0, hands 0.., session_hands 1), with callgrind collecting only inside
the native batch call (``NativeGame.simulate``: the hand loop and the per-hand result
rows); instructions per hand is the difference of the two totals divided by N, so the
call's own set-up cancels too.  Counting only there matters: the interpreter's start-up,
imports and table load vary by up to ~1.5 M instructions from run to run on a loaded
machine, which at N = 300 would move the per-hand figure by thousands.  Instruction counts
do not depend on the machine's load, unlike timings.  The column "rest" is the N-hand run
minus N times the per-hand figure: the call's own set-up, plus the difference between the
first N hands and the next N (so it can be negative).
Measure a release build (``python setup.py build_ext --inplace``, no MJSIM_DEBUG): the
script refuses a debug build.  Nothing is written outside a temporary directory.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import sys
from mjsim import Rules
from mjsim.play import game
rules = Rules.load(sys.argv[1])
players = (sys.argv[2],) * 4
game.simulate_chunk(rules, players, 0, 0, 0, 1)          # validation and first call outside N
game.simulate_chunk(rules, players, 0, 0, int(sys.argv[3]), 1)
"""


def debug_build() -> bool:
    """True if the loaded game extension was compiled without optimisation (MJSIM_DEBUG=1
    builds with -O0): the compiler's producer string (DWARF) keeps the flags, the last
    -O flag wins."""
    import mjsim.core._loop as g

    data = Path(g.__file__).read_bytes()
    flags = [f for p in re.findall(rb"GNU C[^\x00]*", data) for f in re.findall(rb"-O\S*", p)]
    return bool(flags) and flags[-1] == b"-O0"


# Cython's C name of NativeGame.simulate's body (the pw_ wrapper calls it; matching the
# wrapper too would toggle collection off again inside it)
NATIVE_CALL = "__pyx_pf_5mjsim_4core_5_game_*NativeGame_*simulate"


def callgrind(child: str, args: list[str], collect: str | None, workdir: Path, what: str,
              extra: tuple[str, ...] = ()) -> str:
    """The callgrind output of `python -c child *args`, counting only inside the functions
    matching `collect` (and what they call; None: the whole process); a run that fails or
    counts nothing stops the script with a message naming `what`."""
    out = workdir / "callgrind.out"
    cmd = ["valgrind", "--tool=callgrind", *([f"--toggle-collect={collect}"] if collect else []), *extra,
           f"--callgrind-out-file={out}", sys.executable, "-c", child, *args]
    # OpenBLAS's idle worker threads spin for a varying number of instructions (millions per
    # run, several thousand per hand at N = 1,000), and string hashing varies the
    # interpreter's own work: one thread and a fixed hash seed make the counts repeat
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
        raise SystemExit(f"callgrind run failed for {what}:\n{tail}")
    text = out.read_text(errors="replace")
    out.unlink()
    if total(text) == 0:
        raise SystemExit(f"no instructions counted inside {collect or 'the process'} for {what}")
    return text


def total(text: str) -> int:
    """The instruction total of a callgrind output."""
    m = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
    return int(m.group(1)) if m else 0


def instructions(game: str, player: str, hands: int, workdir: Path) -> int:
    return total(callgrind(CHILD, [game, player, str(hands)], NATIVE_CALL, workdir,
                           f"{game} 4x {player} ({hands} hands)"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("players", nargs="*", default=["random", "greedy"],
                    help="player names (each plays 4x); default: random greedy")
    ap.add_argument("--hands", type=int, default=2000, help="N: runs of N and 2N hands (default 2000)")
    ap.add_argument("--games", default="wanzai,anhua", help="comma-separated rule sets (default wanzai,anhua)")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    if args.hands < 1:
        raise SystemExit("--hands must be at least 1")
    if debug_build():
        raise SystemExit("mjsim is a debug build (MJSIM_DEBUG=1): rebuild with "
                         "`python setup.py build_ext --inplace` before counting instructions")
    from mjsim import Rules
    from mjsim.play import game

    games = [g.strip() for g in args.games.split(",") if g.strip()]
    for g in games:       # fail fast, outside valgrind, on a bad game or player
        for p in args.players:
            game.simulate_chunk(Rules.load(g), (p,) * 4, 0, 0, 1, 1)
    n = args.hands
    rows = []
    with tempfile.TemporaryDirectory(prefix="mjsim-callgrind-") as tmp:
        for g in games:
            for p in args.players:
                one = instructions(g, p, n, Path(tmp))
                two = instructions(g, p, 2 * n, Path(tmp))
                rows.append((g, p, (two - one) / n, one - (two - one)))
                print(f"  {g:<7} 4x {p:<16} {rows[-1][2] / 1e3:8.1f} k instructions per hand", file=sys.stderr)
    print(f"instructions per hand inside the native loop (callgrind, ({2 * n} hands - {n} hands) / {n}, "
          f"seed 0, session_hands 1)")
    print(f"{'game':<8} {'players':<20} {'k instr/hand':>12} {'rest (k)':>13}")
    for g, p, per_hand, start in rows:
        print(f"{g:<8} 4x {p:<17} {per_hand / 1e3:>12.1f} {start / 1e3:>13.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
