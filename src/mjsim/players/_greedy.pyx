# cython: language_level=3
"""The built-in greedy players (greedy, greedy_v1): lowest shanten, then
the most unseen useful tiles.  The hand loop asks them through players/_api.pxd
(greedy_turn, greedy_call); the random player is players/_random.pxd and ev is _ev.pyx."""
from libc.stdint cimport uint8_t, int8_t, uint64_t
from mjsim.core._bits cimport mjsim_ctz64, mjsim_msb64

cdef extern from "_greedy_checks.h":
    enum: MJSIM_CHECK_GREEDY
    void mjsim_greedy_fail(const char* what, int seat) noexcept nogil

from mjsim.core._masks cimport mjsim_held_mask, mjsim_unseen_planes, mjsim_planes_count

from mjsim.core cimport _eval
from mjsim.core._eval cimport MeldInfo
from mjsim.core._state cimport (HandState, SeatState, Call, CALL_KONG, ACT_DISCARD, ACT_CONCEALED_KONG,
                          KONG_ADDED, KONG_EXPOSED, KONG_CONCEALED, PLAYER_GREEDY_V1, PLAYER_PYTHON)
from mjsim.core._hand cimport (available, hand_shanten, is_anhua, is_wild, meld_after_call,
                          meld_after_own_kong, take_call_tiles)


# ================================================================ shared evaluation

cdef int useful_tiles_all(const HandState* st, const SeatState* p, uint8_t* hand,
                          const MeldInfo* mi, int sh) noexcept nogil:
    """Unseen copies of every kind that lowers the shanten of a 3n+1 hand (every kind tried)."""
    cdef int k, n = 0, avail
    for k in range(34):
        avail = 4 - hand[k] - p.hidden[k] - st.seen[k]
        if avail <= 0:
            continue
        hand[k] += 1
        if hand_shanten(st, hand, mi) < sh:
            n += avail
        hand[k] -= 1
    return n


cdef int useful_tiles(const HandState* st, const SeatState* p, uint8_t* hand,
                      const MeldInfo* mi, int sh) noexcept nogil:
    """As useful_tiles_all, with every kind's shanten from one shanten_neighbours call."""
    cdef int8_t after[34]
    cdef int k, n = 0
    _eval.shanten_neighbours(&st.cfg.ev, hand, mi, st.indicator, 1, after)
    for k in range(34):
        if after[k] < sh:
            n += available(st, p, k)
    return n


cdef int wild_discard_for_ron(HandState* st, uint8_t* hand, const MeldInfo* mi,
                              const int8_t* sh_of) noexcept nogil:
    """Anhua greedy: the wild to discard when that is the only way to be waiting on a
    discard win (tenpai at face value with the wilds discard_win_wilds allows, RULES §3.3),
    else -1.

    Only asked when the hand holds a wild and some discard leaves it tenpai."""
    cdef int8_t fv[34]
    cdef int k, a = hand[st.wild_a], b = hand[st.wild_b], best = -1
    cdef _eval.DiscardScan scan
    if _eval.discard_scan(&st.cfg.ev, hand, mi, -1, &scan, fv) == _eval.SCAN_FALLBACK:   # -1: face value
        _eval.shanten_neighbours(&st.cfg.ev, hand, mi, -1, -1, fv)
    for k in range(27):
        if not hand[k] or fv[k] != 0:
            continue
        if not _eval.discard_category_ok(&st.cfg.ev, _eval.category_of(a - (k == st.wild_a), b - (k == st.wild_b))):
            continue
        if not is_wild(st, k):
            return -1        # a plain discard already waits on a discard win
        if best < 0 or sh_of[k] < sh_of[best]:
            best = k
    return best


