# cython: language_level=3
"""The hand loop (RULES §1-§3), the random player and the bridge to Python players, without the GIL.

One hand is a `HandState` (fixed size, no heap) advanced by `play_hand`. Every random
choice, from the shuffle to a random player's discard, comes from the hand's own RNG,
seeded by (master seed, hand index), so any hand can be replayed on its own.
Python entry points are at the end (`NativeGame`); validation lives in game.py.  Scoring
a win and making its payments (and kong payments) is _settle.pyx's concern.

One loop plays both rule sets; `cfg.game` selects Anhua's differences (RULES §3): a
108-tile wall and a turned-up wild indicator, the special start, discard-win
eligibility, kongs only under the tenpai rule followed by 補章 and a locked hand, birds
and bird-multiplied payments, no kong payments, fire or piao.  Wanzai takes exactly the
code paths (and random numbers) it took before Anhua was added.

Readings of RULES §3 where it is silent (each is documented where it is implemented):
- Special start: asked once, right after the indicator is turned, from the dealer in play
  order; the first seat that declares wins at once.  A seat that passes (or whose
  category only appears later) can never declare afterwards.  `instant_win_score` x base
  is the amount each other seat pays (RULES §1 Units), capped by `score_cap` (> 0); no
  birds.  Built-in random declares with probability 1/2, every other built-in declares.
- Kong tenpai rule "before": the 13-tile hand at the start of the turn (the hand minus the
  tile just drawn); for an exposed kong the hand before the discard; for the dealer's
  first turn (14 dealt tiles, no draw) some discard leaves it tenpai.
- 補章 without a win: the three tiles are the kong player's discards for this turn; play
  passes to its 下家, who draws as usual; the kong player draws again on its next turn.
  Its hand is then locked: on each turn it may win, add-kong or concealed-kong (tenpai
  rule), otherwise discards the tile it drew.  Locked seats cannot pung, chow or kong a
  discard, but may win on one.
- 槓上炮: the (up to) three tiles are all discarded first; then, from the kong player's
  下家 in play order, each seat's best winnable tile among them is offered (漏胡 applies
  per tile kind); `multiple_ron = false` stops at the first winner.
- 漏胡 (`pass_ron_lock`) has Wanzai's meanings: "same_kind_until_own_discard" locks the
  kinds passed, "until_own_discard" every discard win, both until the seat's own next
  discard (補章 discards included).  Passing a 槓上炮 locks like passing a discard win;
  under Anhua the lock also stops robbing a kong with a locked kind ("cannot win on a tile
  of the same kind").
- Birds: `birds` live tiles after the hand's win(s) (fewer if the wall runs out; none on
  a win with the last live tile), one set for all winners, each mapped relative to each
  winner.  `rob_kong_pays = "all"`: the robbed seat pays three shares, each with the bird
  factor of the seat whose share it is (as Wanzai's fire).  `score_cap` (> 0) caps each
  payment after the bird factor (the evaluator already caps the score before it).
- `dealer_next` and `dealer_on_draw` mean what they mean in Wanzai; the last drawer
  includes a 補章 taker.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, int64_t, uint64_t
from libc.string cimport memset, memcpy

from mjsim cimport _eval
from mjsim._eval cimport EvalConfig, MeldInfo, EvalResult
from mjsim._rng cimport Rng, rng_seed, rng_below, rng_uniform
from mjsim._settle cimport (pay_kong, refund_kongs, self_draw_win, discard_win, rob_kong_win,
                            pay_win, settle_anhua)
from mjsim._wall cimport (Wall, WALL_TABLE, WALL_FLAT, MAX_WALL, fill_tiles, shuffle_tiles,
                          throw_dice, wall_build, wall_deal, draw_live, draw_replacement,
                          live_left)
from mjsim._hand cimport (suit_bit, available, hand_shanten, is_anhua, is_wild, hand_category,
                          meld_after_call, meld_after_own_kong, take_call_tiles)
from mjsim._ev cimport ev_turn, ev_call, ev_takes_win
from mjsim._search cimport search_turn, sample_hidden, decision_rng
from mjsim._greedy cimport greedy_turn, greedy_call, useful_tiles, useful_tiles_all
from mjsim._tables cimport tables
from mjsim._seat cimport (seat_deal, seat_change, seat_n_held, seat_held_kind, seat_complete,
                          seat_complete_with, seat_complete_wilds, seat_may_win, seat_may_chow,
                          seat_verify, mjsim_seat_fail, MJSIM_CHECK_SEATS,
                          mjsim_chow_window, mjsim_kind_group, mjsim_any_four,
                          seat_refresh_filter, seat_may_win_current, mjsim_select64,
                          mjsim_select64_n, mjsim_select64_loop, MJSIM_PDEP_DISPATCH)

cnp.import_array()

# indexed by player code (PLAYER_* in _game.pxd)
PLAYERS = ("random", "greedy", "greedy_pass_once", "greedy_v1", "ev", "search")
EVENT_NAMES = ("draw", "discard", "pung", "chow", "kong", "robbed", "win", "payment",
               "pass_win", "exhausted", "indicator", "buzhang", "locked", "bird", "instant")
KONG_NAMES = ("added", "exposed", "concealed")
MELD_NAMES = ("chow", "pung", "kong", "added_kong", "concealed_kong")
END_NAMES = ("draw", "self_draw", "discard", "rob_kong", "instant")
WIN_KIND_NAMES = ("self_draw", "discard", "rob_kong", "gangshanghua", "gangshangpao", "instant")
PAY_REASONS = ("win", "kong_added", "kong_exposed", "kong_concealed", "kong_refund", "instant")
PAY_NAMES = PAY_REASONS

# ================================================================ small helpers

cdef inline int min3(int a, int b, int c) noexcept nogil:
    return a if a <= b and a <= c else (b if b <= c else c)


cdef inline int max3(int a, int b, int c) noexcept nogil:
    return a if a >= b and a >= c else (b if b >= c else c)


cdef void add_meld(SeatState* p, int kind, int t0, int t1, int t2, int t3,
                   int from_seat) noexcept nogil:
    """Record a meld and keep the evaluator's MeldInfo in step."""
    cdef MeldRec* m = &p.melds[p.n_melds]
    cdef int i, n = 3 if t3 < 0 else 4
    m.kind = kind
    m.tiles[0] = t0
    m.tiles[1] = t1
    m.tiles[2] = t2
    m.tiles[3] = t3 if t3 >= 0 else 0
    m.n = n
    m.from_seat = from_seat
    p.n_melds += 1
    p.mi.n += 1
    if kind == MELD_CHOW:
        p.mi.has_chow = 1
    if kind == MELD_CONCEALED_KONG:
        p.mi.has_concealed_kong = 1
    for i in range(n):
        p.mi.counts[m.tiles[i]] += 1
        p.mi.suit_mask |= suit_bit(m.tiles[i])


cdef int find_pung(const SeatState* p, int k) noexcept nogil:
    cdef int i
    for i in range(p.n_melds):
        if p.melds[i].kind == MELD_PUNG and p.melds[i].tiles[0] == k:
            return i
    return -1




# ================================================================ wins

cdef inline bint can_win_with(const HandState* st, int s, int tile) noexcept nogil:
    """Would seat s be complete with `tile` added (a discard or a robbed kong tile)?
    Wanzai has no wilds, so face value is the whole answer."""
    return seat_complete_with(st, s, tile)


cdef inline bint complete_now(const HandState* st, int s) noexcept nogil:
    """Is seat s's 3n+2 hand complete (a self-draw; Anhua: every wild a joker)?  Without a
    wild in hand that is completeness at face value, which the seat's cache answers."""
    cdef const SeatState* p = &st.seat[s]
    if st.wild_a >= 0 and p.hand[st.wild_a] + p.hand[st.wild_b] > 0:
        return seat_complete_wilds(st, s)
    return seat_complete(st, s)


