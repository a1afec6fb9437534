# cython: language_level=3
"""Test shims that reach inside the native core (tests/test_seat_cache.py, the useful-tile
tests of tests/test_game_*.py): one blank-state builder, then each probe."""
from libc.stdint cimport uint8_t, int32_t, uint64_t
from libc.string cimport memset

from mjsim.core cimport _eval
from mjsim.core._state cimport HandState, SeatState, GameConfig, Call, CALL_CHOW, MELD_PUNG
from mjsim.core._tables cimport tables, GroupTable, N_KINDS, N_SUITED
from mjsim.core._hand cimport hand_shanten
from mjsim.core._seat cimport (seat_deal, seat_change, seat_n_held, seat_may_win, seat_may_chow,
                               seat_complete_with, MJSIM_CHECK_SEATS, mjsim_select64,
                               mjsim_select64_n, mjsim_select64_loop, MJSIM_PDEP_DISPATCH)
from mjsim.core._loop cimport list_calls, add_meld
from mjsim.core._game cimport NativeGame
from mjsim.players._greedy cimport useful_tiles, useful_tiles_all


cdef extern from "_pairs.h":
    void mjsim_pairs_total(const uint8_t* c, int n, int* pairs, int* total) noexcept nogil
    void mjsim_pairs_total_plain(const uint8_t* c, int n, int* pairs, int* total) noexcept nogil
    int mjsim_count_shape(const uint8_t* c) noexcept nogil
    int mjsim_count_shape_plain(const uint8_t* c) noexcept nogil


cdef void blank_state(HandState* st, GameConfig* cfg, int game) noexcept:
    """An empty hand of `game` (_eval.GAME_*) under an all-zero configuration."""
    memset(st, 0, sizeof(HandState))
    memset(cfg, 0, sizeof(GameConfig))
    cfg.game = game
    cfg.ev.game = game
    st.cfg = cfg
    st.tables = tables()
    st.indicator = -1
    st.wild_a = -1
    st.wild_b = -1

SEAT_CHECKS = bool(MJSIM_CHECK_SEATS)    # a debug build checks each seat's cache at every use


def _probe_stale_seat():
    """Test shim: deal seat 0 a tenpai hand, change its concealed hand behind its cache's
    back (as a missed seat_change would) and ask the win check.  A build with SEAT_CHECKS
    aborts the process with a message; another returns the stale answer."""
    cdef HandState st
    cdef GameConfig cfg
    cdef uint8_t tiles[13]
    cdef int i
    blank_state(&st, &cfg, _eval.GAME_WANZAI)
    for i, t in enumerate((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)):
        tiles[i] = t
    seat_deal(st.tables, &st.seat[0], tiles, 13)
    st.seat[0].hand[12] -= 1
    st.seat[0].hand[13] += 1
    return bool(seat_may_win(&st, 0, 12) and seat_complete_with(&st, 0, 12))


PDEP_DISPATCH = bool(MJSIM_PDEP_DISPATCH)   # the random discard's select may use pdep


def _probe_select(uint64_t x, int j):
    """Test shim: the j-th set bit of x by the select the loop uses (pdep where chosen at
    run time), by the plain count-down loop and by clearing bits one by one."""
    cdef int n = bin(x).count("1")
    if not 0 <= j < n:
        raise ValueError("j must index a set bit of x")
    return mjsim_select64_n(x, n, j), mjsim_select64_loop(x, n, j), mjsim_select64(x, j)


def _probe_seat_cache(changes, bint honor_chow=True):
    """Test shim: from an empty hand, apply (kind, delta) changes to seat 1 through
    seat_change; after each -> (n_held, the kinds t for which seat_may_chow says yes, those
    for which list_calls offers seat 1 a chow of seat 0's discard t), under Wanzai."""
    cdef HandState st
    cdef GameConfig cfg
    cdef Call calls[8]
    cdef uint8_t none[1]
    cdef int k, d, t, i, n
    blank_state(&st, &cfg, _eval.GAME_WANZAI)
    cfg.honor_chow = honor_chow
    seat_deal(st.tables, &st.seat[1], none, 0)     # the empty hand's group facts
    out = []
    for k, d in changes:
        if not 0 <= k < 34 or not 0 <= st.seat[1].hand[k] + d <= 4:
            raise ValueError(f"change ({k}, {d}) leaves the hand invalid")
        seat_change(st.tables, &st.seat[1], k, d)
        may = [t for t in range(34) if seat_may_chow(&st, 1, t)]
        listed = []
        for t in range(34):
            n = list_calls(&st, 1, t, 0, calls)
            for i in range(n):
                if calls[i].type == CALL_CHOW:
                    listed.append(t)
                    break
        out.append((seat_n_held(&st.seat[1]), may, listed))
    return out


