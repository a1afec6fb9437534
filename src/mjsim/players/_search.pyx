# cython: language_level=3
"""The search player `search`: a Monte Carlo reference player.

At a contested turn or claim (an opponent shows enough melds, or this seat's hand is near
ready) it samples the tiles it cannot see -- the other seats' concealed hands and the live
wall -- consistently with what it has seen, plays each candidate action to the end of the
hand with a fast rollout player in every seat, on the same samples for every candidate
(common random numbers), and takes the action with the best mean net points.  With `wins`
a win on a discard is weighed the same way (take or pass).  Every other decision
(uncontested turns and claims, the other wins) is ev's.  After Mizukami & Tsuruoka, "Building a
computer Mahjong player based on Monte Carlo simulation and opponent models" (IEEE CIG
2015); here the opponents are simulated in full on sampled hands rather than abstracted.

Opponent model (`read`): uniformly drawn, an opponent who has melded twice and discarded
nine tiles is almost never ready, while in self-play it is ready two times in three.  So
each opponent's drawn hand is improved by tile swaps that never raise its shanten, up to a
shanten drawn from the readiness fitted on 4 x ev self-play for what it shows (melds,
discards made), and never swapping in a kind it has discarded.  Without that the search
pushes into ready hands it believes harmless (measured: it then loses to ev).

The rollouts' outcomes are noisy: ev's choice is left only when the best candidate's mean
paired gain over it is `margin` standard errors above zero.

Reproducibility: the samples come from a stream derived from the hand's master seed and
index and the decision's place in the hand (seat, tiles drawn, discards, melds), never from
the hand's own stream, so a search seat changes no other seat's random numbers and the same
seed gives the same decisions.  No state outlives a call.
"""
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy
from libc.math cimport fabs

from mjsim.core cimport _eval
from mjsim.core._state cimport (HandState, SeatState, GameConfig, Call, PLAYER_EV, PLAYER_GREEDY,
                          ACT_DISCARD, SRC_DRAW, N_SEATS, WIN_DISCARD)
from mjsim.core._rng cimport Rng, rng_seed, rng_below, rng_uniform, splitmix64
from mjsim.players._ev cimport ev_turn, ev_call, ev_takes_win, ev_discard_risk, ev_discard_scores
from mjsim.core._hand cimport hand_shanten, is_anhua
from mjsim.core._seat cimport seat_rebuild, seat_refresh_filter, mjsim_seat_fail, MJSIM_CHECK_SEATS
from mjsim.core._wall cimport MAX_WALL


# The opponent model's readiness table (core/include/_search_ready.h).
cdef extern from "_search_ready.h":
    const double READY_WANZAI "mjsim_ready_wanzai"[5][5][5]
    const double READY_ANHUA "mjsim_ready_anhua"[5][5][5]


cdef double UNSCORED = -1e29     # ev_discard_scores' mark of a discard ev does not weigh


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    return splitmix64(&x)


cdef void decision_rng(const HandState* st, int s, uint64_t sample, Rng* r) noexcept nogil:
    """The stream of sample `sample` of seat s's decision now: from the hand's seed and index
    and where the hand is (tiles drawn, the seat's discards and melds identify a turn)."""
    cdef SeatState* p = <SeatState*>&st.seat[s]
    cdef uint64_t where = (<uint64_t>s | (<uint64_t>st.draws << 8)
                           | (<uint64_t>p.n_discarded << 24) | (<uint64_t>p.n_melds << 40))
    rng_seed(r, _mix(st.seed ^ 0x53EA2C4B1D0F7A11ULL) ^ _mix(st.hand_index) ^ _mix(where), sample)


cdef int _concealed(const SeatState* p) noexcept nogil:
    cdef int k, n = 0
    for k in range(34):
        n += p.hand[k]
    return n


cdef int _unseen(const HandState* st, int s, uint8_t* pool) noexcept nogil:
    """Copies of each kind seat s cannot see (the other seats' concealed hands and the wall
    hold exactly these) -> their number.  Another seat's concealed kong is taken as known:
    the loop records its kind, and the copies stay out of every sample."""
    cdef int k, q, v, n = 0, n_kinds = 27 if is_anhua(st) else 34
    for k in range(34):
        pool[k] = 0
        if k >= n_kinds:
            continue
        v = 4 - st.seen[k]
        for q in range(N_SEATS):
            v -= st.seat[q].hidden[k]
        v -= st.seat[s].hand[k]
        if v < 0:
            return -1
        pool[k] = v
        n += v
    return n


