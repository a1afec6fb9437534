# The test and fit shim of _ev.pyx (included there): the player's numbers for one
# hand built from Python lists, for mjsim.evfit and the tests.
def form_features(int game, bint pair_258, hand, melds, seen, hidden, int indicator=-1):
    """Per form (standard, pairs, 十三爛, 清一色, 大七對, 全求人; evplayer.FORMS): (open,
    shanten, useful tiles) of a 3n+1 hand, as the player computes them; melds = (n,
    has_chow, has_concealed_kong, suit_mask, counts34) as mjsim.engine.meld_info gives.
    For mjsim.evfit and the tests."""
    cdef HandState st
    cdef GameConfig cfg
    cdef Ctx c
    cdef Forms F
    cdef MeldInfo mi
    cdef int k, f
    memset(&st, 0, sizeof(HandState))
    memset(&cfg, 0, sizeof(GameConfig))
    memset(&c, 0, sizeof(Ctx))
    cfg.game = game
    cfg.ev.game = game
    cfg.ev.pair_258 = pair_258
    st.cfg = &cfg
    st.indicator = indicator
    _eval.wild_kinds(indicator, &st.wild_a, &st.wild_b)
    for k in range(34):
        st.seat[0].hand[k] = hand[k]
        st.seat[0].hidden[k] = hidden[k]
        st.seen[k] = seen[k]
        mi.counts[k] = melds[4][k]
    mi.n, mi.has_chow, mi.has_concealed_kong, mi.suit_mask = melds[0], melds[1], melds[2], melds[3]
    c.st = &st
    c.cfg = &cfg
    c.p = &st.seat[0]
    form_stats(&c, st.seat[0].hand, &mi, &F)
    return [(bool(F.ok[f]), F.d[f] if F.ok[f] else None, F.u[f] if F.ok[f] else None)
            for f in range(N_FORMS)], F.jokers


cdef void _shim_state(HandState* st, GameConfig* cfg, hand, seen, hidden, opps) except *:
    """Seat 0 holds `hand`; seats 1..3 are `opps`: (pool kinds in order, discards made,
    melds, meld suit mask) each."""
    cdef int k, j, r
    memset(st, 0, sizeof(HandState))
    memset(cfg, 0, sizeof(GameConfig))
    st.cfg = cfg
    st.indicator = -1
    st.wild_a = st.wild_b = -1
    for k in range(34):
        st.seat[0].hand[k] = hand[k]
        st.seat[0].hidden[k] = hidden[k]
        st.seen[k] = seen[k]
    for r, (pool, n_discarded, n_melds, suit_mask) in enumerate(opps, start=1):
        for j, k in enumerate(pool):
            st.seat[r].discards[j] = k
        st.seat[r].n_discards = len(pool)
        st.seat[r].n_discarded = n_discarded
        st.seat[r].n_melds = n_melds
        st.seat[r].mi.n = n_melds
        st.seat[r].mi.suit_mask = suit_mask


def danger_features(hand, seen, hidden, pool, int n_discarded, int n_melds, int suit_mask, int live):
    """Model-1 danger features as the player computes them, for the fit and the tests:
    (tenpai features of the opponent, {kind: wait features} for each kind in `hand`)."""
    cdef HandState st
    cdef GameConfig cfg
    cdef Opp oi
    cdef double x[N_WAIT_F]
    cdef double t[N_TEN_F]
    cdef double sight[36]
    cdef int k
    _shim_state(&st, &cfg, hand, seen, hidden, [(pool, n_discarded, n_melds, suit_mask)])
    sight_of(&st, &st.seat[0], sight)
    opp_info(&st.seat[1], &oi)
    tenpai_x(&st.seat[1], &oi, live, t)
    waits = {}
    for k in range(34):
        if hand[k]:
            wait_x(sight, &st.seat[1], &oi, k, x)
            waits[k] = [x[i] for i in range(N_WAIT_F)]
    return [t[i] for i in range(N_TEN_F)], waits


