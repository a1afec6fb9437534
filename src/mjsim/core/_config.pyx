# cython: language_level=3
"""The native configuration from the dict a rule set writes (mjsim.rulesets: one
translation per rule set, `native_config(rules)`), field by field, whatever the game.

A key that is absent is 0: a rule set names only the fields it uses.  Each value is range
checked before it reaches the C struct, so no dict can make the loop index out of bounds.
"""
from libc.string cimport memset

from mjsim.core cimport _eval
from mjsim.core._eval cimport EvalConfig
from mjsim.core._state cimport GameConfig, ON_DRAW_STAY, ON_DRAW_LAST_DRAWER, LOCK_NONE, LOCK_SAME_KIND
from mjsim.core._wall cimport WALL_TABLE, WALL_FLAT

FIELDS_EVAL = ("game", "base", "values", "quanqiuren_self", "discard_wilds", "pair_258",
               "hard_if_natural", "score_cap", "m_hard", "m_soft", "m_cat", "m_qingyise",
               "m_xiaoqidui", "m_ctx")
FIELDS_GAME = ("ev", "game", "n_tiles", "wall_model", "honor_chow", "multiple_ron",
               "added_kong_on_draw_only", "kong_pay_on_draw", "dealer_pays_double", "pass_ron_lock",
               "fire", "fire_min_hands", "piao", "rob_kong_all", "dealer_next_winner",
               "dealer_on_draw", "first_dealer", "kong_values", "instant_mask", "instant_score",
               "kong_min_wall", "buzhang_tiles", "birds", "score_cap", "wilds", "kong_needs_tenpai",
               "kong_payments", "settle_after_birds")
_INT_MAX = 2 ** 31 - 1


cdef object _value(dict d, str key, tuple fields):
    if key not in fields:
        raise ValueError(f"native config: unknown field {key!r}")
    return d.get(key, 0)


cdef long long _int(dict d, str key, tuple fields, long long lo, long long hi) except? -1:
    v = _value(d, key, fields)
    if isinstance(v, bool):
        v = int(v)
    if not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError(f"native config: {key} must be an integer {lo}..{hi}, got {v!r}")
    return v


cdef list _ints(dict d, str key, tuple fields, int n, long long lo, long long hi):
    v = _value(d, key, fields)
    v = [0] * n if v == 0 else list(v)
    if len(v) > n:
        raise ValueError(f"native config: {key} holds at most {n} numbers, got {len(v)}")
    for x in v:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not lo <= x <= hi:
            raise ValueError(f"native config: {key} must hold numbers {lo}..{hi}, got {x!r}")
    return v + [0] * (n - len(v))


cdef int _check_keys(dict d, tuple fields) except -1:
    for key in d:
        if key not in fields:
            raise ValueError(f"native config: unknown field {key!r}")
    return 0


cdef int fill_eval_config(EvalConfig* c, dict d) except -1:
    cdef int i
    cdef tuple f = FIELDS_EVAL
    _check_keys(d, f)
    memset(c, 0, sizeof(EvalConfig))
    c.game = _int(d, "game", f, _eval.GAME_WANZAI, _eval.GAME_ANHUA)
    c.base = _int(d, "base", f, 0, _INT_MAX)
    values = _value(d, "values", f) or []
    if len(values) > _eval.N_WANZAI_VALUES:
        raise ValueError(f"native config: at most {_eval.N_WANZAI_VALUES} pattern values, got {len(values)}")
    for i, pair in enumerate(values):
        discard, self_ = pair
        c.values[i][0] = discard
        c.values[i][1] = self_
    c.quanqiuren_self = _int(d, "quanqiuren_self", f, 0, 1)
    c.discard_wilds = _int(d, "discard_wilds", f, _eval.DISCARD_WILDS_NONE, _eval.DISCARD_WILDS_FACE)
    c.pair_258 = _int(d, "pair_258", f, 0, 1)
    c.hard_if_natural = _int(d, "hard_if_natural", f, 0, 1)
    c.score_cap = _int(d, "score_cap", f, 0, _INT_MAX)
    c.m_hard = _int(d, "m_hard", f, 0, _INT_MAX)
    c.m_soft = _int(d, "m_soft", f, 0, _INT_MAX)
    for i, v in enumerate(_ints(d, "m_cat", f, 6, 0, _INT_MAX)):
        c.m_cat[i] = v
    c.m_qingyise = _int(d, "m_qingyise", f, 0, _INT_MAX)
    c.m_xiaoqidui = _int(d, "m_xiaoqidui", f, 0, _INT_MAX)
    for i, v in enumerate(_ints(d, "m_ctx", f, 4, 0, _INT_MAX)):
        c.m_ctx[i] = v
    return 0


