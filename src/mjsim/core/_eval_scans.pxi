# Part of _eval.pyx (included, so that its inline helpers stay inline): shanten after each
# one-tile change (shanten_neighbours) and the one-pass mask scans the players use
# (discard_scan, discard_useful, useful_mask).

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


# ---------------------------------------------------------------- one pass with the tables' masks
#
# A greedy decision asks the shanten after each discard and, for every discard that keeps it
# lowest, which draws would then lower it.  A tile moves a form's distance by at most one, so
# a discard keeps the hand's distance D exactly when it is unnecessary in some split that
# reaches D, and a draw lowers it exactly when it is necessary in some split that reaches
# it.  The group tables store both masks per target (_tables._build_masks); the splits
# reaching D come from each group's row against the other groups' combined row.  A discard
# only changes its own group, so the other groups' part of the answer (_rest_nec) is shared
# by every discard of that group.
#
# Answers are exact or refused: a hand these functions do not cover (MASK_FALLBACK) goes to
# shanten_neighbours, which tests/test_masks.py checks them against.



cdef uint64_t MASK_FALLBACK = (<uint64_t>1) << MASK_FALLBACK_BIT


cdef inline uint64_t _nec(const StdScan* s, int g, int t) noexcept nogil:
    """Necessary kinds (34-bit) of group g at row target t = 2m+q."""
    return (<uint64_t>s.e[g].nec[3 * (t >> 1) + (s.pt if t & 1 else 0)]) << (9 * g)


cdef int _std_scan(const Tables* T, const uint8_t* c, int n_groups, int melds, int pt,
                   StdScan* s) noexcept nogil:
    """D, each group's reaching targets and the unnecessary kinds of the standard form with
    pair column pt; SCAN_FALLBACK for an entry the masks do not cover."""
    cdef int g, m, q, t, v, D = INF, opt
    cdef int32_t r
    cdef const GroupTable* gt
    cdef uint64_t unn = 0
    s.pt = pt
    s.keep = ~(<uint64_t>0)
    s.nec_done = 0
    s.pn_done[0] = 0
    s.pn_done[1] = 0
    for g in range(n_groups):
        gt = &T.suit if g < 3 else &T.honor
        s.idx[g] = suit_index(c + 9 * g) if g < 3 else honor_index(c + 27)
        r = gt.rank[s.idx[g]]
        if r < 0:
            return SCAN_FALLBACK
        s.e[g] = gt.masks + r
        _load_row(gt.dist + <size_t>s.idx[g] * DIST_STRIDE, pt, s.rows[g])
        s.rn_done[g] = 0
    if n_groups == 4:
        # the min-plus product is symmetric: each pair of rests shares its second operand
        mjsim_combine_upto(s.rows[0], s.rows[1], s.prod[0], melds)
        mjsim_combine_upto(s.rows[2], s.rows[3], s.prod[1], melds)
        mjsim_combine2_upto(s.rows[1], s.rows[0], s.prod[1], s.rest[0], s.rest[1], melds)
        mjsim_combine2_upto(s.rows[3], s.rows[2], s.prod[0], s.rest[2], s.rest[3], melds)
    else:
        mjsim_combine2_upto(s.rows[1], s.rows[0], s.rows[2], s.rest[0], s.rest[1], melds)
        mjsim_combine_upto(s.rows[0], s.rows[1], s.rest[2], melds)
    D = mjsim_split_min(s.rows[0], s.rest[0], melds)
    for g in range(n_groups):
        opt = mjsim_split_reach(s.rows[g], s.rest[g], melds, D)
        s.opt[g] = opt
        while opt:
            t = mjsim_ctz64(opt)
            opt &= opt - 1
            unn |= (<uint64_t>s.e[g].unn[3 * (t >> 1) + (pt if t & 1 else 0)]) << (9 * g)
    s.D = D
    s.unn = unn
    return D