cdef bint can_win_on(const HandState* st, int s, int tile, int context) noexcept nogil:
    """May seat s win on another seat's `tile`?  Wanzai: complete with it.  Anhua (RULES
    §3.3): a discard needs completion at face value, holding only the wilds that
    discard_win_wilds allows; robbing a kong and 槓上炮 need no wild or 單王, wilds
    substituting (the won tile is its face value)."""
    cdef SeatState* p = <SeatState*>&st.seat[s]
    cdef EvalResult r
    cdef bint ok
    cdef int cat
    if not is_anhua(st):
        return can_win_with(st, s, tile)
    cat = hand_category(st, p.hand)
    if context == _eval.CTX_NONE:
        if not _eval.discard_category_ok(&st.cfg.ev, cat):
            return False
    elif cat > _eval.CAT_DAN:
        return False
    if context == _eval.CTX_NONE:
        return seat_complete_with(st, s, tile)      # every tile at face value
    p.hand[tile] += 1
    _eval.evaluate(&st.cfg.ev, p.hand, &p.mi, tile, False, st.indicator, context, &r)
    ok = r.win
    p.hand[tile] -= 1
    return ok


cdef bint ron_locked(const HandState* st, int s, int tile) noexcept nogil:
    cdef const SeatState* p = &st.seat[s]
    if st.cfg.pass_ron_lock == LOCK_UNTIL_OWN_DISCARD:
        return p.ron_locked
    if st.cfg.pass_ron_lock == LOCK_SAME_KIND:
        return (p.lock_kinds >> tile) & 1
    return False


cdef void lock_after_pass(HandState* st, int s, int tile) noexcept nogil:
    if st.cfg.pass_ron_lock == LOCK_UNTIL_OWN_DISCARD:
        st.seat[s].ron_locked = 1
    elif st.cfg.pass_ron_lock == LOCK_SAME_KIND:
        st.seat[s].lock_kinds |= (<uint64_t>1) << tile


cdef bint special_start(HandState* st) noexcept nogil:
    """特殊平胡 (RULES §3.3): from the dealer in play order, a seat whose wild category is in
    instant_win_categories may declare; the first that does wins (each other seat pays
    instant_win_score x base, no birds).  Asked once only: a seat that passes, or reaches such a
    category later, never declares afterwards."""
    cdef int i, s, q, cat, v
    cdef WinRec* w
    if st.cfg.instant_mask == 0:
        return False
    for i in range(4):
        s = (st.dealer + i) & 3
        cat = hand_category(st, st.seat[s].hand)
        if cat == _eval.CAT_NONE or not (st.cfg.instant_mask >> cat) & 1:
            continue
        if not takes_win(st, s, -1, WIN_INSTANT):
            log_event(st, EV_INSTANT, s, -1, cat, 0)
            if st.aborted:
                return True
            continue
        log_event(st, EV_INSTANT, s, -1, cat, 1)
        w = &st.wins[0]
        st.n_winners = 1
        w.winner = s
        w.payer = -1
        w.tile = -1
        w.pattern = _eval.P_PINGHU          # 特殊平胡
        w.props = 1u << (_eval.PR_CATEGORY0 + cat)
        w.points = st.cfg.instant_score * st.cfg.ev.base   # in units of base (RULES §1)
        if st.cfg.score_cap and w.points > st.cfg.score_cap:
            w.points = st.cfg.score_cap
        w.received = 0
        w.kind = WIN_INSTANT
        w.turn = 1          # no discard made yet
        w.category = cat
        w.birds_hit = 0
        w.hard = 0
        log_event(st, EV_WIN, s, -1, -1, w.points)
        w.n_paid = 0
        for q in range(1, 4):
            pay_win(st, w, (s + q) & 3, w.points, 0)
        st.end = END_INSTANT
        return True
    return False


# ================================================================ players: own turn

cdef bint kong_allowed(HandState* st, int s, int k, int kong_type, int drawn,
                      int source) noexcept nogil:
    """Anhua (RULES §3.4): more than kong_min_wall - 1 live tiles left, and tenpai both
    before the kong and after it (wilds as wilds).  "Before" is the 13-tile hand at the
    start of the turn (the hand minus the drawn tile), for an exposed kong the hand that
    faced the discard, for the dealer's first turn "some discard leaves it tenpai"."""
    cdef SeatState* p = &st.seat[s]
    cdef MeldInfo mi
    cdef int before, after, taken
    if not is_anhua(st):
        return True
    if live_left(&st.wall) < st.cfg.kong_min_wall:
        return False
    if source == SRC_DRAW and drawn >= 0 and kong_type != KONG_EXPOSED:
        p.hand[drawn] -= 1
        before = hand_shanten(st, p.hand, &p.mi)
        p.hand[drawn] += 1
    else:
        before = hand_shanten(st, p.hand, &p.mi)
    if before > 0:
        return False
    mi = p.mi
    if kong_type == KONG_ADDED:
        taken = 1
        mi.counts[k] += 1
    else:
        taken = 4 if kong_type == KONG_CONCEALED else 3
        mi.n += 1
        mi.counts[k] += 4
        mi.suit_mask |= suit_bit(k)
        if kong_type == KONG_CONCEALED:
            mi.has_concealed_kong = 1
    p.hand[k] -= taken
    after = hand_shanten(st, p.hand, &mi)
    p.hand[k] += taken
    return after <= 0


cdef inline bint any_four(const uint8_t* hand) noexcept nogil:
    """Does some kind have 4 copies?  (_seat.h: SSE2 where the build has it)"""
    return mjsim_any_four(hand)


cdef int list_kongs(HandState* st, int s, int drawn, int source, int* kinds,
                    int* types) noexcept nogil:
    """Kongs seat s may declare now: concealed (four in hand) and added (RULES §2.1; Anhua
    §3.4 adds the tenpai and wall rules).  Each kind of kong is listed by ascending kind."""
    cdef const SeatState* p = &st.seat[s]
    cdef int k, i, j, n = 0, n_pungs = 0
    cdef int pungs[4]
    if any_four(p.hand):
        for k in range(34):
            if p.hand[k] == 4 and kong_allowed(st, s, k, KONG_CONCEALED, drawn, source):
                kinds[n] = k
                types[n] = ACT_CONCEALED_KONG
                n += 1
    if st.cfg.added_kong_on_draw_only:
        if drawn >= 0 and find_pung(p, drawn) >= 0 and kong_allowed(st, s, drawn, KONG_ADDED, drawn, source):
            kinds[n] = drawn
            types[n] = ACT_ADDED_KONG
            n += 1
    else:
        # the pungs whose fourth tile is in hand, in ascending kind
        for i in range(p.n_melds):
            k = p.melds[i].tiles[0]
            if p.melds[i].kind != MELD_PUNG or not p.hand[k]:
                continue
            j = n_pungs
            while j > 0 and pungs[j - 1] > k:
                pungs[j] = pungs[j - 1]
                j -= 1
            pungs[j] = k
            n_pungs += 1
        for i in range(n_pungs):
            if kong_allowed(st, s, pungs[i], KONG_ADDED, drawn, source):
                kinds[n] = pungs[i]
                types[n] = ACT_ADDED_KONG
                n += 1
    return n


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


cdef inline bint may_kong(const HandState* st, const SeatState* p, int source,
                          int drawn) noexcept nogil:
    """False when list_kongs would list nothing: a kong needs four of a kind in hand or a
    pung to add to (when only the drawn tile may be added: a pung of its kind, which puts
    at least three of it in the melds)."""
    return source != SRC_CLAIM and (any_four(p.hand) or (p.n_melds and (
        not st.cfg.added_kong_on_draw_only or (drawn >= 0 and p.mi.counts[drawn] >= 3))))


