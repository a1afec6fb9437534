"""The greedy player's decisions that the arena measured (README: Players and their biases)."""
import pytest

from mjsim import Rules
from mjsim.play import game
from mjsim.players import Player


class KongProbe(Player):
    """Plays like greedy and records, wherever a kong is offered, what greedy and
    greedy_v1 (the player before the fixes) would do."""

    def __init__(self):
        self.offers = []

    def turn(self, view, options):
        answer = view.builtin("greedy")
        if any(kind != "discard" for kind, *_ in options):
            self.offers.append((options, answer, view.builtin("greedy_v1")))
        return answer

    def claim(self, view, tile, options):
        answer = view.builtin("greedy")
        if ("kong",) in options:
            self.offers.append((options, answer, view.builtin("greedy_v1")))
        return answer


def _is_kong(options, answer) -> bool:
    if isinstance(answer, tuple):
        return answer[0] != "discard"
    return answer is not None and options[answer] == ("kong",)


def _offers(rules, hands=3000):
    probe = KongProbe()
    game.simulate_chunk(rules, (probe, "greedy", "greedy", "greedy"), 11, 0, hands, 1)
    assert len(probe.offers) > 50
    return probe.offers


def test_wanzai_greedy_declares_every_kong_that_pays():
    offers = _offers(Rules.load("wanzai"))
    assert all(_is_kong(o, g) for o, g, _ in offers)
    # the old player declined some of them (those that raise the shanten)
    declined = [o for o, _, v1 in offers if not _is_kong(o, v1)]
    assert 0 < len(declined) < len(offers)


def test_kongs_that_pay_nothing_keep_the_shanten_rule():
    rules = Rules.load("wanzai", kong_values={"added": 0, "exposed": 0, "concealed": 0})
    offers = _offers(rules)
    assert all(_is_kong(o, g) == _is_kong(o, v1) for o, g, v1 in offers)
    assert any(not _is_kong(o, g) for o, g, _ in offers)


def test_anhua_greedy_takes_every_legal_kong():
    offers = _offers(Rules.load("anhua"), hands=6000)
    assert all(_is_kong(o, g) and _is_kong(o, v1) for o, g, v1 in offers)


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_greedy_v1_is_a_player(rules_name):
    hands, _ = game.simulate_chunk(Rules.load(rules_name), ("greedy_v1",) * 4, 0, 0, 200, 1)
    assert (hands["end"] == 1).mean() > 0.9
