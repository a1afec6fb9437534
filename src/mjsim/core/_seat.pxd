# The hand loop's incremental per-seat state: the SeatState fields gidx, gfacts,
# held, n_held, odd and win_filter, kept in step with hand[] by the functions here,
# so that a win check or a random discard reads a few words instead of rescanning 34 counts.
#
# Every change the loop makes to a seat's concealed hand goes through seat_change (or
# seat_deal for the deal).  Players (_greedy.pyx, _ev.pyx) and the evaluator change hand[]
# temporarily and put it back; nothing here is read while they do, and only the loop reads
# it.  A debug build (MJSIM_DEBUG) checks the cache against a recomputation at every use
# (seat_verify) and every answer against _eval, so a change that bypassed seat_change, or a
# wrong shortcut, fails loudly.
from libc.stdint cimport uint8_t, int32_t, uint32_t, uint64_t
from mjsim.core cimport _eval
from mjsim.core._bits cimport mjsim_pop64
from mjsim.core._tables cimport Tables, suit_index, honor_index, INF, need_of_rows
from mjsim.core._state cimport HandState, SeatState

cdef extern from "_seat.h":
    enum: MJSIM_CHECK_SEATS
    const uint8_t mjsim_kind_group[34]
    const int32_t mjsim_kind_step[34]
    const uint64_t mjsim_group_kinds[4]
    const uint64_t mjsim_win_kinds[256]
    const uint8_t mjsim_chow_window[9]
    int mjsim_select64(uint64_t x, int j) noexcept nogil
    int mjsim_select64_n(uint64_t x, int n, int j) noexcept nogil
    int mjsim_select64_loop(uint64_t x, int n, int j) noexcept nogil
    enum: MJSIM_PDEP_DISPATCH
    void mjsim_seat_fail(const char* what, int seat) noexcept nogil
    bint mjsim_any_four(const uint8_t* hand) noexcept nogil

# gfacts: bit FACT_* + group, for the groups 0..2 (suits) and 3 (honors), from the
# tables' facts byte of each group's entry (_tables.pxd).
cdef enum:
    FACT_MELDS = 0          # the group's tiles are exactly melds (need column 0 is 0)
    FACT_PAIR = 8           # exactly melds and one pair (column 1)
    FACT_PAIR_258 = 16      # exactly melds and a 2/5/8 pair (column 2)
    FACT_LAN = 24           # 十三爛-compatible: the largest such subset is the whole group
    FACT_NONEMPTY = 4
    GROUP_FACTS = 0x01010111    # every fact of group 0
    # times a facts byte (bits 0..4), then masked with GROUP_FACTS: its bits moved to
    # FACT_MELDS .. FACT_LAN and FACT_NONEMPTY (the four shifted copies do not overlap)
    SPREAD_FACTS = 0x204081


cdef inline uint32_t group_facts(const Tables* T, int g, int32_t idx) noexcept nogil:
    """The facts of group g with table index idx, shifted to group g's bits."""
    return ((<uint32_t>T.group_facts[g][idx] * SPREAD_FACTS) & GROUP_FACTS) << g


cdef inline void _seat_facts(const Tables* T, SeatState* p) noexcept nogil:
    cdef int g
    p.gfacts = 0
    for g in range(4):
        p.gfacts |= group_facts(T, g, p.gidx[g])
    p.filter_ok = 0


cdef inline void seat_deal(const Tables* T, SeatState* p, const uint8_t* tiles,
                           int n) noexcept nogil:
    """Give a seat with an empty hand (and a zeroed cache) its n dealt tiles."""
    cdef int i, t
    cdef uint64_t bit
    for i in range(n):
        t = tiles[i]
        bit = (<uint64_t>1) << t
        p.held |= bit
        p.odd ^= bit
        p.hand[t] += 1
        p.gidx[mjsim_kind_group[t]] += mjsim_kind_step[t]
    p.n_held = mjsim_pop64(p.held)
    _seat_facts(T, p)


cdef inline void seat_rebuild(const Tables* T, SeatState* p) noexcept nogil:
    """Recompute the whole cache from hand[]."""
    cdef int g, k
    p.held = 0
    p.odd = 0
    for g in range(4):
        p.gidx[g] = suit_index(p.hand + 9 * g) if g < 3 else honor_index(p.hand + 27)
    for k in range(34):
        p.held |= (<uint64_t>(p.hand[k] > 0)) << k
        p.odd |= (<uint64_t>(p.hand[k] & 1)) << k
    p.n_held = mjsim_pop64(p.held)
    _seat_facts(T, p)