cdef int fill_game_config(GameConfig* c, dict d) except -1:
    """Every rule field of GameConfig (not the players, their options or py_context, which
    NativeGame sets after this)."""
    cdef int i
    cdef tuple f = FIELDS_GAME
    _check_keys(d, f)
    memset(c, 0, sizeof(GameConfig))
    fill_eval_config(&c.ev, _value(d, "ev", f) or {})
    c.game = _int(d, "game", f, _eval.GAME_WANZAI, _eval.GAME_ANHUA)
    if c.game != c.ev.game:
        raise ValueError("native config: game and ev.game differ")
    c.n_tiles = _int(d, "n_tiles", f, 108, 136)
    if c.n_tiles != 108 and c.n_tiles != 136:
        raise ValueError(f"native config: n_tiles must be 108 or 136, got {c.n_tiles}")
    c.wall_model = _int(d, "wall_model", f, WALL_TABLE, WALL_FLAT)
    c.honor_chow = _int(d, "honor_chow", f, 0, 1)
    c.multiple_ron = _int(d, "multiple_ron", f, 0, 1)
    c.added_kong_on_draw_only = _int(d, "added_kong_on_draw_only", f, 0, 1)
    c.kong_pay_on_draw = _int(d, "kong_pay_on_draw", f, 0, 1)
    c.dealer_pays_double = _int(d, "dealer_pays_double", f, 0, 1)
    c.pass_ron_lock = _int(d, "pass_ron_lock", f, LOCK_NONE, LOCK_SAME_KIND)
    for i, v in enumerate(_ints(d, "fire", f, 4, 0, 1)):
        c.fire[i] = v
    c.fire_min_hands = _int(d, "fire_min_hands", f, 0, _INT_MAX)
    for i, v in enumerate(_ints(d, "piao", f, 4, 0, 2)):
        c.piao[i] = <int>v
    c.rob_kong_all = _int(d, "rob_kong_all", f, 0, 1)
    c.dealer_next_winner = _int(d, "dealer_next_winner", f, 0, 1)
    c.dealer_on_draw = _int(d, "dealer_on_draw", f, ON_DRAW_STAY, ON_DRAW_LAST_DRAWER)
    c.first_dealer = _int(d, "first_dealer", f, -1, 3)
    for i, v in enumerate(_ints(d, "kong_values", f, 3, 0, _INT_MAX)):
        c.kong_values[i] = <int>v
    c.instant_mask = _int(d, "instant_mask", f, 0, 63)
    c.instant_score = _int(d, "instant_score", f, 0, _INT_MAX)
    c.kong_min_wall = _int(d, "kong_min_wall", f, 0, _INT_MAX)
    c.buzhang_tiles = _int(d, "buzhang_tiles", f, 0, 6)
    c.birds = _int(d, "birds", f, 0, 10)
    c.score_cap = _int(d, "score_cap", f, 0, _INT_MAX)
    c.wilds = _int(d, "wilds", f, 0, 1)
    if c.wilds and c.n_tiles != 108:
        raise ValueError("native config: wilds need the 108-tile (suits only) wall")
    c.kong_needs_tenpai = _int(d, "kong_needs_tenpai", f, 0, 1)
    c.kong_payments = _int(d, "kong_payments", f, 0, 1)
    c.settle_after_birds = _int(d, "settle_after_birds", f, 0, 1)
    return 0
