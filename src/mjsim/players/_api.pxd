# The one interface between the hand loop and its players: a turn (discard or kong), a claim
# and a win, each asked of the seat's player whatever it is.  The loop (core/_loop.pyx)
# calls only these three; a new player is a code in GameConfig.players and a branch in
# _builtin.pxd (or a Python object behind PLAYER_PYTHON).
from mjsim.core._state cimport HandState, Call, PLAYER_PYTHON
from mjsim.players._builtin cimport builtin_turn, builtin_call, builtin_takes_win
from mjsim.players._python cimport python_turn, python_call, python_takes_win


cdef inline int player_turn(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                            int drawn, int* tile) noexcept nogil:
    """Seat s holds 3n+2 tiles: ACT_* and its tile (the kongs it may declare are listed)."""
    if st.cfg.players[s] == PLAYER_PYTHON:
        return python_turn(st, s, n_kongs, kinds, types, drawn, tile)
    return builtin_turn(st, s, st.cfg.players[s], n_kongs, kinds, types, drawn, tile)


cdef inline int player_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil:
    """The index of the claim seat s makes on `tile` among calls[0..n), or -1 to pass."""
    if st.cfg.players[s] == PLAYER_PYTHON:
        return python_call(st, s, tile, calls, n)
    return builtin_call(st, s, st.cfg.players[s], tile, calls, n)


cdef inline bint player_takes_win(HandState* st, int s, int tile, int kind) noexcept nogil:
    """Whether seat s takes the legal win of kind WIN_* on `tile` (-1: its own hand)."""
    if st.cfg.players[s] == PLAYER_PYTHON:
        return python_takes_win(st, s, tile, kind)
    return builtin_takes_win(st, s, st.cfg.players[s], tile, kind)
