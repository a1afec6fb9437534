# The expected-value player `ev` (RULES-driven values x a fitted win-probability model,
# less the danger of each discard).  The hand loop calls these three functions for a seat
# whose player is PLAYER_EV; the seat's numbers are GameConfig.player_opts[seat], laid out
# as below and filled by mjsim.evplayer.
from mjsim.core._state cimport HandState, Call

cdef enum:
    OPT_FOLD = 0            # weight of the danger term (0, with OPT_RACE 0: never defends)
    OPT_CLAIM = 1           # a claim is taken when EV after it x claim > EV without it
    OPT_VALUE = 2           # exponent on each form's value relative to the standard form
    OPT_SELF_SHARE = 3      # share of wins that are self-draws (fitted)
    OPT_LOSS = 4            # mean deal-in loss in units of the standard form's discard value
    OPT_MIX = 5             # weight of the forms other than the best one in a hand's EV
    OPT_DANGER = 6          # danger model: 0 the count logistic and 20-cell wait table below,
                            #   1 feature logistics (tenpai: N_TEN_F numbers at OPT_TENPAI and
                            #   OPT_TENPAI_HI; wait: N_WAIT_F at OPT_WAIT), see danger_x
    OPT_THREAT = 7          # weight of what an opponent's melds show in its deal-in loss:
                            #   0 a 平胡's payment whatever it shows (ev_v1), 1 the value of
                            #   the 清一色 / 大七對 its melds point to (threat_value)
    OPT_WIN = 8             # win model: logit = a[d] + b[d] log1p(u) + c[d] L/100 (+ e self-only)
    N_WIN_D = 6             #   d = shanten 0..5 (5 = five or more), 3 numbers each
    OPT_WIN_SELF_ONLY = 26
    OPT_STRETCH = 27        # weight of a claim that costs one shanten but serves 大七對 (a
                            #   pung or kong, no chow yet) or 清一色 (in the hand's lead suit);
                            #   0: never weighed (ev_v1)
    OPT_TENPAI = 28         # opponent tenpai: logit = t0 + t1 discards + t2 melds (model 0)
    OPT_WAIT = 32           # P(a tenpai opponent wins on the tile), 20 cells (model 0):
                            #   [honor 0/1][in its discards 0/1][copies visible 0..4]
    N_TEN_F = 8             # model 1: tenpai features (4 at OPT_TENPAI, 4 at OPT_TENPAI_HI)
    N_WAIT_F = 20           # model 1: wait features (at OPT_WAIT)
    OPT_TENPAI_HI = 60
    OPT_FORM = 52           # per fitted form (pairs, 十三爛, 清一色, 大七對: 2 numbers each,
                            #   52..59): the win model's logit for that form is intercept +
                            #   slope x the base logit; the standard form is the base logit
                            #   itself, and 全求人 (the standard form's hands at four exposed
                            #   melds) shares it
    OPT_KONG = 72           # Wanzai: amount (units of base) added to a kong's EV beside its
                            #   payment (the replacement draw); 0: none (ev_v1)
    OPT_PASSED = 73         # 1: a kind an opponent let pass since its own last discard is safe
                            #   against it (passed_kinds); 0: off (ev_v1)
    OPT_WAIT_CLASS = 74     # danger multipliers of suited ranks 4-6, 3/7, 2/8 (3 numbers, the
                            #   shapes of ready hands that wait on them); 0: off (ev_v1)
    OPT_KEEP = 77           # weight of a folding discard's own EV (best_discard); 0: none (ev_v1)
    OPT_HOLD = 84           # Wanzai: pass a discard win when the ready hand's EV is more than
                            #   this times the win's value (holds_for_more); 0: take every win (ev_v1)
    OPT_KONGS = 85          # Wanzai: weight of the kongs a hand may still make in its EV
                            #   (kong_equity); 0: none (ev_v1)
    OPT_RACE = 86           # added to OPT_FOLD per unit of the opponents' summed tenpai
                            #   chance (fold_weight); 0: a constant fold weight (ev_v1)
    OPT_START = 87          # Anhua: 1 weighs the special start against the hand's EV (ev_v1);
                            #   0 declares it whenever legal (RULES §1: default policies take
                            #   every legal win)

cdef int ev_turn(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                 int drawn, int* tile) noexcept nogil
cdef int ev_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil
cdef bint ev_takes_win(HandState* st, int s, int kind) noexcept nogil
cdef void ev_discard_risk(HandState* st, int s, int drawn, double* risk) noexcept nogil
cdef void ev_discard_scores(HandState* st, int s, int drawn, double* scores) noexcept nogil
