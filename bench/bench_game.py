"""Hands per second of the native hand loop, Wanzai and Anhua (goals: 100,000/s random,
10,000/s greedy per core).

Run: PYTHONPATH=src python -m pytest bench/bench_game.py --benchmark-only
The hands/s figure is in each benchmark's extra_info; nothing here asserts a timing.
"""
import pytest

from mjsim.game import simulate_hands
from mjsim.rules import Rules

CASES = {
    "wanzai-random": ("wanzai", ("random",) * 4, 20_000),
    "wanzai-greedy": ("wanzai", ("greedy",) * 4, 2_000),
    "anhua-random": ("anhua", ("random",) * 4, 20_000),
    "anhua-greedy": ("anhua", ("greedy",) * 4, 5_000),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bench_simulate_hands(benchmark, name):
    game, players, count = CASES[name]
    rules = Rules.load(game)
    simulate_hands(rules, 0, 0, 10, players)  # warm the lookup tables
    res = benchmark.pedantic(simulate_hands, args=(rules, 1, 0, count, players), rounds=3, iterations=1)
    assert len(res["end"]) == count
    benchmark.extra_info["hands_per_second_median"] = round(count / benchmark.stats.stats.median)
    print(f"\n{name}: {count / benchmark.stats.stats.median:,.0f} hands/s (median of rounds)")