cdef inline void seat_change(const Tables* T, SeatState* p, int k, int d) noexcept nogil:
    """hand[k] += d, and the cache with it."""
    # everything is computed in locals and the byte store to hand[] comes last: it may
    # alias any field, and would make the compiler reload each one after it
    cdef int g = mjsim_kind_group[k]
    cdef int old = p.hand[k]
    cdef int c = old + d
    cdef int32_t idx = p.gidx[g] + d * mjsim_kind_step[k]
    cdef uint64_t bit = (<uint64_t>1) << k
    cdef uint32_t f = (p.gfacts & ~(<uint32_t>GROUP_FACTS << g)) | group_facts(T, g, idx)
    cdef uint64_t held = p.held
    cdef int n_held = p.n_held
    cdef uint64_t odd = p.odd ^ ((<uint64_t>(d & 1)) << k)
    # counts stay in 0..4, so a tile added (d > 0) may only make the kind held, one taken
    # may only make it absent: with d a constant at the call, one of the two folds away
    if d > 0 and old == 0:
        held |= bit
        n_held += 1
    elif d < 0 and c == 0:
        held &= ~bit
        n_held -= 1
    p.gidx[g] = idx
    p.gfacts = f
    p.held = held
    p.n_held = n_held
    p.odd = odd
    p.filter_ok = 0
    p.hand[k] = c


cdef inline int seat_n_held(const SeatState* p) noexcept nogil:
    """Distinct kinds in the concealed hand."""
    return p.n_held


cdef inline int seat_held_kind(const SeatState* p, int j) noexcept nogil:
    """The j-th distinct kind held, in ascending kind order."""
    cdef int k = mjsim_select64_n(p.held, p.n_held, j)
    if MJSIM_CHECK_SEATS and k != mjsim_select64(p.held, j):
        mjsim_seat_fail("seat_held_kind", -1)
    return k


cdef enum:
    RUN_WINDOWS = 0xFF88CC88    # the five-bit windows (t-2 .. t+2 held) with a run for t


cdef inline bint seat_may_chow(const HandState* st, int s, int t) noexcept nogil:
    """Does seat s hold two other tiles that make a run with t (the chows list_calls would
    offer it, before its locked-hand rule)?  Suits: a run inside t's suit; honors (with
    honor_chow): two other winds, or the other two dragons."""
    cdef const SeatState* p = &st.seat[s]
    cdef uint32_t w, m
    cdef int g = mjsim_kind_group[t]
    if MJSIM_CHECK_SEATS:
        seat_verify(st.tables, p, s)
    if g < 3:
        # bits 0..4: the kinds t-2 .. t+2 held, those outside t's suit cleared
        w = <uint32_t>((p.held << 2) >> t) & mjsim_chow_window[t - 9 * g]
        # a run: t-2 and t-1 (bits 0, 1), t-1 and t+1 (1, 3) or t+1 and t+2 (3, 4) held;
        # bit w of RUN_WINDOWS says whether window w holds one of the three
        return (RUN_WINDOWS >> w) & 1
    if not st.cfg.honor_chow:
        return False
    if t <= 30:
        m = <uint32_t>(p.held >> 27) & 0xF & ~(1u << (t - 27))
        return (m & (m - 1)) != 0
    m = 7 & ~(1u << (t - 31))
    return (<uint32_t>(p.held >> 31) & m) == m


cdef inline bint _std_complete_facts(uint32_t f, int pair_fact) noexcept nogil:
    """Every group exactly melds except one that is melds and a pair (the two facts exclude
    each other: 3n against 3n + 2 tiles)."""
    cdef uint32_t melds = f & 0xF, pair = (f >> pair_fact) & 0xF
    return (melds | pair) == 0xF and pair != 0 and (pair & (pair - 1)) == 0


