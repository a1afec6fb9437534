# The random player: uniform over its legal choices, every number drawn from the hand's own
# RNG (so a random seat's hand replays exactly).  All inline: the loop's dispatch
# (players/_api.pxd) compiles them into the loop.
from mjsim.core._state cimport HandState, SeatState, ACT_DISCARD, WIN_INSTANT
from mjsim.core._rng cimport rng_below
from mjsim.core._seat cimport seat_n_held, seat_held_kind, seat_verify, MJSIM_CHECK_SEATS


cdef inline int random_turn(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                     int drawn, int* tile) noexcept nogil:
    """Uniform over the distinct discards and the kongs (a locked hand: the drawn tile)."""
    cdef SeatState* p = &st.seat[s]
    cdef int n_held = 1 if p.locked else seat_n_held(p), pick
    if MJSIM_CHECK_SEATS:
        seat_verify(st.tables, p, s)
    pick = rng_below(&st.rng, n_kongs + n_held)
    if pick < n_kongs:
        tile[0] = kinds[pick]
        return types[pick]
    # the distinct kinds held, ascending
    tile[0] = drawn if p.locked else seat_held_kind(p, pick - n_kongs)
    return ACT_DISCARD


cdef inline int random_discard(HandState* st, int s, int drawn, int* tile) noexcept nogil:
    """random_turn when the seat has no kong to declare, without listing kongs: the same
    single random number (a locked hand: the drawn tile)."""
    cdef const SeatState* p = &st.seat[s]
    if MJSIM_CHECK_SEATS:
        seat_verify(st.tables, p, s)
    if p.locked:
        rng_below(&st.rng, 1)
        tile[0] = drawn
    else:
        tile[0] = seat_held_kind(p, rng_below(&st.rng, seat_n_held(p)))
    return ACT_DISCARD


cdef inline int random_call(HandState* st, int n) noexcept nogil:
    """One of the n claims or a pass (-1), uniformly."""
    return <int>rng_below(&st.rng, n + 1) - 1


cdef inline bint random_takes_win(HandState* st, int kind) noexcept nogil:
    """Every legal win; the special start with probability 1/2."""
    return kind != WIN_INSTANT or rng_below(&st.rng, 2) == 0
