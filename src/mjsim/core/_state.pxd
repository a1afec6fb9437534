# The state of a hand, shared by the loop (_loop.pyx), the settlement (_settle.pyx) and the
# players (mjsim/players): configuration, seats, events and results, for Wanzai (RULES §1,
# §2) and Anhua (§1, §3).  Nothing here depends on a player's code.
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, int64_t, uint64_t
from mjsim.core cimport _eval
from mjsim.core._eval cimport EvalConfig, MeldInfo
from mjsim.core._rng cimport Rng
from mjsim.core._wall cimport Wall
from mjsim.core._tables cimport Tables

cdef enum:
    N_SEATS = 4
    MAX_DISCARDS = 64
    MAX_EVENTS = 1024
    MAX_WINNERS = 3
    MAX_BIRDS = 10
    MAX_BUZHANG = 6
    MAX_PAYMENTS = 128              # 16 kongs x 3 payments, their refunds, 3 wins x 3 payments

# Built-in players (C functions chosen per seat by code; players/_api.pxd dispatches on it,
# mjsim.vocab.PLAYERS names them).
cdef enum:
    PLAYER_RANDOM = 0
    PLAYER_GREEDY = 1
    PLAYER_GREEDY_V1 = 2            # greedy as it was before the kong and tie-break fixes
    PLAYER_EV = 3                   # expected value (_ev.pyx); options in GameConfig.player_opts
    PLAYER_SEARCH = 4               # Monte Carlo search over rollouts (_search.pyx)
    PLAYER_PYTHON = 5               # decisions made by a Python object (mjsim.players.Player)
    N_PLAYER_OPTS = 89              # per-seat numbers a built-in player reads (layout: _ev.pxd
                                    # 0..63, 72..77, 84..87; _search.pxd 64..71, 78..83 and 88)

# where the tile a seat's turn starts with came from (play_on's `source`)
cdef enum:
    SRC_OPENING = 0     # the dealer's 14 opening tiles
    SRC_DRAW = 1
    SRC_REPLACEMENT = 2
    SRC_CLAIM = 3       # after a pung or chow: discard only

# 漏胡 lock (pass_ron_lock)
cdef enum:
    LOCK_NONE = 0
    LOCK_UNTIL_OWN_DISCARD = 1
    LOCK_SAME_KIND = 2

# dealer_on_draw
cdef enum:
    ON_DRAW_STAY = 0
    ON_DRAW_NEXT = 1
    ON_DRAW_LAST_DRAWER = 2

cdef enum:
    KONG_ADDED = 0
    KONG_EXPOSED = 1
    KONG_CONCEALED = 2

cdef enum:
    MELD_CHOW = 0
    MELD_PUNG = 1
    MELD_EXPOSED_KONG = 2
    MELD_ADDED_KONG = 3
    MELD_CONCEALED_KONG = 4

# how a hand ended
cdef enum:
    END_DRAW = 0                    # 荒莊: no live tile left
    END_SELF_DRAW = 1
    END_DISCARD = 2
    END_ROB_KONG = 3
    END_INSTANT = 4                 # Anhua special start 特殊平胡

# how a single win was made (vocab.WIN_KIND_NAMES names them; the wins table's win_kind)
cdef enum:
    WIN_SELF_DRAW = 0
    WIN_DISCARD = 1
    WIN_ROB_KONG = 2
    WIN_GANGSHANGHUA = 3
    WIN_GANGSHANGPAO = 4
    WIN_INSTANT = 5

# why a payment is made (the `tile` field of an EV_PAY event; PAY_REASONS names them)
cdef enum:
    PAY_WIN = 0
    PAY_KONG_ADDED = 1
    PAY_KONG_EXPOSED = 2
    PAY_KONG_CONCEALED = 3
    PAY_KONG_REFUND = 4             # a kong payment reversed on a draw (kong_pay_on_draw false)
    PAY_INSTANT = 5                 # Anhua special start 特殊平胡

cdef enum:
    EV_DRAW = 0         # seat draws tile; aux 1 = replacement from the tail
    EV_DISCARD = 1      # seat discards tile
    EV_PUNG = 2         # seat pungs tile from aux
    EV_CHOW = 3         # seat chows tile from aux; value = the two tiles from hand (a | b << 8)
    EV_KONG = 4         # seat kongs tile; aux = KONG_*; value = seat discarding (exposed) or -1
    EV_ROBBED = 5       # seat's added kong of tile is robbed
    EV_WIN = 6          # seat wins on tile; aux = payer seat (-1 self-draw); value = points
    EV_PAY = 7          # seat pays aux `value` points; tile = PAY_* (also in HandState.pays)
    EV_PASS_WIN = 8     # seat passes a win on tile (and is locked, if the rules say so)
    EV_EXHAUSTED = 9    # no live tile left: the hand is a draw
    # Anhua (RULES §3)
    EV_INDICATOR = 10   # tile turned up after the deal (the wilds are its kind and the next rank)
    EV_BUZHANG = 11     # seat takes aux tiles after a kong (補章); value = the tiles, 5 bits each
    EV_LOCKED = 12      # seat's hand is locked after a 補章 without a win
    EV_BIRD = 13        # bird tile; seat = the seat it points at for the first winner
    EV_INSTANT = 14     # seat may declare the special start (category aux); value 1 declared, 0 passed

