# cython: language_level=3
"""Win detection, scoring, shanten and waits on 34-kind count arrays (RULES.md §2.2-2.3, §3.1-3.3).

Everything here runs without the GIL on fixed-size arrays.  A hand is split into groups
(three suits, and for Wanzai the seven honors); per-group tables (see _tables.pyx) answer
"how many jokers/tiles are missing", so Anhua's wilds are just jokers added to that sum.
"""
from libc.stdint cimport uint8_t, uint32_t, int32_t, int8_t, int64_t
from libc.string cimport memcpy, memset
from mjsim.core._bits cimport mjsim_ctz64
from mjsim.core._tables cimport (Tables, GroupTable, tables, suit_index, honor_index, INF,
                            DIST_STRIDE, MAX_MELDS, N_SUITED, N_KINDS, need_of_rows)

from mjsim.core._masks cimport (mjsim_held_mask, mjsim_combine_upto, mjsim_combine2_upto,
                               mjsim_split_min, mjsim_split_reach)

cdef int32_t POW5[9]
POW5[:] = [1, 5, 25, 125, 625, 3125, 15625, 78125, 390625]

# the 清一色 row of each Wanzai base id (RULES §2.2: 清一色 replaces the id)
cdef int QYS_ROW[9]
QYS_ROW[:] = [P_QYS_PINGHU, P_SHISANLAN, P_QIXING_SHISANLAN, P_QYS_PINGHU, P_QYS_DAQIDUI,
              P_QYS_QIXIAODUI, P_QYS_HAOHUA, P_QYS_SHUANG_HAOHUA, P_QYS_SAN_HAOHUA]


cdef int category_of(int a, int b) noexcept nogil:
    """Wild category from type-A and type-B wild counts (RULES §3.1)."""
    if a == 0 and b == 0:
        return CAT_NONE
    if b == 4:
        if a <= 1:
            return CAT_SI
        return CAT_LIU if a == 2 else CAT_QI
    if a <= 2 and b <= 2:
        return CAT_DAN
    return CAT_SAN


cdef bint discard_category_ok(const EvalConfig* cfg, int cat) noexcept nogil:
    """May a hand with these wilds (the won tile not counted) win on a plain discard, if
    it is complete at face value?  RULES §3.3 discard_win_wilds."""
    if cfg.discard_wilds == DISCARD_WILDS_NONE:
        return cat == CAT_NONE
    if cfg.discard_wilds == DISCARD_WILDS_DAN:
        return cat <= CAT_DAN
    return True


cdef int wild_kinds(int indicator, int* a_kind, int* b_kind) noexcept nogil:
    """The indicator's kind (its other three copies) and the next rank, 9 wrapping to 1."""
    if indicator < 0:
        a_kind[0] = -1
        b_kind[0] = -1
        return 0
    a_kind[0] = indicator
    b_kind[0] = indicator + 1 if indicator % 9 != 8 else indicator - 8
    return 1


# ---------------------------------------------------------------- group helpers

cdef inline const uint8_t* _need(const Tables* T, const uint8_t* c, int g) noexcept nogil:
    if g < 3:
        return T.suit.need + <size_t>suit_index(c + 9 * g) * 4
    return T.honor.need + <size_t>honor_index(c + 27) * 4


cdef inline const uint8_t* _dist(const Tables* T, const uint8_t* c, int g) noexcept nogil:
    if g < 3:
        return T.suit.dist + <size_t>suit_index(c + 9 * g) * DIST_STRIDE
    return T.honor.dist + <size_t>honor_index(c + 27) * DIST_STRIDE


cdef inline int _group_sum(const uint8_t* c, int g) noexcept nogil:
    cdef int i, s = 0
    cdef int lo = 9 * g
    cdef int hi = lo + 9 if g < 3 else N_KINDS
    for i in range(lo, hi):
        s += c[i]
    return s


cdef int _std_need(const Tables* T, const uint8_t* c, int n_groups, int pt) noexcept nogil:
    """Fewest jokers making every tile part of melds + one pair (pair column pt)."""
    cdef const uint8_t* rows[4]
    cdef int g
    for g in range(n_groups):
        rows[g] = _need(T, c, g)
    return need_of_rows(rows, n_groups, pt)