cdef int best_discard_ref(HandState* st, int s, uint8_t* hand, const MeldInfo* mi, int max_sh,
                          int* out_hand_sh, int* out_sh, int* out_useful) noexcept nogil:
    """best_discard by shanten_neighbours passes (one for the discards, one per tied
    candidate): the hands the mask pass does not cover.

    Remaining ties go to the highest kind (honors first: they connect least).  Anhua: wilds
    count as wilds and are kept -- only non-wild tiles are candidates, unless the hand holds
    nothing else or discarding a wild is the only way to wait on a discard win.
    """
    cdef SeatState* p = &st.seat[s]
    cdef int k, best_sh = 99, best_k = -1, best_u = -1, u, w, min_all = 99, n_best
    cdef bint skip_wilds = False
    cdef int8_t sh_of[34]
    out_hand_sh[0] = _eval.shanten_neighbours(&st.cfg.ev, hand, mi, st.indicator, -1, sh_of)
    if out_hand_sh[0] > max_sh:
        return -1
    if st.wild_a >= 0 and hand[st.wild_a] + hand[st.wild_b] > 0:
        for k in range(34):
            if hand[k] and sh_of[k] < min_all:
                min_all = sh_of[k]
            if hand[k] and not is_wild(st, k):
                skip_wilds = True
                if sh_of[k] < best_sh:
                    best_sh = sh_of[k]
        if skip_wilds and min_all <= 0:
            w = wild_discard_for_ron(st, hand, mi, sh_of)
            if w >= 0:
                out_sh[0] = sh_of[w]
                if out_useful != NULL:
                    out_useful[0] = useful_after_discard(st, p, hand, mi, w, sh_of[w], False)
                return w
        if not skip_wilds:
            best_sh = 99
    if not skip_wilds:
        for k in range(34):
            if hand[k] and sh_of[k] < best_sh:
                best_sh = sh_of[k]
    if out_useful == NULL:
        # the caller only needs the tile: a single candidate needs no tie-break
        n_best = 0
        for k in range(34):
            if hand[k] and sh_of[k] == best_sh and not (skip_wilds and is_wild(st, k)):
                n_best += 1
                best_k = k
        if n_best == 1:
            out_sh[0] = best_sh
            return best_k
    for k in range(33, -1, -1):
        if not hand[k] or sh_of[k] != best_sh or (skip_wilds and is_wild(st, k)):
            continue
        u = useful_after_discard(st, p, hand, mi, k, best_sh, False)
        if u > best_u:
            best_u = u
            best_k = k
    out_sh[0] = best_sh
    if out_useful != NULL:
        out_useful[0] = best_u
    return best_k


cdef int useful_tiles_fast(const HandState* st, const SeatState* p, uint8_t* hand,
                           const MeldInfo* mi, int sh) noexcept nogil:
    """useful_tiles for sh = the hand's own shanten, from the mask pass when it covers the hand."""
    cdef int own
    cdef uint64_t planes[3]
    cdef uint64_t m = _eval.useful_mask(&st.cfg.ev, hand, mi, st.indicator, &own)
    if (m >> _eval.MASK_FALLBACK_BIT) & 1:
        return useful_tiles(st, p, hand, mi, sh)
    mjsim_unseen_planes(p.hand, p.hidden, st.seen, planes)
    return mjsim_planes_count(m, planes)


cdef inline int useful_after_discard(HandState* st, const SeatState* p, uint8_t* hand,
                                     const MeldInfo* mi, int k, int sh, bint fast) noexcept nogil:
    """The unseen useful tiles of the hand without one k, the discard then visible (seen),
    by useful_tiles_fast (fast) or useful_tiles; hand and seen are restored."""
    cdef int u
    hand[k] -= 1
    st.seen[k] += 1
    u = useful_tiles_fast(st, p, hand, mi, sh) if fast else useful_tiles(st, p, hand, mi, sh)
    st.seen[k] -= 1
    hand[k] += 1
    return u


cdef inline void _fill_sh(uint64_t held, uint64_t low, int lo, int hi, int8_t* sh_of,
                           int seat) noexcept nogil:
    """discard_scan's out[] for the held kinds, from best_discard's two values (in a debug
    build sh_of already holds the scan's own out[], and each value is checked against it)."""
    cdef int k
    cdef int8_t v
    while held:
        k = mjsim_ctz64(held)
        held &= held - 1
        v = lo if (low >> k) & 1 else hi
        if MJSIM_CHECK_GREEDY and sh_of[k] != v:
            mjsim_greedy_fail("a discard's shanten from the scan's masks", seat)
        sh_of[k] = v