cdef int _draw_subset(uint8_t* tiles, int n_tiles, int n, Rng* r, uint8_t* counts) noexcept nogil:
    """A uniform n-subset of tiles[0:n_tiles] moved to its front (partial Fisher-Yates),
    counted into counts[34] (cleared first)."""
    cdef int i, j
    cdef uint8_t t
    for i in range(34):
        counts[i] = 0
    for i in range(n):
        j = i + <int>rng_below(r, n_tiles - i)
        t = tiles[i]
        tiles[i] = tiles[j]
        tiles[j] = t
        counts[tiles[i]] += 1
    return n


cdef int _list_pool(const uint8_t* pool, uint8_t* tiles) noexcept nogil:
    cdef int k, i, n = 0
    for k in range(34):
        for i in range(pool[k]):
            tiles[n] = k
            n += 1
    return n


cdef int _target(const SeatState* q, bint anhua, Rng* r) noexcept nogil:
    """A shanten for seat q's sampled hand, drawn from the fitted readiness of a seat that
    shows q's melds and has made q's discards (0..3, or 4: leave the uniform draw)."""
    cdef int b = 0, d
    cdef double u = rng_uniform(r)
    cdef const double* row
    while b < 4 and q.n_discarded >= 3 * (b + 1):
        b += 1
    d = q.n_melds if q.n_melds < 4 else 4
    if anhua:
        row = READY_ANHUA[d][b]
    else:
        row = READY_WANZAI[d][b]
    for d in range(4):
        u -= row[d]
        if u < 0:
            return d
    return 4


cdef int _climb(HandState* out, SeatState* q, uint8_t* tiles, int n_tiles, int need,
                uint8_t* hand, int target, int steps, Rng* r) noexcept nogil:
    """Swap tiles between q's drawn hand (tiles[0:need], counted in hand) and the rest of the
    pool (tiles[need:n_tiles]) while the hand's shanten does not rise, until it is at most
    `target` or `steps` swaps were tried; never swap in a kind q has discarded (a seat
    seldom holds what it threw).  -> the shanten reached."""
    cdef uint64_t thrown = 0
    cdef int i, j, a, b, k, cur, now
    cdef uint8_t t
    for i in range(q.n_discards):
        thrown |= (<uint64_t>1) << q.discards[i]
    cur = hand_shanten(out, hand, &q.mi)
    for k in range(steps):
        if cur <= target or need >= n_tiles:
            break
        i = <int>rng_below(r, need)
        j = need + <int>rng_below(r, n_tiles - need)
        a = tiles[i]
        b = tiles[j]
        if a == b or (thrown >> b) & 1:
            continue
        hand[a] -= 1
        hand[b] += 1
        now = hand_shanten(out, hand, &q.mi)
        if now <= cur:
            cur = now
            t = tiles[i]
            tiles[i] = tiles[j]
            tiles[j] = t
        else:
            hand[a] += 1
            hand[b] -= 1
    return cur


cdef int sample_hidden(const HandState* st, int s, HandState* out, Rng* r, double read,
                       int steps, int peek) noexcept nogil:
    """out = st with the tiles seat s cannot see dealt afresh: each other seat gets as many
    concealed tiles as it holds, the rest fill the wall's untaken positions in random order.
    Opponent model: with chance `read`, a seat's uniform draw is improved (_climb, at most
    `steps` swaps) to a shanten drawn from the fitted readiness of what it shows.  `peek`
    (a diagnostic that cheats: what reading the opponents perfectly would be worth) 1 keeps
    their true hands and deals only the wall; 2 climbs each fresh hand to its seat's true
    shanten instead (what knowing only how ready they are is worth).
    -> 0, or -1 when the counts do not add up (a bug; the caller plays without searching)."""
    cdef uint8_t pool[34]
    cdef uint8_t tiles[MAX_WALL]
    cdef uint8_t hand[34]
    cdef int i, j, k, q, n, need, true_sh = 0
    cdef bint anhua = is_anhua(st)
    cdef SeatState* o
    memcpy(out, st, sizeof(HandState))
    n = _unseen(st, s, pool)
    need = st.wall.left
    for i in range(1, N_SEATS):
        need += _concealed(&st.seat[(s + i) & 3])
    if n != need:
        if MJSIM_CHECK_SEATS:
            mjsim_seat_fail("search: the unseen tiles do not match the hidden ones", s)
        return -1
    for i in range(1, N_SEATS):
        q = (s + i) & 3
        o = &out.seat[q]
        if peek == 1:
            for k in range(34):
                pool[k] -= o.hand[k]
            continue
        need = _concealed(o)
        if peek == 2:
            true_sh = hand_shanten(out, o.hand, &o.mi)     # o still holds the true hand here
        n = _list_pool(pool, tiles)
        _draw_subset(tiles, n, need, r, hand)
        if peek == 2:
            _climb(out, o, tiles, n, need, hand, true_sh, steps, r)
        elif read > 0 and rng_uniform(r) < read:
            _climb(out, o, tiles, n, need, hand, _target(o, anhua, r), steps, r)
        for k in range(34):
            o.hand[k] = hand[k]
            pool[k] -= hand[k]
        seat_rebuild(out.tables, o)
        seat_refresh_filter(o)
        o.greedy_shanten_at = 0         # greedy's kept shanten belonged to the real hand
    n = _list_pool(pool, tiles)
    _draw_subset(tiles, n, n, r, hand)  # a full shuffle
    j = 0
    for i in range(out.wall.n):
        if not out.wall.taken[i]:
            out.wall.tiles[i] = tiles[j]
            j += 1
    out.events = NULL
    out.n_events = 0
    return 0