cdef inline int choose_turn(HandState* st, int s, int source, int drawn, int* tile) noexcept nogil:
    """The turn's action (ACT_*) and its tile.  A random seat with no kong to declare takes
    random_turn's discard directly, without the kong lists."""
    cdef const SeatState* p = &st.seat[s]
    cdef int pick
    if st.cfg.players[s] == PLAYER_RANDOM and not may_kong(st, p, source, drawn):
        if MJSIM_CHECK_SEATS:
            seat_verify(st.tables, p, s)
        # random_turn with no kong: the same single random number
        if p.locked:
            rng_below(&st.rng, 1)
            tile[0] = drawn
        else:
            tile[0] = seat_held_kind(p, rng_below(&st.rng, seat_n_held(p)))
        return ACT_DISCARD
    return choose_turn_listed(st, s, source, drawn, tile)


cdef int choose_turn_listed(HandState* st, int s, int source, int drawn, int* tile) noexcept nogil:
    cdef int kinds[34]
    cdef int types[34]
    cdef int n = 0
    if may_kong(st, &st.seat[s], source, drawn):
        n = list_kongs(st, s, drawn, source, kinds, types)
    if st.cfg.players[s] == PLAYER_PYTHON:
        return python_turn(st, s, n, kinds, types, drawn, tile)
    return builtin_turn(st, s, st.cfg.players[s], n, kinds, types, drawn, tile)


cdef inline int builtin_turn(HandState* st, int s, int player, int n_kongs, const int* kinds,
                      const int* types, int drawn, int* tile) noexcept nogil:
    if player == PLAYER_RANDOM:
        return random_turn(st, s, n_kongs, kinds, types, drawn, tile)
    if player == PLAYER_EV:
        return ev_turn(st, s, n_kongs, kinds, types, drawn, tile)
    if player == PLAYER_SEARCH:
        return search_turn(st, s, n_kongs, kinds, types, drawn, tile)
    return greedy_turn(st, s, player, n_kongs, kinds, types, drawn, tile)


cdef bint builtin_takes_win(HandState* st, int s, int player, int kind) noexcept nogil:
    """Every built-in player takes a legal win, except the test player's first discard win;
    the special start is a choice: random declares with probability 1/2."""
    if player == PLAYER_EV or player == PLAYER_SEARCH:     # search takes wins as ev does
        return ev_takes_win(st, s, kind)
    if kind == WIN_INSTANT:
        return player != PLAYER_RANDOM or rng_below(&st.rng, 2) == 0
    return kind != WIN_DISCARD or player != PLAYER_GREEDY_PASS_ONCE or st.seat[s].passed_wins > 0


cdef bint takes_win(HandState* st, int s, int tile, int kind) noexcept nogil:
    if st.cfg.players[s] == PLAYER_PYTHON:
        return python_takes_win(st, s, tile, kind)
    return builtin_takes_win(st, s, st.cfg.players[s], kind)


# ================================================================ players: claims

cdef int list_calls(HandState* st, int s, int tile, int discarder, Call* calls) noexcept nogil:
    """Pung / exposed kong from anyone; chow only from 上家 (honor runs with honor_chow).
    Anhua: the exposed kong under the tenpai and wall rules; a locked hand calls nothing."""
    cdef const uint8_t* h = st.seat[s].hand
    cdef int n = 0, a, b
    cdef uint32_t w
    # the two other tiles of the run from tile-2, tile-1, tile: bits of list_calls' window
    cdef uint32_t chow_pair[3]
    chow_pair[0] = 0x03
    chow_pair[1] = 0x0A
    chow_pair[2] = 0x18
    if st.seat[s].locked:
        return 0
    if h[tile] >= 2:
        calls[n].type = CALL_PUNG
        n += 1
    if h[tile] == 3 and kong_allowed(st, s, tile, KONG_EXPOSED, -1, SRC_CLAIM):
        calls[n].type = CALL_KONG
        n += 1
    if s != ((discarder + 1) & 3):
        return n
    if tile < 27:
        if MJSIM_CHECK_SEATS:
            seat_verify(st.tables, &st.seat[s], s)
        # bits 0..4: the kinds tile-2 .. tile+2 held, tile itself and those outside its
        # suit cleared; the runs from tile-2, tile-1 and tile, in that order
        w = <uint32_t>((st.seat[s].held << 2) >> tile) & mjsim_chow_window[tile - 9 * mjsim_kind_group[tile]]
        for a in range(3):
            if (w & chow_pair[a]) != chow_pair[a]:
                continue
            calls[n].type = CALL_CHOW
            calls[n].a = tile - 2 + a if a != 2 else tile + 1
            calls[n].b = tile + a if a != 0 else tile - 1
            n += 1
    elif st.cfg.honor_chow:
        if tile <= 30:
            # any three different winds: two other winds held
            for a in range(27, 31):
                for b in range(a + 1, 31):
                    if a != tile and b != tile and h[a] and h[b]:
                        calls[n].type = CALL_CHOW
                        calls[n].a = a
                        calls[n].b = b
                        n += 1
        else:
            a = 31 if tile != 31 else 32
            b = 33 if tile != 33 else 32
            if h[a] and h[b]:
                calls[n].type = CALL_CHOW
                calls[n].a = a
                calls[n].b = b
                n += 1
    return n


cdef int builtin_call(HandState* st, int s, int player, int tile, const Call* calls, int n) noexcept nogil:
    if player == PLAYER_RANDOM:
        return <int>rng_below(&st.rng, n + 1) - 1   # passing is one of the choices
    if player == PLAYER_EV or player == PLAYER_SEARCH:     # search claims as ev does
        return ev_call(st, s, tile, calls, n)
    return greedy_call(st, s, player, tile, calls, n)


cdef inline int choose_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil:
    if n == 0:
        return -1
    if st.cfg.players[s] == PLAYER_PYTHON:
        return python_call(st, s, tile, calls, n)
    return builtin_call(st, s, st.cfg.players[s], tile, calls, n)


# ================================================================ the hand loop

cdef bint decide_fire(double chance, int hands_on, int min_hands, double u) noexcept nogil:
    """A seat off fire turns it on with `chance`; one on fire must stay `min_hands` hands,
    then is decided afresh with the same chance (RULES §2.5)."""
    if 0 < hands_on < min_hands:
        return True
    return u < chance


cdef void setup_hand(HandState* st, const GameConfig* cfg, uint64_t seed, uint64_t hand_index,
                     const Session* session, const uint8_t* scripted_wall, int scripted_dice,
                     Event* events) noexcept nogil:
    cdef uint8_t physical[MAX_WALL]
    cdef uint8_t dealt[4][14]
    cdef int s, i, d, dealer = session.dealer, n = cfg.n_tiles
    # everything but the payment records, which n_pays counts (2 of the struct's 5 KiB)
    memset(st, 0, <size_t>(<char*>&st.pays[0] - <char*>st))
    st.cfg = cfg
    st.tables = tables()
    st.events = events
    st.dealer = dealer
    st.last_drawer = -1
    st.drawn_may_win = 1            # the dealer's 14 dealt tiles are asked in full
    st.next_dealer = dealer
    st.indicator = -1
    st.wild_a = -1
    st.wild_b = -1
    st.seed = seed
    st.hand_index = hand_index
    rng_seed(&st.rng, seed, hand_index)
    if scripted_wall != NULL:
        memcpy(physical, scripted_wall, n)
    else:
        fill_tiles(physical, n)
        shuffle_tiles(physical, n, &st.rng)
    d = throw_dice(&st.rng, st.dice)
    if scripted_dice:
        st.dice[0] = scripted_dice // 2
        st.dice[1] = scripted_dice - scripted_dice // 2
        d = scripted_dice
    for s in range(4):
        # always four draws, so the RNG stream after this does not depend on fire odds
        st.fire[s] = decide_fire(cfg.fire[s], session.fire_hands[s], cfg.fire_min_hands,
                                 rng_uniform(&st.rng))
    wall_build(&st.wall, physical, n, cfg.wall_model, dealer, d)
    wall_deal(&st.wall, dealer, dealt)
    memcpy(st.opening, dealt, sizeof(dealt))
    for s in range(4):
        seat_deal(st.tables, &st.seat[s], dealt[s], 14 if s == dealer else 13)
        seat_refresh_filter(&st.seat[s])
    if cfg.game == _eval.GAME_ANHUA:
        # RULES §3.1: the next live tile is turned up and set aside (never drawn)
        st.indicator = draw_live(&st.wall)
        _eval.wild_kinds(st.indicator, &st.wild_a, &st.wild_b)
        st.wild_kinds = ((<uint64_t>1) << st.wild_a) | ((<uint64_t>1) << st.wild_b)
        st.seen[st.indicator] += 1
        log_event(st, EV_INDICATOR, -1, st.indicator, 0, 0)


