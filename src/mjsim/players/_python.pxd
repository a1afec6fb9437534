# Python players (mjsim.players.Player): each decision through the GIL (_python.pyx).
from mjsim.core._state cimport HandState, Call

cdef int python_turn(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                     int drawn, int* tile) noexcept nogil
cdef int python_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil
cdef bint python_takes_win(HandState* st, int s, int tile, int kind) noexcept nogil
