"""Hands per second of the native hand loop, Wanzai and Anhua (goals: 100,000/s random,
10,000/s greedy per core).

Run: python -m pytest bench/bench_game.py --benchmark-only   (against the installed mjsim)
The hands/s figure is in each benchmark's extra_info; nothing here asserts a timing.
"""
import pytest

from mjsim.play.game import simulate_hands
from mjsim.rulesets.rules import Rules

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
    res = benchmark.pedantic(simulate_hands, args=(rules, 1, 0, count, players), rounds=5, iterations=1)
    assert len(res["end"]) == count
    benchmark.extra_info["hands_per_second_median"] = round(count / benchmark.stats.stats.median)
    print(f"\n{name}: {count / benchmark.stats.stats.median:,.0f} hands/s (median of rounds)")


def _riichienv_round(seed: int) -> None:
    """One riichienv single-round (一局) game with four of its RandomAgents."""
    from riichienv import RiichiEnv
    from riichienv.agents import RandomAgent

    env = RiichiEnv(game_mode=0, seed=seed, skip_mjai_logging=True)
    obs = env.reset()
    agents = [RandomAgent(seed * 4 + i) for i in range(4)]
    while not env.done():
        obs = env.step({pid: agents[pid].act(o) for pid, o in obs.items()})


def test_peer_ratio_riichienv(benchmark, capsys):
    """mjsim 4×random hands vs riichienv single-round games with RandomAgent, same process.

    The rules differ (riichi vs Wanzai); the figure is hands played per second.
    """
    pytest.importorskip("riichienv")
    import time

    import numpy as np

    rules = Rules.load("wanzai")
    simulate_hands(rules, 0, 0, 10, ("random",) * 4)

    def rate(fn, n, rounds=3):
        times = []
        for _ in range(rounds):
            t = time.perf_counter()
            fn(n)
            times.append(time.perf_counter() - t)
        return n / float(np.median(times))

    ours = rate(lambda n: simulate_hands(rules, 1, 0, n, ("random",) * 4), 20_000)
    theirs = rate(lambda n: [_riichienv_round(i) for i in range(n)], 200)
    benchmark.extra_info.update(mjsim_random_hands_per_s=round(ours), riichienv_rounds_per_s=round(theirs),
                                ratio=round(ours / theirs, 1))
    benchmark.pedantic(lambda: None, rounds=1)
    with capsys.disabled():
        print(f"\nmjsim 4x random (Wanzai): {ours:,.0f} hands/s; riichienv 1-round RandomAgent games: "
              f"{theirs:,.0f}/s; ratio {ours / theirs:,.1f}x (medians, same process)")
