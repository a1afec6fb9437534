"""Refit ev's Wanzai danger model (tenpai and wait logistics) on ev's own tables, round after
round, until the coefficients settle (issue 19: "a danger model fitted on the tables it meets").

Round r plays `--hands` hands of 4 x ev with model r (round 0: the shipped model, or --model),
fits evfit's danger logistics on every seat's view of every opponent (statsmodels Logit,
maximum likelihood), and writes model r + 1 = model r with the new `tenpai` and `wait`.  It
prints, per round, how far the new fit's predictions moved from the old model's on the
round's rows (mean |change| of P(ready) and of P(wins on a held kind | ready)), the largest
change of a coefficient, and the observed rates against the old model's mean prediction (its
calibration on the tables it met).  Refit the same round on a second --seed to see the noise.

    python bench/refit_danger.py --rounds 3 --hands 20000 --out /tmp/refit

writes /tmp/refit/round1.json, round2.json, ...; judge each in the arena:

    mjsim arena ev:model=/tmp/refit/round2.json --baseline ev --deals 20000 --seed 0
"""
from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from mjsim.rulesets.rules import Rules
from mjsim.run import evfit

SHIPPED = Path(evfit.__file__).resolve().parents[1] / "data" / "ev_model.json"


def _rows(args):
    """Danger rows of hands [start, stop) of 4 x ev with the model at `model`, every seat."""
    model, seed, start, stop = args
    return evfit.danger_rows(Rules.load("wanzai"), [f"ev:model={model}"] * 4, seed, start, stop)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-z))


def refit(model: Path, old: dict, hands: int, seed: int, workers: int) -> tuple[dict, dict]:
    step = 500
    jobs = [(str(model), seed, a, min(a + step, hands)) for a in range(0, hands, step)]
    parts = [[], [], [], []]
    with ProcessPoolExecutor(workers) as pool:
        for got in pool.map(_rows, jobs):
            for acc, a in zip(parts, got):
                acc.append(a)
    tx, ty, wx, wy = (np.concatenate(p) for p in parts)
    ten, wait = evfit._logit(tx, ty), evfit._logit(wx, wy)
    # the live wall and the discards made move together, so single coefficients wander
    # while the predictions hold: settling is judged on the predictions
    ready_new, ready_old = _sigmoid(tx @ ten), _sigmoid(tx @ np.array(old["tenpai"]))
    wait_new, wait_old = _sigmoid(wx @ wait), _sigmoid(wx @ np.array(old["wait"]))
    facts = {"tenpai_samples": len(ty), "wait_samples": len(wy),
             "ready_observed": float(ty.mean()), "wait_observed": float(wy.mean()),
             "ready_old": float(ready_old.mean()), "wait_old": float(wait_old.mean()),
             "ready_shift": float(np.abs(ready_new - ready_old).mean()),
             "wait_shift": float(np.abs(wait_new - wait_old).mean())}
    return {"tenpai": [round(float(x), 5) for x in ten], "wait": [round(float(x), 5) for x in wait]}, facts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--model", type=Path, default=SHIPPED, help="round 0's model file")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    current = a.model
    for r in range(1, a.rounds + 1):
        t0 = time.time()
        full = json.loads(current.read_text())
        old = full["wanzai"]
        new, facts = refit(current, old, a.hands, a.seed, a.workers)
        d_ten = max(abs(x - y) for x, y in zip(new["tenpai"], old["tenpai"]))
        d_wait = max(abs(x - y) for x, y in zip(new["wait"], old["wait"]))
        entry = dict(old, **new)
        entry["danger_fitted_on"] = {"players": ["ev"] * 4, "opponents": ["ev"], "hands": a.hands,
                                     "seed": a.seed, "round": r, "from": str(current),
                                     "tenpai_samples": facts["tenpai_samples"],
                                     "wait_samples": facts["wait_samples"]}
        full["wanzai"] = entry
        current = a.out / f"round{r}.json"
        current.write_text(json.dumps(full, indent=1, ensure_ascii=False) + "\n")
        print(f"round {r}: {time.time() - t0:.0f} s; mean |change| of predicted P(ready) "
              f"{facts['ready_shift']:.4f}, P(wait) {facts['wait_shift']:.4f}; largest coefficient change "
              f"tenpai {d_ten:.3f}, wait {d_wait:.3f}; P(ready) observed {facts['ready_observed']:.4f} "
              f"(old model {facts['ready_old']:.4f}), P(wait) observed {facts['wait_observed']:.4f} "
              f"(old model {facts['wait_old']:.4f}) -> {current}", flush=True)
        print("  tenpai", new["tenpai"], flush=True)


if __name__ == "__main__":
    main()