cdef int best_discard(HandState* st, int s, uint8_t* hand, const MeldInfo* mi, int max_sh,
                      int* out_hand_sh, int* out_sh, int* out_useful) noexcept nogil:
    """Greedy discard from a 3n+2 hand: lowest shanten, then most unseen useful tiles
    (written to out_useful unless it is NULL).  The hand's own shanten (= hand_shanten)
    goes to out_hand_sh; above max_sh the choice is not made (-1, out_sh and out_useful
    untouched), which lets greedy_call reject a claim with the pass that would choose its
    discard.

    Remaining ties go to the highest kind (honors first: they connect least).  Anhua: wilds
    count as wilds and are kept -- only non-wild tiles are candidates, unless the hand holds
    nothing else or discarding a wild is the only way to wait on a discard win.

    One mask pass (_eval.discard_scan) gives every discard's shanten and, for each tied
    candidate, its useful draws; a candidate's unseen count is the same with the discard
    seen and out of the hand (hand is the seat's own hand).  Candidates the pass does not
    answer (a wild, or a discard that raises the shanten) get a pass of their own
    (useful_tiles_fast); hands it does not cover take best_discard_ref's way.
    """
    cdef SeatState* p = &st.seat[s]
    cdef int k, best_sh, best_k = -1, best_u = -1, u, w, lo, hi, D, min_all
    cdef bint planes_done = False
    cdef int8_t sh_of[34]
    cdef uint64_t held, wild = 0, nat, elig, cand, low
    cdef uint64_t planes[3]
    cdef _eval.DiscardScan scan
    k = _eval.discard_scan(&st.cfg.ev, hand, mi, st.indicator, &scan, NULL)
    if k == _eval.SCAN_FALLBACK:
        return best_discard_ref(st, s, hand, mi, max_sh, out_hand_sh, out_sh, out_useful)
    if MJSIM_CHECK_GREEDY and k != hand_shanten(st, hand, mi):
        mjsim_greedy_fail("discard_scan's shanten", s)
    out_hand_sh[0] = k
    if k > max_sh:
        return -1
    # A discard's shanten takes two values (discard_scan's out[]): lo for a natural kind
    # whose discard keeps the distance D (bit of scan.unn), hi for any other discard (a
    # wild kind is one joker fewer, as a discard that raises D), so the candidates are
    # masks.  With more jokers than D both are -1 and every tile ties (low = held).
    held = mjsim_held_mask(hand)
    if st.wild_a >= 0:
        wild = ((<uint64_t>1) << st.wild_a) | ((<uint64_t>1) << st.wild_b)
    D = scan.D - scan.J
    lo = (D if D > 0 else 0) - 1
    hi = (D + 1 if D + 1 > 0 else 0) - 1
    low = scan.unn & ~wild if lo < hi else held
    if MJSIM_CHECK_GREEDY:
        _eval.discard_scan(&st.cfg.ev, hand, mi, st.indicator, &scan, sh_of)
        _fill_sh(held, low, lo, hi, sh_of, s)
    nat = held & ~wild
    elig = held
    if held & wild and nat:
        elig = nat                          # wilds are kept ...
        min_all = lo if held & low else hi
        if min_all <= 0:                    # ... unless one is the only way to wait on a discard
            _fill_sh(held, low, lo, hi, sh_of, s)
            w = wild_discard_for_ron(st, hand, mi, sh_of)
            if w >= 0:
                out_sh[0] = sh_of[w]
                if out_useful != NULL:
                    out_useful[0] = useful_after_discard(st, p, hand, mi, w, sh_of[w], True)
                return w
    if elig & low:
        best_sh = lo
        cand = elig & low
    else:
        best_sh = hi
        cand = elig
    out_sh[0] = best_sh
    if (out_useful == NULL and not (cand & (cand - 1))) or best_sh < 0:
        # a single candidate needs no tie-break when the caller only needs the tile, and
        # nothing lowers a complete hand (every count 0): the highest kind either way
        if out_useful != NULL:
            out_useful[0] = 0
        return mjsim_msb64(cand)
    while cand:
        k = mjsim_msb64(cand)          # highest kind first: ties keep it
        cand &= ~((<uint64_t>1) << k)
        if (scan.unn >> k) & 1 and not (wild >> k) & 1:
            if not planes_done:
                mjsim_unseen_planes(p.hand, p.hidden, st.seen, planes)
                planes_done = True
            u = mjsim_planes_count(_eval.discard_useful(&scan, hand, k), planes)
        else:
            # a wild, or a discard that raises the shanten: the hand without it on its own
            u = useful_after_discard(st, p, hand, mi, k, best_sh, True)
        if u > best_u:
            best_u = u
            best_k = k
    if out_useful != NULL:
        out_useful[0] = best_u
    return best_k


# ================================================================ own turn and claims