cdef enum:
    DECIDE_TURN = 0         # candidates: (ACT_*, tile) of the turn; play_on continues them
    DECIDE_CLAIM = 1        # candidates: a call's index, or -1 to pass; play_on_discard
    DECIDE_WIN = 2          # candidates: 1 take, 0 pass the win on the discard; play_on_win


ctypedef struct Decision:
    int kind                        # DECIDE_*; also picks the decision's sample streams
    int n                           # candidates, ev's answer first
    int acts[MAX_CANDIDATES]        # per candidate, as its kind says
    int tiles[MAX_CANDIDATES]       # a turn's tile; a claim's or a win's discard
    const Call* calls               # a claim's offered calls


cdef double _rollout(const HandState* sample, const GameConfig* rcfg, int s,
                     const Decision* dec, int c, HandState* work) noexcept nogil:
    """Seat s's net points from here to the end of the hand after candidate c."""
    cdef int a = dec.acts[c]
    memcpy(work, sample, sizeof(HandState))
    work.cfg = rcfg
    if dec.kind == DECIDE_TURN:
        work.play_on(work, s, SRC_DRAW, -1, a, dec.tiles[c])
    elif dec.kind == DECIDE_CLAIM:
        # a pass: the seats the loop asks after s may still claim the tile
        work.play_on_discard(work, sample.last_discarder, dec.tiles[c], s if a >= 0 else -1,
                             &dec.calls[a if a >= 0 else 0], s)
    else:
        work.play_on_win(work, sample.last_discarder, dec.tiles[c], s, a)
    return <double>(work.deltas[s] - sample.deltas[s])


cdef int _search(HandState* st, int s, const double* o, const Decision* dec) noexcept nogil:
    """Every candidate of `dec` played out on the same samples of what seat s cannot see
    (common random numbers) -> the index of the best, if its mean paired gain over
    candidate 0 (ev's answer) is `margin` standard errors above 0, else 0; -1 when a sample
    could not be drawn (a bug: the caller plays ev's answer)."""
    cdef int c, j, n_samples = <int>o[OPT_S_SAMPLES]
    cdef double sums[MAX_CANDIDATES]
    cdef double sq[MAX_CANDIDATES]         # squared differences from ev's answer, per sample
    cdef double v0, d
    cdef GameConfig rcfg
    cdef HandState sample
    cdef HandState work
    cdef Rng r
    _rollout_config(st, s, o, &rcfg)
    for c in range(dec.n):
        sums[c] = 0
        sq[c] = 0
    for j in range(n_samples):
        # each kind of decision draws from streams of its own
        decision_rng(st, s, (<uint64_t>dec.kind << 32) + j, &r)
        if sample_hidden(st, s, &sample, &r, o[OPT_S_READ], <int>o[OPT_S_STEPS], <int>o[OPT_S_PEEK]) < 0:
            return -1
        sample.cfg = &rcfg
        v0 = _rollout(&sample, &rcfg, s, dec, 0, &work)
        sums[0] += v0
        for c in range(1, dec.n):
            d = _rollout(&sample, &rcfg, s, dec, c, &work)
            sums[c] += d
            d -= v0
            sq[c] += d * d
    return _best(sums, sq, dec.n, n_samples, o[OPT_S_MARGIN])