cdef uint64_t _pair_nec(const StdScan* s, int a, int b, const uint8_t* ra, const uint8_t* rb,
                        int M, int Q, int R) noexcept nogil:
    """Necessary kinds of groups a and b over their splits of target (M, Q) that cost R."""
    cdef int m1, qa
    cdef uint64_t mask = 0
    for m1 in range(M + 1):
        for qa in range(Q + 1):
            if ra[2 * m1 + qa] + rb[2 * (M - m1) + Q - qa] == R:
                mask |= _nec(s, a, 2 * m1 + qa) | _nec(s, b, 2 * (M - m1) + Q - qa)
    return mask


cdef uint64_t _rest_nec(StdScan* s, int n_groups, int melds, int g, int t) noexcept nogil:
    """Necessary kinds of the groups other than g over the splits that reach the hand's
    distance with g at target t (memoised: shared by every discard of group g)."""
    cdef int M = melds - (t >> 1), Q = 1 - (t & 1), R = s.rest[g][2 * M + Q], a, b, c2, m1, qa, pv, pi, tp
    cdef const uint8_t* pr
    cdef uint64_t mask = 0
    if (s.rn_done[g] >> t) & 1:
        return s.rn[g][t]
    if n_groups == 3:
        a = 1 if g == 0 else 0
        b = 1 if g == 2 else 2
        mask = _pair_nec(s, a, b, s.rows[a], s.rows[b], M, Q, R)
    else:
        # g and one other group on one side, the remaining two combined (prod) on the other
        if g < 2:
            a = 1 - g
            b = 2
            c2 = 3
            pr = s.prod[1]
        else:
            a = 5 - g
            b = 0
            c2 = 1
            pr = s.prod[0]
        pi = 1 if g < 2 else 0
        for m1 in range(M + 1):
            for qa in range(Q + 1):
                tp = 2 * (M - m1) + Q - qa
                pv = pr[tp]
                if s.rows[a][2 * m1 + qa] + pv == R:
                    if not (s.pn_done[pi] >> tp) & 1:
                        s.pn[pi][tp] = _pair_nec(s, b, c2, s.rows[b], s.rows[c2], M - m1, Q - qa, pv)
                        s.pn_done[pi] |= 1 << tp
                    mask |= _nec(s, a, 2 * m1 + qa) | s.pn[pi][tp]
    s.rn[g][t] = mask
    s.rn_done[g] |= 1 << t
    return mask


cdef inline uint64_t _nec_std_hand(StdScan* s, int n_groups) noexcept nogil:
    """Necessary kinds of the scanned hand itself (its draws that lower D): every group's
    necessary kinds at its reaching targets, each of which is in some split costing D."""
    cdef int g, t, opt
    cdef uint64_t mask = 0
    if not s.nec_done:
        for g in range(n_groups):
            opt = s.opt[g]
            while opt:
                t = mjsim_ctz64(opt)
                opt &= opt - 1
                mask |= _nec(s, g, t)
        s.nec_all = mask
        s.nec_done = 1
    return s.nec_all


cdef uint64_t _std_useful(StdScan* s, const Tables* T, int n_groups, int melds, int k) noexcept nogil:
    """Necessary kinds of the hand without one k (k unnecessary in this form: the distance
    stays), i.e. the draws that would then lower this form's distance."""
    cdef int g = k // 9 if k < 27 else 3, t, col, opt = s.opt[g], kept = 0
    cdef const GroupTable* gt = &T.suit if g < 3 else &T.honor
    cdef int32_t idx = s.idx[g] - POW5[k - 9 * g]
    cdef const uint8_t* d = gt.dist + <size_t>idx * DIST_STRIDE
    cdef const MaskEntry* e = gt.masks + gt.rank[idx]
    cdef uint64_t own = 0, mask
    while opt:
        t = mjsim_ctz64(opt)
        opt &= opt - 1
        col = 3 * (t >> 1) + (s.pt if t & 1 else 0)
        if d[col] == s.rows[g][t]:
            kept |= 1 << t
            own |= e.nec[col]
    mask = own << (9 * g)
    if kept == s.opt[g]:
        # every split of the hand stays: the other groups' part is theirs in the hand
        mask |= _nec_std_hand(s, n_groups) & ~((<uint64_t>0x1ff) << (9 * g))
    else:
        while kept:
            t = mjsim_ctz64(kept)
            kept &= kept - 1
            mask |= _rest_nec(s, n_groups, melds, g, t)
    return mask & s.keep


