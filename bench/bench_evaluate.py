"""Evaluator throughput, and peer packages on the same hands in the same process.

Run: pytest bench/bench_evaluate.py --benchmark-only
Each benchmark processes N hands per round; hands/s = N / median. test_peer_ratios prints
the side-by-side table (riichi rules differ from ours: the figure is work per hand).
"""
import time

import numpy as np
import pytest

import mjsim
from hands import random_hands, tile_ids_136

N = 200_000
N_PEER = 20_000
W = mjsim.Rules.load("wanzai")
A = mjsim.Rules.load("anhua")
WANZAI = random_hands(N, 34, 14)
ANHUA = random_hands(N, 27, 14, seed=2, turned_up=4)  # indicator 5m: wilds 5m and 6m
WANZAI13 = random_hands(N, 34, 13, seed=3)


def per_second(benchmark, n):
    benchmark.extra_info["hands_per_s_median"] = round(n / benchmark.stats.stats.median)


@pytest.mark.benchmark(group="win detection")
def test_wanzai_win_batch(benchmark):
    benchmark(mjsim.evaluate_batch, W, WANZAI)
    per_second(benchmark, N)


@pytest.mark.benchmark(group="win detection")
def test_anhua_win_batch_with_wilds(benchmark):
    benchmark(mjsim.evaluate_batch, A, ANHUA, wild="5m")
    per_second(benchmark, N)


@pytest.mark.benchmark(group="shanten")
def test_wanzai_shanten_batch(benchmark):
    benchmark(mjsim.shanten_batch, W, WANZAI13)
    per_second(benchmark, N)


@pytest.mark.benchmark(group="shanten")
def test_anhua_shanten_batch(benchmark):
    benchmark(mjsim.shanten_batch, A, ANHUA, wild="5m")
    per_second(benchmark, N)


def _median_rate(fn, n, rounds=5):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return n / float(np.median(times))


def test_peer_ratios(benchmark, capsys):
    """mjsim vs `mahjong` and `riichienv` on the same random hands, same process."""
    mahjong = pytest.importorskip("mahjong")
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    riichienv = pytest.importorskip("riichienv")
    del mahjong
    hands14 = WANZAI[:N_PEER]
    hands13 = WANZAI13[:N_PEER]
    lists14 = [list(map(int, h)) for h in hands14]
    lists13 = [list(map(int, h)) for h in hands13]
    ids13 = tile_ids_136(hands13)
    agari, shanten = Agari(), Shanten()
    rates = {
        "mjsim win (Wanzai)": _median_rate(lambda: mjsim.evaluate_batch(W, hands14), N_PEER),
        "mahjong Agari.is_agari": _median_rate(lambda: [agari.is_agari(h) for h in lists14], N_PEER, 3),
        "mjsim shanten (Wanzai, all forms)": _median_rate(lambda: mjsim.shanten_batch(W, hands13), N_PEER),
        "mahjong Shanten.calculate_shanten": _median_rate(lambda: [shanten.calculate_shanten(h) for h in lists13], N_PEER, 3),
        "riichienv calculate_shanten": _median_rate(lambda: [riichienv.calculate_shanten(h) for h in ids13], N_PEER, 3),
    }
    benchmark.extra_info.update({k: round(v) for k, v in rates.items()})
    benchmark.extra_info["win_ratio_vs_mahjong"] = rates["mjsim win (Wanzai)"] / rates["mahjong Agari.is_agari"]
    benchmark.extra_info["shanten_ratio_vs_mahjong"] = (
        rates["mjsim shanten (Wanzai, all forms)"] / rates["mahjong Shanten.calculate_shanten"]
    )
    benchmark.extra_info["shanten_ratio_vs_riichienv"] = (
        rates["mjsim shanten (Wanzai, all forms)"] / rates["riichienv calculate_shanten"]
    )
    benchmark.pedantic(lambda: None, rounds=1)
    with capsys.disabled():
        print("\nhands/s (median of rounds, same hands, same process)")
        for k, v in rates.items():
            print(f"  {k:38s} {v:>14,.0f}")
        for k in ("win_ratio_vs_mahjong", "shanten_ratio_vs_mahjong", "shanten_ratio_vs_riichienv"):
            print(f"  {k:38s} {benchmark.extra_info[k]:>14,.1f}x")