# a turn's action and a claim, as the players return them
cdef enum:
    ACT_DISCARD = 0
    ACT_CONCEALED_KONG = 1
    ACT_ADDED_KONG = 2

cdef enum:
    CALL_PUNG = 0
    CALL_KONG = 1
    CALL_CHOW = 2

ctypedef struct Call:
    int type
    int a                   # chow: the two tiles taken from hand
    int b

ctypedef struct Event:
    uint8_t type
    int8_t seat
    int8_t tile
    int8_t aux
    int32_t value

# One payment of a hand, as made (HandState.pays).
ctypedef struct PayRec:
    int64_t amount
    int8_t payer
    int8_t receiver
    int8_t reason                   # PAY_*
    int16_t pattern                 # the pattern of the win it pays for, -1 for a kong payment

ctypedef struct GameConfig:
    EvalConfig ev
    int game                        # _eval.GAME_WANZAI or GAME_ANHUA (= ev.game)
    int n_tiles                     # 136 or 108
    int wall_model
    int honor_chow
    int multiple_ron
    int added_kong_on_draw_only
    int kong_pay_on_draw
    int dealer_pays_double
    int pass_ron_lock
    double fire[4]                  # chance a seat goes on fire before a hand (RULES §2.5)
    int fire_min_hands              # once on fire, a seat stays on at least this many hands
    int piao[4]
    int rob_kong_all                # 1: robbed player pays all three shares, 0: one
    int dealer_next_winner          # 1: "winner", 0: "next_on_loss"
    int dealer_on_draw
    int first_dealer                # seat 0..3, or -1: drawn from the session's seed (RULES §1)
    int kong_values[3]              # indexed by KONG_*
    int players[4]
    double player_opts[4][N_PLAYER_OPTS]
    # Anhua (RULES §3); zero under Wanzai
    int instant_mask                # bit c: wild category c may declare the special start
    int instant_score
    int kong_min_wall
    int buzhang_tiles
    int birds
    int score_cap                   # in points (the rules' score_cap x base); also after the bird factor
    # What the loop does differently for a rule set, as features: the rule set's
    # native_config sets them, and the loop never asks which game it plays.
    int wilds                       # an indicator is turned up after the deal (RULES §3.1), and
                                    # §3.3's wild rules decide discard and robbed-kong wins
    int kong_needs_tenpai           # a kong only tenpai before and after it (RULES §3.4)
    int kong_payments               # kongs are paid at once (RULES §2.4)
    int settle_after_birds          # wins are paid after the birds are drawn (RULES §3.5)
    void* py_context                # (players, errors) Python tuple when a seat is PLAYER_PYTHON

ctypedef struct MeldRec:
    uint8_t kind                    # MELD_*
    uint8_t tiles[4]
    uint8_t n
    int8_t from_seat                # -1 for a concealed kong

ctypedef struct SeatState:
    uint8_t hand[34]
    MeldInfo mi
    MeldRec melds[4]
    int n_melds
    uint8_t discards[MAX_DISCARDS]  # the seat's pool: claimed tiles leave it
    int n_discards
    int n_discarded                 # every discard the seat has made this hand (補章 included)
    uint8_t hidden[34]              # tiles in the seat's own concealed kongs
    int ron_locked
    int passed_wins
    uint64_t lock_kinds             # bit k: a discard win on kind k is locked (LOCK_SAME_KIND)
    int locked                      # Anhua: hand locked after a 補章 without a win
    # The loop's incremental view of hand[] (_seat.pxd keeps it; players never read it)
    int32_t gidx[4]                 # table index of each group's counts (3 suits, honors)
    uint32_t gfacts                 # bit 4 * FACT_* + group (_seat.pxd)
    uint64_t held                   # bit k: hand[k] > 0
    uint64_t odd                    # bit k: hand[k] is odd
    uint64_t win_filter             # kinds that might complete the 3n+1 hand ...
    int filter_ok                   # ... when set (cleared by every change)
    int n_held                      # bits in held
    # A built-in greedy seat's 3n+1 hand's shanten after the discard its turn chose, for
    # the claim questions before its next turn (_greedy.pyx); valid while n_discarded
    # equals greedy_shanten_at (set to the count after that discard, so 0 is never valid)
    int greedy_shanten
    int greedy_shanten_at
    # 312 bytes in all: gcc turns a seat index into one imul; at 304 (lea, lea, shl) or
    # 320 (lea, shl) every st.seat[s] costs one more instruction, ~1,000 a hand