cdef inline int _pairs_from(int pairs, int singles) noexcept nogil:
    cdef int missing = 7 - pairs if pairs < 7 else 0
    return missing + (missing - singles if missing > singles else 0)


cdef inline uint64_t _count_mask(const uint8_t* c, int n_kinds, int want_odd) noexcept nogil:
    """Kinds with an odd count (want_odd) or with 0 or 2 copies."""
    cdef int k
    cdef uint64_t m = 0
    for k in range(n_kinds):
        if (want_odd and c[k] & 1) or (not want_odd and (c[k] == 0 or c[k] == 2)):
            m |= (<uint64_t>1) << k
    return m


cdef int _forms_scan(const Tables* T, const uint8_t* c, int n_groups, int n_kinds, bint closed,
                     bint lan, DiscardScan* s) noexcept nogil:
    """Seven pairs (closed hands) and 十三爛 (lan) beside the standard scans already in s:
    their distances from the tables' per-group counts, D, and the kinds whose discard keeps D."""
    cdef int g, pairs = 0, singles = 0, lan_sum = 0, D, missing
    cdef uint32_t f
    s.d_pairs = INF
    s.d_lan = INF
    s.unn_pairs = 0
    s.unn_lan = 0
    for g in range(n_groups):
        f = s.std[0].e[g].form
        s.form[g] = f
        pairs += (f >> 18) & 7
        singles += (f >> 21) & 15
        lan_sum += (f >> 25) & 15
    D = s.std[0].D
    if s.n_std == 2 and s.std[1].D < D:
        D = s.std[1].D
    if closed:
        s.d_pairs = _pairs_from(pairs, singles)
        if s.d_pairs < D:
            D = s.d_pairs
        if lan:
            s.d_lan = 14 - lan_sum
            if s.d_lan < D:
                D = s.d_lan
    s.D = D
    s.unn = 0
    if s.std[0].D == D:
        s.unn |= s.std[0].unn
    if s.n_std == 2 and s.std[1].D == D:
        s.unn |= s.std[1].unn
    if s.d_pairs == D:
        # a pair's tile always counts (pairs <= 7 in 14 tiles); an odd one when the singles
        # outnumber the missing pairs
        missing = 7 - pairs if pairs < 7 else 0
        s.odd = _count_mask(c, n_kinds, 1)
        if missing < singles:
            s.unn_pairs = s.odd
        s.unn |= s.unn_pairs
    if s.d_lan == D:
        for g in range(n_groups):
            s.unn_lan |= (<uint64_t>((s.form[g] >> 9) & 0x1ff)) << (9 * g)
        s.unn |= s.unn_lan
    return D


cdef int _anhua_std(const EvalConfig* cfg, const Tables* T, const uint8_t* nat, const MeldInfo* mi,
                    int melds, int hand_tiles, DiscardScan* s) noexcept nogil:
    """The standard scans of an Anhua hand's naturals: the rule's pair column, and with
    2-5-8 pairs also any pair for a hand whose tiles keep to one suit (清一色).  hand_tiles
    is 14 for a hand about to discard, 13 for one about to draw: a 2-suit hand with one
    stray natural could become one-suit by a discard, which is left to shanten_neighbours."""
    cdef int g, mask = mi.suit_mask, sg, sums[3]
    cdef uint32_t f
    s.n_std = 1
    if _std_scan(T, nat, 3, melds, 2 if cfg.pair_258 else 1, &s.std[0]) == SCAN_FALLBACK:
        return SCAN_FALLBACK
    for g in range(3):
        f = s.std[0].e[g].form
        sums[g] = 2 * ((f >> 18) & 7) + ((f >> 21) & 15)   # tiles: two per pair, one per odd count
        if sums[g]:
            mask |= 1 << g
    if not cfg.pair_258 or mask == 7:
        return 0
    if mask == 0:
        return SCAN_FALLBACK
    if _single_suit(mask):
        if _std_scan(T, nat, 3, melds, 1, &s.std[1]) == SCAN_FALLBACK:
            return SCAN_FALLBACK
        sg = 0 if mask == 1 else (1 if mask == 2 else 2)
        s.std[1].keep = (<uint64_t>0x1ff) << (9 * sg)
        s.n_std = 2
        return 0
    if hand_tiles == 14:
        for g in range(3):
            if (mask >> g) & 1 and not (mi.suit_mask >> g) & 1 and sums[g] == 1:
                return SCAN_FALLBACK
    return 0