cdef inline int draw_tile(HandState* st, int s, bint replacement) noexcept nogil:
    cdef int t = draw_replacement(&st.wall) if replacement else draw_live(&st.wall)
    cdef SeatState* p = &st.seat[s]
    if t < 0:
        return -1
    # the 3n+1 hand's win filter, when already known, rules out most self-draw wins at
    # face value; a hand with a wild (Anhua) is asked in full
    st.drawn_may_win = not p.filter_ok or (p.win_filter >> t) & 1 or (
        st.wild_kinds and ((p.held | ((<uint64_t>1) << t)) & st.wild_kinds) != 0)
    seat_change(st.tables, p, t, 1)
    st.draws += 1
    st.live_draws += not replacement
    st.last_drawer = s
    log_event(st, EV_DRAW, s, t, replacement, 0)
    return t


cdef inline void discard_tile(HandState* st, int s, int t, int buzhang) noexcept nogil:
    cdef SeatState* p = &st.seat[s]
    seat_change(st.tables, p, t, -1)
    if p.n_discards < MAX_DISCARDS:
        p.discards[p.n_discards] = t
        p.n_discards += 1
    p.n_discarded += 1
    st.seen[t] += 1
    # 漏胡 ends with the seat's own discard
    p.ron_locked = 0
    p.lock_kinds = 0
    seat_refresh_filter(p)          # the turn ends: may_be_claimed reads it from now on
    log_event(st, EV_DISCARD, s, t, buzhang, 0)


cdef void take_from_pool(HandState* st, int discarder) noexcept nogil:
    st.seat[discarder].n_discards -= 1


cdef bint try_rob_kong(HandState* st, int s, int t) noexcept nogil:
    """Other seats may rob an added kong with a win on its tile (never a concealed kong)."""
    cdef int i, q
    for i in range(1, 4):
        q = (s + i) & 3
        if is_anhua(st) and (ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_QIANGGANGHU)):
            continue
        if (is_anhua(st) or can_win_with(st, q, t)) and takes_win(st, q, t, WIN_ROB_KONG):
            if st.n_winners == 0:
                log_event(st, EV_ROBBED, s, t, 0, 0)
            rob_kong_win(st, q, t, s)
            if not st.cfg.multiple_ron:
                break
    return st.n_winners > 0


cdef enum:
    MAYBE_CALLED = 1        # may_be_claimed: a pung, kong or chow, but no win
    MAYBE_WON = 2           # a win, perhaps a call too


cdef inline int may_be_claimed(HandState* st, int discarder, int t) noexcept nogil:
    """Might another seat win on (MAYBE_WON), or only pung, kong or chow (MAYBE_CALLED), the
    discard t?  0 means that resolve_discard_wins and resolve_calls would ask nobody (and
    draw no random number): every win filter excludes t, nobody holds two of it and 下家
    holds no run with it; MAYBE_CALLED that resolve_discard_wins would ask nobody."""
    cdef int nx = (discarder + 1) & 3, op = (discarder + 2) & 3, pv = (discarder + 3) & 3
    cdef Call calls[8]
    # the win filters first: resolve_discard_wins would read them anyway
    if seat_may_win_current(st, nx, t) or seat_may_win_current(st, op, t) or seat_may_win_current(st, pv, t):
        return MAYBE_WON
    if st.seat[nx].hand[t] >= 2 or st.seat[op].hand[t] >= 2 or st.seat[pv].hand[t] >= 2:
        return MAYBE_CALLED
    if seat_may_chow(st, nx, t):
        return MAYBE_CALLED
    if MJSIM_CHECK_SEATS and list_calls(st, nx, t, discarder, calls):
        mjsim_seat_fail("seat_may_chow", nx)
    return 0


cdef bint resolve_discard_wins(HandState* st, int discarder, int t) noexcept nogil:
    cdef int i, q
    for i in range(1, 4):
        q = (discarder + i) & 3
        # a discard win is a face-value completion (both games), which the seat's filter
        # (current: refreshed at its last discard, as in may_be_claimed) rules out for most
        # tiles without a call
        if not seat_may_win_current(st, q, t) or ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_NONE):
            continue
        if takes_win(st, q, t, WIN_DISCARD):
            discard_win(st, q, t, discarder, _eval.CTX_NONE)
            if not st.cfg.multiple_ron:
                break
        else:
            log_event(st, EV_PASS_WIN, q, t, discarder, 0)
            st.seat[q].passed_wins += 1
            lock_after_pass(st, q, t)
    return st.n_winners > 0


cdef int resolve_calls(HandState* st, int discarder, int t, Call* taken) noexcept nogil:
    """Pung / exposed kong before chow (RULES §2.1). -> claiming seat or -1."""
    cdef Call calls[8]
    cdef int i, q, n, pick, chow_seat = (discarder + 1) & 3
    # a seat holding two or three of t (at most one can) is asked first, unless it is 下家
    for i in range(2, 4):
        q = (discarder + i) & 3
        if st.seat[q].hand[t] >= 2:
            n = list_calls(st, q, t, discarder, calls)
            pick = choose_call(st, q, t, calls, n)
            if pick >= 0:
                taken[0] = calls[pick]
                return q
    # 下家 can call only with two of t or a run with t in hand (no call: no question)
    if st.seat[chow_seat].hand[t] < 2 and not seat_may_chow(st, chow_seat, t):
        return -1
    n = list_calls(st, chow_seat, t, discarder, calls)
    pick = choose_call(st, chow_seat, t, calls, n)
    if pick >= 0:
        taken[0] = calls[pick]
        return chow_seat
    return -1


cdef void apply_call(HandState* st, int q, int t, int discarder, const Call* c) noexcept nogil:
    cdef SeatState* p = &st.seat[q]
    take_from_pool(st, discarder)   # the tile moves to the meld; it stays counted in seen
    st.claims[q] += 1
    if c.type == CALL_PUNG:
        seat_change(st.tables, p, t, -2)
        st.seen[t] += 2
        add_meld(p, MELD_PUNG, t, t, t, -1, discarder)
        log_event(st, EV_PUNG, q, t, discarder, 0)
    elif c.type == CALL_KONG:
        seat_change(st.tables, p, t, -3)
        st.seen[t] += 3
        add_meld(p, MELD_EXPOSED_KONG, t, t, t, t, discarder)
        log_event(st, EV_KONG, q, t, KONG_EXPOSED, discarder)
        pay_kong(st, q, KONG_EXPOSED, discarder)
    else:
        seat_change(st.tables, p, c.a, -1)
        seat_change(st.tables, p, c.b, -1)
        st.seen[c.a] += 1
        st.seen[c.b] += 1
        add_meld(p, MELD_CHOW, min3(c.a, c.b, t), c.a + c.b + t - min3(c.a, c.b, t) - max3(c.a, c.b, t),
                 max3(c.a, c.b, t), -1, discarder)
        log_event(st, EV_CHOW, q, t, discarder, c.a | (c.b << 8))


