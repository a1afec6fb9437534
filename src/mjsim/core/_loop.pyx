# cython: language_level=3
"""The hand loop (RULES §1-§3), without the GIL.

One hand is a `HandState` (fixed size, no heap) advanced by `play_hand`. Every random
choice, from the shuffle to a random player's discard, comes from the hand's own RNG,
seeded by (master seed, hand index), so any hand can be replayed on its own.
The players are asked through players/_api.pxd, which knows them all; the loop does not.
The Python face is _game.pyx (`NativeGame`); validation lives in the Python layer.  Scoring
a win and making its payments (and kong payments) is _settle.pyx's concern.

One loop plays both rule sets.  It never asks which one: Anhua's differences (RULES §3)
are features of GameConfig that the rule set's translation (mjsim.rulesets) switches on:
`n_tiles` 108, `wilds` (a turned-up indicator, and discard-win and robbing eligibility
with wilds), `instant_mask` (the special start), `kong_needs_tenpai` and `kong_min_wall`,
`buzhang_tiles` (補章 and a locked hand after a kong), `settle_after_birds` (birds and
bird-multiplied payments); `kong_payments`, fire and piao stay off.  Wanzai takes exactly
the code paths (and random numbers) it took before Anhua was added.

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
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, int64_t, uint64_t
from libc.string cimport memset, memcpy

from mjsim.core cimport _eval
from mjsim.core._eval cimport EvalConfig, MeldInfo, EvalResult
from mjsim.core._state cimport *
from mjsim.core._rng cimport Rng, rng_seed, rng_below, rng_uniform
from mjsim.core._settle cimport (pay_kong, refund_kongs, self_draw_win, discard_win, rob_kong_win,
                                 pay_win, pay_wins_after_birds)
from mjsim.core._wall cimport (Wall, WALL_TABLE, WALL_FLAT, MAX_WALL, fill_tiles, shuffle_tiles,
                               throw_dice, wall_build, wall_deal, draw_live, draw_replacement,
                               live_left)
from mjsim.core._hand cimport (suit_bit, available, hand_shanten, is_wild, hand_category,
                               meld_after_call, meld_after_own_kong, take_call_tiles)
from mjsim.core._tables cimport tables
from mjsim.core._seat cimport (seat_deal, seat_change, seat_n_held, seat_held_kind, seat_complete,
                               seat_complete_with, seat_complete_wilds, seat_may_win, seat_may_chow,
                               seat_verify, mjsim_seat_fail, MJSIM_CHECK_SEATS,
                               mjsim_chow_window, mjsim_kind_group, mjsim_any_four,
                               seat_refresh_filter, seat_may_win_current)
from mjsim.players._api cimport player_turn, player_call, player_takes_win
from mjsim.players._random cimport random_discard


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
    if not st.cfg.wilds:
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
    if not st.cfg.kong_needs_tenpai:
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


cdef inline bint may_kong(const HandState* st, const SeatState* p, int source,
                          int drawn) noexcept nogil:
    """False when list_kongs would list nothing: a kong needs four of a kind in hand or a
    pung to add to (when only the drawn tile may be added: a pung of its kind, which puts
    at least three of it in the melds)."""
    return source != SRC_CLAIM and (any_four(p.hand) or (p.n_melds and (
        not st.cfg.added_kong_on_draw_only or (drawn >= 0 and p.mi.counts[drawn] >= 3))))


cdef inline int choose_turn(HandState* st, int s, int source, int drawn, int* tile) noexcept nogil:
    """The turn's action (ACT_*) and its tile.  A random seat with no kong to declare takes
    its discard directly, without the kong lists (the same single random number)."""
    if st.cfg.players[s] == PLAYER_RANDOM and not may_kong(st, &st.seat[s], source, drawn):
        return random_discard(st, s, drawn, tile)
    return choose_turn_listed(st, s, source, drawn, tile)


cdef int choose_turn_listed(HandState* st, int s, int source, int drawn, int* tile) noexcept nogil:
    cdef int kinds[34]
    cdef int types[34]
    cdef int n = 0
    if may_kong(st, &st.seat[s], source, drawn):
        n = list_kongs(st, s, drawn, source, kinds, types)
    return player_turn(st, s, n, kinds, types, drawn, tile)


cdef bint takes_win(HandState* st, int s, int tile, int kind) noexcept nogil:
    return player_takes_win(st, s, tile, kind)


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


cdef inline int choose_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil:
    if n == 0:
        return -1
    return player_call(st, s, tile, calls, n)


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
    st.play_on = play_on
    st.play_on_discard = play_on_discard
    st.play_on_win = play_on_win
    st.last_discarder = -1
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
    if cfg.wilds:
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
    st.last_discarder = s
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
        if st.cfg.wilds and (ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_QIANGGANGHU)):
            continue
        if (st.cfg.wilds or can_win_with(st, q, t)) and takes_win(st, q, t, WIN_ROB_KONG):
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


cdef bint resolve_discard_wins(HandState* st, int discarder, int t, int first,
                               int answer) noexcept nogil:
    """The seats that can win on discarder's discard t, in play order, take or pass it.
    first: the first seat asked (-1: 下家; the seats before it have answered); answer: its
    answer when >= 0 (1 take, 0 pass) instead of asking it.  -> a win was taken."""
    cdef int i, q, i0 = 1 if first < 0 else (first - discarder) & 3
    cdef bint take
    for i in range(i0, 4):
        q = (discarder + i) & 3
        # a discard win is a face-value completion (both games), which the seat's filter
        # (current: refreshed at its last discard, as in may_be_claimed) rules out for most
        # tiles without a call
        if not seat_may_win_current(st, q, t) or ron_locked(st, q, t) or not can_win_on(st, q, t, _eval.CTX_NONE):
            continue
        take = answer > 0 if q == first and answer >= 0 else takes_win(st, q, t, WIN_DISCARD)
        if take:
            discard_win(st, q, t, discarder, _eval.CTX_NONE)
            if not st.cfg.multiple_ron:
                break
        else:
            log_event(st, EV_PASS_WIN, q, t, discarder, 0)
            st.seat[q].passed_wins += 1
            lock_after_pass(st, q, t)
    return st.n_winners > 0


cdef inline int ask_position(int discarder, int q) noexcept nogil:
    """Where seat q stands in the order the claims on discarder's tile are asked: 對家 0 and
    上家 1 (asked first, each only when holding two or three of it), 下家 2."""
    cdef int i = (q - discarder) & 3
    return 2 if i == 1 else i - 2


cdef int resolve_calls(HandState* st, int discarder, int t, Call* taken, int after) noexcept nogil:
    """Pung / exposed kong before chow (RULES §2.1). -> claiming seat or -1.  after: a seat
    that has passed already (-1: none); only the seats asked after it are asked."""
    cdef Call calls[8]
    cdef int i, q, n, pick, chow_seat = (discarder + 1) & 3
    cdef int start = 0 if after < 0 else ask_position(discarder, after) + 1
    # a seat holding two or three of t (at most one can) is asked first, unless it is 下家
    for i in range(2, 4):
        q = (discarder + i) & 3
        if ask_position(discarder, q) >= start and st.seat[q].hand[t] >= 2:
            n = list_calls(st, q, t, discarder, calls)
            pick = choose_call(st, q, t, calls, n)
            if pick >= 0:
                taken[0] = calls[pick]
                return q
    # 下家 can call only with two of t or a run with t in hand (no call: no question)
    if start > 2 or (st.seat[chow_seat].hand[t] < 2 and not seat_may_chow(st, chow_seat, t)):
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
    if st.cfg.buzhang_tiles:
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
    if special_start(st):
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
            if claimed == MAYBE_WON and (resolve_discard_wins(st, s, t, -1, -1) or st.aborted):
                break
            q = resolve_calls(st, s, t, &call, -1)
            if st.aborted:
                break
        source = claim_or_draw(st, &s, t, q, &call, &drawn)
        if source < 0:
            break
    settle_wins(st)


cdef inline int claim_or_draw(HandState* st, int* s, int t, int q, const Call* call,
                              int* drawn) noexcept nogil:
    """After seat s[0]'s discard t: seat q takes it with `call`, or (q < 0) 下家 draws.
    -> where the next turn's tile came from (SRC_*), with s[0] and drawn[0] set to that
    turn's seat and tile, or -1 when the hand has ended (a draw is then finished)."""
    if q >= 0:
        apply_call(st, q, t, s[0], call)
        s[0] = q
        if call.type == CALL_KONG:
            return after_kong(st, s, drawn)
        drawn[0] = -1
        return SRC_CLAIM
    s[0] = (s[0] + 1) & 3
    drawn[0] = draw_tile(st, s[0], False)
    if drawn[0] < 0:
        finish_draw(st)
        return -1
    return SRC_DRAW