cdef int discard_scan(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi, int indicator,
                      DiscardScan* s, int8_t* out) noexcept nogil:
    """shanten_neighbours(..., -1, out) of a 3n+2 hand, kept in s for discard_useful;
    SCAN_FALLBACK (out untouched) for a hand it does not cover.  out may be NULL: a
    discard's shanten is then read from s (D, J and unn, as the loop below does)."""
    cdef const Tables* T = tables()
    cdef uint8_t nat[N_KINDS]
    cdef int a, b, k, v, D, J
    cdef uint64_t held
    s.melds = MAX_MELDS - mi.n
    if cfg.game == GAME_WANZAI:
        s.n_groups = 4
        s.n_std = 1
        s.J = 0
        s.ak = -1
        s.bk = -1
        if _std_scan(T, c, 4, s.melds, 1, &s.std[0]) == SCAN_FALLBACK:
            return SCAN_FALLBACK
        D = _forms_scan(T, c, 4, N_KINDS, mi.n == 0, True, s)
        if out == NULL:
            return D - 1
        memset(out, 127, N_KINDS)
        held = mjsim_held_mask(c)
        while held:
            k = mjsim_ctz64(held)
            held &= held - 1
            out[k] = D - ((s.unn >> k) & 1)
        return D - 1
    s.n_groups = 3
    J = _split_jokers(c, indicator, -1, nat, &a, &b)
    s.J = J
    wild_kinds(indicator, &s.ak, &s.bk)
    if _anhua_std(cfg, T, nat, mi, s.melds, 14, s) == SCAN_FALLBACK:
        return SCAN_FALLBACK
    D = _forms_scan(T, nat, 3, N_SUITED, mi.n == 0, False, s)
    if out == NULL:
        v = D - J
        return (v if v > 0 else 0) - 1
    memset(out, 127, N_KINDS)
    held = mjsim_held_mask(c)
    while held:
        k = mjsim_ctz64(held)
        held &= held - 1
        if k == s.ak or k == s.bk:
            v = D - (J - 1)
        else:
            v = D + 1 - ((s.unn >> k) & 1) - J
        out[k] = (v if v > 0 else 0) - 1
    v = D - J
    return (v if v > 0 else 0) - 1


cdef uint64_t _wild_draws(const DiscardScan* s, const uint8_t* c, uint64_t nat_useful) noexcept nogil:
    """Anhua: the draws that lower a hand whose naturals' distance D is above its jokers J --
    natural kinds by the naturals' masks, a wild kind always (it is one more joker)."""
    cdef uint64_t m = nat_useful & ((<uint64_t>1 << N_SUITED) - 1)
    if s.ak >= 0:
        m &= ~((<uint64_t>1 << s.ak) | (<uint64_t>1 << s.bk))
        if c[s.ak] + 1 < 4:
            m |= <uint64_t>1 << s.ak
        if c[s.bk] < 4:
            m |= <uint64_t>1 << s.bk
    return m


