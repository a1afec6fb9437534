# cython: language_level=3
"""Win detection, scoring, shanten and waits on 34-kind count arrays (RULES.md §2.2-2.3, §3.1-3.3).

Everything here runs without the GIL on fixed-size arrays.  A hand is split into groups
(three suits, and for Wanzai the seven honors); per-group tables (see _tables.pyx) answer
"how many jokers/tiles are missing", so Anhua's wilds are just jokers added to that sum.
"""
from libc.stdint cimport uint8_t, uint32_t, int32_t, int8_t, int64_t
from libc.string cimport memcpy, memset
from mjsim._tables cimport (Tables, GroupTable, tables, suit_index, honor_index, INF,
                            DIST_STRIDE, MAX_MELDS, N_SUITED, N_KINDS)

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
    """Fewest jokers making every tile part of melds + one pair (pair column pt).

    Each group is completed on its own; exactly one group (or two jokers) holds the pair.
    """
    cdef int g, total = 0, forced = 0, pair_delta = 2
    cdef const uint8_t* e
    for g in range(n_groups):
        e = _need(T, c, g)
        if e[0] == INF:
            if e[pt] == INF or forced:
                return INF
            forced = 1  # this group can only be completed around the pair
            total += e[pt]
        else:
            total += e[0]
            if e[pt] != INF and e[pt] - e[0] < pair_delta:
                pair_delta = e[pt] - e[0]
    return total if forced else total + pair_delta


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


cdef int _std_distance(const Tables* T, const uint8_t* c, int n_groups, int melds, int pt) noexcept nogil:
    """Fewest tiles to add to part of the hand to get `melds` melds + a pair (min-plus over groups)."""
    cdef int f[MAX_MELDS + 1][2]
    cdef int h[MAX_MELDS + 1][2]
    cdef int g, m, m1, v, started = 0
    cdef const uint8_t* d
    for g in range(n_groups):
        if _group_sum(c, g) == 0 and (g < n_groups - 1 or started):
            continue  # an empty group adds nothing beyond filling from outside
        d = _dist(T, c, g)
        if not started:
            for m in range(melds + 1):
                f[m][0] = d[m * 3]
                f[m][1] = d[m * 3 + pt]
            started = 1
            continue
        for m in range(melds + 1):
            h[m][0] = INF
            h[m][1] = INF
            for m1 in range(m + 1):
                v = f[m1][0] + d[(m - m1) * 3]
                if v < h[m][0]:
                    h[m][0] = v
                v = f[m1][1] + d[(m - m1) * 3]
                if v < h[m][1]:
                    h[m][1] = v
                v = f[m1][0] + d[(m - m1) * 3 + pt]
                if v < h[m][1]:
                    h[m][1] = v
        for m in range(melds + 1):
            f[m][0] = h[m][0]
            f[m][1] = h[m][1]
    return f[melds][1]


cdef inline int _pairs_distance(const uint8_t* c, int n) noexcept nogil:
    """Tiles to add for seven pairs (four of a kind = two pairs)."""
    cdef int i, pairs = 0, singles = 0, missing
    for i in range(n):
        pairs += c[i] >> 1
        singles += c[i] & 1
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
    cdef int i, quads = 0, odd = 0, multi = 0, col, best = P_NONE, best_v = -1, row, v
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
        for i in range(N_KINDS):
            odd |= c[i] & 1
            multi |= c[i] > 1
            quads += c[i] == 4
        if not odd:
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

cdef int _anhua_form_multiplier(const EvalConfig* cfg, const Tables* T, const uint8_t* nat,
                                int jokers, const MeldInfo* mi, uint32_t* props) noexcept nogil:
    """Best special multiplier of a complete hand (0 if incomplete); nat excludes jokers."""
    cdef int best = 0, pt = 2 if cfg.pair_258 else 1
    cdef bint one_suit = _single_suit(_suit_mask(nat, 3) | mi.suit_mask)
    cdef int m
    props[0] = 0
    if one_suit and _std_need(T, nat, 3, 1) <= jokers:
        best = cfg.m_qingyise
        props[0] = 1u << PR_QINGYISE
    elif _std_need(T, nat, 3, pt) <= jokers:
        best = 1
    if mi.n == 0 and _pairs_distance(nat, N_SUITED) <= jokers:
        m = cfg.m_xiaoqidui * (cfg.m_qingyise if one_suit else 1)
        if m > best:
            best = m
            props[0] = (1u << PR_XIAOQIDUI) | ((<uint32_t>one_suit) << PR_QINGYISE)
    return best


