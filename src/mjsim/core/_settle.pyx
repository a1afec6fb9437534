# cython: language_level=3
"""Wins and payments of a hand (RULES §1 Units, §2.4-2.5, §3.2-3.5), without the GIL.

Every payment goes through `transfer`, which keeps the deltas, the hand's fixed-size
payment list (`HandState.pays`) and the event log in step.  Amounts are 64-bit; rules.py
refuses a rule set whose largest single payment would not fit 32 bits, so events (32-bit
values) show every payment whole.  The hand loop (_loop.pyx) decides who wins; this module
scores the win and pays it: Wanzai at once (fire, dealer doubling, 飄), Anhua after the
birds (`pay_wins_after_birds`).
"""
from libc.stdint cimport int64_t, int32_t

from mjsim.core cimport _eval
from mjsim.core._eval cimport EvalResult
from mjsim.core._state cimport (HandState, WinRec, PayRec, GameConfig, MAX_PAYMENTS, MAX_BIRDS,
                          log_event, EV_PAY, EV_WIN, EV_BIRD,
                          PAY_WIN, PAY_KONG_ADDED, PAY_KONG_EXPOSED, PAY_KONG_CONCEALED,
                          PAY_KONG_REFUND, PAY_INSTANT, KONG_EXPOSED,
                          END_SELF_DRAW, END_DISCARD, END_ROB_KONG,
                          WIN_SELF_DRAW, WIN_DISCARD, WIN_ROB_KONG, WIN_GANGSHANGHUA,
                          WIN_GANGSHANGPAO, WIN_INSTANT)
from mjsim.core._wall cimport draw_live, live_left


# ================================================================ payments

cdef int64_t share(const HandState* st, int payer, int receiver, int64_t amount,
                   bint win) noexcept nogil:
    """One payment from payer to receiver after fire, dealer doubling and (wins) piao.
    `amount` is already in units of base (win points, kong values x base); so are the 飄
    additions (RULES §1 Units, §2.5)."""
    cdef const GameConfig* cfg = st.cfg
    cdef int64_t v = amount << (st.fire[payer] + st.fire[receiver])
    if cfg.dealer_pays_double and payer == st.dealer:
        v *= 2
    if win:
        v += <int64_t>(cfg.piao[payer] + cfg.piao[receiver]) * cfg.ev.base
    return v


cdef void transfer(HandState* st, int payer, int receiver, int64_t value, int reason,
                   int pattern) noexcept nogil:
    """Make one payment: the deltas, the hand's payment list and the event log."""
    cdef PayRec* r
    st.deltas[payer] -= value
    st.deltas[receiver] += value
    if st.n_pays < MAX_PAYMENTS:
        r = &st.pays[st.n_pays]
        r.payer = payer
        r.receiver = receiver
        r.amount = value
        r.reason = reason
        r.pattern = pattern
        st.n_pays += 1
    log_event(st, EV_PAY, payer, reason, receiver, <int32_t>value)


cdef void pay_kong(HandState* st, int s, int kong_type, int discarder) noexcept nogil:
    cdef int i, q
    cdef int64_t amount = <int64_t>st.cfg.kong_values[kong_type] * st.cfg.ev.base   # in 番 (RULES §2.4)
    cdef int reason = PAY_KONG_ADDED + kong_type
    st.kongs[kong_type] += 1
    if not st.cfg.kong_payments:
        return   # RULES §3.4: no kong payments
    if kong_type == KONG_EXPOSED:
        transfer(st, discarder, s, share(st, discarder, s, amount, False), reason, -1)
        return
    for i in range(1, 4):
        q = (s + i) & 3
        transfer(st, q, s, share(st, q, s, amount, False), reason, -1)


cdef void refund_kongs(HandState* st) noexcept nogil:
    """kong_pay_on_draw = false: a drawn hand returns every kong payment, each reversed."""
    cdef int i, n = st.n_pays
    cdef PayRec r
    for i in range(n):
        r = st.pays[i]
        if r.reason == PAY_KONG_ADDED or r.reason == PAY_KONG_EXPOSED or r.reason == PAY_KONG_CONCEALED:
            transfer(st, r.receiver, r.payer, r.amount, PAY_KONG_REFUND, -1)


# ================================================================ wins

cdef WinRec* record_win(HandState* st, int s, int tile, int payer, bint self_draw,
                        int context) noexcept nogil:
    """Evaluate seat s's complete hand (the tile already in it) and log the win."""
    cdef EvalResult r
    cdef WinRec* w = &st.wins[st.n_winners]
    _eval.evaluate(&st.cfg.ev, st.seat[s].hand, &st.seat[s].mi, tile, self_draw, st.indicator,
                   context, &r)
    st.n_winners += 1
    w.winner = s
    w.payer = payer
    w.tile = tile
    w.pattern = r.pattern
    w.props = r.props
    w.points = r.points
    w.received = 0
    w.turn = st.seat[s].n_discarded + 1
    w.n_paid = 0
    w.category = r.category
    w.hard = r.hard
    w.birds_hit = 0
    w.kind = (WIN_SELF_DRAW if context == _eval.CTX_NONE else WIN_GANGSHANGHUA) if self_draw else (
        WIN_DISCARD if context == _eval.CTX_NONE else
        WIN_ROB_KONG if context == _eval.CTX_QIANGGANGHU else WIN_GANGSHANGPAO)
    log_event(st, EV_WIN, s, tile, payer, r.points)
    return w


