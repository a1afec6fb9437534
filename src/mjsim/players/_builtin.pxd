# The built-in players behind one dispatch on the seat's player code (GameConfig.players).
# A Python player's view.builtin(name) asks them the same way (players/_python.pyx).
from mjsim.core._state cimport HandState, Call, PLAYER_RANDOM, PLAYER_EV, PLAYER_SEARCH
from mjsim.players._random cimport random_turn, random_call, random_takes_win
from mjsim.players._greedy cimport greedy_turn, greedy_call
from mjsim.players._ev cimport ev_turn, ev_call, ev_takes_win
from mjsim.players._search cimport search_turn, search_call, search_takes_win


cdef inline int builtin_turn(HandState* st, int s, int player, int n_kongs, const int* kinds,
                             const int* types, int drawn, int* tile) noexcept nogil:
    if player == PLAYER_RANDOM:
        return random_turn(st, s, n_kongs, kinds, types, drawn, tile)
    if player == PLAYER_EV:
        return ev_turn(st, s, n_kongs, kinds, types, drawn, tile)
    if player == PLAYER_SEARCH:
        return search_turn(st, s, n_kongs, kinds, types, drawn, tile)
    return greedy_turn(st, s, player, n_kongs, kinds, types, drawn, tile)


cdef inline int builtin_call(HandState* st, int s, int player, int tile, const Call* calls,
                             int n) noexcept nogil:
    if player == PLAYER_RANDOM:
        return random_call(st, n)
    if player == PLAYER_EV:
        return ev_call(st, s, tile, calls, n)
    if player == PLAYER_SEARCH:
        return search_call(st, s, tile, calls, n)
    return greedy_call(st, s, player, tile, calls, n)


cdef inline bint builtin_takes_win(HandState* st, int s, int player, int tile, int kind) noexcept nogil:
    """Greedy takes every legal win; for the others the special start is a choice, and
    search may weigh a win on a discard."""
    if player == PLAYER_EV:
        return ev_takes_win(st, s, kind)
    if player == PLAYER_SEARCH:
        return search_takes_win(st, s, tile, kind)
    if player == PLAYER_RANDOM:
        return random_takes_win(st, kind)
    return True