cdef bint _std_complete(const Tables* T, const uint8_t* c, int n_groups) noexcept nogil:
    """Joker-free _std_need(...) == 0 with any pair, stopping at the first group that fails."""
    cdef int g
    cdef bint pair = False
    cdef const uint8_t* e
    for g in range(n_groups):
        e = _need(T, c, g)
        if e[0] == 0:
            continue
        if e[1] == 0 and not pair:
            pair = True
            continue
        return False
    return pair


cdef inline void _group_indices(const uint8_t* c, int n_groups, int32_t* idx) noexcept nogil:
    """Each group's table index (a group's index is 0 exactly when it holds no tile)."""
    cdef int g
    for g in range(n_groups):
        idx[g] = suit_index(c + 9 * g) if g < 3 else honor_index(c + 27)


cdef inline int _mask_of_indices(const int32_t* idx, int n_groups) noexcept nogil:
    """_suit_mask from the group indices."""
    cdef int g, mask = 0
    for g in range(n_groups):
        if idx[g]:
            mask |= 1 << g
    return mask


cdef int _std_distance_of(const Tables* T, const int32_t* idx, int n_groups, int melds, int pt) noexcept nogil:
    """Fewest tiles to add to part of the hand to get `melds` melds + a pair: the min-plus
    product of the groups' rows (_masks.h, SSE2 where available), two groups against the
    rest, as the mask pass combines them."""
    cdef uint8_t rows[4][ROW_BYTES]
    cdef uint8_t a[ROW_BYTES]
    cdef uint8_t b[ROW_BYTES]
    cdef int g
    for g in range(n_groups):
        _load_row((T.suit.dist if g < 3 else T.honor.dist) + <size_t>idx[g] * DIST_STRIDE, pt, rows[g])
    mjsim_combine_upto(rows[0], rows[1], a, melds)
    if n_groups == 4:
        mjsim_combine_upto(rows[2], rows[3], b, melds)
        return mjsim_split_min(a, b, melds)
    return mjsim_split_min(a, rows[2], melds)


cdef extern from "_pairs.h":
    void mjsim_pairs_total(const uint8_t* c, int n, int* pairs, int* total) noexcept nogil
    void mjsim_pairs_total_plain(const uint8_t* c, int n, int* pairs, int* total) noexcept nogil
    int mjsim_count_shape(const uint8_t* c) noexcept nogil
    int mjsim_count_shape_plain(const uint8_t* c) noexcept nogil
    int MJSIM_PAIRS_SIMD


cdef inline int _pairs_distance(const uint8_t* c, int n) noexcept nogil:
    """Tiles to add for seven pairs (four of a kind = two pairs); n = 27 or 34 kinds."""
    cdef int pairs, total, singles, missing
    mjsim_pairs_total(c, n, &pairs, &total)
    singles = total - 2 * pairs
    missing = 7 - pairs
    if missing < 0:
        missing = 0
    return missing + (missing - singles if missing > singles else 0)


cdef inline int _suit_mask(const uint8_t* c, int n_groups) noexcept nogil:
    cdef int g, mask = 0
    for g in range(n_groups):
        if _group_sum(c, g):
            mask |= 1 << g
    return mask


cdef inline bint _single_suit(int mask) noexcept nogil:
    return mask == 1 or mask == 2 or mask == 4


# ---------------------------------------------------------------- Wanzai

cdef bint _shisanlan(const Tables* T, const uint8_t* c) noexcept nogil:
    cdef int g
    for g in range(4):
        # the largest gap-3 subset (suits) / distinct honors equals the group size
        if _need(T, c, g)[3] != _group_sum(c, g):
            return False
    return True


cdef bint _daqidui_counts(const uint8_t* c) noexcept nogil:
    cdef int i, pairs = 0
    for i in range(N_KINDS):
        if c[i] == 2:
            pairs += 1
        elif c[i] == 1 or c[i] == 4:
            return False
    return pairs == 1