cdef bint _contested(const HandState* st, int s, int min_shanten, const double* o) noexcept nogil:
    """A threat on the table (an opponent with `melds` melds, or a locked Anhua hand), or
    this seat near ready: the turns worth searching."""
    cdef int i, q, melds = <int>o[OPT_S_MELDS], near = <int>o[OPT_S_NEAR]
    if melds <= 0:
        return True
    if near >= 0 and min_shanten <= near:
        return True
    for i in range(1, N_SEATS):
        q = (s + i) & 3
        if st.seat[q].n_melds >= melds or st.seat[q].locked:
            return True
    return False


cdef bint _close_call(const double* scores, const uint8_t* hand, double close) noexcept nogil:
    """ev's own scores say the turn is close: its second-best discard (kinds held, weighed)
    scores within `close` x |best| of its best.  A share, not points: it reads the same at
    any `base` (every score scales with it)."""
    cdef int k
    cdef double best = UNSCORED, second = UNSCORED
    for k in range(34):
        if not hand[k] or scores[k] <= UNSCORED:
            continue
        if scores[k] > best:
            second = best
            best = scores[k]
        elif scores[k] > second:
            second = scores[k]
    if second <= UNSCORED:
        return False
    return best - second <= close * fabs(best)


cdef int _add(int* acts, int* tiles, int n, int action, int tile) noexcept nogil:
    cdef int i
    if n >= MAX_CANDIDATES:
        return n
    for i in range(n):
        if acts[i] == action and tiles[i] == tile:
            return n
    acts[n] = action
    tiles[n] = tile
    return n + 1


cdef int _candidates(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                     int ev_action, int ev_tile, int width, const double* scores, int* acts,
                     int* tiles, int* min_shanten) noexcept nogil:
    """ev's choice first, then every kong, then discards -- by ev's own score (`scores`,
    unless NULL), then by the shanten they leave (ascending kind among equals) -- up to
    `width` in all; min_shanten = the best discard's shanten."""
    cdef SeatState* p = &st.seat[s]
    cdef int sh[34]
    cdef int k, i, n = 0, m = 99, level
    for k in range(34):
        sh[k] = 99
        if p.hand[k]:
            p.hand[k] -= 1
            sh[k] = hand_shanten(st, p.hand, &p.mi)
            p.hand[k] += 1
            if sh[k] < m:
                m = sh[k]
    min_shanten[0] = m
    n = _add(acts, tiles, n, ev_action, ev_tile)
    for i in range(n_kongs):
        if n < width:
            n = _add(acts, tiles, n, types[i], kinds[i])
    if scores != NULL:
        n = _add_by_score(scores, p.hand, width, n, acts, tiles)
    for level in range(m, m + 3):
        for k in range(34):
            if n < width and sh[k] == level:
                n = _add(acts, tiles, n, ACT_DISCARD, k)
    return n


cdef int _add_by_score(const double* scores, const uint8_t* hand, int width, int n, int* acts,
                       int* tiles) noexcept nogil:
    """Add the discards of kinds held, best score first (ties: the lower kind), up to `width`
    candidates in all; kinds ev does not weigh (UNSCORED) are not added -> how many."""
    cdef bint taken[34]
    cdef int k, top
    for k in range(34):
        taken[k] = False
    while n < width:
        top = -1
        for k in range(34):
            if hand[k] and not taken[k] and scores[k] > UNSCORED and (top < 0 or scores[k] > scores[top]):
                top = k
        if top < 0:
            break
        taken[top] = True
        n = _add(acts, tiles, n, ACT_DISCARD, top)
    return n


cdef int _guard(HandState* st, int s, int drawn, double guard, int n, int* acts,
                int* tiles) noexcept nogil:
    """Drop the discards ev judges riskier than its own choice by more than `guard` -> the
    candidates left (ev's choice stays first).  The samples see fewer ready opponents than
    the table holds (unguarded, search dealt in ~1 pp more than ev), so rollouts may not
    overrule ev's danger estimate towards a riskier tile."""
    cdef double risk[34]
    ev_discard_risk(st, s, drawn, risk)
    return _drop_riskier(risk, guard, n, acts, tiles)


cdef int _drop_riskier(const double* risk, double guard, int n, int* acts, int* tiles) noexcept nogil:
    """Keep candidate 0 and every other candidate that is not a discard riskier than
    candidate 0 (a kong counts as risk 0) by more than `guard`, in order -> how many."""
    cdef double limit = (risk[tiles[0]] if acts[0] == ACT_DISCARD else 0.0) + guard
    cdef int c, m = 1
    for c in range(1, n):
        if acts[c] == ACT_DISCARD and risk[tiles[c]] > limit:
            continue
        acts[m] = acts[c]
        tiles[m] = tiles[c]
        m += 1
    return m