ctypedef struct WinRec:
    int winner
    int payer                       # -1: every other player (self-draw)
    int tile
    int pattern
    uint32_t props
    int points
    int64_t received
    int turn                        # the winner's discards before the win, plus 1
    int kind                        # WIN_*
    int category                    # Anhua wild category (0 none)
    int birds_hit                   # birds on the winner or on a seat paying this win
    int hard                        # Anhua: scored as 硬莊
    int n_paid                      # Anhua: the payments of this win, as made
    int paid_by[3]
    int64_t paid[3]
    int paid_bird_exp[3]            # birds on that payer + birds on the winner

ctypedef struct HandState:
    const GameConfig* cfg
    const Tables* tables            # _tables.tables(), for the seats' caches
    Rng rng
    Wall wall
    SeatState seat[4]
    uint8_t seen[34]                # tiles everyone can see: discards and exposed melds
    uint8_t opening[4][14]
    int dealer
    int dice[2]
    int fire[4]
    int64_t deltas[4]
    int claims[4]                   # pungs, chows and exposed kongs each seat made from discards
    int n_pays                      # the payments in pays[] (last: setup_hand does not clear it)
    int draws                       # tiles drawn after the deal (live and replacement)
    int live_draws                  # of those, live tiles from the head
    int kongs[3]
    int last_drawer
    int end
    int n_winners
    WinRec wins[MAX_WINNERS]
    int next_dealer
    int indicator                   # Anhua: turned-up tile (-1 none, Wanzai)
    int wild_a                      # its kind (3 copies left) and the next rank (-1 none)
    int wild_b
    uint8_t birds[MAX_BIRDS]        # bird tiles turned after the win(s)
    int n_birds
    uint8_t aside[MAX_BUZHANG]      # 補章 tiles set aside beside a 槓上花 win
    int n_aside
    int buzhangs                    # 補章 taken this hand
    Event* events                   # NULL: no logging
    int n_events
    int aborted                     # a Python player raised: the hand stops, the error is re-raised
    int drawn_may_win               # 0: the tile just drawn cannot complete the hand (draw_tile)
    uint64_t wild_kinds             # Anhua: bits of the two wild kinds (0 none)
    uint64_t seed                   # the hand's master seed and index (setup_hand): a player
    uint64_t hand_index             #   that samples derives its own streams from them
    # ev's Wanzai values of a win by form for each seat (players/_ev.pyx wanzai_values), kept
    # for the hand: they depend only on the config's rules, the multiplier and piao sums (fire
    # and the dealer are fixed within a hand) and the seat's value exponent, which
    # ev_values_cfg and ev_values_key hold (a copy continued under another config recomputes
    # them); setup_hand zeroes the key, which no real key equals (a multiplier sum is >= 3)
    double ev_values[4][6][2]
    double ev_values_key[4][3]
    const GameConfig* ev_values_cfg[4]
    PayRec pays[MAX_PAYMENTS]       # every payment of the hand, in order
    # _loop.play_on, set by setup_hand: a player that searches continues copies of the hand
    # through it, so the players need not cimport the loop (which cimports them)
    void (*play_on)(HandState* st, int s, int source, int drawn, int action, int tile) noexcept nogil
    # _loop.play_on_discard: the same from a discard whose claim a seat has decided
    void (*play_on_discard)(HandState* st, int discarder, int t, int claimer, const Call* call,
                            int passer) noexcept nogil
    # _loop.play_on_win: the same from a seat's answer to a win on the discard
    void (*play_on_win)(HandState* st, int discarder, int t, int q, bint take) noexcept nogil
    int last_discarder              # the seat whose discard is on the table (-1 none yet)

# Carried from hand to hand within a session (RULES §2.5 fire persistence, §2.6 dealer).
ctypedef struct Session:
    int dealer
    int fire_hands[4]               # consecutive hands each seat has been on fire (0 = off)

# Small helpers the loop and the settlement (_settle.pyx) share.
cdef inline void log_event(HandState* st, int type, int seat, int tile, int aux,
                           int value) noexcept nogil:
    cdef Event* e
    if st.events == NULL or st.n_events >= MAX_EVENTS:
        return
    e = &st.events[st.n_events]
    e.type = type
    e.seat = seat
    e.tile = tile
    e.aux = aux
    e.value = value
    st.n_events += 1