cdef void _evaluate_wanzai(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                           bint self_draw, int context, EvalResult* out) noexcept nogil:
    cdef const Tables* T = tables()
    cdef uint32_t cands = 0
    cdef int i, quads = 0, odd = 0, multi = 0, shape, col, best = P_NONE, best_v = -1, row, v
    cdef bint qys
    # a robbed kong scores as a self-draw (RULES §2.5)
    col = 1 if (self_draw or context == CTX_QIANGGANGHU) else 0
    if _std_complete(T, c, 4):
        cands |= 1 << P_PINGHU
        if not mi.has_chow and _daqidui_counts(c):
            cands |= 1 << P_DAQIDUI
        # 全求人: four exposed melds, won on a discard; won by self-draw it is 平胡 unless
        # the house variant (quanqiuren_self) says otherwise (RULES §2.2)
        if mi.n == 4 and not mi.has_concealed_kong and (col == 0 or cfg.quanqiuren_self):
            cands |= 1 << P_QUANQIUREN
    if mi.n == 0:
        shape = mjsim_count_shape(c)
        odd = shape & 1
        multi = shape >> 1
        if not odd:
            for i in range(N_KINDS):
                quads += c[i] == 4
            cands |= 1 << (P_QIXIAODUI + quads)
        elif not multi and _shisanlan(T, c):
            cands |= 1 << P_SHISANLAN
            if _group_sum(c, 3) == 7:
                cands |= 1 << P_QIXING_SHISANLAN
    if cands == 0:
        return
    qys = _single_suit(_suit_mask(c, 4) | mi.suit_mask)
    for i in range(9):
        if cands & (1 << i):
            row = QYS_ROW[i] if qys else i
            v = cfg.values[row][col]
            if v >= best_v:  # on equal value the id further down the table wins
                best_v = v
                best = row
    out.win = 1
    out.pattern = best
    out.points = cfg.base * best_v
    # contexts carry no value in Wanzai, so they are not properties (win_kind records them)
    out.props = cands | ((<uint32_t>qys) << PR_QINGYISE)


# ---------------------------------------------------------------- Anhua

cdef int _anhua_forms(const EvalConfig* cfg, const Tables* T, const int32_t* idx, int pairs, int tiles,
                      int jokers, const MeldInfo* mi, uint32_t* props) noexcept nogil:
    """Best special multiplier of a complete hand (0 if incomplete), from the natural tiles'
    suit indices, their pairs and their number (the jokers apart)."""
    cdef int best = 0, pt = 2 if cfg.pair_258 else 1
    cdef const uint8_t* rows[3]
    cdef bint one_suit
    cdef int m, g
    for g in range(3):
        rows[g] = T.suit.need + <size_t>idx[g] * 4
    one_suit = _single_suit(_mask_of_indices(idx, 3) | mi.suit_mask)
    props[0] = 0
    if one_suit and need_of_rows(rows, 3, 1) <= jokers:
        best = cfg.m_qingyise
        props[0] = 1u << PR_QINGYISE
    elif need_of_rows(rows, 3, pt) <= jokers:
        best = 1
    if mi.n == 0 and _pairs_from(pairs, tiles - 2 * pairs) <= jokers:
        m = cfg.m_xiaoqidui * (cfg.m_qingyise if one_suit else 1)
        if m > best:
            best = m
            props[0] = (1u << PR_XIAOQIDUI) | ((<uint32_t>one_suit) << PR_QINGYISE)
    return best


cdef int _anhua_form_multiplier(const EvalConfig* cfg, const Tables* T, const uint8_t* nat,
                                int jokers, const MeldInfo* mi, uint32_t* props) noexcept nogil:
    """Best special multiplier of a complete hand (0 if incomplete); nat excludes jokers."""
    cdef int32_t idx[3]
    cdef int pairs, tiles
    _group_indices(nat, 3, idx)
    mjsim_pairs_total(nat, N_SUITED, &pairs, &tiles)
    return _anhua_forms(cfg, T, idx, pairs, tiles, jokers, mi, props)