cdef void _rollout_config(const HandState* st, int s, const double* o,
                          GameConfig* rcfg) noexcept nogil:
    """The players of seat s's rollouts: `rollout` in every seat, `own` in s if it is set."""
    cdef int j
    memcpy(rcfg, st.cfg, sizeof(GameConfig))
    rcfg.py_context = NULL
    for j in range(N_SEATS):
        rcfg.players[j] = PLAYER_GREEDY if <int>o[OPT_S_ROLLOUT] == PLAYER_GREEDY else PLAYER_EV
    if <int>o[OPT_S_OWN] >= 0:
        # the seat's own later turns by ev: a fold now is worth what keeping on folding brings
        rcfg.players[s] = PLAYER_GREEDY if <int>o[OPT_S_OWN] == PLAYER_GREEDY else PLAYER_EV


cdef int _best(const double* sums, const double* sq, int n, int n_samples,
               double margin) noexcept nogil:
    """The candidate with the best total, if its mean paired gain over candidate 0 (ev's
    choice) is `margin` standard errors above 0; else 0.  With few samples most differences
    between good candidates are noise."""
    cdef int c, best = 0
    cdef double mean, var
    for c in range(1, n):
        if sums[c] > sums[best]:
            best = c
    if best:
        mean = (sums[best] - sums[0]) / n_samples
        var = (sq[best] / n_samples - mean * mean) / (n_samples - 1) if n_samples > 1 else 0
        if mean <= 0 or mean * mean <= margin * margin * var:
            best = 0
    return best


cdef int search_turn(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                     int drawn, int* tile) noexcept nogil:
    """The turn's action: ev's where the turn is not contested, else the candidate with the
    best mean net points over the samples (ev's choice on ties or within `margin`)."""
    cdef const double* o = st.cfg.player_opts[s]
    cdef int ev_action, ev_tile = -1, best, min_sh
    cdef int width = <int>o[OPT_S_WIDTH]
    cdef double scores[34]
    cdef bint scored
    cdef Decision dec
    ev_action = ev_turn(st, s, n_kongs, kinds, types, drawn, &ev_tile)
    tile[0] = ev_tile
    if o[OPT_S_SAMPLES] <= 0 or st.seat[s].locked:
        return ev_action
    if width > MAX_CANDIDATES:
        width = MAX_CANDIDATES
    scored = o[OPT_S_ORDER] > 0
    if scored:
        ev_discard_scores(st, s, drawn, scores)
    dec.kind = DECIDE_TURN
    dec.n = _candidates(st, s, n_kongs, kinds, types, ev_action, ev_tile, width,
                        scores if scored else NULL, dec.acts, dec.tiles, &min_sh)
    if dec.n < 2:
        return ev_action
    if not _contested(st, s, min_sh, o):
        if o[OPT_S_CLOSE] < 0:
            return ev_action
        if not scored:
            ev_discard_scores(st, s, drawn, scores)
        if not _close_call(scores, st.seat[s].hand, o[OPT_S_CLOSE]):
            return ev_action
    if o[OPT_S_GUARD] >= 0:
        dec.n = _guard(st, s, drawn, o[OPT_S_GUARD], dec.n, dec.acts, dec.tiles)
        if dec.n < 2:
            return ev_action
    best = _search(st, s, o, &dec)
    if best < 0:
        return ev_action
    if MJSIM_CHECK_SEATS and not _offered(st, s, n_kongs, kinds, types, dec.acts[best], dec.tiles[best]):
        mjsim_seat_fail("search: an action the loop did not offer", s)
    tile[0] = dec.tiles[best]
    return dec.acts[best]


