"""The greedy player's decisions that the arena measured (README: Players and their biases)."""
import pytest

from mjsim import Rules, game
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


class DiscardProbe(Player):
    """Plays like greedy; records the turns where greedy and greedy_v1 discard differently."""

    def __init__(self):
        self.differ = []
        self.turns = 0

    def turn(self, view, options):
        answer = view.builtin("greedy")
        old = view.builtin("greedy_v1")
        self.turns += 1
        if answer != old and answer[0] == old[0] == "discard":
            self.differ.append((view.hand, view.seen, view.melds[view.seat], answer[1], old[1]))
        return answer


def _tie_key(hand, seen, hidden, k):
    """The documented Wanzai tie-break, from the view: unseen copies of the kinds k could
    pair or meld with, after discarding k (then the highest kind)."""
    hand, seen = list(hand), list(seen)
    hand[k] -= 1
    seen[k] += 1
    if k < 27:
        group = range(k - min(k % 9, 2), k + min(8 - k % 9, 2) + 1)
    else:
        group = range(27, 31) if k < 31 else range(31, 34)
    return sum(max(0, 4 - hand[j] - seen[j] - hidden[j]) for j in group) * 64 - k


def test_wanzai_tie_break_discards_the_least_connectable_tile():
    import mjsim

    rules = Rules.load("wanzai")
    probe = DiscardProbe()
    game.simulate_chunk(rules, (probe, "greedy", "greedy", "greedy"), 3, 0, 400, 1)
    assert 20 < len(probe.differ) < probe.turns / 2     # about one turn in five is such a tie
    for hand, seen, melds, new, old in probe.differ:
        hidden = [0] * 34
        for kind, tiles in melds:
            if kind == "concealed_kong":
                hidden[tiles[0]] = 4
        kinds = [k for k in range(34) for _ in range(hand[k])]
        declared = [(kind, [t for t in tiles]) for kind, tiles in melds]
        after = [list(kinds) for _ in range(2)]
        after[0].remove(new)
        after[1].remove(old)
        # a tie: the same shanten either way, and the new rule's key is the lower one
        assert mjsim.shanten(rules, after[0], declared) == mjsim.shanten(rules, after[1], declared)
        assert _tie_key(hand, seen, hidden, new) < _tie_key(hand, seen, hidden, old)


def test_anhua_greedy_plays_as_before():
    rules = Rules.load("anhua")
    a, _ = game.simulate_chunk(rules, ("greedy",) * 4, 4, 0, 300, 1)
    b, _ = game.simulate_chunk(rules, ("greedy_v1",) * 4, 4, 0, 300, 1)
    assert all((a[f"delta_{s}"] == b[f"delta_{s}"]).all() for s in range(4))
    assert (a["draws"] == b["draws"]).all()