cdef inline int _wild_counts(const uint8_t* c, int indicator, int face_value_tile, int* a,
                             int* b) noexcept nogil:
    """The type-A and type-B wilds in c, face_value_tile (a won discard) not counted; their sum."""
    cdef int ak, bk
    if not wild_kinds(indicator, &ak, &bk):
        # indicator -1: no wilds, every tile at face value (players ask "complete / tenpai
        # at face value?" this way, e.g. for discard-win eligibility, RULES §3.3)
        a[0] = 0
        b[0] = 0
        return 0
    a[0] = c[ak]
    b[0] = c[bk]
    if face_value_tile == ak and a[0]:
        a[0] -= 1
    elif face_value_tile == bk and b[0]:
        b[0] -= 1
    return a[0] + b[0]


cdef int _split_jokers(const uint8_t* c, int indicator, int face_value_tile, uint8_t* nat,
                       int* a, int* b) noexcept nogil:
    """Copy c into nat without the wild tiles; face_value_tile (a won discard) stays natural."""
    cdef int ak, bk, jokers
    memcpy(nat, c, N_KINDS)
    jokers = _wild_counts(c, indicator, face_value_tile, a, b)
    if wild_kinds(indicator, &ak, &bk):
        nat[ak] -= a[0]
        nat[bk] -= b[0]
    return jokers


cdef inline int64_t _times(int64_t v, int m) noexcept nogil:
    """v x m, saturating at 2^62 (v >= 0, m >= 1): with score_cap the factors may be large,
    and the cap applies to the product."""
    cdef int64_t limit = (<int64_t>1) << 62
    return limit if v > limit // m else v * m


