# Wins and payments of a hand (RULES §1 Units, §2.4-2.5, §3.2-3.5): the internal C API the
# hand loop (_loop.pyx) calls.  Every payment is recorded in HandState.pays.
from libc.stdint cimport int64_t
from mjsim.core._state cimport HandState, WinRec

cdef int64_t share(const HandState* st, int payer, int receiver, int64_t amount,
                   bint win) noexcept nogil
cdef void transfer(HandState* st, int payer, int receiver, int64_t value, int reason,
                   int pattern) noexcept nogil
cdef void pay_kong(HandState* st, int s, int kong_type, int discarder) noexcept nogil
cdef void refund_kongs(HandState* st) noexcept nogil
cdef WinRec* record_win(HandState* st, int s, int tile, int payer, bint self_draw,
                        int context) noexcept nogil
cdef void self_draw_win(HandState* st, int s, int tile, int context) noexcept nogil
cdef void discard_win(HandState* st, int s, int tile, int discarder, int context) noexcept nogil
cdef void rob_kong_win(HandState* st, int s, int tile, int robbed) noexcept nogil
cdef void pay_win(HandState* st, WinRec* w, int payer, int points, int bird_exp) noexcept nogil
cdef void pay_wins_after_birds(HandState* st) noexcept nogil