cdef void declare_concealed_kong(HandState* st, int s, int k) noexcept nogil:
    cdef SeatState* p = &st.seat[s]
    seat_change(st.tables, p, k, -4)
    p.hidden[k] += 4
    add_meld(p, MELD_CONCEALED_KONG, k, k, k, k, -1)
    log_event(st, EV_KONG, s, k, KONG_CONCEALED, -1)
    pay_kong(st, s, KONG_CONCEALED, -1)


cdef void declare_added_kong(HandState* st, int s, int k) noexcept nogil:
    cdef SeatState* p = &st.seat[s]
    cdef int i = find_pung(p, k)
    seat_change(st.tables, p, k, -1)
    st.seen[k] += 1
    p.melds[i].kind = MELD_ADDED_KONG
    p.melds[i].tiles[3] = k
    p.melds[i].n = 4
    p.mi.counts[k] += 1
    log_event(st, EV_KONG, s, k, KONG_ADDED, -1)
    pay_kong(st, s, KONG_ADDED, -1)


cdef int buzhang(HandState* st, int s) noexcept nogil:
    """補章 after seat s's kong (RULES §3.4) -> 1 the hand is won (or aborted), 0 no win (the
    tiles were discarded and the hand is locked), -1 no live tile was left to take.

    The best winning tile (highest score) among the buzhang_tiles taken is a 槓上花
    self-draw, the others are set aside.  Otherwise every tile is discarded in order, and
    each other seat, from s's 下家 in play order, may win on its best one (槓上炮).
    """
    cdef SeatState* p = &st.seat[s]
    cdef uint8_t tiles[MAX_BUZHANG]
    cdef int i, j, m = 0, t, q, best, best_pts, packed = 0
    cdef EvalResult r
    for i in range(st.cfg.buzhang_tiles):
        t = draw_live(&st.wall)
        if t < 0:
            break
        tiles[m] = t
        packed |= t << (5 * m)
        m += 1
        st.draws += 1
        st.live_draws += 1
        st.last_drawer = s
    if m == 0:
        return -1
    st.buzhangs += 1
    log_event(st, EV_BUZHANG, s, -1, m, packed)
    # 槓上花: the highest-scoring tile that completes the hand (first one on a tie)
    best = -1
    best_pts = 0
    for i in range(m):
        t = tiles[i]
        p.hand[t] += 1
        if _eval.is_complete(&st.cfg.ev, p.hand, &p.mi, st.indicator):
            _eval.evaluate(&st.cfg.ev, p.hand, &p.mi, t, True, st.indicator,
                           _eval.CTX_GANGSHANGHUA, &r)
            if r.win and (best < 0 or r.points > best_pts):
                best = i
                best_pts = r.points
        p.hand[t] -= 1
    if best >= 0:
        if takes_win(st, s, tiles[best], WIN_GANGSHANGHUA):
            seat_change(st.tables, p, tiles[best], 1)
            self_draw_win(st, s, tiles[best], _eval.CTX_GANGSHANGHUA)
            for i in range(m):
                if i != best:
                    st.aside[st.n_aside] = tiles[i]
                    st.n_aside += 1
            return 1
        if st.aborted:
            return 1
    # no win: all are discarded in order; they can only be won on
    for i in range(m):
        seat_change(st.tables, p, tiles[i], 1)
        discard_tile(st, s, tiles[i], 1)
    p.locked = 1
    log_event(st, EV_LOCKED, s, -1, 0, 0)
    for j in range(1, 4):
        q = (s + j) & 3
        best = -1
        best_pts = 0
        for i in range(m):
            t = tiles[i]
            if ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_GANGSHANGPAO):
                continue
            st.seat[q].hand[t] += 1
            _eval.evaluate(&st.cfg.ev, st.seat[q].hand, &st.seat[q].mi, t, False, st.indicator,
                           _eval.CTX_GANGSHANGPAO, &r)
            st.seat[q].hand[t] -= 1
            if best < 0 or r.points > best_pts:
                best = i
                best_pts = r.points
        if best < 0:
            continue
        if takes_win(st, q, tiles[best], WIN_GANGSHANGPAO):
            discard_win(st, q, tiles[best], s, _eval.CTX_GANGSHANGPAO)
            if not st.cfg.multiple_ron:
                break
        else:
            if st.aborted:
                return 1
            log_event(st, EV_PASS_WIN, q, tiles[best], s, 0)
            st.seat[q].passed_wins += 1
            for i in range(m):
                if not ron_locked(st, q, tiles[i]) and can_win_on(st, q, tiles[i], _eval.CTX_GANGSHANGPAO):
                    lock_after_pass(st, q, tiles[i])
    if st.n_winners or st.aborted:
        return 1
    return 0


cdef void finish_draw(HandState* st) noexcept nogil:
    st.end = END_DRAW
    log_event(st, EV_EXHAUSTED, st.last_drawer, -1, 0, 0)
    if not st.cfg.kong_pay_on_draw:
        refund_kongs(st)
    if st.cfg.dealer_on_draw == ON_DRAW_NEXT:
        st.next_dealer = (st.dealer + 1) & 3
    elif st.cfg.dealer_on_draw == ON_DRAW_LAST_DRAWER and st.last_drawer >= 0:
        st.next_dealer = st.last_drawer
    else:
        st.next_dealer = st.dealer


cdef void finish_win(HandState* st) noexcept nogil:
    """wins[] are in play order from the discarder, so wins[0] is the first winner."""
    cdef int i
    cdef bint dealer_won = False
    if st.cfg.dealer_next_winner:
        st.next_dealer = st.wins[0].winner
        return
    for i in range(st.n_winners):
        dealer_won |= st.wins[i].winner == st.dealer
    st.next_dealer = st.dealer if dealer_won else (st.dealer + 1) & 3


cdef void start_session(Session* session, const GameConfig* cfg, uint64_t seed,
                        uint64_t first_hand) noexcept nogil:
    """A session starts with nobody on fire and its first dealer (RULES §1): the fixed seat,
    or one drawn uniformly from the session's own stream -- (seed, first hand index) with
    a salt, so it is independent of every hand's shuffle."""
    cdef Rng r
    memset(session, 0, sizeof(Session))
    if cfg.first_dealer >= 0:
        session.dealer = cfg.first_dealer
    else:
        rng_seed(&r, seed ^ 0x5E55104F1257DEA1ULL, first_hand)
        session.dealer = rng_below(&r, 4)


cdef void next_session_state(const HandState* st, const GameConfig* cfg, Session* session) noexcept nogil:
    cdef int s
    session.dealer = st.next_dealer
    for s in range(4):
        session.fire_hands[s] = session.fire_hands[s] + 1 if st.fire[s] else 0


cdef int after_kong(HandState* st, int* s, int* drawn) noexcept nogil:
    """What follows seat s's kong: Anhua's 補章 (a win ends the hand; otherwise its tiles are
    s's discards and 下家 draws as usual), Wanzai's replacement draw from the tail.
    -> where the next turn's tile came from (SRC_*), or -1 when the hand has ended."""
    cdef int b, source
    if st.cfg.game == _eval.GAME_ANHUA:
        b = buzhang(st, s[0])
        if b > 0:
            return -1
        s[0] = (s[0] + 1) & 3
        drawn[0] = draw_tile(st, s[0], False) if b == 0 else -1
        source = SRC_DRAW
    else:
        drawn[0] = draw_tile(st, s[0], True)
        source = SRC_REPLACEMENT
    if drawn[0] < 0:
        finish_draw(st)
        return -1
    return source