def useful_tiles_probe(NativeGame game, counts, pungs=(), int indicator=-1):
    """Test shim: (filtered, every kind tried) useful-tile counts of a 3n+1 hand with the
    given pungs declared and nothing seen, under `game`'s rules (Anhua: wilds of `indicator`)."""
    cdef HandState st
    cdef GameConfig unused
    cdef SeatState* p
    cdef int k, sh
    blank_state(&st, &unused, game.cfg.game)
    st.cfg = &game.cfg
    st.indicator = indicator
    _eval.wild_kinds(indicator, &st.wild_a, &st.wild_b)
    if indicator >= 0:
        st.seen[indicator] += 1     # the turned-up tile, as in a hand
    p = &st.seat[0]
    for k in range(34):
        p.hand[k] = counts[k]
    for k in pungs:
        add_meld(p, MELD_PUNG, k, k, k, -1, 1)
        st.seen[k] += 3
    sh = hand_shanten(&st, p.hand, &p.mi)
    return (useful_tiles(&st, p, p.hand, &p.mi, sh),
            useful_tiles_all(&st, p, p.hand, &p.mi, sh))


def _pairs_total_view(bytes counts, int n, bint simd):
    """Test shim: a view of the count helpers on rows of 34 counts (0..4) packed in `counts`:
    [(pairs, tiles, some count odd, some count above 1)] of each row (pairs and tiles over
    the first n kinds, n = 27 or 34; the shape over all 34), from the SSE2 helpers (simd)
    or their plain-C statements.  Bytes, not a memoryview: a memoryview argument would pull
    Cython's memoryview code into this module and crowd gcc's inlining budget."""
    cdef const uint8_t* c = counts
    cdef Py_ssize_t i, k
    cdef int p, t, shape
    if len(counts) % N_KINDS or n not in (N_SUITED, N_KINDS):
        raise ValueError("counts must hold rows of 34 and n be 27 or 34")
    for k in range(len(counts)):
        if c[k] > 4:
            raise ValueError(f"row {k // N_KINDS}: counts are 0..4")
    out = []
    for i in range(len(counts) // N_KINDS):
        if simd:
            mjsim_pairs_total(c + i * N_KINDS, n, &p, &t)
            shape = mjsim_count_shape(c + i * N_KINDS)
        else:
            mjsim_pairs_total_plain(c + i * N_KINDS, n, &p, &t)
            shape = mjsim_count_shape_plain(c + i * N_KINDS)
        out.append((p, t, shape & 1, shape >> 1))
    return out


def entry_facts(bint suit, counts):
    """Test shim: (facts byte, need row) of the suit (9 counts) or honor (7 counts) entry."""
    cdef const GroupTable* t = &tables().suit if suit else &tables().honor
    cdef int32_t idx = 0, i
    if len(counts) != (9 if suit else 7) or not all(0 <= c <= 4 for c in counts):
        raise ValueError("a suit entry has 9 counts, an honor entry 7, each 0..4")
    for i in range(len(counts) - 1, -1, -1):
        idx = 5 * idx + counts[i]
    return t.facts[idx], tuple(t.need[<size_t>idx * 4 + i] for i in range(4))


# Each vocabulary table of mjsim.vocab, name by name, in native terms (tests/test_native_vocab.py
# checks vocab.TABLE.index(name) == the native code for every name).
from mjsim.core cimport _state as S
from mjsim.core cimport _wall as W

NATIVE_NAMES = {
    "PLAYERS": {"random": S.PLAYER_RANDOM, "greedy": S.PLAYER_GREEDY, "greedy_v1": S.PLAYER_GREEDY_V1,
                "ev": S.PLAYER_EV, "search": S.PLAYER_SEARCH},
    "EVENT_NAMES": {"draw": S.EV_DRAW, "discard": S.EV_DISCARD, "pung": S.EV_PUNG, "chow": S.EV_CHOW,
                    "kong": S.EV_KONG, "robbed": S.EV_ROBBED, "win": S.EV_WIN, "payment": S.EV_PAY,
                    "pass_win": S.EV_PASS_WIN, "exhausted": S.EV_EXHAUSTED, "indicator": S.EV_INDICATOR,
                    "buzhang": S.EV_BUZHANG, "locked": S.EV_LOCKED, "bird": S.EV_BIRD, "instant": S.EV_INSTANT},
    "KONG_NAMES": {"added": S.KONG_ADDED, "exposed": S.KONG_EXPOSED, "concealed": S.KONG_CONCEALED},
    "MELD_NAMES": {"chow": S.MELD_CHOW, "pung": S.MELD_PUNG, "kong": S.MELD_EXPOSED_KONG,
                   "added_kong": S.MELD_ADDED_KONG, "concealed_kong": S.MELD_CONCEALED_KONG},
    "END_NAMES": {"draw": S.END_DRAW, "self_draw": S.END_SELF_DRAW, "discard": S.END_DISCARD,
                  "rob_kong": S.END_ROB_KONG, "instant": S.END_INSTANT},
    "WIN_KIND_NAMES": {"self_draw": S.WIN_SELF_DRAW, "discard": S.WIN_DISCARD, "rob_kong": S.WIN_ROB_KONG,
                       "gangshanghua": S.WIN_GANGSHANGHUA, "gangshangpao": S.WIN_GANGSHANGPAO,
                       "instant": S.WIN_INSTANT},
    "PAY_REASONS": {"win": S.PAY_WIN, "kong_added": S.PAY_KONG_ADDED, "kong_exposed": S.PAY_KONG_EXPOSED,
                    "kong_concealed": S.PAY_KONG_CONCEALED, "kong_refund": S.PAY_KONG_REFUND,
                    "instant": S.PAY_INSTANT},
    "TURN_NAMES": {"discard": S.ACT_DISCARD, "concealed_kong": S.ACT_CONCEALED_KONG,
                   "added_kong": S.ACT_ADDED_KONG},
    "CALL_NAMES": {"pung": S.CALL_PUNG, "kong": S.CALL_KONG, "chow": S.CALL_CHOW},
    "CATEGORY_NAMES": {None: _eval.CAT_NONE, "dan_wang": _eval.CAT_DAN, "san_wang": _eval.CAT_SAN,
                       "si_wang": _eval.CAT_SI, "liu_wang": _eval.CAT_LIU, "qi_wang": _eval.CAT_QI},
    "CONTEXT_NAMES": {None: _eval.CTX_NONE, "gangshanghua": _eval.CTX_GANGSHANGHUA,
                      "qiangganghu": _eval.CTX_QIANGGANGHU, "gangshangpao": _eval.CTX_GANGSHANGPAO},
    "PATTERNS": {
        "pinghu": _eval.P_PINGHU,
        "shisanlan": _eval.P_SHISANLAN,
        "qixing_shisanlan": _eval.P_QIXING_SHISANLAN,
        "quanqiuren": _eval.P_QUANQIUREN,
        "daqidui": _eval.P_DAQIDUI,
        "qixiaodui": _eval.P_QIXIAODUI,
        "haohua_qixiaodui": _eval.P_HAOHUA,
        "shuang_haohua_qixiaodui": _eval.P_SHUANG_HAOHUA,
        "san_haohua_qixiaodui": _eval.P_SAN_HAOHUA,
        "qingyise_pinghu": _eval.P_QYS_PINGHU,
        "qingyise_daqidui": _eval.P_QYS_DAQIDUI,
        "qingyise_qixiaodui": _eval.P_QYS_QIXIAODUI,
        "qingyise_haohua_qixiaodui": _eval.P_QYS_HAOHUA,
        "qingyise_shuang_haohua_qixiaodui": _eval.P_QYS_SHUANG_HAOHUA,
        "qingyise_san_haohua_qixiaodui": _eval.P_QYS_SAN_HAOHUA,
        "yingzhuang": _eval.P_YINGZHUANG,
    },
    # the first nine properties are the patterns of the same code (a win's base pattern)
    "PROPERTIES": {
        "qingyise": _eval.PR_QINGYISE, "xiaoqidui": _eval.PR_XIAOQIDUI,
        "dan_wang": _eval.PR_CATEGORY0 + _eval.CAT_DAN,
        "san_wang": _eval.PR_CATEGORY0 + _eval.CAT_SAN,
        "si_wang": _eval.PR_CATEGORY0 + _eval.CAT_SI,
        "liu_wang": _eval.PR_CATEGORY0 + _eval.CAT_LIU,
        "qi_wang": _eval.PR_CATEGORY0 + _eval.CAT_QI,
        "gangshanghua": _eval.PR_CONTEXT0 + _eval.CTX_GANGSHANGHUA,
        "qiangganghu": _eval.PR_CONTEXT0 + _eval.CTX_QIANGGANGHU,
        "gangshangpao": _eval.PR_CONTEXT0 + _eval.CTX_GANGSHANGPAO,
    },
    "GAMES": {"wanzai": _eval.GAME_WANZAI, "anhua": _eval.GAME_ANHUA},
    "WALL_MODELS": {"table": W.WALL_TABLE, "flat": W.WALL_FLAT},
    "PASS_RON_LOCKS": {"none": S.LOCK_NONE, "until_own_discard": S.LOCK_UNTIL_OWN_DISCARD,
                       "same_kind_until_own_discard": S.LOCK_SAME_KIND},
    "DEALER_ON_DRAW": {"stay": S.ON_DRAW_STAY, "next": S.ON_DRAW_NEXT, "last_drawer": S.ON_DRAW_LAST_DRAWER},
    "DISCARD_WIN_WILDS": {"none": _eval.DISCARD_WILDS_NONE, "dan_wang_face_value": _eval.DISCARD_WILDS_DAN,
                          "face_value": _eval.DISCARD_WILDS_FACE},
}
NATIVE_NAMES["PROPERTIES"].update(
    {name: code for name, code in NATIVE_NAMES["PATTERNS"].items() if code <= _eval.P_SAN_HAOHUA})
#: the code a seat played by a Python object gets (one past the built-ins)
PLAYER_PYTHON = S.PLAYER_PYTHON
#: numbers per seat in GameConfig.player_opts
N_PLAYER_OPTS = S.N_PLAYER_OPTS

# Each player's option slots as the native code reads them (players/_ev.pxd, _search.pxd);
# tests/test_native_vocab.py checks the Python layouts (players/ev.py, search.py) against them.
from mjsim.players cimport _ev as EVO
from mjsim.players cimport _search as SEO

PLAYER_OPTION_SLOTS = {
    "ev": {
        "OPT_FOLD": EVO.OPT_FOLD,
        "OPT_CLAIM": EVO.OPT_CLAIM,
        "OPT_VALUE": EVO.OPT_VALUE,
        "OPT_SELF_SHARE": EVO.OPT_SELF_SHARE,
        "OPT_LOSS": EVO.OPT_LOSS,
        "OPT_MIX": EVO.OPT_MIX,
        "OPT_DANGER": EVO.OPT_DANGER,
        "OPT_THREAT": EVO.OPT_THREAT,
        "OPT_WIN": EVO.OPT_WIN,
        "N_WIN_D": EVO.N_WIN_D,
        "OPT_WIN_SELF_ONLY": EVO.OPT_WIN_SELF_ONLY,
        "OPT_STRETCH": EVO.OPT_STRETCH,
        "OPT_TENPAI": EVO.OPT_TENPAI,
        "OPT_WAIT": EVO.OPT_WAIT,
        "N_TEN_F": EVO.N_TEN_F,
        "N_WAIT_F": EVO.N_WAIT_F,
        "OPT_TENPAI_HI": EVO.OPT_TENPAI_HI,
        "OPT_FORM": EVO.OPT_FORM,
        "OPT_KONG": EVO.OPT_KONG,
        "OPT_PASSED": EVO.OPT_PASSED,
        "OPT_WAIT_CLASS": EVO.OPT_WAIT_CLASS,
        "OPT_KEEP": EVO.OPT_KEEP,
        "OPT_HOLD": EVO.OPT_HOLD,
        "OPT_KONGS": EVO.OPT_KONGS,
        "OPT_RACE": EVO.OPT_RACE,
        "OPT_START": EVO.OPT_START,
    },
    "search": {
        "OPT_S_SAMPLES": SEO.OPT_S_SAMPLES,
        "OPT_S_ROLLOUT": SEO.OPT_S_ROLLOUT,
        "OPT_S_WIDTH": SEO.OPT_S_WIDTH,
        "OPT_S_MELDS": SEO.OPT_S_MELDS,
        "OPT_S_NEAR": SEO.OPT_S_NEAR,
        "OPT_S_READ": SEO.OPT_S_READ,
        "OPT_S_STEPS": SEO.OPT_S_STEPS,
        "OPT_S_MARGIN": SEO.OPT_S_MARGIN,
        "OPT_S_OWN": SEO.OPT_S_OWN,
        "OPT_S_GUARD": SEO.OPT_S_GUARD,
        "OPT_S_CALLS": SEO.OPT_S_CALLS,
        "OPT_S_ORDER": SEO.OPT_S_ORDER,
        "OPT_S_WINS": SEO.OPT_S_WINS,
        "OPT_S_PEEK": SEO.OPT_S_PEEK,
        "OPT_S_CLOSE": SEO.OPT_S_CLOSE,
    },
}