cdef int _split_jokers(const uint8_t* c, int indicator, int face_value_tile, uint8_t* nat,
                       int* a, int* b) noexcept nogil:
    """Copy c into nat without the wild tiles; face_value_tile (a won discard) stays natural."""
    cdef int ak, bk, i
    for i in range(N_KINDS):
        nat[i] = c[i]
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
    nat[ak] -= a[0]
    nat[bk] -= b[0]
    return a[0] + b[0]


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
    cdef uint8_t nat[N_KINDS]
    cdef int a, b, jokers, cat, hard_m, soft_m
    cdef int64_t hard_score = 0, soft_score = 0, score
    cdef uint32_t hard_props, soft_props, props
    cdef bint plain_discard = not self_draw and context == CTX_NONE
    jokers = _split_jokers(c, indicator, -1 if self_draw else win_tile, nat, &a, &b)
    cat = category_of(a, b)
    out.category = cat
    if plain_discard and not discard_category_ok(cfg, cat):
        return  # 接炮 (RULES §3.3 discard_win_wilds)
    if not self_draw and not plain_discard and cat > CAT_DAN:
        return  # 搶槓胡 / 槓上炮 need no wild or 單王 (RULES §3.3)
    hard_m = _anhua_form_multiplier(cfg, T, c, 0, mi, &hard_props)
    if hard_m:
        hard_score = _times(_times(cfg.base, cfg.m_hard), hard_m)
    if cat != CAT_NONE and not plain_discard and (cfg.hard_if_natural or hard_m == 0):
        soft_m = _anhua_form_multiplier(cfg, T, nat, jokers, mi, &soft_props)
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


# ---------------------------------------------------------------- shanten of every neighbour
#
# Players ask "what is the shanten after discarding k" and "which draws lower it" for every
# kind at once.  A kind only changes its own group's row, so combining the other groups once
# (prefix and suffix min-plus products) answers all 34 questions with one table lookup each.

cdef enum:
    ROW_BYTES = 16                 # f[2m + q]: m melds, q = pair taken; bytes 10..15 are 255


cdef inline int _min2(int a, int b) noexcept nogil:
    return a if a < b else b


cdef extern from "_rowmin.h":
    int mjsim_row_min_plus(const uint8_t* d, const uint8_t* r) noexcept nogil
    void mjsim_combine_rows(const uint8_t* a, const uint8_t* b, uint8_t* out) noexcept nogil


cdef inline void _load_row(const uint8_t* d, int pt, uint8_t* f) noexcept nogil:
    """A group's distance row as [2 * m + q] bytes (q = 1: with the pair of column pt)."""
    cdef int m
    memset(f, 255, ROW_BYTES)
    for m in range(MAX_MELDS + 1):
        f[2 * m] = d[m * 3]
        f[2 * m + 1] = d[m * 3 + pt]


cdef void _rest_template(const uint8_t* rest, int melds, int pt, uint8_t* template) noexcept nogil:
    """Lay the rest of the hand out like a group's 16-byte distance row (m * 3 + pair column),
    so that one saturating byte add and a minimum combine them; unused bytes are 255."""
    cdef int m, i
    for i in range(DIST_STRIDE):
        template[i] = 255
    for m in range(melds + 1):
        template[m * 3] = rest[2 * (melds - m) + 1]
        template[m * 3 + pt] = rest[2 * (melds - m)]


