"""What a lower deal-in rate costs ev in money (issue 19's tempo target against its edge target).

For each value F of a defence option (`--option`, default `fold`) it runs two duplicate
arenas on the same deals:

- `ev:OPTION=F` against 3 x `--baseline` (ev_v1): its edge, and its own win and deal-in rates;
- `--baseline` against 3 x `ev:OPTION=F`: the all-`ev:OPTION=F` table's win, deal-in and draw
  rates and mean winning turn (the issue's tempo figures), and what the baseline earns there.

    python bench/tempo_frontier.py --deals 20000 --seed 1 --values 0.2,0.5,1,1.5,2,3
    python bench/tempo_frontier.py --deals 20000 --seed 1 --option race --values 0.8,1.5,2,3

Intervals: the arena's deal-clustered 95% interval (statsmodels OLS on a constant, clustered
by deal).  Measure a release build.  The shipped Wanzai ev is fold 0.2 with race 0.8 (its
other options as shipped); each row changes only the option named.
"""
from __future__ import annotations

import argparse

from mjsim.rulesets.rules import Rules
from mjsim.run import arena


def frontier_row(rules: Rules, option: str, value: float, baseline: str, deals: int, seed: int,
                 workers: int) -> dict:
    player = f"ev:{option}={value:g}"
    duel = arena.run_arena(rules, player, baseline, deals=deals, seed=seed, workers=workers)
    table = arena.run_arena(rules, baseline, player, deals=deals, seed=seed, workers=workers)
    mine = table.baseline_stats        # the four seats of the all-`player` table
    return {"value": value, "edge": duel.edge, "seat_win": duel.challenger_stats.win_rate,
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
    ap.add_argument("--option", default="fold", choices=("fold", "race", "keep"),
                    help="the ev option each row sets")
    ap.add_argument("--values", "--folds", dest="values", default="0.2,0.5,1,1.5,2,3,4,5")
    ap.add_argument("--workers", type=int, default=0, help="processes (0: all cores)")
    a = ap.parse_args()
    rules = Rules.load(a.rules)
    values = [float(x) for x in a.values.split(",")]
    print(f"{a.rules}, {a.deals:,} deals x 4 seats, seed {a.seed}; edge against 3 x {a.baseline}; "
          f"table = 4 x ev:{a.option}=F; {a.baseline} there = {a.baseline} against 3 x ev:{a.option}=F")
    print(f"| {a.option} | edge vs 3x baseline | seat win | seat deal-in | table win | table deal-in "
          "| draw rate | winning turn | baseline there |")
    print("|---|---|---|---|---|---|---|---|---|")
    for value in values:
        r = frontier_row(rules, a.option, value, a.baseline, a.deals, a.seed, a.workers)
        print(f"| {value:g} | {r['edge']} | {r['seat_win']:.2%} | {r['seat_deal_in']:.2%} "
              f"| {r['table_win']:.2%} | {r['table_deal_in']:.2%} | {r['table_draws']:.3%} "
              f"| {r['win_turn']:.2f} | {r['exploit'].mean:+.4f} |", flush=True)


if __name__ == "__main__":
    main()
