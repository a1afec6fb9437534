"""The search player's strength and cost (issue 19 item 1's targets).

    python bench/bench_search.py --rules wanzai --deals 600 [--player search] [--timing-hands 200]

Strength: the duplicate arena (mjsim.arena.run_arena, deal-clustered 95% interval) of
PLAYER against 3 x ev on deals 0..DEALS-1 of SEED, in this process (workers=1).
Cost: CPU time (time.process_time, this process only; the machine may be shared, so
wall-clock is not the measure) of TIMING_HANDS hands with PLAYER in seat 0 and ev in the
others, per hand, beside 4 x ev on the same hands.  Measure a release build
(`python setup.py build_ext --inplace`, without MJSIM_DEBUG).
"""
from __future__ import annotations

import argparse
import time

from mjsim.run import arena
from mjsim.play import game
from mjsim.rulesets.rules import Rules


def cpu_per_hand(rules: Rules, players: tuple[str, ...], seed: int, hands: int) -> float:
    game.simulate_chunk(rules, players, seed, 0, 1, 1)        # tables and imports first
    t = time.process_time()
    game.simulate_chunk(rules, players, seed, 0, hands, 1)
    return (time.process_time() - t) / hands


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="wanzai")
    ap.add_argument("--deals", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--player", default="search")
    ap.add_argument("--baseline", default="ev")
    ap.add_argument("--timing-hands", type=int, default=200)
    a = ap.parse_args()
    rules = Rules.load(a.rules)
    if a.timing_hands:
        s = cpu_per_hand(rules, (a.player,) + (a.baseline,) * 3, a.seed + 1, a.timing_hands)
        b = cpu_per_hand(rules, (a.baseline,) * 4, a.seed + 1, a.timing_hands)
        print(f"{a.rules}: {a.player} + 3 x {a.baseline}: {s:.4f} s CPU per hand "
              f"(4 x {a.baseline}: {b:.5f}), {a.timing_hands} hands, seed {a.seed + 1}", flush=True)
    if a.deals:
        t = time.process_time()
        r = arena.run_arena(rules, a.player, a.baseline, deals=a.deals, seed=a.seed, workers=1)
        cpu = time.process_time() - t
        c, base = r.challenger_stats, r.baseline_stats
        print(f"{a.rules}: {a.player} vs 3 x {a.baseline}, {a.deals} deals x 4 seats, seed {a.seed}: "
              f"edge {r.edge} points per seat-hand ({r.method})")
        print(f"  win {c.win_rate:.3f} (baseline {base.win_rate:.3f}), deal-in {c.deal_in_rate:.3f} "
              f"(baseline {base.deal_in_rate:.3f}); arena CPU {cpu:.0f} s")


if __name__ == "__main__":
    main()
