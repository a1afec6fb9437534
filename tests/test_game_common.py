"""Properties both rule sets' hand loops share."""
import numpy as np
import pytest

from mjsim import game
from mjsim.rules import Rules


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_same_seed_same_hand(rules_name):
    rules = Rules.load(rules_name)
    a = game.play(rules, seed=9, hand_index=77, players=("random",) * 4)
    b = game.play(rules, seed=9, hand_index=77, players=("random",) * 4)
    c = game.play(rules, seed=9, hand_index=78, players=("random",) * 4)
    assert a == b
    assert a.events != c.events


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_greedy_beats_random(rules_name):
    res, won = game.simulate_chunk(Rules.load(rules_name), ("greedy", "random", "greedy", "random"),
                                   seed=5, start=0, count=2000)
    wins = np.bincount(won["winner"], minlength=4)
    assert wins[0] + wins[2] > 3 * (wins[1] + wins[3])
    money = [res[f"delta_{s}"].sum() for s in range(4)]
    assert money[0] + money[2] > 0 > money[1] + money[3]
