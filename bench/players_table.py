"""The pattern frequencies, deal-in, draw rate and winning turn of four copies of each player,
with 95% intervals, as docs/players/index.md shows them (Wanzai, default rules, seed 0):

    mjsim simulate --players greedy --hands 400000 --out pt_greedy
    mjsim simulate --players ev --hands 400000 --out pt_ev
    mjsim simulate --players search --hands 8000 --chunk 1008 --out pt_search
    python bench/players_table.py greedy=pt_greedy ev=pt_ev search=pt_search

Rates: Wilson score intervals on the session-clustered effective sample size (mjsim.stats);
deal-in: the mean over hands of (seats that dealt in) / 4, 95% interval from statsmodels OLS
on a constant with cov_type='cluster' by session; winning turn: t on the session-clustered
standard error.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import statsmodels.api as sm

from mjsim.analysis import stats


def pct(r) -> str:
    lo, hi = r.ci
    return f"{100 * r.freq:.3g} [{100 * lo:.3g}, {100 * hi:.3g}]"


def deal_in(root: str) -> str:
    h = pd.read_parquet(f"{root}/hands", columns=["hand_index", "session"])
    w = pd.read_parquet(f"{root}/wins", columns=["hand_index", "discarder"])
    dealt = w[w.discarder >= 0].groupby("hand_index").discarder.nunique()
    y = h.hand_index.map(dealt).fillna(0).to_numpy() / 4.0
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": h.session.to_numpy()}, use_t=True)
    lo, hi = fit.conf_int()[0]
    return f"{100 * fit.params[0]:.3g} [{100 * lo:.3g}, {100 * hi:.3g}]"


def row(name: str, root: str) -> list[str]:
    s = stats.variant_stats(root)
    rates = {r.key: r for r in s.rates}
    turn = {m.key: m for m in s.means}[("win", "winning turn")]
    lo, hi = turn.ci
    return ([name, f"{s.hands:,}"] + [pct(rates["pattern", p]) for p in ("daqidui", "quanqiuren")]
            + [pct(rates["property", "qingyise"])] + [pct(rates["pattern", p]) for p in ("shisanlan", "qixiaodui")]
            + [deal_in(root), pct(rates["outcome", "draw"]), f"{turn.mean:.2f} [{lo:.2f}, {hi:.2f}]"])


def main(argv: list[str]) -> None:
    if not argv or any("=" not in a for a in argv):
        sys.exit("usage: python bench/players_table.py NAME=DATASET [NAME=DATASET ...]")
    head = ["players (4x)", "hands", "大七對 %", "全求人 %", "清一色 (property) %", "十三爛 %", "七小對 %",
            "deal-in % of seat-hands", "draw %", "winning turn"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for arg in argv:
        name, root = arg.split("=", 1)
        print("| " + " | ".join(row(name, root)) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