cdef int _std_neighbours(const Tables* T, const uint8_t* c, int n_groups, int melds, int pt,
                         int sign, int* out) noexcept nogil:
    """_std_distance of c and, in out[k], of c + sign * one tile of kind k (INF if impossible)."""
    cdef uint8_t rows[4][ROW_BYTES]
    cdef uint8_t prefix[5][ROW_BYTES]
    cdef uint8_t suffix[5][ROW_BYTES]
    cdef uint8_t rest[ROW_BYTES]
    cdef uint8_t template[DIST_STRIDE]
    cdef int g, i, k, m, lo, n_kinds, v, best, total, own
    cdef int32_t idx, step
    cdef int32_t index[4]
    cdef const GroupTable* gt
    cdef const uint8_t* d
    for g in range(n_groups):
        index[g] = suit_index(c + 9 * g) if g < 3 else honor_index(c + 27)
        _load_row((T.suit.dist if g < 3 else T.honor.dist) + <size_t>index[g] * DIST_STRIDE, pt, rows[g])
    # prefix[g] combines groups < g, suffix[g] groups >= g; only the products used below
    # are formed (this runs for every player decision)
    memcpy(prefix[1], rows[0], ROW_BYTES)
    memcpy(suffix[n_groups - 1], rows[n_groups - 1], ROW_BYTES)
    for g in range(1, n_groups - 1):
        mjsim_combine_rows(prefix[g], rows[g], prefix[g + 1])
        mjsim_combine_rows(rows[n_groups - 1 - g], suffix[n_groups - g], suffix[n_groups - 1 - g])
    # the hand's own distance: every group, `melds` melds and the pair
    own = INF
    for m in range(melds + 1):
        own = _min2(own, _min2(prefix[n_groups - 1][2 * m] + rows[n_groups - 1][2 * (melds - m) + 1],
                                   prefix[n_groups - 1][2 * m + 1] + rows[n_groups - 1][2 * (melds - m)]))
    for g in range(n_groups):
        if g == 0:
            memcpy(rest, suffix[1], ROW_BYTES)
        elif g == n_groups - 1:
            memcpy(rest, prefix[g], ROW_BYTES)
        else:
            mjsim_combine_rows(prefix[g], suffix[g + 1], rest)
        _rest_template(rest, melds, pt, template)
        lo = 9 * g
        n_kinds = 9 if g < 3 else 7
        gt = &T.suit if g < 3 else &T.honor
        idx = index[g]
        total = _group_sum(c, g) + sign
        step = 1
        for i in range(n_kinds):
            k = lo + i
            if total > 14 or (sign < 0 and c[k] == 0) or (sign > 0 and c[k] == 4):
                out[k] = INF
                step *= 5
                continue
            out[k] = mjsim_row_min_plus(gt.dist + <size_t>(idx + sign * step) * DIST_STRIDE, template)
            step *= 5
    for k in range(9 * n_groups if n_groups < 4 else N_KINDS, N_KINDS):
        out[k] = INF
    return own


cdef void _pairs_neighbours(const uint8_t* c, int n_kinds, int sign, int* out) noexcept nogil:
    """Seven-pairs distance of c + sign * one tile of each kind."""
    cdef int k, pairs = 0, singles = 0, p, s, missing
    for k in range(n_kinds):
        pairs += c[k] >> 1
        singles += c[k] & 1
    for k in range(N_KINDS):
        if k >= n_kinds or (sign < 0 and c[k] == 0) or (sign > 0 and c[k] == 4):
            out[k] = INF
            continue
        p = pairs
        s = singles
        if c[k] & 1:
            p += sign > 0
            s -= 1
        else:
            p -= sign < 0
            s += 1
        missing = 7 - p if p < 7 else 0
        out[k] = missing + (missing - s if missing > s else 0)


cdef void _lan_neighbours(const Tables* T, const uint8_t* c, int sign, int* out) noexcept nogil:
    """十三爛 distance (14 - largest compatible subset) of c + sign * one tile of each kind."""
    cdef int g, i, k, lan = 0, lo, n_kinds, total
    cdef int32_t idx, step
    cdef int lan_g[4]
    for g in range(4):
        lan_g[g] = _need(T, c, g)[3]
        lan += lan_g[g]
    for g in range(4):
        lo = 9 * g
        n_kinds = 9 if g < 3 else 7
        idx = suit_index(c + lo) if g < 3 else honor_index(c + lo)
        total = _group_sum(c, g) + sign
        step = 1
        for i in range(n_kinds):
            k = lo + i
            if (sign < 0 and c[k] == 0) or (sign > 0 and c[k] == 4) or total > 14:
                out[k] = INF
            else:
                out[k] = 14 - (lan - lan_g[g] + ((T.suit.need if g < 3 else T.honor.need)
                                                 + <size_t>(idx + sign * step) * 4)[3])
            step *= 5


cdef inline int _worst(const int* acc) noexcept nogil:
    """The largest finite entry (INF entries are kinds that cannot be added or removed)."""
    cdef int k, w = -1
    for k in range(N_KINDS):
        if acc[k] < INF and acc[k] > w:
            w = acc[k]
    return w


cdef inline void _min_into(int* acc, const int* x) noexcept nogil:
    cdef int k
    for k in range(N_KINDS):
        if x[k] < acc[k]:
            acc[k] = x[k]