cdef inline bint _complete_facts(const HandState* st, const SeatState* p, uint32_t f,
                                 uint64_t odd) noexcept nogil:
    """_eval.is_complete at face value (indicator -1) of the hand these facts describe.
    十三爛 needs no count above one; the lan fact of every group implies it (a compatible
    subset holds no kind twice)."""
    cdef uint32_t suits
    if st.cfg.game == _eval.GAME_WANZAI:
        if _std_complete_facts(f, FACT_PAIR):
            return True
        if p.mi.n:
            return False
        return odd == 0 or ((f >> FACT_LAN) & 0xF) == 0xF
    # Anhua (no honors): 清一色 takes any pair, otherwise pair_258 decides; seven pairs
    if _std_complete_facts(f, FACT_PAIR_258 if st.cfg.ev.pair_258 else FACT_PAIR):
        return True
    suits = ((f >> FACT_NONEMPTY) & 7) | <uint32_t>p.mi.suit_mask
    if (suits == 1 or suits == 2 or suits == 4) and _std_complete_facts(f, FACT_PAIR):
        return True
    return p.mi.n == 0 and odd == 0


cdef inline uint64_t _win_filter(const SeatState* p) noexcept nogil:
    """The kinds that might complete a 3n+1 hand (a superset, from the facts alone).
    Standard form: one group takes the tile, so every other group must already be melds or
    melds and a pair, with at most one pair between them (_seat.h tables the kinds by the
    groups' melds and pair facts); seven pairs: the one odd kind; 十三爛: a hand whose
    every group is 十三爛-compatible (adding a tile never makes a group compatible), any
    kind it lacks."""
    cdef uint64_t kinds = mjsim_win_kinds[(p.gfacts & 0xF) | ((p.gfacts >> (FACT_PAIR - 4)) & 0xF0)]
    if p.mi.n == 0:
        if p.odd and not (p.odd & (p.odd - 1)):
            kinds |= p.odd
        if ((p.gfacts >> FACT_LAN) & 0xF) == 0xF:
            kinds |= ~p.held & ((<uint64_t>1 << 34) - 1)
    return kinds


cdef inline void seat_verify(const Tables* T, const SeatState* p, int seat) noexcept nogil:
    """Debug builds: the cache must equal a recomputation from hand[]."""
    cdef SeatState q
    cdef int g
    q.hand = p.hand
    q.mi.n = p.mi.n
    seat_rebuild(T, &q)
    if q.held != p.held or q.odd != p.odd or q.gfacts != p.gfacts or q.n_held != p.n_held:
        mjsim_seat_fail("masks", seat)
    for g in range(4):
        if q.gidx[g] != p.gidx[g]:
            mjsim_seat_fail("group index", seat)
    if p.filter_ok and p.win_filter != _win_filter(&q):
        mjsim_seat_fail("win filter", seat)


cdef inline bint seat_complete(const HandState* st, int s) noexcept nogil:
    """Is seat s's 3n+2 hand complete at face value?  (= _eval.is_complete(..., -1))"""
    cdef const SeatState* p = &st.seat[s]
    cdef bint ok = _complete_facts(st, p, p.gfacts, p.odd)
    if MJSIM_CHECK_SEATS:
        seat_verify(st.tables, p, s)
        if ok != _eval.is_complete(&st.cfg.ev, p.hand, &p.mi, -1):
            mjsim_seat_fail("seat_complete", s)
    return ok


cdef inline void _ensure_filter(SeatState* p) noexcept nogil:
    """The win filter, computed on the first question after a change to the hand."""
    if not p.filter_ok:
        p.win_filter = _win_filter(p)
        p.filter_ok = 1


cdef inline void seat_refresh_filter(SeatState* p) noexcept nogil:
    """Compute the win filter now: at the end of a seat's turn (its discard) and after the
    deal.  A seat's hand changes only in its own turn, which ends with a discard (or the
    hand), so when a seat discards, every other seat's filter is current: may_be_claimed
    reads them with seat_may_win_current, without a check per seat."""
    _ensure_filter(p)


cdef inline bint seat_may_win_current(const HandState* st, int s, int t) noexcept nogil:
    """seat_may_win for a seat whose filter is current (refreshed since its last change; a
    debug build checks it)."""
    cdef const SeatState* p = &st.seat[s]
    cdef uint8_t h[34]
    if MJSIM_CHECK_SEATS:
        seat_verify(st.tables, p, s)
        if not p.filter_ok:
            mjsim_seat_fail("win filter not refreshed", s)
        if not (p.win_filter >> t) & 1:
            h = p.hand
            h[t] += 1
            if _eval.is_complete(&st.cfg.ev, h, &p.mi, -1):
                mjsim_seat_fail("win filter excludes a win", s)
    return (p.win_filter >> t) & 1


