# Included by _game.pyx: test shims that reach the hand loop's per-seat cache
# (tests/test_seat_cache.py).
SEAT_CHECKS = bool(MJSIM_CHECK_SEATS)    # a debug build checks each seat's cache at every use


def _probe_stale_seat():
    """Test shim: deal seat 0 a tenpai hand, change its concealed hand behind its cache's
    back (as a missed seat_change would) and ask the win check.  A build with SEAT_CHECKS
    aborts the process with a message; another returns the stale answer."""
    cdef HandState st
    cdef GameConfig cfg
    cdef uint8_t tiles[13]
    cdef int i
    memset(&st, 0, sizeof(HandState))
    memset(&cfg, 0, sizeof(GameConfig))
    cfg.game = _eval.GAME_WANZAI
    cfg.ev.game = _eval.GAME_WANZAI
    st.cfg = &cfg
    st.tables = tables()
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
    memset(&st, 0, sizeof(HandState))
    memset(&cfg, 0, sizeof(GameConfig))
    cfg.game = _eval.GAME_WANZAI
    cfg.ev.game = _eval.GAME_WANZAI
    cfg.honor_chow = honor_chow
    st.cfg = &cfg
    st.tables = tables()
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
