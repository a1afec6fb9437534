"""The one translation of a rule set into the native core's configuration.

`native_config(rules)` gives the fields of the loop's GameConfig (core/_state.pxd),
`eval_config(rules)` those of the evaluator's EvalConfig (core/_eval.pxd), by name; the
native side (core/_config.pyx) copies them field by field whatever the game, so the rule
set's differences are data here, not branches there.  A field a rule set leaves out is 0.
"""
from __future__ import annotations

from mjsim.rulesets.rules import WANZAI_VALUE_IDS, Rules, cap_points
from mjsim.vocab import (CATEGORY_NAMES, CONTEXT_NAMES, DEALER_ON_DRAW, DISCARD_WIN_WILDS, GAMES,
                         KONG_NAMES, PASS_RON_LOCKS, WALL_MODELS)


def eval_config(rules: Rules) -> dict:
    return _EVAL[rules.game](rules)


def native_config(rules: Rules) -> dict:
    """GameConfig's rule fields (players and their options are set apart)."""
    common = dict(
        game=GAMES.index(rules.game),
        wall_model=WALL_MODELS.index(rules["wall_model"]),
        multiple_ron=int(rules["multiple_ron"]),
        pass_ron_lock=PASS_RON_LOCKS.index(rules["pass_ron_lock"]),
        rob_kong_all=int(rules["rob_kong_pays"] == "all"),
        dealer_next_winner=int(rules["dealer_next"] == "winner"),
        dealer_on_draw=DEALER_ON_DRAW.index(rules["dealer_on_draw"]),
        first_dealer=-1 if rules["first_dealer"] == "random" else rules["first_dealer"],
        added_kong_on_draw_only=int(rules["added_kong_on_draw_only"]),
        ev=eval_config(rules),
    )
    return common | _GAME[rules.game](rules)


def _wanzai_eval(rules: Rules) -> dict:
    return dict(game=GAMES.index("wanzai"), base=rules["base"],
                values=[tuple(rules["values"][i]) for i in WANZAI_VALUE_IDS],
                quanqiuren_self=int(rules["quanqiuren_self"] == "quanqiuren"))


def _wanzai(rules: Rules) -> dict:
    """RULES §2: 136 tiles, honour chows, kong payments, fire, piao, dealer doubling."""
    return dict(n_tiles=136, honor_chow=int(rules["honor_chow"]), kong_payments=1,
                kong_pay_on_draw=int(rules["kong_pay_on_draw"]),
                dealer_pays_double=int(rules["dealer_pays_double"]),
                fire=list(rules["fire"]), fire_min_hands=rules["fire_min_hands"], piao=list(rules["piao"]),
                kong_values=[rules["kong_values"][name] for name in KONG_NAMES])


def _anhua_eval(rules: Rules) -> dict:
    m = rules["multipliers"]
    return dict(game=GAMES.index("anhua"), base=rules["base"], pair_258=int(rules["pair_258"]),
                hard_if_natural=int(rules["hard_if_natural"]),
                discard_wilds=DISCARD_WIN_WILDS.index(rules["discard_win_wilds"]),
                score_cap=cap_points(rules), m_hard=m["yingzhuang"], m_soft=m["pinghu"],
                m_cat=[0] + [m[name] for name in CATEGORY_NAMES[1:]],
                m_qingyise=m["qingyise"], m_xiaoqidui=m["xiaoqidui"],
                m_ctx=[0] + [m[name] for name in CONTEXT_NAMES[1:]])


def _anhua(rules: Rules) -> dict:
    """RULES §3: 108 tiles, the special start, kongs under the tenpai and wall rules with
    補章, birds, the score cap; no honours, kong payments, fire, piao or dealer doubling
    (fire_min_hands 1 and kong_pay_on_draw 1 keep those paths inert)."""
    mask = 0
    for name in rules["instant_win_categories"]:
        mask |= 1 << CATEGORY_NAMES.index(name)
    return dict(n_tiles=108, wilds=1, kong_needs_tenpai=1, settle_after_birds=1,
                fire_min_hands=1, kong_pay_on_draw=1, instant_mask=mask,
                instant_score=rules["instant_win_score"], kong_min_wall=rules["kong_min_wall"],
                buzhang_tiles=rules["buzhang_tiles"], birds=rules["birds"], score_cap=cap_points(rules))


_EVAL = {"wanzai": _wanzai_eval, "anhua": _anhua_eval}
_GAME = {"wanzai": _wanzai, "anhua": _anhua}