cdef int search_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil:
    """The claim on a discard: ev's unless `calls` is set and the claim is contested (as a
    turn is, judged on the hand as it stands); then pass or one of the n calls, whichever
    plays out best over the samples (ev's choice on ties or within `margin`).  After a pass
    the seats the loop asks later (下家, when s may pung) are asked as in the hand."""
    cdef const double* o = st.cfg.player_opts[s]
    cdef SeatState* p = &st.seat[s]
    cdef int ev_pick, c, best
    cdef Decision dec
    ev_pick = ev_call(st, s, tile, calls, n)
    if o[OPT_S_SAMPLES] <= 0 or o[OPT_S_CALLS] <= 0 or n < 1 or p.locked or st.last_discarder < 0:
        return ev_pick
    if not _contested(st, s, hand_shanten(st, p.hand, &p.mi), o):
        return ev_pick
    dec.kind = DECIDE_CLAIM
    dec.calls = calls
    dec.acts[0] = ev_pick
    dec.n = 1
    for c in range(-1, n):
        if c != ev_pick and dec.n < MAX_CANDIDATES:
            dec.acts[dec.n] = c
            dec.n += 1
    for c in range(dec.n):
        dec.tiles[c] = tile
    best = _search(st, s, o, &dec)
    if best < 0:
        return ev_pick
    if MJSIM_CHECK_SEATS and not -1 <= dec.acts[best] < n:
        mjsim_seat_fail("search: a call the loop did not offer", s)
    return dec.acts[best]


cdef bint search_takes_win(HandState* st, int s, int tile, int kind) noexcept nogil:
    """A win: ev's answer (every win but the special start is taken), except that with
    `wins` set a win on a discard is passed when passing -- to self-draw it from everyone,
    or win bigger -- plays out better over the samples, by `margin` standard errors."""
    cdef const double* o = st.cfg.player_opts[s]
    cdef bint ev_take = ev_takes_win(st, s, kind)
    cdef int best
    cdef Decision dec
    if kind != WIN_DISCARD or o[OPT_S_WINS] <= 0 or o[OPT_S_SAMPLES] <= 0 or tile < 0 or st.last_discarder < 0:
        return ev_take
    dec.kind = DECIDE_WIN
    dec.n = 2
    dec.acts[0] = ev_take
    dec.acts[1] = not ev_take
    dec.tiles[0] = dec.tiles[1] = tile
    best = _search(st, s, o, &dec)
    return ev_take if best < 0 else dec.acts[best]


cdef bint _offered(const HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                   int action, int tile) noexcept nogil:
    """Is (action, tile) one of the turn's options: a kong listed, or a tile held?"""
    cdef int i
    if action == ACT_DISCARD:
        return 0 <= tile < 34 and st.seat[s].hand[tile] > 0 and not st.seat[s].locked
    for i in range(n_kongs):
        if types[i] == action and kinds[i] == tile:
            return True
    return False


def add_by_score(scores, hand, candidates, int width):
    """Test entry of the candidates' ranking by ev's scores: scores[34] (None: not weighed),
    hand[34], candidates [(action, tile), ...] so far -> the candidates after it."""
    cdef double sc[34]
    cdef uint8_t h[34]
    cdef int acts[MAX_CANDIDATES]
    cdef int tiles[MAX_CANDIDATES]
    cdef int i, n = len(candidates)
    if len(scores) != 34 or len(hand) != 34 or not 0 <= n <= width <= MAX_CANDIDATES:
        raise ValueError("scores and hand need 34 numbers and 0 <= candidates <= width <= MAX_CANDIDATES")
    for i in range(34):
        sc[i] = -1e30 if scores[i] is None else scores[i]
        h[i] = hand[i]
    for i in range(n):
        acts[i], tiles[i] = candidates[i]
    n = _add_by_score(sc, h, width, n, acts, tiles)
    return [(acts[i], tiles[i]) for i in range(n)]


def drop_riskier(risk, candidates, double guard):
    """Test entry of the guard's filter: candidates [(action, tile), ...] (ev's choice
    first) and risk[34] -> the candidates kept."""
    cdef double r[34]
    cdef int acts[MAX_CANDIDATES]
    cdef int tiles[MAX_CANDIDATES]
    cdef int i, n = len(candidates)
    if len(risk) != 34 or not 1 <= n <= MAX_CANDIDATES:
        raise ValueError("risk needs 34 numbers and 1..MAX_CANDIDATES candidates")
    for i in range(34):
        r[i] = risk[i]
    for i in range(n):
        acts[i], tiles[i] = candidates[i]
    n = _drop_riskier(r, guard, n, acts, tiles)
    return [(acts[i], tiles[i]) for i in range(n)]


def close_call(scores, hand, double close):
    """Test entry of the `close` trigger: scores[34] (None: not weighed), hand[34] -> does
    ev find the turn close?"""
    cdef double sc[34]
    cdef uint8_t h[34]
    cdef int i
    if len(scores) != 34 or len(hand) != 34:
        raise ValueError("scores and hand need 34 numbers")
    for i in range(34):
        sc[i] = -1e30 if scores[i] is None else scores[i]
        h[i] = hand[i]
    return bool(_close_call(sc, h, close))
