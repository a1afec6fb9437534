"""The wall (RULES §1): table-model dealing by dice, replacement tail, flat model."""
import numpy as np
import pytest
from scipy import stats

from mjsim.core import _wall


def stacks(*numbers):
    """Physical positions of whole stacks: top (2s) then bottom (2s + 1)."""
    return [p for s in numbers for p in (2 * s, 2 * s + 1)]


def test_dice_7_dealer_0_deals_from_the_opposite_wall():
    # odd sum -> wall of the dealer's 對家 (seat 2: stacks 34..50); 7 stacks passed over
    hands, live, tail = _wall.deal_positions("table", dealer=0, dice_sum=7, replacements=4)
    first = 34 + 7  # stack 41
    # three rounds of two stacks each, dealer first, then 下家, 對家, 上家
    for seat in range(4):
        expected = []
        for rnd in range(3):
            s0 = first + 2 * (4 * rnd + seat)
            expected += stacks(s0, s0 + 1)
        assert hands[seat][:12] == expected
    j = first + 24  # the three 跳牌 stacks 65, 66, 67
    assert hands[0][12:] == [2 * j, 2 * (j + 2)]          # tops of the 1st and 3rd
    assert hands[1][12] == 2 * j + 1                      # bottom of the 1st
    assert hands[2][12] == 2 * (j + 1)                    # top of the 2nd
    assert hands[3][12] == 2 * (j + 1) + 1                # bottom of the 2nd
    # live drawing continues with the bottom of the 3rd stack, then wraps round the ring
    assert live[:3] == [2 * (j + 2) + 1, 0, 1]
    # replacements: stack just before the live start (40), top first, then backwards
    assert tail == stacks(40, 39)


@pytest.mark.parametrize("dice_sum,wall_seat", [(2, 1), (6, 1), (10, 1), (4, 3), (8, 3), (12, 3),
                                               (3, 2), (5, 2), (9, 2), (11, 2)])
@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_dice_choose_the_wall(dice_sum, wall_seat, dealer):
    hands, live, tail = _wall.deal_positions("table", dealer=dealer, dice_sum=dice_sum, replacements=1)
    start = 17 * ((dealer + wall_seat) % 4) + dice_sum
    assert hands[dealer][:4] == stacks(start % 68, (start + 1) % 68)
    assert tail == [2 * ((start - 1) % 68)]


@pytest.mark.parametrize("model", ["table", "flat"])
@pytest.mark.parametrize("n", [136, 108])
def test_every_position_is_used_exactly_once(model, n):
    hands, live, tail = _wall.deal_positions(model, dealer=1, dice_sum=9, n=n, replacements=5)
    assert [len(h) for h in hands] == [13, 14, 13, 13]
    everything = sorted(sum(hands, []) + live + tail)
    assert everything == list(range(n))


def test_anhua_seat_walls_are_14_13_14_13_stacks():
    # dice 2 -> 下家's wall; with dealer 0 that is seat 1, whose wall starts at stack 14
    hands, _, _ = _wall.deal_positions("table", dealer=0, dice_sum=2, n=108)
    assert hands[0][:4] == stacks(16, 17)
    # dice 4 -> 上家 = seat 3, wall from stack 14 + 13 + 14 = 41
    hands, _, _ = _wall.deal_positions("table", dealer=0, dice_sum=4, n=108)
    assert hands[0][:4] == stacks(45, 46)


def test_tail_and_head_meet_without_losing_a_tile():
    # draw almost everything from the tail first: the live draws get what is left
    hands, live, tail = _wall.deal_positions("table", dealer=0, dice_sum=5, replacements=80)
    assert len(live) == 136 - 53 - 80
    assert not set(live) & set(tail)


def test_flat_model_deals_from_the_front_and_replaces_from_the_back():
    hands, live, tail = _wall.deal_positions("flat", dealer=2, dice_sum=7, replacements=3)
    assert hands[2] == list(range(14))
    assert hands[3] == list(range(14, 27))
    assert hands[0] == list(range(27, 40))
    assert hands[1] == list(range(40, 53))
    assert live[:2] == [53, 54]
    assert tail == [135, 134, 133]


@pytest.mark.parametrize("tiles, kinds", [(136, 34), (108, 27)])
def test_flat_and_table_give_the_same_opening_hands(tiles, kinds):
    n = 4000
    table = _wall.opening_counts(11, 0, n, "table", n=tiles)
    flat = _wall.opening_counts(12, 0, n, "flat", n=tiles)
    for counts in (table, flat):
        assert (counts.sum(axis=2) == [14, 13, 13, 13]).all()
        assert not counts[:, :, kinds:].any()  # 108 tiles: no honors are dealt
        assert (counts.sum(axis=1) <= 4).all()  # no tile is dealt to two seats
    # per seat and kind in play, the mean count is 14/kinds (dealer) or 13/kinds
    expected = np.zeros((4, 34))
    expected[:, :kinds] = np.array([14, 13, 13, 13])[:, None] / kinds
    for counts in (table, flat):
        se = np.sqrt(counts.var(axis=0) / n)
        assert (np.abs(counts.mean(axis=0) - expected) < 5 * se + 1e-9).all()
    # distribution of the number of pairs-or-better in the dealer's hand: same in both
    bins = np.arange(0, 9)
    h_table = np.bincount(np.minimum((table[:, 0] >= 2).sum(axis=1), 8), minlength=9)[bins]
    h_flat = np.bincount(np.minimum((flat[:, 0] >= 2).sum(axis=1), 8), minlength=9)[bins]
    keep = (h_table + h_flat) >= 10
    _, p, _, _ = stats.chi2_contingency(np.array([h_table[keep], h_flat[keep]]))
    assert p > 0.001


def test_same_seed_same_wall_different_index_different_wall():
    a = _wall.opening_counts(5, 7, 1, "table")
    b = _wall.opening_counts(5, 7, 1, "table")
    c = _wall.opening_counts(5, 8, 1, "table")
    assert (a == b).all()
    assert not (a == c).all()


def test_opening_counts_refuses_a_wall_size_the_rules_do_not_have():
    with pytest.raises(ValueError, match="136 or 108"):
        _wall.opening_counts(1, 0, 1, "table", n=100)


def test_bad_model_is_a_value_error():
    with pytest.raises(ValueError, match="table"):
        _wall.deal_positions("ring", dealer=0, dice_sum=7)


def test_the_two_dice_are_fair():
    """RULES §1: the dealer throws two dice. Over 6,000 independent hands the sums follow the
    triangular distribution of two fair dice (chi-square goodness of fit, scipy)."""
    from mjsim import Rules
    from mjsim.play import game

    hands, _ = game.simulate_chunk(Rules.load("wanzai"), ("greedy",) * 4, 21, 0, 6000, 1)
    observed = np.bincount(hands["dice"], minlength=13)[2:13]
    expected = np.array([6 - abs(7 - s) for s in range(2, 13)]) / 36 * len(hands["dice"])
    assert observed.sum() == 6000 and observed.min() > 0
    assert stats.chisquare(observed, expected).pvalue > 0.001
