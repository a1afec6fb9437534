# The greedy players; the hand loop calls greedy_turn / greedy_call (see _greedy.pyx).
from libc.stdint cimport uint8_t
from mjsim.core._eval cimport MeldInfo
from mjsim.core._state cimport HandState, SeatState, Call

cdef int greedy_turn(HandState* st, int s, int player, int n_kongs, const int* kinds,
                     const int* types, int drawn, int* tile) noexcept nogil
cdef int greedy_call(HandState* st, int s, int player, int tile, const Call* calls, int n) noexcept nogil
# for NativeGame._useful_tiles (tests): one neighbours pass, and every kind tried
cdef int useful_tiles(const HandState* st, const SeatState* p, uint8_t* hand,
                      const MeldInfo* mi, int sh) noexcept nogil
cdef int useful_tiles_all(const HandState* st, const SeatState* p, uint8_t* hand,
                          const MeldInfo* mi, int sh) noexcept nogil
