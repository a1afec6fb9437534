# The danger model of _ev.pyx (included there, as _ev_shim.pxi is): how likely a discard
# is to deal in, and what that costs.  Each opponent's chance of being ready (tenpai_p)
# times the chance a ready seat waits on the kind (wait_z), both logistics on what the
# table shows; kinds an opponent let pass are safe (passed_kinds); the loss grows with
# the hand its melds point to (threat_factor).  compute_danger fills Ctx.risk and Ctx.cost.


ctypedef struct Opp:
    uint8_t gen[34]             # kinds in the opponent's pool (its discards nobody claimed)
    int suit_pool[4]            # pool tiles per suit (3: honours)
    int pool_n


cdef void opp_info(const SeatState* q, Opp* oi) noexcept nogil:
    cdef int j, k
    memset(oi, 0, sizeof(Opp))
    oi.pool_n = q.n_discards
    for j in range(q.n_discards):
        k = q.discards[j]
        oi.gen[k] = 1
        oi.suit_pool[k // 9 if k < 27 else 3] += 1


cdef void tenpai_x(const SeatState* q, const Opp* oi, int live, double* x) noexcept nogil:
    """Model-1 features of "this opponent is ready" (what any seat can see)."""
    cdef int j, k, mid = 0, hon = 0, term = 0
    for j in range(q.n_discards):
        k = q.discards[j]
        if k >= 27:
            hon += 1
        elif k % 9 == 0 or k % 9 == 8:
            term += 1
        if j >= q.n_discards - 3:
            mid += k < 27 and 2 <= k % 9 <= 6
    x[0] = 1
    x[1] = q.n_discarded * 0.1
    x[2] = q.n_melds
    x[3] = live * 0.01
    x[4] = mid
    x[5] = hon
    x[6] = term
    x[7] = x[1] * x[1]


cdef inline double vis_of(const HandState* st, const SeatState* p, int k) noexcept nogil:
    return 4 - available(st, p, k)


cdef inline bint pool_near(const Opp* oi, int k, int r, int i) noexcept nogil:
    """Is a kind i ranks from suited k (rank r) in the opponent's pool?"""
    return (r - i >= 0 and oi.gen[k - i]) or (r + i <= 8 and oi.gen[k + i])


cdef void sight_of(const HandState* st, const SeatState* p, double* sight) noexcept nogil:
    """sight[k]: the copies of k seat p can see (vis_of), for the 34 kinds; sight[34] and
    sight[35]: the winds' and the dragons' sums.  The same for every opponent, so the wait
    features read them from here instead of counting them again for each."""
    cdef int k
    for k in range(34):
        sight[k] = vis_of(st, p, k)
    sight[34] = sight[27] + sight[28] + sight[29] + sight[30]
    sight[35] = sight[31] + sight[32] + sight[33]


cdef inline double seen_near(const double* sight, int k, int r, int i) noexcept nogil:
    """Copies in sight of the kinds i ranks from suited k (rank r)."""
    cdef double o = 0
    if r - i >= 0:
        o += sight[k - i]
    if r + i <= 8:
        o += sight[k + i]
    return o


cdef void wait_x(const double* sight, const SeatState* q, const Opp* oi, int k,
                 double* x) noexcept nogil:
    """Model-1 features of "a ready opponent wins on k": the tile's class, the opponent's
    pool around it, its melds' suits, and the copies of k and its neighbours in sight
    (sight_of)."""
    cdef int r, g, i, a, b, n_other
    cdef double v = sight[k], o
    memset(x, 0, N_WAIT_F * sizeof(double))
    x[0] = 1
    x[5] = oi.gen[k]
    x[6] = v * 0.25
    x[7] = v >= 4
    x[17] = q.n_melds
    if k < 27:
        r = k % 9
        g = k // 9
        x[3] = r == 0 or r == 8
        x[4] = r == 1 or r == 7
        for i in range(1, 4):
            x[7 + i] = pool_near(oi, k, r, i)
        x[11] = (q.mi.suit_mask >> g) & 1
        x[12] = oi.suit_pool[g] / (<double>oi.pool_n if oi.pool_n > 0 else 1.0)
        x[18] = oi.suit_pool[g] == 0
        for i in range(1, 3):
            x[14 + i] = seen_near(sight, k, r, i) * 0.125
    else:
        a, b = (27, 31) if k < 31 else (31, 34)
        x[1] = k < 31
        x[2] = k >= 31
        x[14] = (q.mi.suit_mask >> 3) & 1
        o = 0
        n_other = 0
        for i in range(a, b):
            x[13] += oi.gen[i]
            if i != k:
                o += sight[i]
                n_other += 1
        x[19] = o / (4.0 * n_other)


cdef void opp_base(const SeatState* q, const Opp* oi, const double* w, double* zg) noexcept nogil:
    """The part of the wait logit w . wait_x that depends only on the opponent and the
    tile's group (0..2 suits, 3 winds, 4 dragons): computed once per opponent, so that each
    kind adds only its own terms (wait_z)."""
    cdef int g, i, winds = 0, dragons = 0
    cdef double z0 = w[0] + w[17] * q.n_melds, hon = w[14] * ((q.mi.suit_mask >> 3) & 1)
    for g in range(3):
        zg[g] = (z0 + w[11] * ((q.mi.suit_mask >> g) & 1)
                 + w[12] * oi.suit_pool[g] / (<double>oi.pool_n if oi.pool_n > 0 else 1.0)
                 + w[18] * (oi.suit_pool[g] == 0))
    for i in range(27, 31):
        winds += oi.gen[i]
    for i in range(31, 34):
        dragons += oi.gen[i]
    zg[3] = z0 + w[1] + w[13] * winds + hon
    zg[4] = z0 + w[2] + w[13] * dragons + hon


cdef inline double wait_z(const double* sight, const Opp* oi, const double* w, const double* zg,
                          int k) noexcept nogil:
    """w . wait_x(k), from opp_base's per-group part plus the kind's own terms (sight:
    sight_of)."""
    cdef int r, i
    cdef double v = sight[k], z
    z = w[5] * oi.gen[k] + w[6] * v * 0.25 + w[7] * (v >= 4)
    if k < 27:
        r = k % 9
        z += zg[k // 9]
        if r == 0 or r == 8:
            z += w[3]
        elif r == 1 or r == 7:
            z += w[4]
        for i in range(1, 4):
            if pool_near(oi, k, r, i):
                z += w[7 + i]
        for i in range(1, 3):
            z += w[14 + i] * seen_near(sight, k, r, i) * 0.125
        return z
    if k < 31:
        return z + zg[3] + w[19] * (sight[34] - v) / 12.0
    return z + zg[4] + w[19] * (sight[35] - v) / 8.0


cdef inline double logistic(const double* w, const double* x, int n) noexcept nogil:
    cdef int i
    cdef double z = 0
    for i in range(n):
        z += w[i] * x[i]
    return 1.0 / (1.0 + exp(-z))


cdef double tenpai_p(const Ctx* c, const SeatState* q, const Opp* oi) noexcept nogil:
    cdef double x[N_TEN_F]
    cdef double w[N_TEN_F]
    tenpai_x(q, oi, c.live, x)
    memcpy(w, c.o + OPT_TENPAI, 4 * sizeof(double))
    memcpy(w + 4, c.o + OPT_TENPAI_HI, 4 * sizeof(double))
    return logistic(w, x, N_TEN_F)


cdef double threat_factor(const Ctx* c, const SeatState* q) noexcept nogil:
    """How much more than a 平胡 an opponent's win on a discard costs, judged by its melds:
    two or more, all in one suit, point to 清一色; all pungs or kongs, to 大七對 (both, to
    清一色大七對).  A hand scores its highest id (RULES §2.2), so the factor is never below
    1; OPT_THREAT weighs it (0: the constant loss of ev_v1).  Anhua: 清一色's multiplier."""
    cdef int mask = q.mi.suit_mask, id_
    cdef bint one_suit = q.n_melds >= 2 and (mask == 1 or mask == 2 or mask == 4)
    cdef bint pungs = q.n_melds >= 2 and not q.mi.has_chow
    cdef double ref, v
    if is_anhua(c.st):
        v = c.cfg.ev.m_qingyise if one_suit else 1.0
    else:
        if not (one_suit or pungs):
            return 1.0
        id_ = (_eval.P_QYS_DAQIDUI if pungs else _eval.P_QYS_PINGHU) if one_suit else _eval.P_DAQIDUI
        ref = c.cfg.ev.values[_eval.P_PINGHU][0]
        v = c.cfg.ev.values[id_][0] / ref if ref > 0 else 1.0
    if v < 1.0:
        v = 1.0
    return 1.0 + c.o[OPT_THREAT] * (v - 1.0)


cdef void class_mults(const double* o, double* cls) noexcept nogil:
    """Danger multiplier of each kind by the ready shapes that wait on it: a suited 4-6
    completes two two-sided waits (and a closed and a pair wait), 3/7 one two-sided wait
    and an edge, 2/8 fewer still; terminals and honours keep 1.  The wait logistic knows
    only terminal / 2-8 / the rest, so the middle ranks were all alike to it."""
    cdef int k, r
    for k in range(34):
        r = k % 9
        cls[k] = 1.0
        if k < 27 and 3 <= r <= 5:
            cls[k] = o[OPT_WAIT_CLASS]
        elif k < 27 and (r == 2 or r == 6):
            cls[k] = o[OPT_WAIT_CLASS + 1]
        elif k < 27 and (r == 1 or r == 7):
            cls[k] = o[OPT_WAIT_CLASS + 2]


cdef inline int pool_tail(const SeatState* q) noexcept nogil:
    return q.discards[q.n_discards - 1] if q.n_discards else -1


cdef void passed_kinds(Ctx* c, int drawn, int claimed) noexcept nogil:
    """c.safe: for each opponent the kinds it let pass since its own last discard.  Its hand
    has not changed since, and every win is taken (or a passed one locks it, pass_ron_lock),
    so it is not waiting on them.  Only what the table shows is used.  After a draw from the
    wall (drawn >= 0) the last discard was 上家's, the tail of its pool, let pass by the two
    seats after this one; when 上家 has no meld its turn was a draw too, so the discard
    before, the tail of 對家's pool, was let pass by 下家.  After a pung (drawn -1), its
    kind, let pass by every seat but the discarder; weighing a claim of `claimed` (>= 0),
    that kind likewise.  A replacement draw after an exposed kong, a chow's tile and the
    discarder of a claimed kind that tops two pools are not known for sure: nothing."""
    cdef const SeatState* p = c.p
    cdef const SeatState* up = &c.st.seat[(c.s + 3) & 3]
    cdef int i, r, d = -1, k = -1
    for r in range(4):
        c.safe[r][0] = c.safe[r][1] = -1
    if c.o[OPT_PASSED] <= 0:
        return
    if claimed >= 0:
        k = claimed
        for i in range(1, 4):
            if pool_tail(&c.st.seat[(c.s + i) & 3]) == claimed:
                if d >= 0:
                    return
                d = (c.s + i) & 3
    elif drawn >= 0:
        if p.n_melds and p.melds[p.n_melds - 1].kind == MELD_EXPOSED_KONG:
            return
        c.safe[(c.s + 1) & 3][0] = c.safe[(c.s + 2) & 3][0] = pool_tail(up)
        if up.n_melds == 0:
            c.safe[(c.s + 1) & 3][1] = pool_tail(&c.st.seat[(c.s + 2) & 3])
        return
    elif drawn == -1 and p.n_melds and p.melds[p.n_melds - 1].kind == MELD_PUNG:
        k = p.melds[p.n_melds - 1].tiles[0]
        d = p.melds[p.n_melds - 1].from_seat
    if d < 0:
        return
    for i in range(1, 4):
        r = (c.s + i) & 3
        if r != d:
            c.safe[r][0] = k


cdef void compute_danger(Ctx* c) noexcept nogil:
    """risk[k], cost[k] of discarding k, from each opponent's tenpai chance and the chance a
    ready seat waits on k.  Model 0: tenpai from its discard and meld counts, the wait from
    a table (honor or not, k in its own discards, copies of k this seat can see).  Model 1:
    both from feature logistics (tenpai_x, wait_x), for the kinds in this seat's hand."""
    cdef const double* o = c.o
    cdef const SeatState* q
    cdef int i, j, k, r, n_kinds = 27 if is_anhua(c.st) else 34, vis
    cdef int model = <int>o[OPT_DANGER]
    cdef uint8_t gen[34]
    cdef double zg[5]
    cdef double t, loss, w
    cdef double cls[34]
    cdef double sight[36]
    cdef Opp oi
    cdef bint by_class = o[OPT_WAIT_CLASS] > 0
    if by_class:
        class_mults(o, cls)
    memset(c.risk, 0, sizeof(c.risk))
    memset(c.cost, 0, sizeof(c.cost))
    c.defend = 0
    c.tsum = 0
    if o[OPT_FOLD] <= 0 and o[OPT_RACE] <= 0:
        return
    if model == 1:
        sight_of(c.st, c.p, sight)
    for i in range(1, 4):
        r = (c.s + i) & 3
        q = &c.st.seat[r]
        if model == 1:
            opp_info(q, &oi)
        if q.locked:
            t = 1.0
        elif model == 1:
            t = tenpai_p(c, q, &oi)
        else:
            t = 1.0 / (1.0 + exp(-(o[OPT_TENPAI] + o[OPT_TENPAI + 1] * q.n_discards
                                   + o[OPT_TENPAI + 2] * q.n_melds)))
        if t < 0.02:
            continue
        c.defend = 1
        c.tsum += t
        if is_anhua(c.st):
            loss = c.cfg.ev.m_hard * c.bird
        else:
            loss = pay(c, c.s, r, c.cfg.ev.values[_eval.P_PINGHU][0], True)
        loss *= o[OPT_LOSS]
        if o[OPT_THREAT] > 0:
            loss *= threat_factor(c, q)
        if model == 1:
            opp_base(q, &oi, o + OPT_WAIT, zg)
            for k in range(n_kinds):
                if not c.p.hand[k] or k == c.safe[r][0] or k == c.safe[r][1]:
                    continue
                w = t / (1.0 + exp(-wait_z(sight, &oi, o + OPT_WAIT, zg, k)))
                if by_class:
                    w *= cls[k]
                c.risk[k] += w
                c.cost[k] += w * loss
            continue
        memset(gen, 0, 34)
        for j in range(q.n_discards):
            gen[q.discards[j]] = 1
        for k in range(n_kinds):
            if k == c.safe[r][0] or k == c.safe[r][1]:
                continue
            vis = 4 - available(c.st, c.p, k)
            w = t * o[OPT_WAIT + ((k >= 27) * 2 + gen[k]) * 5 + vis]
            if by_class:
                w *= cls[k]
            c.risk[k] += w
            c.cost[k] += w * loss