cdef void play_hand(HandState* st, const GameConfig* cfg, uint64_t seed, uint64_t hand_index,
                    const Session* session, const uint8_t* scripted_wall, int scripted_dice,
                    Event* events) noexcept nogil:
    setup_hand(st, cfg, seed, hand_index, session, scripted_wall, scripted_dice, events)
    if cfg.game == _eval.GAME_ANHUA and special_start(st):
        if st.n_winners and not st.aborted:
            finish_win(st)
        return
    play_on(st, session.dealer, SRC_OPENING, -1, -1, 0)


cdef void play_on(HandState* st, int s, int source, int drawn, int action,
                  int tile) noexcept nogil:
    """Play the hand on to its end (and settle it) from seat s holding 3n+2 tiles: `source`
    (SRC_*) says where its last tile came from, `drawn` is the tile drawn (-1 none).
    action < 0: the seat's player decides as usual (a self-draw win first).  action >= 0:
    the seat's turn is that ACT_* on `tile`, taken without asking (its self-draw win is
    not taken).  play_hand starts here after the deal; a player that searches (_search.pyx)
    or a what-if analysis continues a copy of a hand here, with its own cfg and rng."""
    cdef int act, t = tile, q, guard, claimed
    cdef Call call
    for guard in range(1000):   # a hand has at most ~140 turns; the bound only guards bugs
        # ---- seat s holds 3n+2 tiles
        if action < 0:
            if MJSIM_CHECK_SEATS and source != SRC_CLAIM and not st.drawn_may_win and complete_now(st, s):
                mjsim_seat_fail("win filter excludes a self-draw", s)
            if source != SRC_CLAIM and st.drawn_may_win and complete_now(st, s) \
                    and takes_win(st, s, drawn, WIN_SELF_DRAW):
                self_draw_win(st, s, drawn,
                              _eval.CTX_GANGSHANGHUA if source == SRC_REPLACEMENT else _eval.CTX_NONE)
                break
            act = choose_turn(st, s, source, drawn, &t)
            if st.aborted:
                break
        else:
            act = action
            action = -1
        if act == ACT_CONCEALED_KONG or act == ACT_ADDED_KONG:
            if act == ACT_ADDED_KONG:
                if try_rob_kong(st, s, t) or st.aborted:
                    break
                declare_added_kong(st, s, t)
            else:
                declare_concealed_kong(st, s, t)
            source = after_kong(st, &s, &drawn)
            if source < 0:
                break
            continue
        discard_tile(st, s, t, 0)
        # ---- the other three may claim t
        q = -1
        claimed = may_be_claimed(st, s, t)
        if claimed:
            if claimed == MAYBE_WON and (resolve_discard_wins(st, s, t) or st.aborted):
                break
            q = resolve_calls(st, s, t, &call)
            if st.aborted:
                break
        if q >= 0:
            apply_call(st, q, t, s, &call)
            s = q
            if call.type == CALL_KONG:
                source = after_kong(st, &s, &drawn)
                if source < 0:
                    break
            else:
                drawn = -1
                source = SRC_CLAIM
            continue
        s = (s + 1) & 3
        drawn = draw_tile(st, s, False)
        if drawn < 0:
            finish_draw(st)
            break
        source = SRC_DRAW
    if st.n_winners and not st.aborted:
        if st.cfg.game == _eval.GAME_ANHUA:
            settle_anhua(st)
        finish_win(st)


# ================================================================ Python players

include "_game_python.pxi"


# ================================================================ Python face

CATEGORY_NAMES = (None, "dan_wang", "san_wang", "si_wang", "liu_wang", "qi_wang")
CONTEXT_NAMES = (None, "gangshanghua", "qiangganghu", "gangshangpao")