cdef int shanten_neighbours(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                            int indicator, int sign, int8_t* out) noexcept nogil:
    """out[k] = shanten of the hand with one tile of kind k added (sign +1) or removed (-1),
    127 where that is impossible; returns the shanten of the hand itself.  Equal to calling
    shanten() on each neighbour."""
    cdef const Tables* T = tables()
    cdef uint8_t nat[N_KINDS]
    cdef int acc[N_KINDS]
    cdef int tmp[N_KINDS]
    cdef int a, b, ak, bk, jokers, k, base, v, melds = MAX_MELDS - mi.n, mask, mask_k, pt, worst
    if cfg.game == GAME_WANZAI:
        base = _std_neighbours(T, c, 4, melds, 1, sign, acc)
        if mi.n == 0:
            # one tile moves a form's distance by at most one, so a form whose distance
            # exceeds every standard neighbour by two or more cannot lower any of them
            worst = _worst(acc)
            v = _pairs_distance(c, N_KINDS)
            if v - 1 < worst:
                base = v if v < base else base
                _pairs_neighbours(c, N_KINDS, sign, tmp)
                _min_into(acc, tmp)
            v = 14
            for k in range(4):
                v -= _need(T, c, k)[3]
            if v - 1 < worst:
                base = v if v < base else base
                _lan_neighbours(T, c, sign, tmp)
                _min_into(acc, tmp)
        for k in range(N_KINDS):
            out[k] = 127 if acc[k] >= INF else acc[k] - 1
        return base - 1
    jokers = _split_jokers(c, indicator, -1, nat, &a, &b)
    wild_kinds(indicator, &ak, &bk)
    pt = 2 if cfg.pair_258 else 1
    base = _std_neighbours(T, nat, 3, melds, pt, sign, acc)
    mask = _suit_mask(nat, 3) | mi.suit_mask
    if cfg.pair_258 and mask != 7:
        # 清一色 with any pair: for neighbours whose tiles (with the melds) keep to one suit
        v = _std_neighbours(T, nat, 3, melds, 1, sign, tmp)
        if _single_suit(mask) and v < base:
            base = v
        for k in range(N_SUITED):
            mask_k = mask | (1 << (k // 9)) if sign > 0 else (
                mask & ~(1 << (k // 9)) if _group_sum(nat, k // 9) == 1 and not (mi.suit_mask >> (k // 9)) & 1
                else mask)
            if _single_suit(mask_k) and tmp[k] < acc[k]:
                acc[k] = tmp[k]
    if mi.n == 0:
        v = _pairs_distance(nat, N_SUITED)
        base = v if v < base else base
        _pairs_neighbours(nat, N_SUITED, sign, tmp)
        _min_into(acc, tmp)
    for k in range(N_KINDS):
        if k == ak or k == bk:
            # a wild-kind tile is a joker: the naturals stay, the joker count moves
            if sign < 0 and c[k] == 0 or sign > 0 and c[k] + (k == ak) >= 4:
                out[k] = 127
            else:
                v = base - (jokers + sign)
                out[k] = (v if v > 0 else 0) - 1
        elif acc[k] >= INF:
            out[k] = 127
        else:
            v = acc[k] - jokers
            out[k] = (v if v > 0 else 0) - 1
    base -= jokers
    return (base if base > 0 else 0) - 1


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
    cdef int a, b, jokers, i, odd, multi
    cdef uint32_t props
    if cfg.game == GAME_WANZAI:
        if _std_complete(T, c, 4):
            return True
        if mi.n:
            return False
        # seven pairs needs no odd count, 十三爛 no count above one
        odd = 0
        multi = 0
        for i in range(N_KINDS):
            odd |= c[i] & 1
            multi |= c[i] > 1
        if not odd:
            return True
        return not multi and _shisanlan(T, c)
    jokers = _split_jokers(c, indicator, -1, nat, &a, &b)
    return _anhua_form_multiplier(cfg, T, nat, jokers, mi, &props) > 0


cdef int shanten(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                 int indicator) noexcept nogil:
    """Shanten over every hand form the rules allow (-1 = complete)."""
    cdef const Tables* T = tables()
    cdef uint8_t nat[N_KINDS]
    cdef int a, b, jokers = 0, best, v, g, lan, melds = MAX_MELDS - mi.n
    if cfg.game == GAME_WANZAI:
        best = _std_distance(T, c, 4, melds, 1)
        if mi.n == 0:
            v = _pairs_distance(c, N_KINDS)
            if v < best:
                best = v
            lan = 0
            for g in range(4):
                lan += _need(T, c, g)[3]
            if 14 - lan < best:
                best = 14 - lan
        return best - 1
    jokers = _split_jokers(c, indicator, -1, nat, &a, &b)
    best = _std_distance(T, nat, 3, melds, 2 if cfg.pair_258 else 1)
    if cfg.pair_258 and _single_suit(_suit_mask(nat, 3) | mi.suit_mask):
        v = _std_distance(T, nat, 3, melds, 1)
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
