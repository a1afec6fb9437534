"""Is the shipped ev at the top of its style options?  A random search around them.

    python bench/ev_style_search.py --points 100 --seed 0 --out style_points.jsonl
    python bench/ev_style_search.py --model refit.json --box fold=0..1.2 --box race=0..1.6 ...

Point 0 is the shipped ev; each further point draws every style option in RANGES uniformly
(the others stay as shipped) and is measured as `mjsim arena ev:... --baseline ev_v1` on the
same deals, so the points differ only by their options.  Each point's edge is appended to
`--out` as one JSON line; a run given the same file, seed, deals, rules and baseline skips
the points already there, so an interrupted search loses at most one point.  Printed: the
shipped edge, the best points, and a response surface over all points (statsmodels OLS of
the edge on each option's standardised value and its square; coefficients with their
p-values, and the option's best value where the square's coefficient is negative).
Measure a release build.  Wanzai only: RANGES bracket the Wanzai style.
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from mjsim.players import ev as evplayer
from mjsim.rulesets.rules import Rules
from mjsim.run import arena

#: each option's range, about the shipped Wanzai style (docs/players/ev.md); not `hold`,
#: which stays 0 for a default policy (RULES §1: default policies take every legal win)
RANGES = {"fold": (0.0, 0.5), "race": (0.5, 1.1), "claim": (0.8, 1.0), "value": (0.5, 0.9),
          "mix": (0.4, 0.8), "keep": (0.5, 0.85), "stretch": (0.6, 1.0), "kongs": (0.15, 0.4)}


def shipped_style(game: str) -> dict[str, float]:
    """The shipped ev's value of each option in RANGES for `game`."""
    style = evplayer.load_model(game).get("style", {})
    return {k: float(style.get(k, evplayer.STYLE[k][0])) for k in RANGES}


def point(rs_seed: int, i: int, shipped: dict[str, float], ranges=RANGES) -> dict[str, float]:
    """Point i of the search: 0 is the shipped style; the others are drawn from their own
    stream, so point i does not depend on how many points are asked for."""
    if i == 0:
        return dict(shipped)
    r = random.Random(f"{rs_seed}:{i}")
    return {k: round(r.uniform(lo, hi), 3) for k, (lo, hi) in ranges.items()}


def player_name(pt: dict[str, float], model: str | None = None) -> str:
    return "ev:" + ",".join(f"{k}={v:g}" for k, v in pt.items()) + (f",model={model}" if model else "")


def parse_box(items: list[str]) -> dict[str, tuple[float, float]]:
    """RANGES with `--box KEY=LO..HI` overrides."""
    ranges = dict(RANGES)
    for item in items:
        key, _, span = item.partition("=")
        lo, sep, hi = span.partition("..")
        if key not in RANGES or not sep:
            raise SystemExit(f"--box {item!r}: KEY=LO..HI with KEY one of {', '.join(RANGES)}")
        ranges[key] = (float(lo), float(hi))
    return ranges


def surface(rows: list[dict]) -> list[tuple[str, float, float, float, float, float | None]]:
    """Per option: (name, linear coef, its p, square coef, its p, the best value if the
    square's coefficient is negative, else None), from OLS of the edge on the standardised
    options and their squares."""
    import numpy as np
    import statsmodels.api as sm

    keys = list(RANGES)
    X = np.array([[r["point"][k] for k in keys] for r in rows], dtype=float)
    y = np.array([r["edge"] for r in rows])
    mu, sd = X.mean(axis=0), X.std(axis=0)
    Z = (X - mu) / np.where(sd > 0, sd, 1)
    fit = sm.OLS(y, sm.add_constant(np.column_stack([Z, Z ** 2]))).fit()
    out = []
    for i, k in enumerate(keys):
        b, c = fit.params[1 + i], fit.params[1 + len(keys) + i]
        best = float(mu[i] - b / (2 * c) * sd[i]) if c < 0 else None
        out.append((k, float(b), float(fit.pvalues[1 + i]), float(c),
                    float(fit.pvalues[1 + len(keys) + i]), best))
    return out


def read_done(path: Path, key: dict) -> dict[int, dict]:
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if all(row.get(k) == v for k, v in key.items()):
                done[row["index"]] = row
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=100, help="random points besides the shipped ev")
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0, help="the arena's master seed")
    ap.add_argument("--rs-seed", type=int, default=1, help="seed of the random points")
    ap.add_argument("--baseline", default="ev_v1")
    ap.add_argument("--out", type=Path, default=Path("style_points.jsonl"))
    ap.add_argument("--workers", type=int, default=0, help="processes (0: all cores)")
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--model", help="a model file (mjsim fit-ev) every point plays with, point 0 included")
    ap.add_argument("--box", action="append", default=[], metavar="KEY=LO..HI", help="another range for KEY")
    a = ap.parse_args()
    ranges = parse_box(a.box)
    rules = Rules.load("wanzai")
    key = {"rules": "wanzai", "seed": a.seed, "deals": a.deals, "baseline": a.baseline, "rs_seed": a.rs_seed}
    if a.model or a.box:        # files of the plain search keep their keys
        key.update(model=a.model, box={k: list(v) for k, v in ranges.items()})
    done = read_done(a.out, key)
    shipped = shipped_style("wanzai")
    print(f"wanzai, {a.deals:,} deals x 4 seats, seed {a.seed}; edge of ev:OPTIONS against 3 x {a.baseline}; "
          f"{len(done)} points already in {a.out}")
    for i in range(a.points + 1):
        if i in done:
            continue
        pt = point(a.rs_seed, i, shipped, ranges)
        res = arena.run_arena(rules, player_name(pt, a.model), a.baseline, deals=a.deals, seed=a.seed, workers=a.workers)
        done[i] = {**key, "index": i, "point": pt, "edge": res.edge.mean, "se": res.edge.se}
        with a.out.open("a") as f:
            f.write(json.dumps(done[i]) + "\n")
        print(f"  point {i}: {res.edge.mean:+.4f} (se {res.edge.se:.4f})  {player_name(pt, a.model)}", flush=True)
    rows = [done[i] for i in range(a.points + 1)]
    base = rows[0]["edge"]
    print(f"shipped ev: {base:+.4f} (se {rows[0]['se']:.4f})")
    print(f"best of {a.points} random points (difference from the shipped ev on the same deals):")
    for r in sorted(rows[1:], key=lambda r: -r["edge"])[:a.top]:
        print(f"  {r['edge']:+.4f} ({r['edge'] - base:+.4f})  {player_name(r['point'], a.model)}")
    if len(rows) < 2 * len(RANGES) + 2:
        print(f"response surface: needs at least {2 * len(RANGES) + 2} points")
        return
    print("response surface (OLS of the edge on each standardised option and its square):")
    for k, b, pb, c, pc, best in surface(rows):
        where = f"best at {best:.3f}" if best is not None else "no maximum inside"
        print(f"  {k:8s} linear {b:+.5f} (p {pb:.3f})  square {c:+.5f} (p {pc:.3f})  {where}  (shipped {shipped[k]:g})")


if __name__ == "__main__":
    main()