cdef class NativeGame:
    """A validated configuration (Wanzai or Anhua) and four players (built by mjsim.game).

    `players` holds a built-in player code per seat, or a Python player object
    (PLAYER_PYTHON is then used for that seat).
    """
    cdef GameConfig cfg
    cdef tuple py_context

    def __init__(self, dict p, players, player_opts=None):
        cdef int i, j
        memset(&self.cfg, 0, sizeof(GameConfig))
        for i, opts in enumerate(player_opts or ()):
            for j in range(min(len(opts), N_PLAYER_OPTS)):
                self.cfg.player_opts[i][j] = opts[j]
        self.py_context = (tuple(None if isinstance(x, int) else x for x in players), [])
        self.cfg.py_context = <void*>self.py_context
        players = [x if isinstance(x, int) else PLAYER_PYTHON for x in players]
        self.cfg.wall_model = WALL_TABLE if p["wall_model"] == "table" else WALL_FLAT
        self.cfg.multiple_ron = p["multiple_ron"]
        self.cfg.pass_ron_lock = ("none", "until_own_discard",
                                  "same_kind_until_own_discard").index(p["pass_ron_lock"])
        self.cfg.rob_kong_all = p["rob_kong_pays"] == "all"
        self.cfg.dealer_next_winner = p["dealer_next"] == "winner"
        self.cfg.dealer_on_draw = ("stay", "next", "last_drawer").index(p["dealer_on_draw"])
        self.cfg.ev.base = p["base"]
        self.cfg.first_dealer = -1 if p["first_dealer"] == "random" else p["first_dealer"]
        self.cfg.added_kong_on_draw_only = p["added_kong_on_draw_only"]
        for i in range(4):
            self.cfg.players[i] = players[i]
        if p["rules"] == "anhua":
            self._init_anhua(p)
            return
        self.cfg.game = _eval.GAME_WANZAI
        self.cfg.n_tiles = 136
        self.cfg.ev.game = _eval.GAME_WANZAI
        for i, (discard, self_) in enumerate(p["values"]):
            self.cfg.ev.values[i][0] = discard
            self.cfg.ev.values[i][1] = self_
        self.cfg.honor_chow = p["honor_chow"]
        self.cfg.ev.quanqiuren_self = p["quanqiuren_self"] == "quanqiuren"
        self.cfg.kong_pay_on_draw = p["kong_pay_on_draw"]
        self.cfg.dealer_pays_double = p["dealer_pays_double"]
        for i in range(4):
            self.cfg.fire[i] = p["fire"][i]
            self.cfg.piao[i] = p["piao"][i]
        self.cfg.fire_min_hands = p["fire_min_hands"]
        for i, name in enumerate(KONG_NAMES):
            self.cfg.kong_values[i] = p["kong_values"][name]

    def _init_anhua(self, dict p):
        """RULES §3; the evaluator part mirrors engine.core_config.  No honors (so no honor
        chows), no kong payments, fire, piao or dealer doubling (all zero)."""
        cdef int i
        m = p["multipliers"]
        self.cfg.game = _eval.GAME_ANHUA
        self.cfg.n_tiles = 108
        self.cfg.ev.game = _eval.GAME_ANHUA
        self.cfg.ev.pair_258 = p["pair_258"]
        self.cfg.ev.hard_if_natural = p["hard_if_natural"]
        self.cfg.ev.discard_wilds = ("none", "dan_wang_face_value", "face_value").index(p["discard_win_wilds"])
        self.cfg.ev.score_cap = p["score_cap"]
        self.cfg.ev.m_hard = m["yingzhuang"]
        self.cfg.ev.m_soft = m["pinghu"]
        for i in range(1, 6):
            self.cfg.ev.m_cat[i] = m[CATEGORY_NAMES[i]]
        self.cfg.ev.m_qingyise = m["qingyise"]
        self.cfg.ev.m_xiaoqidui = m["xiaoqidui"]
        for i in range(1, 4):
            self.cfg.ev.m_ctx[i] = m[CONTEXT_NAMES[i]]
        self.cfg.fire_min_hands = 1
        self.cfg.kong_pay_on_draw = 1
        for name in p["instant_win_categories"]:
            self.cfg.instant_mask |= 1 << CATEGORY_NAMES.index(name)
        self.cfg.instant_score = p["instant_win_score"]
        self.cfg.kong_min_wall = p["kong_min_wall"]
        self.cfg.buzhang_tiles = p["buzhang_tiles"]
        self.cfg.birds = p["birds"]
        self.cfg.score_cap = p["score_cap"]

    def play(self, unsigned long long seed, unsigned long long hand_index, int dealer,
             bint log, wall=None, int dice=0, fire_hands=(0, 0, 0, 0)):
        """One hand -> dict of plain Python values (game.py makes it readable).

        `tiles` is every tile list of the record in compact notation ("123m45p"), each
        followed by "|": sorted, the four opening hands, the four concealed hands, the four
        pools and the tiles left in the wall; the 補章 tiles set aside in the order taken;
        then the melds of seat 0, 1, 2, 3 (each sorted; `meld_kinds` has their MELD_* per
        seat).  Written here they cost a few thousand instructions per hand; formatting the
        lists in Python cost tens of thousands."""
        cdef HandState st
        cdef Session session
        cdef Event events[MAX_EVENTS]
        cdef uint8_t scripted[MAX_WALL]
        cdef uint8_t lists[MAX_WALL + 4 * 14 + 32]     # and 30 separators
        cdef char text[2 * (MAX_WALL + 4 * 14 + 32)]
        cdef const char* digits = b"1234567891234567891234567891234567"
        cdef const char* suits = b"mmmmmmmmmpppppppppssssssssszzzzzzz"
        cdef uint8_t counts[13][34]
        cdef const uint8_t* script = NULL
        cdef Py_ssize_t n = 0, n_text = 0
        cdef int i, j, s, k, t
        cdef SeatState* p
        cdef const MeldRec* m
        if wall is not None:
            for i in range(self.cfg.n_tiles):
                scripted[i] = wall[i]
            script = scripted
        session.dealer = dealer
        for s in range(4):
            session.fire_hands[s] = fire_hands[s]
        with nogil:
            play_hand(&st, &self.cfg, seed, hand_index, &session, script, dice,
                      events if log else NULL)
        self._raise_player_error()
        # every tile of the game is in one place at the end, so beside the opening hands the
        # lists hold at most MAX_WALL tiles (checked: a broken count must not overrun `lists`)
        n = st.n_aside
        for s in range(4):
            p = &st.seat[s]
            n += p.n_discards
            for k in range(34):
                n += p.hand[k]
            for i in range(p.n_melds):
                n += p.melds[i].n
        for i in range(st.wall.n):
            n += not st.wall.taken[i]
        if n > MAX_WALL:
            raise RuntimeError(f"{n} tiles in the hand's record, more than the game has")
        n = 0
        memset(counts, 0, sizeof(counts))
        for s in range(4):
            p = &st.seat[s]
            for i in range(14 if s == st.dealer else 13):
                counts[s][st.opening[s][i]] += 1
            memcpy(counts[4 + s], p.hand, 34)
            for i in range(p.n_discards):
                counts[8 + s][p.discards[i]] += 1
        for i in range(st.wall.n):
            if not st.wall.taken[i]:
                counts[12][st.wall.tiles[i]] += 1
        for j in range(13):
            for k in range(34):
                if counts[j][k]:
                    for t in range(counts[j][k]):
                        lists[n] = k
                        n += 1
            lists[n] = 255
            n += 1
        memcpy(&lists[n], st.aside, st.n_aside)
        n += st.n_aside
        lists[n] = 255
        n += 1
        for s in range(4):
            p = &st.seat[s]
            for i in range(p.n_melds):
                m = &p.melds[i]
                for j in range(m.n):          # insertion sort of at most four tiles
                    t = m.tiles[j]
                    k = n + j
                    while k > n and lists[k - 1] > t:
                        lists[k] = lists[k - 1]
                        k -= 1
                    lists[k] = t
                n += m.n
                lists[n] = 255
                n += 1
        # tiles.format_tiles' compact notation of every list at once: a digit per tile, its
        # suit letter where the next tile's suit differs (a list always ends in 255)
        for i in range(n):
            k = lists[i]
            if k == 255:
                text[n_text] = c'|'
                n_text += 1
                continue
            text[n_text] = digits[k]
            n_text += 1
            t = lists[i + 1]
            if t == 255 or suits[t] != suits[k]:
                text[n_text] = suits[k]
                n_text += 1
        return dict(
            dealer=st.dealer, dice=(st.dice[0], st.dice[1]),
            opening=[[st.opening[s][i] for i in range(14 if s == st.dealer else 13)]
                     for s in range(4)],
            fire=[st.fire[s] for s in range(4)],
            events=[(events[i].type, events[i].seat, events[i].tile, events[i].aux,
                     events[i].value) for i in range(st.n_events)],
            tiles=text[:n_text].decode("ascii"),
            meld_kinds=[[st.seat[s].melds[i].kind for i in range(st.seat[s].n_melds)] for s in range(4)],
            locked=[bool(st.seat[s].locked) for s in range(4)],
            deltas=[st.deltas[s] for s in range(4)],
            claims=[st.claims[s] for s in range(4)],
            payments=[(st.pays[i].payer, st.pays[i].receiver, st.pays[i].amount,
                       st.pays[i].reason, st.pays[i].pattern) for i in range(st.n_pays)],
            turns=[st.wins[i].turn for i in range(st.n_winners)],
            wins=[(st.wins[i].winner, st.wins[i].payer, st.wins[i].tile, st.wins[i].pattern,
                   st.wins[i].props, st.wins[i].points, st.wins[i].received, st.wins[i].kind,
                   st.wins[i].category, st.wins[i].birds_hit, bool(st.wins[i].hard),
                   [(st.wins[i].paid_by[j], st.wins[i].paid[j], 1 << st.wins[i].paid_bird_exp[j])
                    for j in range(st.wins[i].n_paid)])
                  for i in range(st.n_winners)],
            indicator=st.indicator,
            wilds=() if st.wild_a < 0 else (st.wild_a, st.wild_b),
            birds=[st.birds[i] for i in range(st.n_birds)],
            buzhangs=st.buzhangs,
            end=st.end, next_dealer=st.next_dealer, draws=st.draws,
            kongs=[st.kongs[i] for i in range(3)],
        )

    def first_dealer(self, unsigned long long seed, unsigned long long first_hand):
        """The first dealer of the session that starts at hand index `first_hand`."""
        cdef Session session
        start_session(&session, &self.cfg, seed, first_hand)
        return session.dealer

    def _raise_player_error(self):
        errors = self.py_context[1]
        if errors:
            exc = errors[0]
            errors.clear()
            raise exc

    def _useful_tiles(self, counts, pungs=(), int indicator=-1):
        """Test shim: (filtered, every kind tried) useful-tile counts of a 3n+1 hand with
        the given pungs declared and nothing seen (Anhua: wilds of `indicator`)."""
        cdef HandState st
        cdef SeatState* p
        cdef int k, sh
        memset(&st, 0, sizeof(HandState))
        st.cfg = &self.cfg
        st.indicator = indicator
        _eval.wild_kinds(indicator, &st.wild_a, &st.wild_b)
        if indicator >= 0:
            st.seen[indicator] += 1     # the turned-up tile, as in a hand
        p = &st.seat[0]
        for k in range(34):
            p.hand[k] = counts[k]
        for k in pungs:
            add_meld(p, MELD_PUNG, k, k, k, -1, 1)
            st.seen[k] += 3
        sh = hand_shanten(&st, p.hand, &p.mi)
        return (useful_tiles(&st, p, p.hand, &p.mi, sh),
                useful_tiles_all(&st, p, p.hand, &p.mi, sh))

    def simulate(self, unsigned long long seed, unsigned long long start, Py_ssize_t count,
                 int session_hands, bint payments=False):
        """Hands [start, start+count) in nogil loops -> (hands, wins[, payments]) dicts of
        numpy arrays.

        Sessions are blocks of `session_hands` consecutive hand indices: each starts with
        its first dealer (start_session) and nobody on fire, then carries the dealer and
        fire on.  `start`
        must begin a session (the runner's chunks never split one).  With `payments` the
        hand's payment records are collected too (the buffer grows between nogil blocks).
        """
        cdef HandState st
        cdef Session session
        cdef Py_ssize_t h = 0, n_wins = 0, n_pay = 0, cap = 0
        cdef int s, i
        hands = dict(
            hand_index=np.arange(start, start + count, dtype=np.int64),
            session=np.arange(start, start + count, dtype=np.int64) // session_hands,
            hand_in_session=(np.arange(start, start + count, dtype=np.int64) % session_hands).astype(np.int32),
            dealer=np.zeros(count, np.int8), dice=np.zeros(count, np.int8),
            wild_indicator=np.full(count, -1, np.int8),
            end=np.zeros(count, np.uint8), draws=np.zeros(count, np.int16),
            wall_left=np.zeros(count, np.int16), n_winners=np.zeros(count, np.int8),
            kongs_exposed=np.zeros(count, np.int8), kongs_added=np.zeros(count, np.int8),
            kongs_concealed=np.zeros(count, np.int8),
            deltas=np.zeros((count, 4), np.int64), fire=np.zeros((count, 4), np.int8),
            claims=np.zeros((count, 4), np.int16),
        )
        wins = dict(
            hand_index=np.zeros(count * MAX_WINNERS, np.int64),
            winner=np.zeros(count * MAX_WINNERS, np.int8),
            discarder=np.zeros(count * MAX_WINNERS, np.int8),
            win_kind=np.zeros(count * MAX_WINNERS, np.uint8),
            pattern=np.zeros(count * MAX_WINNERS, np.int8),
            props=np.zeros(count * MAX_WINNERS, np.uint32),
            category=np.zeros(count * MAX_WINNERS, np.int8),
            points=np.zeros(count * MAX_WINNERS, np.int32),
            birds_hit=np.zeros(count * MAX_WINNERS, np.int8),
            received=np.zeros(count * MAX_WINNERS, np.int64),
            turn=np.zeros(count * MAX_WINNERS, np.int16),
        )
        pays = _pay_arrays(0)
        cdef int8_t[::1] h_dealer = hands["dealer"], h_dice = hands["dice"]
        cdef int8_t[::1] h_wild = hands["wild_indicator"]
        cdef uint8_t[::1] h_end = hands["end"]
        cdef int16_t[::1] h_draws = hands["draws"], h_left = hands["wall_left"]
        cdef int8_t[::1] h_nw = hands["n_winners"], h_ke = hands["kongs_exposed"]
        cdef int8_t[::1] h_ka = hands["kongs_added"], h_kc = hands["kongs_concealed"]
        cdef int64_t[:, ::1] h_deltas = hands["deltas"]
        cdef int8_t[:, ::1] h_fire = hands["fire"]
        cdef int16_t[:, ::1] h_claims = hands["claims"]
        cdef int64_t[::1] w_hand = wins["hand_index"]
        cdef int8_t[::1] w_winner = wins["winner"], w_disc = wins["discarder"]
        cdef uint8_t[::1] w_kind = wins["win_kind"]
        cdef int8_t[::1] w_pattern = wins["pattern"], w_cat = wins["category"]
        cdef int8_t[::1] w_birds = wins["birds_hit"]
        cdef uint32_t[::1] w_props = wins["props"]
        cdef int32_t[::1] w_points = wins["points"]
        cdef int64_t[::1] w_received = wins["received"]
        cdef int16_t[::1] w_turn = wins["turn"]
        cdef int64_t[::1] p_hand, p_amount
        cdef int8_t[::1] p_payer, p_receiver, p_reason
        cdef int16_t[::1] p_pattern
        cdef const WinRec* w
        cdef const PayRec* r
        while True:
            if payments:
                # room for at least a quarter of the remaining hands' worst case
                cap = max(2 * cap, n_pay + MAX_PAYMENTS * (1 + (count - h) // 64), 16)
                pays = {k: np.concatenate([v[:n_pay], np.zeros(cap - n_pay, v.dtype)])
                        for k, v in pays.items()}
                p_hand, p_amount = pays["hand_index"], pays["amount"]
                p_payer, p_receiver = pays["payer"], pays["receiver"]
                p_reason, p_pattern = pays["reason"], pays["pattern"]
            with nogil:
                while h < count:
                    if payments and n_pay + MAX_PAYMENTS > cap:
                        break
                    if (start + h) % session_hands == 0:
                        start_session(&session, &self.cfg, seed, start + h)
                    play_hand(&st, &self.cfg, seed, start + h, &session, NULL, 0, NULL)
                    h_dealer[h] = st.dealer
                    h_dice[h] = st.dice[0] + st.dice[1]
                    h_wild[h] = st.indicator
                    h_end[h] = st.n_winners > 0
                    h_draws[h] = st.live_draws
                    h_left[h] = live_left(&st.wall)
                    h_nw[h] = st.n_winners
                    h_ka[h] = st.kongs[KONG_ADDED]
                    h_ke[h] = st.kongs[KONG_EXPOSED]
                    h_kc[h] = st.kongs[KONG_CONCEALED]
                    for s in range(4):
                        h_deltas[h, s] = st.deltas[s]
                        h_fire[h, s] = st.fire[s]
                        h_claims[h, s] = st.claims[s]
                    for i in range(st.n_winners):
                        w = &st.wins[i]
                        w_hand[n_wins] = start + h
                        w_winner[n_wins] = w.winner
                        w_disc[n_wins] = w.payer if w.kind == WIN_DISCARD or w.kind == WIN_ROB_KONG or w.kind == WIN_GANGSHANGPAO else -1
                        w_kind[n_wins] = w.kind
                        w_pattern[n_wins] = w.pattern
                        w_props[n_wins] = w.props
                        w_cat[n_wins] = w.category
                        w_points[n_wins] = w.points
                        w_birds[n_wins] = w.birds_hit
                        w_received[n_wins] = w.received
                        w_turn[n_wins] = w.turn
                        n_wins += 1
                    if payments:
                        for i in range(st.n_pays):
                            r = &st.pays[i]
                            p_hand[n_pay] = start + h
                            p_payer[n_pay] = r.payer
                            p_receiver[n_pay] = r.receiver
                            p_amount[n_pay] = r.amount
                            p_reason[n_pay] = r.reason
                            p_pattern[n_pay] = r.pattern
                            n_pay += 1
                    next_session_state(&st, &self.cfg, &session)
                    h += 1
                    if st.aborted:
                        h = count
            if h >= count:
                break
        self._raise_player_error()
        wins = {k: v[:n_wins] for k, v in wins.items()}
        if payments:
            return hands, wins, {k: v[:n_pay] for k, v in pays.items()}
        return hands, wins


include "_game_probes.pxi"


def _pay_arrays(Py_ssize_t n):
    return dict(hand_index=np.zeros(n, np.int64), payer=np.zeros(n, np.int8),
                receiver=np.zeros(n, np.int8), amount=np.zeros(n, np.int64),
                reason=np.zeros(n, np.int8), pattern=np.zeros(n, np.int16))