cdef inline bint seat_may_win(const HandState* st, int s, int t) noexcept nogil:
    """False when seat s's 3n+1 hand cannot be complete at face value with t added (the
    seat's win filter, computed on the first question after a change); True: ask
    seat_complete_with."""
    cdef SeatState* p = <SeatState*>&st.seat[s]
    cdef uint8_t h[34]
    if MJSIM_CHECK_SEATS:
        seat_verify(st.tables, p, s)
    _ensure_filter(p)
    if MJSIM_CHECK_SEATS and not (p.win_filter >> t) & 1:
        h = p.hand
        h[t] += 1
        if _eval.is_complete(&st.cfg.ev, h, &p.mi, -1):
            mjsim_seat_fail("win filter excludes a win", s)
    return (p.win_filter >> t) & 1


cdef inline bint seat_complete_with(const HandState* st, int s, int t) noexcept nogil:
    """Would seat s's 3n+1 hand be complete at face value with a tile of kind t added?
    The seat's win filter (computed on the first question after a change) rules out most
    kinds; the others take the facts of t's group with the tile added."""
    cdef SeatState* p = <SeatState*>&st.seat[s]
    cdef int g = mjsim_kind_group[t]
    cdef uint32_t f
    cdef uint64_t bit = (<uint64_t>1) << t
    cdef bint ok = False
    cdef uint8_t h[34]
    if MJSIM_CHECK_SEATS:
        seat_verify(st.tables, p, s)
    _ensure_filter(p)
    if p.win_filter & bit:
        f = (p.gfacts & ~(<uint32_t>GROUP_FACTS << g)) | group_facts(
            st.tables, g, p.gidx[g] + mjsim_kind_step[t])
        ok = _complete_facts(st, p, f, p.odd ^ bit)
    if MJSIM_CHECK_SEATS:
        h = p.hand
        h[t] += 1
        if ok != _eval.is_complete(&st.cfg.ev, h, &p.mi, -1):
            mjsim_seat_fail("seat_complete_with", s)
    return ok


cdef inline bint seat_complete_wilds(const HandState* st, int s) noexcept nogil:
    """Anhua: is seat s's 3n+2 hand complete with every wild a joker?  (=
    _eval.is_complete(..., indicator)).  The two wild kinds share a suit, so only that
    suit's index changes when the wilds are taken out."""
    cdef const SeatState* p = &st.seat[s]
    cdef const Tables* T = st.tables
    cdef const uint8_t* rows[3]
    cdef int a = st.wild_a, b = st.wild_b, ca = p.hand[a], cb = p.hand[b], j = ca + cb
    cdef int g, k, gw = mjsim_kind_group[a], n_nat, singles, pairs, missing
    # the wild suit's index without its wilds (index 0: no tile of the group)
    cdef int32_t natural_w = p.gidx[gw] - ca * mjsim_kind_step[a] - cb * mjsim_kind_step[b]
    cdef uint32_t suits = <uint32_t>p.mi.suit_mask
    cdef bint ok = False
    for g in range(3):
        rows[g] = T.suit.need + <size_t>p.gidx[g] * 4
        if (natural_w if g == gw else p.gidx[g]) != 0:
            suits |= 1u << g
    rows[gw] = T.suit.need + <size_t>natural_w * 4
    if (suits == 1 or suits == 2 or suits == 4) and need_of_rows(rows, 3, 1) <= j:
        ok = True
    elif need_of_rows(rows, 3, 2 if st.cfg.ev.pair_258 else 1) <= j:
        ok = True
    elif p.mi.n == 0:
        # seven pairs: _eval._pairs_distance of the naturals
        n_nat = -j
        for k in range(27):
            n_nat += p.hand[k]
        singles = mjsim_pop64(p.odd & ~(((<uint64_t>1) << a) | ((<uint64_t>1) << b)))
        pairs = (n_nat - singles) >> 1
        missing = 7 - pairs if pairs < 7 else 0
        ok = missing + (missing - singles if missing > singles else 0) <= j
    if MJSIM_CHECK_SEATS:
        seat_verify(T, p, s)
        if ok != _eval.is_complete(&st.cfg.ev, p.hand, &p.mi, st.indicator):
            mjsim_seat_fail("seat_complete_wilds", s)
    return ok
