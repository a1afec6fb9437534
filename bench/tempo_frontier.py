"""What a lower deal-in rate costs ev in money (issue 19's tempo target against its edge target).

For each `fold` weight F it runs two duplicate arenas on the same deals:

- `ev:fold=F` against 3 x `--baseline` (ev_v1): its edge, and its own win and deal-in rates;
- `--baseline` against 3 x `ev:fold=F`: the all-`ev:fold=F` table's win, deal-in and draw
  rates and mean winning turn (the issue's tempo figures), and what the baseline earns there.

    python bench/tempo_frontier.py --deals 20000 --seed 1 --folds 1,1.5,2,2.5,3,4,5

Intervals: the arena's deal-clustered 95% interval (statsmodels OLS on a constant, clustered
by deal).  Measure a release build.  The shipped ev is fold 1 (its other options as shipped).
"""
from __future__ import annotations

import argparse

from mjsim.rulesets.rules import Rules
from mjsim.run import arena


def frontier_row(rules: Rules, fold: float, baseline: str, deals: int, seed: int, workers: int) -> dict:
    player = f"ev:fold={fold:g}"
    duel = arena.run_arena(rules, player, baseline, deals=deals, seed=seed, workers=workers)
    table = arena.run_arena(rules, baseline, player, deals=deals, seed=seed, workers=workers)
    mine = table.baseline_stats        # the four ev:fold=F seats of the all-ev:fold=F table
    return {"fold": fold, "edge": duel.edge, "seat_win": duel.challenger_stats.win_rate,
            "seat_deal_in": duel.challenger_stats.deal_in_rate,
            "table_win": mine.win_rate, "table_deal_in": mine.deal_in_rate,
            "table_draws": table.tables[f"4x {table.baseline}"]["draw_rate"],
            "win_turn": mine.win_turn, "exploit": table.edge}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="wanzai")
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline", default="ev_v1")
    ap.add_argument("--folds", default="1,1.5,2,2.5,3,4,5")
    ap.add_argument("--workers", type=int, default=0, help="processes (0: all cores)")
    a = ap.parse_args()
    rules = Rules.load(a.rules)
    folds = [float(x) for x in a.folds.split(",")]
    print(f"{a.rules}, {a.deals:,} deals x 4 seats, seed {a.seed}; edge against 3 x {a.baseline}; "
          f"table = 4 x ev:fold=F; {a.baseline} there = {a.baseline} against 3 x ev:fold=F")
    print("| fold | edge vs 3x baseline | seat win | seat deal-in | table win | table deal-in "
          "| draw rate | winning turn | baseline there |")
    print("|---|---|---|---|---|---|---|---|---|")
    for fold in folds:
        r = frontier_row(rules, fold, a.baseline, a.deals, a.seed, a.workers)
        print(f"| {fold:g} | {r['edge']} | {r['seat_win']:.2%} | {r['seat_deal_in']:.2%} "
              f"| {r['table_win']:.2%} | {r['table_deal_in']:.2%} | {r['table_draws']:.3%} "
              f"| {r['win_turn']:.2f} | {r['exploit'].mean:+.4f} |", flush=True)


if __name__ == "__main__":
    main()
