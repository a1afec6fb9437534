"""Each rule set's traits (rulesets/traits.py) agree with its schema and with play: code
that branches on a trait branches the way the game really is."""
import pytest

from mjsim import Rules, TileError, evaluate, parse_tiles
from mjsim.play import game
from mjsim.rulesets.traits import TRAITS, traits
from mjsim.vocab import GAMES


def test_every_game_has_traits_and_an_unknown_one_is_named():
    assert set(TRAITS) == set(GAMES)
    with pytest.raises(ValueError, match="unknown rule set 'riichi'"):
        traits("riichi")


@pytest.mark.parametrize("name", GAMES)
def test_traits_agree_with_the_schema(name):
    rules = Rules.load(name)
    t = rules.traits
    keys = set(rules.as_dict())
    assert t.name == name == rules.game
    assert t.pattern_values == ("values" in keys) == ("multipliers" not in keys)
    assert t.kong_payments == ("kong_values" in keys)
    assert t.birds == ("birds" in keys)
    assert t.wilds == ("discard_win_wilds" in keys) == bool(t.wild_categories)
    assert t.honor_runs == ("honor_chow" in keys)


@pytest.mark.parametrize("name", GAMES)
def test_traits_agree_with_play(name):
    rules = Rules.load(name)
    t = rules.traits
    seen = set()
    for i in range(20):
        h = game.play(rules, seed=3, hand_index=i, players=("greedy",) * 4)
        seen |= set(parse_tiles("".join(h.opening) + h.wall))
        assert (h.wild_indicator is not None) == t.wilds
    assert any(k >= 27 for k in seen) == t.honors
    assert t.n_kinds == (34 if t.honors else 27)
    if t.honors:
        evaluate(rules, "111z222z333z444z55z")                # honours are tiles of this game
    else:
        with pytest.raises(TileError, match="honors"):
            evaluate(rules, "111z222z333z444z55z", wild="5m")


def test_scripted_wall_length_follows_the_tile_count():
    for name in GAMES:
        t = traits(name)
        with pytest.raises(ValueError, match=str(t.n_tiles)):
            game._scripted_wall("1m", name)
