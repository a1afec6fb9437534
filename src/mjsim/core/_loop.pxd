# The hand loop (_loop.pyx): deal, turns, claims, kongs and the end of a hand, for any
# players (players/_api.pxd) and either rule set (GameConfig).
from libc.stdint cimport uint8_t, uint64_t
from mjsim.core._state cimport HandState, SeatState, GameConfig, Session, Event, Call

cdef void play_hand(HandState* st, const GameConfig* cfg, uint64_t seed, uint64_t hand_index,
                    const Session* session, const uint8_t* scripted_wall, int scripted_dice,
                    Event* events) noexcept nogil
cdef void play_on(HandState* st, int s, int source, int drawn, int action,
                  int tile) noexcept nogil
cdef void play_on_discard(HandState* st, int discarder, int t, int claimer,
                          const Call* call, int passer) noexcept nogil
cdef void play_on_win(HandState* st, int discarder, int t, int q, bint take) noexcept nogil
cdef void start_session(Session* session, const GameConfig* cfg, uint64_t seed,
                        uint64_t first_hand) noexcept nogil
cdef void next_session_state(const HandState* st, const GameConfig* cfg, Session* session) noexcept nogil
cdef int list_calls(HandState* st, int s, int tile, int discarder, Call* calls) noexcept nogil
cdef void add_meld(SeatState* p, int kind, int t0, int t1, int t2, int t3,
                   int from_seat) noexcept nogil
