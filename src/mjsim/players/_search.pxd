# The search player `search` (_search.pyx): Monte Carlo rollouts of each candidate action on
# sampled hidden tiles.  A search seat's GameConfig.player_opts row holds ev's numbers
# (_ev.pxd, 0..63, 72..77, 84..87: search plays as ev wherever it does not search) and these
# (64..71, 78..83, 88), filled by mjsim.players.search.
from libc.stdint cimport uint64_t
from mjsim.core._state cimport HandState, GameConfig, Call
from mjsim.core._rng cimport Rng

cdef enum:
    OPT_S_SAMPLES = 64      # samples of the hidden tiles per searched decision (0: play as ev)
    OPT_S_ROLLOUT = 65      # player code (PLAYER_EV or PLAYER_GREEDY) of every seat in a rollout
    OPT_S_WIDTH = 66        # most candidate actions searched (ev's choice always among them)
    OPT_S_MELDS  = 67       # searched when an opponent shows this many melds (0: every turn) ...
    OPT_S_NEAR = 68         # ... or this seat's best discard leaves it this near (shanten; -1 off)
    OPT_S_READ = 69         # opponent model: chance a hand is drawn to the fitted readiness
    OPT_S_STEPS = 70        #   with at most this many tile swaps (see sample_hidden)
    OPT_S_MARGIN = 71       # leave ev's choice only for a gain this many standard errors above 0
    OPT_S_OWN = 78          # player code of the search seat itself in its rollouts (-1: OPT_S_ROLLOUT's)
    OPT_S_GUARD = 79        # a discard replaces ev's choice only if ev's deal-in risk of it is at
                            #   most ev's choice's + this (-1: no guard)
    OPT_S_CALLS = 80        # 1: search the claims (pung, kong, chow or pass) too; 0: ev's
    OPT_S_ORDER = 81        # 1: the discards searched are ev's best-scored ones; 0: those that
                            #   keep the hand nearest ready (ascending kind among equals)
    OPT_S_WINS = 82         # 1: search a win on a discard (take, or pass for a bigger one); 0: ev's
    OPT_S_PEEK = 83         # diagnostic: 1 samples keep the other seats' true concealed hands
    OPT_S_CLOSE = 88        # a turn is also searched when ev's second-best discard scores within
                            #   this share of its best (|best|); -1: off
    MAX_CANDIDATES = 20

cdef int search_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil
cdef bint search_takes_win(HandState* st, int s, int tile, int kind) noexcept nogil
cdef int search_turn(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                     int drawn, int* tile) noexcept nogil
cdef int sample_hidden(const HandState* st, int s, HandState* out, Rng* r, double read,
                       int steps, int peek) noexcept nogil
cdef void decision_rng(const HandState* st, int s, uint64_t sample, Rng* r) noexcept nogil