cdef void _seat0_danger(Ctx* c, HandState* st, GameConfig* cfg, opts, int live, int drawn=-2,
                        pung=None, int claimed=-1):
    """compute_danger for seat 0 of a shim state under the options row `opts`, after
    passed_kinds(drawn, claimed); pung = (kind, from seat): seat 0's last meld is that pung."""
    cdef int k
    if pung is not None:
        st.seat[0].melds[0].kind = MELD_PUNG
        st.seat[0].melds[0].tiles[0] = pung[0]
        st.seat[0].melds[0].from_seat = pung[1]
        st.seat[0].n_melds = 1
    for k in range(len(opts)):
        cfg.player_opts[0][k] = opts[k]
    memset(c, 0, sizeof(Ctx))
    c.st = st
    c.cfg = cfg
    c.s = 0
    c.p = &st.seat[0]
    c.o = &cfg.player_opts[0][0]
    c.live = live
    passed_kinds(c, drawn, claimed)
    compute_danger(c)


def seat_risk(opts, hand, seen, hidden, opps, int live, int drawn=-2, pung=None, int claimed=-1):
    """risk[k] (chance that discarding k deals in) of seat 0 against seats 1..3, as
    compute_danger gives it under the options row `opts` (drawn, pung: _seat0_danger)."""
    cdef HandState st
    cdef GameConfig cfg
    cdef Ctx c
    cdef int k
    _shim_state(&st, &cfg, hand, seen, hidden, opps)
    _seat0_danger(&c, &st, &cfg, opts, live, drawn, pung, claimed)
    return [c.risk[k] for k in range(34)]


def seat_cost(opts, hand, seen, hidden, opps, int live, values, chows=(False, False, False)):
    """cost[k] (expected loss of discarding k) of a Wanzai seat 0 against seats 1..3, as
    compute_danger gives it under `opts`, with base 1, no fire or piao, and the rules'
    `values` ([discard, self] per pattern id, _eval's order); `chows`: which opponents show
    a chow among their melds."""
    cdef HandState st
    cdef GameConfig cfg
    cdef Ctx c
    cdef int k, i
    _shim_state(&st, &cfg, hand, seen, hidden, opps)
    cfg.ev.base = 1
    for i, (discard, self_) in enumerate(values):
        cfg.ev.values[i][0] = discard
        cfg.ev.values[i][1] = self_
    for i, chow in enumerate(chows, start=1):
        st.seat[i].mi.has_chow = chow
    _seat0_danger(&c, &st, &cfg, opts, live)
    return [c.cost[k] for k in range(34)]


def discard_scores(opts, hand, seen, hidden, opps, int live, values, kong_values=None):
    """best_discard of a Wanzai seat 0 holding the 3n+2 `hand` (no melds) against seats
    1..3, under `opts`, base 1, no fire or piao and the rules' `values` (as seat_cost);
    `kong_values` (KONG_* order): kongs are paid, at these amounts (None: no kong payments).
    -> (the chosen kind, {kind: score} of every candidate, risk[k], cost[k])."""
    cdef HandState st
    cdef GameConfig cfg
    cdef Ctx c
    cdef double scores[34]
    cdef int k, i, best
    _shim_state(&st, &cfg, hand, seen, hidden, opps)
    cfg.ev.base = 1
    for i, (discard, self_) in enumerate(values):
        cfg.ev.values[i][0] = discard
        cfg.ev.values[i][1] = self_
    if kong_values is not None:
        cfg.kong_payments = 1
        for i, v in enumerate(kong_values):
            cfg.kong_values[i] = v
    _seat0_danger(&c, &st, &cfg, opts, live)
    c.phi = c.o[OPT_SELF_SHARE]
    wanzai_values(&c)
    c.kong_kinds = triplet_kinds(&c)
    for k in range(34):
        scores[k] = NEG
    best_discard(&c, st.seat[0].hand, &st.seat[0].mi, &best, scores)
    return (best, {k: scores[k] for k in range(34) if scores[k] > NEG},
            [c.risk[k] for k in range(34)], [c.cost[k] for k in range(34)])