cdef inline bint greedy_takes_kong(const HandState* st, int player, int kong_type, int before,
                                   int after) noexcept nogil:
    """Greedy declares a kong that does not raise its shanten, and in Wanzai every kong the
    rules pay for (kong_values > 0): measured in the duplicate arena (README, Players),
    the payment and the replacement draw are worth more than the shanten a kong costs, even
    from a ready hand.  Anhua kongs are only offered under the tenpai rule, and take them
    all (declining them loses).  greedy_v1 keeps the old rule: never a worse shanten."""
    if after <= before:
        return True
    if player == PLAYER_GREEDY_V1 or is_anhua(st):
        return False
    return st.cfg.kong_values[kong_type] > 0


cdef int greedy_turn(HandState* st, int s, int player, int n_kongs, const int* kinds,
                     const int* types, int drawn, int* tile) noexcept nogil:
    """A kong greedy_takes_kong accepts; otherwise the best discard."""
    cdef SeatState* p = &st.seat[s]
    cdef MeldInfo mi
    cdef int i, k, taken, before, after, sh, useful
    if n_kongs:
        before = hand_shanten(st, p.hand, &p.mi)
        for i in range(n_kongs):
            k = kinds[i]
            taken = meld_after_own_kong(p, k, types[i] == ACT_CONCEALED_KONG, &mi)
            p.hand[k] -= taken
            after = hand_shanten(st, p.hand, &mi)
            p.hand[k] += taken
            if greedy_takes_kong(st, player, KONG_CONCEALED if types[i] == ACT_CONCEALED_KONG else KONG_ADDED,
                                 before, after):
                tile[0] = k
                return types[i]
    if p.locked:
        tile[0] = drawn
        return ACT_DISCARD
    tile[0] = best_discard(st, s, p.hand, &p.mi, 99, &before, &sh, NULL)
    if st.cfg.players[s] != PLAYER_PYTHON:
        # the seat discards this tile (a Python seat asking greedy's answer may not), and
        # its hand stays so until its next turn: greedy_call reads the shanten from here
        p.greedy_shanten = sh
        p.greedy_shanten_at = p.n_discarded + 1
    return ACT_DISCARD

cdef int greedy_call(HandState* st, int s, int player, int tile, const Call* calls, int n) noexcept nogil:
    """Kong if greedy_takes_kong accepts it; pung/chow if the shanten does not get worse and
    the shanten or the unseen useful tiles improve (best shanten, then most useful tiles).
    -1 = pass."""
    cdef SeatState* p = &st.seat[s]
    cdef MeldInfo mi
    cdef int i, s0, u0 = -1, best = -1, best_s = 99, best_u = -1
    cdef int s1[8]
    cdef int sh1[8]
    cdef int u1[8]
    if p.greedy_shanten_at == p.n_discarded and p.greedy_shanten_at > 0:
        s0 = p.greedy_shanten           # the hand is as its last discard left it
        if MJSIM_CHECK_GREEDY and s0 != hand_shanten(st, p.hand, &p.mi):
            mjsim_greedy_fail("the shanten kept from the discard", s)
    else:
        s0 = hand_shanten(st, p.hand, &p.mi)
    # the shanten of the 3n+2 hand after a pung or chow equals that of its best discard:
    # the pass that finds the discard rejects an option that would raise the shanten
    # before its tie-break, and the tie-break is only run for options kept below
    for i in range(n):
        meld_after_call(p, tile, &calls[i], &mi)
        take_call_tiles(p.hand, tile, &calls[i], -1)
        if calls[i].type == CALL_KONG:
            s1[i] = hand_shanten(st, p.hand, &mi)
        else:
            best_discard(st, s, p.hand, &mi, s0, &s1[i], &sh1[i], &u1[i])
        take_call_tiles(p.hand, tile, &calls[i], 1)
        if calls[i].type == CALL_KONG and greedy_takes_kong(st, player, KONG_EXPOSED, s0, s1[i]):
            return i
        if calls[i].type != CALL_KONG and s1[i] < best_s:
            best_s = s1[i]
    if best_s > s0:
        return -1
    if best_s == s0:
        u0 = useful_tiles_fast(st, p, p.hand, &p.mi, s0)
    best_s = 99
    for i in range(n):
        if calls[i].type == CALL_KONG or s1[i] > s0:
            continue
        if sh1[i] == s0 and u1[i] <= u0:
            continue
        if sh1[i] < best_s or (sh1[i] == best_s and u1[i] > best_u):
            best, best_s, best_u = i, sh1[i], u1[i]
    return best