cdef inline void settle_wins(HandState* st) noexcept nogil:
    if st.n_winners and not st.aborted:
        if st.cfg.settle_after_birds:
            pay_wins_after_birds(st)
        finish_win(st)


cdef void play_on_discard(HandState* st, int discarder, int t, int claimer,
                          const Call* call, int passer) noexcept nogil:
    """Play the hand on from discarder's discard t, already made and its wins passed: seat
    `claimer` takes it with `call`; or (claimer < 0) seat `passer` has passed and the seats
    the loop asks after it may still claim it (passer < 0: nobody claims, 下家 draws).  A
    player that searches its claims continues copies of a hand here."""
    cdef int s = discarder, drawn = -1, source
    cdef Call taken
    if claimer < 0 and passer >= 0:
        claimer = resolve_calls(st, discarder, t, &taken, passer)
        call = &taken
        if st.aborted:
            return
    source = claim_or_draw(st, &s, t, claimer, call, &drawn)
    if source >= 0:
        play_on(st, s, source, drawn, -1, 0)
    else:
        settle_wins(st)


cdef void play_on_win(HandState* st, int discarder, int t, int q, bint take) noexcept nogil:
    """Play the hand on from seat q's answer (take or pass) to a win on discarder's discard
    t, already made, the seats before q having answered theirs: the seats after q may win
    on it too, then claims and play go on as in play_on.  A player that searches its win
    decisions continues copies of a hand here."""
    cdef Call call
    cdef int claimer
    if resolve_discard_wins(st, discarder, t, q, take) or st.aborted:
        settle_wins(st)
        return
    claimer = resolve_calls(st, discarder, t, &call, -1)
    if st.aborted:
        return
    play_on_discard(st, discarder, t, claimer, &call, -1)