cdef void self_draw_win(HandState* st, int s, int tile, int context) noexcept nogil:
    cdef WinRec* w = record_win(st, s, tile, -1, True, context)
    cdef int i, q
    cdef int64_t v
    st.end = END_SELF_DRAW
    if st.cfg.settle_after_birds:
        return   # paid in pay_wins_after_birds, after the birds
    for i in range(1, 4):
        q = (s + i) & 3
        v = share(st, q, s, w.points, True)
        transfer(st, q, s, v, PAY_WIN, w.pattern)
        w.received += v


cdef void discard_win(HandState* st, int s, int tile, int discarder, int context) noexcept nogil:
    """A win on a discard (context CTX_NONE) or on a 補章 discard (CTX_GANGSHANGPAO)."""
    cdef WinRec* w
    cdef int64_t v
    st.seat[s].hand[tile] += 1
    w = record_win(st, s, tile, discarder, False, context)
    st.seat[s].hand[tile] -= 1   # the tile stays in the discarder's pool
    st.end = END_DISCARD
    if st.cfg.settle_after_birds:
        return
    v = share(st, discarder, s, w.points, True)
    transfer(st, discarder, s, v, PAY_WIN, w.pattern)
    w.received = v


cdef void rob_kong_win(HandState* st, int s, int tile, int robbed) noexcept nogil:
    """搶槓: scored as a self-draw; the robbed player pays all three shares or one."""
    cdef WinRec* w
    cdef int i, q
    cdef int64_t v
    st.seat[s].hand[tile] += 1
    w = record_win(st, s, tile, robbed, False, _eval.CTX_QIANGGANGHU)
    st.seat[s].hand[tile] -= 1
    st.end = END_ROB_KONG
    if st.cfg.settle_after_birds:
        return
    if st.cfg.rob_kong_all:
        for i in range(1, 4):
            q = (s + i) & 3
            v = share(st, q, s, w.points, True)   # each share with its own payer's factors
            transfer(st, robbed, s, v, PAY_WIN, w.pattern)
            w.received += v
    else:
        v = share(st, robbed, s, w.points, True)
        transfer(st, robbed, s, v, PAY_WIN, w.pattern)
        w.received = v


# ================================================================ Anhua: birds and payments

cdef inline int bird_seat(int winner, int tile) noexcept nogil:
    """Rank v points at seat winner + (v-1) mod 4: 1/5/9 the winner, 2/6 下家, 3/7 對家,
    4/8 上家 (RULES §3.5)."""
    return (winner + tile % 9) & 3


cdef inline int64_t anhua_amount(const HandState* st, int points, int factor_bits) noexcept nogil:
    """points x 2^(birds on payer + birds on winner), capped by score_cap (> 0)."""
    cdef int64_t v = (<int64_t>points) << factor_bits
    if st.cfg.score_cap and v > st.cfg.score_cap:
        v = st.cfg.score_cap
    return v


cdef void pay_win(HandState* st, WinRec* w, int payer, int points, int bird_exp) noexcept nogil:
    """One Anhua win payment (bird factor 2^bird_exp, then score_cap), recorded on the win."""
    cdef int64_t v = anhua_amount(st, points, bird_exp)
    transfer(st, payer, w.winner, v, PAY_INSTANT if w.kind == WIN_INSTANT else PAY_WIN, w.pattern)
    w.received += v
    w.paid_by[w.n_paid] = payer
    w.paid[w.n_paid] = v
    w.paid_bird_exp[w.n_paid] = bird_exp
    w.n_paid += 1


cdef void pay_wins_after_birds(HandState* st) noexcept nogil:
    """Turn the birds, then make every payment of the hand's win(s).

    birds_hit of a win = the birds on its winner plus the birds on each seat whose bird
    factor entered one of its payments: all birds for a self-draw (and for a robbed kong
    paid in three shares), the winner's and the payer's for a win with one payer.
    """
    cdef int i, j, q, v, n = st.cfg.birds, left = live_left(&st.wall)
    cdef int on[4]
    cdef WinRec* w
    if n > left:
        n = left          # fewer if the wall runs out; none after a win with the last tile
    if n > MAX_BIRDS:
        n = MAX_BIRDS
    for i in range(n):
        st.birds[i] = draw_live(&st.wall)
        st.n_birds += 1
        log_event(st, EV_BIRD, bird_seat(st.wins[0].winner, st.birds[i]), st.birds[i], 0, 0)
    for j in range(st.n_winners):
        w = &st.wins[j]
        on[0] = on[1] = on[2] = on[3] = 0
        for i in range(st.n_birds):
            on[bird_seat(w.winner, st.birds[i])] += 1
        w.received = 0
        if w.kind == WIN_SELF_DRAW or w.kind == WIN_GANGSHANGHUA or (
                w.kind == WIN_ROB_KONG and st.cfg.rob_kong_all):
            w.birds_hit = st.n_birds
            for i in range(1, 4):
                q = (w.winner + i) & 3
                pay_win(st, w, q if w.payer < 0 else w.payer, w.points, on[q] + on[w.winner])
        else:
            w.birds_hit = on[w.winner] + on[w.payer]
            pay_win(st, w, w.payer, w.points, on[w.payer] + on[w.winner])