cdef void _evaluate_anhua(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi, int win_tile,
                          bint self_draw, int indicator, int context, EvalResult* out) noexcept nogil:
    """RULES §3.2-3.3.  Basic type: 硬莊 when complete with every wild at face value, else
    平胡 with the wild multiplier.  hard_if_natural: a hand complete both ways takes the
    higher score; without it such a hand is 硬莊 whatever a wild reading would give."""
    cdef const Tables* T = tables()
    cdef int32_t idx[3]
    cdef int a, b, ak, bk, jokers, cat, hard_m, soft_m, pairs, tiles
    cdef int64_t hard_score = 0, soft_score = 0, score
    cdef uint32_t hard_props, soft_props, props
    cdef bint plain_discard = not self_draw and context == CTX_NONE
    jokers = _wild_counts(c, indicator, -1 if self_draw else win_tile, &a, &b)
    cat = category_of(a, b)
    out.category = cat
    if plain_discard and not discard_category_ok(cfg, cat):
        return  # 接炮 (RULES §3.3 discard_win_wilds)
    if not self_draw and not plain_discard and cat > CAT_DAN:
        return  # 搶槓胡 / 槓上炮 need no wild or 單王 (RULES §3.3)
    _group_indices(c, 3, idx)
    mjsim_pairs_total(c, N_SUITED, &pairs, &tiles)
    hard_m = _anhua_forms(cfg, T, idx, pairs, tiles, 0, mi, &hard_props)
    if hard_m:
        hard_score = _times(_times(cfg.base, cfg.m_hard), hard_m)
    if cat != CAT_NONE and not plain_discard and (cfg.hard_if_natural or hard_m == 0):
        # the wild reading differs only in the wilds' own suit (both wild kinds share it)
        wild_kinds(indicator, &ak, &bk)
        idx[ak // 9] -= a * POW5[ak % 9] + b * POW5[bk % 9]
        pairs += ((c[ak] - a) >> 1) - (c[ak] >> 1) + ((c[bk] - b) >> 1) - (c[bk] >> 1)
        soft_m = _anhua_forms(cfg, T, idx, pairs, tiles - jokers, jokers, mi, &soft_props)
        if soft_m:
            soft_score = _times(_times(_times(cfg.base, cfg.m_soft), cfg.m_cat[cat]), soft_m)
    if hard_score == 0 and soft_score == 0:
        return
    if hard_score >= soft_score:
        score = hard_score
        props = hard_props
        out.hard = 1
        out.pattern = P_YINGZHUANG
    else:
        score = soft_score
        props = soft_props
        out.pattern = P_PINGHU
    if context:
        score = _times(score, cfg.m_ctx[context])
        props |= 1u << (PR_CONTEXT0 + context)
    if cat:
        props |= 1u << (PR_CATEGORY0 + cat)
    if cfg.score_cap and score > cfg.score_cap:
        score = cfg.score_cap
    out.win = 1
    out.points = <int>score   # fits: rules.py refuses a rule set whose payments could not
    out.props = props


# ---------------------------------------------------------------- public C API

cdef void evaluate(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi, int win_tile,
                   bint self_draw, int indicator, int context, EvalResult* out) noexcept nogil:
    out.win = 0
    out.pattern = P_NONE
    out.props = 0
    out.points = 0
    out.category = 0
    out.hard = 0
    if cfg.game == GAME_WANZAI:
        _evaluate_wanzai(cfg, c, mi, self_draw, context, out)
    else:
        _evaluate_anhua(cfg, c, mi, win_tile, self_draw, indicator, context, out)


cdef bint is_complete(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                      int indicator) noexcept nogil:
    """Complete in any form, as a self-draw (Anhua: every wild a joker)."""
    cdef const Tables* T = tables()
    cdef uint8_t nat[N_KINDS]
    cdef int a, b, jokers, shape
    cdef uint32_t props
    if cfg.game == GAME_WANZAI:
        if _std_complete(T, c, 4):
            return True
        if mi.n:
            return False
        # seven pairs needs no odd count, 十三爛 no count above one
        shape = mjsim_count_shape(c)
        if not shape & 1:
            return True
        return not shape >> 1 and _shisanlan(T, c)
    jokers = _split_jokers(c, indicator, -1, nat, &a, &b)
    return _anhua_form_multiplier(cfg, T, nat, jokers, mi, &props) > 0


cdef int shanten(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                 int indicator) noexcept nogil:
    """Shanten over every hand form the rules allow (-1 = complete)."""
    cdef const Tables* T = tables()
    cdef uint8_t nat[N_KINDS]
    cdef int a, b, jokers = 0, best, v, g, lan, melds = MAX_MELDS - mi.n
    cdef int32_t idx[4]
    if cfg.game == GAME_WANZAI:
        _group_indices(c, 4, idx)
        best = _std_distance_of(T, idx, 4, melds, 1)
        if mi.n == 0:
            v = _pairs_distance(c, N_KINDS)
            if v < best:
                best = v
            lan = (T.suit.need[<size_t>idx[0] * 4 + 3] + T.suit.need[<size_t>idx[1] * 4 + 3]
                   + T.suit.need[<size_t>idx[2] * 4 + 3] + T.honor.need[<size_t>idx[3] * 4 + 3])
            if 14 - lan < best:
                best = 14 - lan
        return best - 1
    jokers = _split_jokers(c, indicator, -1, nat, &a, &b)
    _group_indices(nat, 3, idx)
    best = _std_distance_of(T, idx, 3, melds, 2 if cfg.pair_258 else 1)
    if cfg.pair_258 and _single_suit(_mask_of_indices(idx, 3) | mi.suit_mask):
        v = _std_distance_of(T, idx, 3, melds, 1)
        if v < best:
            best = v
    if mi.n == 0:
        v = _pairs_distance(nat, N_SUITED)
        if v < best:
            best = v
    best -= jokers
    return (best if best > 0 else 0) - 1


cdef int waits(const EvalConfig* cfg, uint8_t* c, const MeldInfo* mi, int indicator,
               uint8_t* out) noexcept nogil:
    """Kinds that complete a 3n+1 hand; out[k] = 1.  Kinds with all copies held are skipped."""
    cdef int k, n = 0, n_kinds = N_KINDS if cfg.game == GAME_WANZAI else N_SUITED
    cdef int copies
    for k in range(N_KINDS):
        out[k] = 0
    for k in range(n_kinds):
        copies = 3 if k == indicator else 4
        if c[k] + mi.counts[k] >= copies:
            continue
        c[k] += 1
        if is_complete(cfg, c, mi, indicator):
            out[k] = 1
            n += 1
        c[k] -= 1
    return n


include "_eval_scans.pxi"


PAIRS_SIMD = bool(MJSIM_PAIRS_SIMD)   # whether the SSE2 count helpers are compiled in