cdef uint64_t discard_useful(DiscardScan* s, const uint8_t* c, int k) noexcept nogil:
    """After discard_scan of c: the kinds j with shanten(c - k + j) < shanten(c - k), for a
    non-wild k whose discard keeps the shanten (bit k of s.unn); c is the 3n+2 hand."""
    cdef const Tables* T = tables()
    cdef uint64_t m = 0, bit = (<uint64_t>1) << k
    cdef int g, i
    cdef int32_t idx
    cdef const GroupTable* gt
    if s.D <= s.J:
        return 0     # the hand without k is complete (with its jokers): nothing lowers it
    if s.std[0].D == s.D and s.std[0].unn & bit:
        m |= _std_useful(&s.std[0], T, s.n_groups, s.melds, k)
    if s.n_std == 2 and s.std[1].D == s.D and s.std[1].unn & bit:
        m |= _std_useful(&s.std[1], T, s.n_groups, s.melds, k)
    if s.d_pairs == s.D and s.unn_pairs & bit:
        # k was odd and stays even; the pairs count stays below seven (D > 0)
        m |= s.odd & ~bit
    if s.d_lan == s.D and s.unn_lan & bit:
        g = k // 9 if k < 27 else 3
        gt = &T.suit if g < 3 else &T.honor
        idx = s.std[0].idx[g] - POW5[k - 9 * g]
        for i in range(s.n_groups):
            if i != g:
                m |= (<uint64_t>(s.form[i] & 0x1ff)) << (9 * i)
        m |= (<uint64_t>(gt.masks[gt.rank[idx]].form & 0x1ff)) << (9 * g)
    if s.n_groups == 3:
        return _wild_draws(s, c, m)
    return m


cdef uint64_t useful_mask(const EvalConfig* cfg, const uint8_t* c, const MeldInfo* mi,
                          int indicator, int* sh) noexcept nogil:
    """The kinds j with shanten(c + j) < shanten(c) for a 3n+1 hand (a kind held four times
    or Anhua's honors never), shanten(c) in sh; MASK_FALLBACK for a hand it does not cover."""
    cdef const Tables* T = tables()
    cdef DiscardScan s
    cdef uint8_t nat[N_KINDS]
    cdef int a, b, g, D, v, pairs = 0, singles = 0, missing
    cdef uint64_t m = 0
    s.melds = MAX_MELDS - mi.n
    if cfg.game == GAME_WANZAI:
        s.n_groups = 4
        s.n_std = 1
        s.J = 0
        if _std_scan(T, c, 4, s.melds, 1, &s.std[0]) == SCAN_FALLBACK:
            return MASK_FALLBACK
        D = _forms_scan(T, c, 4, N_KINDS, mi.n == 0, True, &s)
    else:
        s.n_groups = 3
        s.J = _split_jokers(c, indicator, -1, nat, &a, &b)
        wild_kinds(indicator, &s.ak, &s.bk)
        if _anhua_std(cfg, T, nat, mi, s.melds, 13, &s) == SCAN_FALLBACK:
            return MASK_FALLBACK
        D = _forms_scan(T, nat, 3, N_SUITED, mi.n == 0, False, &s)
    v = D - s.J
    sh[0] = (v if v > 0 else 0) - 1
    if D <= s.J:
        return 0
    if s.std[0].D == D:
        m |= _nec_std_hand(&s.std[0], s.n_groups) & s.std[0].keep
    if s.n_std == 2 and s.std[1].D == D:
        m |= _nec_std_hand(&s.std[1], s.n_groups) & s.std[1].keep
    if s.d_pairs == D:
        for g in range(s.n_groups):
            pairs += (s.form[g] >> 18) & 7
            singles += (s.form[g] >> 21) & 15
        missing = 7 - pairs if pairs < 7 else 0
        if cfg.game == GAME_WANZAI:
            if pairs < 7:
                m |= _count_mask(c, N_KINDS, 1)
            if missing > singles:
                m |= _count_mask(c, N_KINDS, 0)
        else:
            if pairs < 7:
                m |= _count_mask(nat, N_SUITED, 1)
            if missing > singles:
                m |= _count_mask(nat, N_SUITED, 0)
    if s.d_lan == D:
        for g in range(s.n_groups):
            m |= (<uint64_t>(s.form[g] & 0x1ff)) << (9 * g)
    if s.n_groups == 3:
        return _wild_draws(&s, c, m)
    return m
