# cython: language_level=3
"""The expected-value player `ev` for both rule sets.

A 3n+1 hand is worth  Σ over hand forms  P(win via the form) x value(form), kept as the
best form plus OPT_MIX times the others:
- forms: Wanzai standard (honor runs included), 七小對, 十三爛, 清一色 (standard in the
  suit the hand leans to), 大七對 (pungs only; 清一色大七對 when every tile is already in one
  suit) and 全求人 (four exposed melds: the standard form's single wait, valued as 全求人);
  Anhua standard (2-5-8 pair), 小七對 and 清一色 (any pair), wilds as jokers.  Each form's distance and useful tiles (unseen copies that shorten it) come
  from the per-group tables (_eval's per-form neighbour rows).
- values from the rules in force: Wanzai `values` for each form, self-draw (every other
  seat pays) and discard shares weighted by the fitted self-draw share, each payment with
  fire, dealer doubling and piao; Anhua 硬莊 (no wild left in hand, any win) or 平胡 with
  the wild category's multiplier (wilds in hand: self-draw only), the form's multiplier and
  the expected bird factor.  OPT_VALUE bends each form's value relative to the standard
  form (0: every form is worth the same, 1: the rules' values).
- P(win before the hand ends) from a logistic model in the distance, log(1 + useful tiles),
  the live wall and (Anhua) self-draw-only, fitted by self-play (mjsim.evfit).
A discard is chosen by  EV(hand after it) x (1 - risk) - fold x risk x loss, where risk is
the chance that a seat wins on it: Σ over opponents P(tenpai | its discards and melds) x
P(wins on the tile | tenpai, tile class), both fitted.  Kongs and claims compare the EV
with and without them (a Wanzai kong's payment counts at once); wins are taken, but a
Wanzai win on a discard is passed when the ready hand is worth more kept (OPT_HOLD); the
Anhua special start is declared when its sure payment beats the hand's EV.

Every value is in units of `base` (a cap is divided by it): base only scales payments
(RULES §1), so play must not depend on it, and values multiplied by base would round
differently and break near-ties another way at another base.

Everything is deterministic (no RNG) and works on the live HandState in place, restoring
every change before it returns.
"""
from libc.stdint cimport uint8_t, int8_t, uint64_t
from mjsim.core._bits cimport mjsim_ctz64
from libc.string cimport memcpy, memset
from libc.math cimport exp, log1p, pow

from mjsim.core cimport _eval
from mjsim.core._eval cimport MeldInfo
from mjsim.core._tables cimport Tables, tables, suit_index, honor_index, INF, MAX_MELDS
from mjsim.core._wall cimport live_left
from mjsim.core._state cimport (HandState, SeatState, GameConfig, Call, CALL_KONG, CALL_CHOW,
                          MeldRec, MELD_PUNG, MELD_EXPOSED_KONG, ACT_DISCARD, ACT_CONCEALED_KONG, ACT_ADDED_KONG, KONG_ADDED,
                          KONG_EXPOSED, KONG_CONCEALED, WIN_INSTANT, WIN_DISCARD)
from mjsim.core._hand cimport (available, hand_shanten, is_anhua,
                          meld_after_call, meld_after_own_kong, take_call_tiles)

cdef enum:
    F_STD = 0
    F_PAIRS = 1
    F_LAN = 2
    F_QYS = 3
    F_DQD = 4                   # Wanzai 大七對: pungs and kongs only
    F_QQR = 5                   # Wanzai 全求人: four exposed melds, the standard form's state
    N_FORMS = 6

cdef double NEG = -1e30


ctypedef struct Ctx:
    HandState* st
    const GameConfig* cfg
    const double* o              # this seat's options (GameConfig.player_opts[s])
    SeatState* p
    int s
    int live
    double phi                   # self-draw share of wins
    double wz[N_FORMS][2]        # Wanzai: what a win of the form brings [self-draw, discard]
    double mult                  # Wanzai: Σ over the other seats of a payment's multiplier
    double piao                  #   and of its piao addition (wanzai_values)
    double bird                  # Anhua: expected bird factor of a payment
    double risk[34]              # chance that discarding k deals in
    double cost[34]              # expected loss of discarding k
    int defend                   # some opponent is a threat (risk was computed)
    double tsum                  # Σ over the opponents of their tenpai chance (compute_danger)
    int safe[4][2]               # per seat: kinds it cannot win on now (-1: none), passed_kinds
    uint64_t kong_kinds          # Wanzai, OPT_KONGS: kinds a hand evaluated here may hold as a
                                 #   concealed triplet (triplet_kinds, for kong_equity)


# ================================================================ values and probabilities

cdef inline double pay(const Ctx* c, int payer, int receiver, double amount, bint win) noexcept nogil:
    """One payment after fire, dealer doubling and (wins) piao, as RULES §2.5 has it."""
    cdef const GameConfig* cfg = c.cfg
    cdef double v = amount * (1 << (c.st.fire[payer] + c.st.fire[receiver]))
    if cfg.dealer_pays_double and payer == c.st.dealer:
        v *= 2
    if win:
        v += cfg.piao[payer] + cfg.piao[receiver]
    return v


cdef inline double bend(const Ctx* c, double v, double ref) noexcept nogil:
    """A form's value relative to the reference, raised to OPT_VALUE."""
    if ref <= 0 or v <= 0 or v == ref:
        return v
    return ref * pow(v / ref, c.o[OPT_VALUE])


cdef inline int fan(const Ctx* c, int row, int col, int alt) noexcept nogil:
    """Value of a win in column col (0 self-draw, 1 discard) as id `row`, or as `alt` when
    that is worth more: a hand fitting several ids scores the highest (RULES §2.2)."""
    cdef int v = c.cfg.ev.values[row][1 - col]
    if alt >= 0 and c.cfg.ev.values[alt][1 - col] > v:
        v = c.cfg.ev.values[alt][1 - col]
    return v


cdef void wanzai_values(Ctx* c) noexcept nogil:
    """c.wz: each form's win, self-drawn (every other seat pays) and on a discard (one of
    them, on average), through pay(): Σ over payers of amount x mult(payer) + piao(payer),
    so the payers' sums are taken once and each form costs two products.  Kept in the
    hand state for the rest of the hand (HandState.ev_values): ten pow() a turn were ~3%
    of a 4 x ev hand's instructions."""
    cdef const GameConfig* cfg = c.cfg
    cdef int f, q, i, col
    cdef int ids[N_FORMS]
    cdef int alt[N_FORMS]
    cdef double amount, m, mult = 0, piao = 0
    cdef double* key
    for i in range(1, 4):
        q = (c.s + i) & 3
        m = 1 << (c.st.fire[q] + c.st.fire[c.s])
        if cfg.dealer_pays_double and q == c.st.dealer:
            m *= 2
        mult += m
        piao += cfg.piao[q] + cfg.piao[c.s]
    c.mult = mult
    c.piao = piao
    key = c.st.ev_values_key[c.s]
    if key[0] == mult and key[1] == piao and key[2] == c.o[OPT_VALUE] and c.st.ev_values_cfg[c.s] == cfg:
        memcpy(c.wz, c.st.ev_values[c.s], sizeof(c.wz))
        return
    ids[F_STD] = _eval.P_PINGHU
    ids[F_PAIRS] = _eval.P_QIXIAODUI
    ids[F_LAN] = _eval.P_SHISANLAN
    ids[F_QYS] = _eval.P_QYS_PINGHU
    # a 大七對 is also a 平胡 (pungs are melds)
    ids[F_DQD] = _eval.P_DAQIDUI
    # 全求人 on a discard; its self-draw is 平胡 unless the house variant scores it apart
    ids[F_QQR] = _eval.P_QUANQIUREN
    for f in range(N_FORMS):
        alt[f] = -1
    alt[F_DQD] = _eval.P_PINGHU
    alt[F_QQR] = _eval.P_PINGHU
    for f in range(N_FORMS):
        for col in range(2):
            if f == F_QQR and col == 0 and not cfg.ev.quanqiuren_self:
                amount = fan(c, _eval.P_PINGHU, col, -1)
            else:
                amount = fan(c, ids[f], col, alt[f])
            c.wz[f][col] = amount * mult + piao if col == 0 else (amount * mult + piao) / 3
            if f != F_STD:
                c.wz[f][col] = bend(c, c.wz[f][col], c.wz[F_STD][col])
    memcpy(c.st.ev_values[c.s], c.wz, sizeof(c.wz))
    key[0] = mult
    key[1] = piao
    key[2] = c.o[OPT_VALUE]
    c.st.ev_values_cfg[c.s] = cfg


cdef double wz_dqd_qys(const Ctx* c, int col) noexcept nogil:
    """c.wz's entry for a 大七對 already all in one suit (its 清一色 row), asked for seldom
    enough to be worked out when needed."""
    cdef double amount = fan(c, _eval.P_QYS_DAQIDUI, col, _eval.P_QYS_PINGHU)
    cdef double v = amount * c.mult + c.piao
    return bend(c, v if col == 0 else v / 3, c.wz[F_STD][col])


cdef inline double p_win(const Ctx* c, int f, int d, int u, int self_only) noexcept nogil:
    """P(win via form f) from its distance d (shanten), useful tiles u, the live wall.  The
    base logit is the standard form's; each other form maps it through its own intercept
    and slope (OPT_FORM), except 全求人, whose state is the standard form's own."""
    cdef const double* w
    cdef double x
    if d < 0:
        return 1.0
    if u <= 0:
        return 0.0
    if d >= N_WIN_D:
        d = N_WIN_D - 1
    w = c.o + OPT_WIN + 3 * d
    x = w[0] + w[1] * log1p(u) + w[2] * c.live * 0.01 + c.o[OPT_WIN_SELF_ONLY] * self_only
    if f != F_STD and f != F_QQR:
        x = c.o[OPT_FORM + 2 * (f - 1)] + c.o[OPT_FORM + 2 * f - 1] * x
    return 1.0 / (1.0 + exp(-x))


cdef inline double combine(const Ctx* c, const double* ev, int n) noexcept nogil:
    cdef int f
    cdef double best = 0, total = 0
    for f in range(n):
        total += ev[f]
        if ev[f] > best:
            best = ev[f]
    return best + c.o[OPT_MIX] * (total - best)


cdef inline int pairs_distance(const uint8_t* h, int n_kinds) noexcept nogil:
    cdef int k, pairs = 0, singles = 0, missing
    for k in range(n_kinds):
        pairs += h[k] >> 1
        singles += h[k] & 1
    missing = 7 - pairs if pairs < 7 else 0
    return missing + (missing - singles if missing > singles else 0)


cdef inline int lead_suit(const uint8_t* h, const MeldInfo* mi) noexcept nogil:
    """The suit a 清一色 would be in (most tiles, melds included), -1 when the melds rule
    one out or no suit holds at least 7 of the tiles."""
    cdef int g, k, n, best = -1, best_n = 6
    for g in range(3):
        if mi.suit_mask & ~(1 << g):
            continue
        n = 0
        for k in range(9 * g, 9 * g + 9):
            n += h[k] + mi.counts[k]
        if n > best_n:
            best_n = n
            best = g
    return best


cdef inline int joker_dist(int own, int jokers) noexcept nogil:
    own -= jokers
    return own if own > 0 else 0


ctypedef struct Forms:
    int ok[N_FORMS]             # the form is open to the hand
    int d[N_FORMS]              # shanten in that form
    int u[N_FORMS]              # unseen copies that lower it
    int jokers                  # Anhua: wilds kept in hand
    int cat
    int dqd_qys                 # 大七對: every tile, melds included, already in one suit


cdef inline int count_useful(const Ctx* c, const int* acc, int own, int jokers, int lo, int hi,
                             int wa, int wb) noexcept nogil:
    """Unseen copies of the kinds in [lo, hi) whose addition lowers the distance (with the
    jokers taken off both sides); wild kinds are counted by the caller."""
    cdef int k, n = 0, j = joker_dist(own, jokers)
    if jokers == 0 and wa < 0 and wb < 0:
        # every Wanzai hand: no wild kinds, distances are >= 0, so the test is acc[k] < own
        # (INF never passes); the hottest loop of a Wanzai hand
        for k in range(lo, hi):
            if acc[k] < j:
                n += available(c.st, c.p, k)
        return n
    if jokers == 0:
        for k in range(lo, hi):
            if acc[k] < j and k != wa and k != wb:
                n += available(c.st, c.p, k)
        return n
    for k in range(lo, hi):
        if k != wa and k != wb and acc[k] < INF and joker_dist(acc[k], jokers) < j:
            n += available(c.st, c.p, k)
    return n


cdef inline int dqd_saving(int n3, int n2, int n1, int groups) noexcept nogil:
    """Most tiles of a 大七對 target (`groups` - 1 triplets and a pair, distinct kinds) the
    hand already holds, from how many kinds it holds three or more (n3), two (n2) or one (n1)
    of.  The best target is the `groups` kinds held most (a kind gives min(count, 3) tiles as
    a triplet, min(count, 2) as the pair): the pair goes to a kind held twice or less, and
    wastes one tile only when every chosen kind holds a triplet."""
    cdef int s, t = n3 if n3 < groups else groups
    s = 3 * t - (t == groups)
    groups -= t
    t = n2 if n2 < groups else groups
    s += 2 * t
    groups -= t
    return s + (n1 if n1 < groups else groups)


cdef inline int byte_sum(uint64_t x) noexcept nogil:
    """Sum of the bytes of x (each small enough that the total fits a byte)."""
    return <int>((x * 0x0101010101010101ULL) >> 56)


cdef void dqd_stats(const Ctx* c, const uint8_t* h, const MeldInfo* mi, Forms* F) noexcept nogil:
    """大七對 (Wanzai, no chow or honour-run meld): distance and useful tiles of a 3m+1
    concealed part needing m triplets and a pair (m = 4 - melds).  Kinds count only by how
    many the hand holds (0, 1, 2, 3+), so a draw helps exactly when it moves a kind up a
    class that raises the saving; useful tiles are the unseen copies of those kinds.
    Further than three from ready the form is left closed (it could not win in time)."""
    cdef uint64_t w[5]
    cdef uint64_t x, ge1 = 0, ge2 = 0, ge3 = 0
    cdef uint64_t LOW = 0x0101010101010101ULL
    cdef int k, n1, n2, n3, groups = MAX_MELDS - mi.n + 1, own, s, cls, mask, u = 0
    cdef int helps[4]
    # kinds held at least once, twice, three times: bit 0 of each count byte after a
    # shift, summed over the hand's five words (counts are 0..4)
    w[4] = 0
    memcpy(w, h, 34)
    for k in range(5):
        x = w[k]
        ge1 += (x | (x >> 1) | (x >> 2)) & LOW
        ge2 += ((x >> 1) | (x >> 2)) & LOW
        ge3 += ((x >> 2) | (x & (x >> 1))) & LOW
    n3 = byte_sum(ge3)
    n2 = byte_sum(ge2) - n3
    n1 = byte_sum(ge1) - n3 - n2
    s = dqd_saving(n3, n2, n1, groups)
    own = 3 * groups - 1 - s
    F.ok[F_DQD] = own <= 4
    if not F.ok[F_DQD]:
        return
    # a draw of a kind held 0, 1 or 2 times moves it to the next class
    helps[0] = dqd_saving(n3, n2, n1 + 1, groups) > s
    helps[1] = dqd_saving(n3, n2 + 1, n1 - 1, groups) > s
    helps[2] = dqd_saving(n3 + 1, n2 - 1, n1, groups) > s
    helps[3] = 0
    mask = mi.suit_mask
    for k in range(34):
        cls = h[k] if h[k] < 3 else 3
        if helps[cls]:
            u += available(c.st, c.p, k)
        if h[k]:
            mask |= 1 << (k // 9 if k < 27 else 3)
    F.d[F_DQD] = own - 1
    F.u[F_DQD] = u
    F.dqd_qys = mask == 1 or mask == 2 or mask == 4


cdef uint64_t dqd_keeps(const uint8_t* h, const MeldInfo* mi) noexcept nogil:
    """The discards (bit k) from a 3n+2 Wanzai hand that leave it closest to 大七對, when
    that is within the form's reach: best_discard weighs them even where they cost the
    standard shanten, as raising 大七對's value should make a hand keep its pairs."""
    cdef int k, n[5], groups = MAX_MELDS - mi.n + 1, best = 5, n3
    cdef int after[5]
    cdef uint64_t keep = 0
    if mi.has_chow:
        return 0
    n[0] = n[1] = n[2] = n[3] = n[4] = 0
    for k in range(34):
        n[h[k]] += 1
    n3 = n[3] + n[4]     # the saving counts a kind held four times as a triplet
    # the 3n+1 hand's distance after discarding a kind held 1, 2, 3 or 4 times
    after[1] = 3 * groups - 1 - dqd_saving(n3, n[2], n[1] - 1, groups)
    after[2] = 3 * groups - 1 - dqd_saving(n3, n[2] - 1, n[1] + 1, groups)
    after[3] = 3 * groups - 1 - dqd_saving(n3 - 1, n[2] + 1, n[1], groups)
    after[4] = 3 * groups - 1 - dqd_saving(n3, n[2], n[1], groups)
    for k in range(1, 5):
        if n[k] and after[k] < best:
            best = after[k]
    if best > 4:
        return 0
    for k in range(34):
        if h[k] and after[h[k]] == best:
            keep |= (<uint64_t>1) << k
    return keep


cdef void form_stats(const Ctx* c, const uint8_t* h, const MeldInfo* mi, Forms* F) noexcept nogil:
    """Distance and useful tiles of a 3n+1 hand in every form the rules allow.  Anhua: the
    wilds are jokers (a drawn wild always helps), the standard form needs the 2-5-8 pair
    when pair_258 is on, 清一色 takes any pair."""
    cdef const Tables* T = tables()
    cdef int acc[34]
    cdef uint8_t nat[34]
    cdef uint8_t buf[34]
    cdef int melds = MAX_MELDS - mi.n, own, g, lan, uw = 0, wa = -1, wb = -1, n_kinds = 34
    cdef int jokers = 0, n_groups = 4
    cdef bint anhua = is_anhua(c.st)
    memcpy(nat, h, 34)
    F.cat = 0
    if anhua:
        wa = c.st.wild_a
        wb = c.st.wild_b
        jokers = h[wa] + h[wb]
        F.cat = _eval.category_of(h[wa], h[wb])
        nat[wa] = 0
        nat[wb] = 0
        uw = available(c.st, c.p, wa) + available(c.st, c.p, wb)
        n_kinds = 27
        n_groups = 3
    F.jokers = jokers
    own = _eval._std_neighbours(T, nat, n_groups, melds, 2 if anhua and c.cfg.ev.pair_258 else 1, 1, acc)
    F.ok[F_STD] = 1
    F.d[F_STD] = joker_dist(own, jokers) - 1
    F.u[F_STD] = count_useful(c, acc, own, jokers, 0, n_kinds, wa, wb) + uw
    F.ok[F_PAIRS] = mi.n == 0
    F.ok[F_LAN] = 0
    if mi.n == 0:
        own = pairs_distance(nat, n_kinds)
        _eval._pairs_neighbours(nat, n_kinds, 1, acc)
        F.d[F_PAIRS] = joker_dist(own, jokers) - 1
        F.u[F_PAIRS] = count_useful(c, acc, own, jokers, 0, n_kinds, wa, wb) + uw
        if not anhua:
            lan = (T.honor.need + <size_t>honor_index(h + 27) * 4)[3]
            for g in range(3):
                lan += (T.suit.need + <size_t>suit_index(h + 9 * g) * 4)[3]
            own = 14 - lan
            if own <= 4:
                F.ok[F_LAN] = 1
                _eval._lan_neighbours(T, h, 1, acc)
                F.d[F_LAN] = own - 1
                F.u[F_LAN] = count_useful(c, acc, own, 0, 0, 34, -1, -1)
    F.ok[F_DQD] = F.ok[F_QQR] = 0
    F.dqd_qys = 0
    if not anhua:
        if not mi.has_chow:
            dqd_stats(c, h, mi, F)
        if mi.n == MAX_MELDS and not mi.has_concealed_kong:
            # the same single-tile wait as the standard form, valued as 全求人
            F.ok[F_QQR] = 1
            F.d[F_QQR] = F.d[F_STD]
            F.u[F_QQR] = F.u[F_STD]
            F.ok[F_STD] = 0
    g = lead_suit(nat, mi)
    F.ok[F_QYS] = g >= 0
    if g >= 0:
        memset(buf, 0, 34)
        memcpy(buf + 9 * g, nat + 9 * g, 9)
        own = _eval._std_neighbours(T, buf, 3, melds, 1, 1, acc)
        F.d[F_QYS] = joker_dist(own, jokers) - 1
        F.u[F_QYS] = count_useful(c, acc, own, jokers, 9 * g, 9 * g + 9, wa, wb) + uw


cdef double form_value(const Ctx* c, int f, const Forms* F) noexcept nogil:
    """What a win in form f brings, in expectation over self-draw and discard wins."""
    cdef const GameConfig* cfg = c.cfg
    cdef double basic, ref, v
    if not is_anhua(c.st):
        if f == F_DQD and F.dqd_qys:
            return c.phi * wz_dqd_qys(c, 0) + (1 - c.phi) * wz_dqd_qys(c, 1)
        return c.phi * c.wz[f][0] + (1 - c.phi) * c.wz[f][1]
    ref = cfg.ev.m_hard
    # no wild kept: 硬莊, any win; wilds kept: 平胡 x category, self-draw only
    basic = ref if F.jokers == 0 else cfg.ev.m_soft * cfg.ev.m_cat[F.cat]
    if f == F_PAIRS:
        basic *= cfg.ev.m_xiaoqidui
    elif f == F_QYS:
        basic *= cfg.ev.m_qingyise
    v = bend(c, basic, ref)
    if cfg.ev.score_cap and v > cfg.ev.score_cap / <double>cfg.ev.base:
        v = cfg.ev.score_cap / <double>cfg.ev.base
    return v * c.bird * (3.0 if F.jokers else 3.0 * c.phi + (1 - c.phi))


cdef double forms_value(const Ctx* c, const Forms* F) noexcept nogil:
    """What winning a hand with these form statistics is worth: Σ over forms of P(win via
    the form) x its value (best + mix x rest)."""
    cdef double ev[N_FORMS]
    cdef int f
    for f in range(N_FORMS):
        ev[f] = 0
        if F.ok[f]:
            ev[f] = p_win(c, f, F.d[f], F.u[f], F.jokers > 0) * form_value(c, f, F)
    return combine(c, ev, N_FORMS)


cdef double forms_ev(Ctx* c, uint8_t* h, const MeldInfo* mi) noexcept nogil:
    """What winning a 3n+1 hand is worth (forms_value of its form_stats)."""
    cdef Forms F
    form_stats(c, h, mi, &F)
    return forms_value(c, &F)


cdef double kong_equity(const Ctx* c, const uint8_t* h) noexcept nogil:
    """Wanzai: what the concealed kongs a hand may still make are worth, paid whether or not
    it wins.  A concealed triplet whose last copy nobody has shown may become one, with
    about the chance that this seat draws that copy: its draws left (a quarter of the live
    wall) over the tiles it cannot see (the live wall and three concealed hands).
    OPT_KONGS weighs it: the hand seldom lasts that long.  (Exposed pungs are not counted:
    their added kong was not measured, see docs/players/ev.md.)"""
    cdef int k
    cdef uint64_t m = c.kong_kinds
    cdef int n = 0
    while m:
        k = mjsim_ctz64(m)
        m &= m - 1
        n += h[k] == 3 and c.st.seen[k] == 0
    return n * c.cfg.kong_values[KONG_CONCEALED] * c.mult * c.live * 0.25 / (c.live + 39.0)


cdef inline uint64_t triplet_kinds(const Ctx* c) noexcept nogil:
    """The kinds this seat holds three or more of: every hand evaluated in the Ctx is its
    hand less some tiles, so only these can be a concealed triplet there (Wanzai, OPT_KONGS
    on, kongs paid; 0 otherwise)."""
    cdef int k
    cdef uint64_t m = 0
    if is_anhua(c.st) or c.o[OPT_KONGS] <= 0 or not c.cfg.kong_payments:
        return 0
    for k in range(34):
        if c.p.hand[k] >= 3:
            m |= (<uint64_t>1) << k
    return m


cdef double eval13(Ctx* c, uint8_t* h, const MeldInfo* mi) noexcept nogil:
    """EV of a 3n+1 hand: its win (forms_ev) and, Wanzai with OPT_KONGS, its kongs to come."""
    cdef double v = forms_ev(c, h, mi)
    if c.kong_kinds:
        v += c.o[OPT_KONGS] * kong_equity(c, h)
    return v


# ================================================================ danger

include "_ev_danger.pxi"


# ================================================================ decisions

cdef void init_ctx(Ctx* c, HandState* st, int s, int drawn, int claimed) noexcept nogil:
    """drawn: the tile this turn drew (-1: the turn follows a claim or the deal, -2: not a
    turn); claimed: the discard a claim is weighed on (-1: none); both for passed_kinds."""
    init_values(c, st, s)
    passed_kinds(c, drawn, claimed)
    compute_danger(c)


cdef void init_values(Ctx* c, HandState* st, int s) noexcept nogil:
    """The part of init_ctx a hand's value needs (eval13), without the danger model."""
    c.st = st
    c.cfg = st.cfg
    c.s = s
    c.p = &st.seat[s]
    c.o = &st.cfg.player_opts[s][0]
    c.live = live_left(&st.wall)
    c.phi = c.o[OPT_SELF_SHARE]
    c.bird = 1.0
    if is_anhua(st):
        # a bird doubles a payment when it points at the winner (3 ranks of 9) or at the
        # payer (2 of 9)
        c.bird = pow(14.0 / 9.0, st.cfg.birds)
    else:
        wanzai_values(c)
    c.kong_kinds = triplet_kinds(c)


cdef inline double ev_after(Ctx* c, uint8_t* h, const MeldInfo* mi, int k) noexcept nogil:
    """eval13 of the 3n+2 hand h less one k, the discard made visible."""
    cdef double v
    h[k] -= 1
    c.st.seen[k] += 1
    v = eval13(c, h, mi)
    c.st.seen[k] -= 1
    h[k] += 1
    return v


cdef inline double fold_weight(const Ctx* c) noexcept nogil:
    """The weight of a discard's danger: OPT_FOLD, plus OPT_RACE per unit of the opponents'
    summed tenpai chance.  The win model prices a hand as if it played alone; with more
    seats ready the hand is less likely to win the race, so what it could gain by pushing
    shrinks against what a deal-in costs."""
    return c.o[OPT_FOLD] + c.o[OPT_RACE] * c.tsum


cdef double best_discard(Ctx* c, uint8_t* h, const MeldInfo* mi, int* out, double* scores) noexcept nogil:
    """The discard from a 3n+2 hand with the highest EV after danger -> that score (and
    each candidate's in scores[k] unless NULL).  Candidates: the discards that keep the best
    shanten or the best 大七對 distance (dqd_keeps), and facing a threat the others (folding
    discards), valued OPT_KEEP x their own EV: 0 counts only their danger (ev_v1); the full
    EV folded too often and lost in the arena, 0.7 chooses among the safe tiles the one
    that keeps most of the hand.  With OPT_KEEP the kept discards are valued first: a
    folding discard leaves a hand one shanten further, taken to be worth no more than the
    best of theirs (emax), so one whose score could not reach theirs even so is skipped
    without its eval13 (most of them: a folding discard is otherwise the costliest part)."""
    cdef int8_t sh_of[34]
    cdef double after[34]
    cdef int k, best_sh, best_k = -1
    cdef double v, best = NEG, fold = fold_weight(c), lam = c.o[OPT_KEEP], emax = 0, floor = NEG
    cdef uint64_t keep = 0 if is_anhua(c.st) else dqd_keeps(h, mi)
    cdef bint first = lam > 0 and c.defend
    best_sh = 127
    _eval.shanten_neighbours(&c.cfg.ev, h, mi, c.st.indicator, -1, sh_of)
    for k in range(34):
        if h[k] and sh_of[k] < best_sh:
            best_sh = sh_of[k]
    if first:
        for k in range(34):
            if h[k] and (sh_of[k] <= best_sh or (keep >> k) & 1):
                after[k] = ev_after(c, h, mi, k)
                if after[k] > emax:
                    emax = after[k]
                v = after[k] * (1 - c.risk[k]) - fold * c.cost[k]
                if v > floor:
                    floor = v
    for k in range(33, -1, -1):
        if not h[k]:
            continue
        if sh_of[k] <= best_sh or (keep >> k) & 1:
            v = after[k] if first else ev_after(c, h, mi, k)
        elif c.defend:
            v = 0
            if first:
                if scores == NULL and lam * emax * (1 - c.risk[k]) - fold * c.cost[k] < floor:
                    continue
                v = lam * ev_after(c, h, mi, k)
        else:
            continue
        v = v * (1 - c.risk[k]) - fold * c.cost[k]
        if scores != NULL:
            scores[k] = v
        if v > best:
            best = v
            best_k = k
    out[0] = best_k
    return best


cdef void ev_discard_risk(HandState* st, int s, int drawn, double* risk) noexcept nogil:
    """risk[k]: ev's estimate of the chance that seat s's discard of k deals in now (0 for
    kinds it does not hold, or when its fold and race weights are 0), as its turn weighs it."""
    cdef Ctx c
    init_ctx(&c, st, s, drawn, -1)
    memcpy(risk, c.risk, 34 * sizeof(double))


cdef void ev_discard_scores(HandState* st, int s, int drawn, double* scores) noexcept nogil:
    """scores[k]: the score ev's turn gives seat s's discard of k (EV after danger; NEG for
    kinds it does not hold or does not weigh: folding discards while nobody threatens)."""
    cdef Ctx c
    cdef int k, best_k
    for k in range(34):
        scores[k] = NEG
    init_ctx(&c, st, s, drawn, -1)
    best_discard(&c, st.seat[s].hand, &st.seat[s].mi, &best_k, scores)


cdef int ev_turn(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                 int drawn, int* tile) noexcept nogil:
    cdef Ctx c
    cdef SeatState* p = &st.seat[s]
    cdef MeldInfo mi
    cdef int i, k, q, taken, best_k
    cdef double now, v, gain
    if n_kongs and is_anhua(st):
        # a legal Anhua kong keeps the hand tenpai, and its 補章 is three more tiles to win on
        tile[0] = kinds[0]
        return types[0]
    if p.locked:
        tile[0] = drawn
        return ACT_DISCARD
    init_ctx(&c, st, s, drawn, -1)
    now = best_discard(&c, p.hand, &p.mi, &best_k, NULL)
    for i in range(n_kongs):
        k = kinds[i]
        gain = 0
        taken = meld_after_own_kong(p, k, types[i] == ACT_CONCEALED_KONG, &mi)
        p.hand[k] -= taken
        # the kong's tiles stay out of the unseen counts: hidden for a concealed kong, on the table for an added one
        if taken == 4:
            p.hidden[k] += 4
        else:
            st.seen[k] += 1
        v = eval13(&c, p.hand, &mi)
        if taken == 4:
            p.hidden[k] -= 4
        else:
            st.seen[k] -= 1
        p.hand[k] += taken
        for q in range(1, 4):
            gain += pay(&c, (s + q) & 3, s, st.cfg.kong_values[KONG_CONCEALED if types[i] == ACT_CONCEALED_KONG
                                                           else KONG_ADDED], False)
        if v + gain + c.o[OPT_KONG] >= now:
            tile[0] = k
            return types[i]
    tile[0] = best_k
    return ACT_DISCARD


cdef inline bint serves_form(const SeatState* p, int tile, const Call* call, int lead) noexcept nogil:
    """Does a Wanzai claim build toward a form worth a shanten: a pung or kong while no chow
    is shown (大七對), or a meld in the hand's lead suit (清一色)?"""
    if call.type != CALL_CHOW and not p.mi.has_chow:
        return True
    return lead >= 0 and tile < 27 and tile // 9 == lead


cdef int ev_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil:
    cdef Ctx c
    cdef SeatState* p = &st.seat[s]
    cdef MeldInfo mi
    cdef int i, q, s0, s1, k, best = -1
    cdef double v, best_v = NEG, now, safest, risk = 0, stretch, weight
    cdef int lead
    cdef bint ready = False
    if st.cfg.player_opts[s][OPT_CLAIM] <= 0:
        return -1
    s0 = hand_shanten(st, p.hand, &p.mi)
    stretch = 0.0 if is_anhua(st) else st.cfg.player_opts[s][OPT_STRETCH]
    lead = lead_suit(p.hand, &p.mi) if stretch > 0 else -1
    for i in range(n):
        meld_after_call(p, tile, &calls[i], &mi)
        take_call_tiles(p.hand, tile, &calls[i], -1)
        s1 = hand_shanten(st, p.hand, &mi)
        weight = 1.0
        if s1 == s0 + 1 and stretch > 0 and serves_form(p, tile, &calls[i], lead):
            weight = stretch
            s1 = s0
        if s1 <= s0:
            if calls[i].type == CALL_KONG and is_anhua(st):
                take_call_tiles(p.hand, tile, &calls[i], 1)
                return i        # tenpai kept (the kong rule) and a 補章 to win on
            if not ready:
                init_ctx(&c, st, s, -2, tile)
                # the triplets of the whole hand: this call's tiles are out of it just now
                take_call_tiles(p.hand, tile, &calls[i], 1)
                c.kong_kinds = triplet_kinds(&c)
                take_call_tiles(p.hand, tile, &calls[i], -1)
                ready = True
            take_call_tiles(st.seen, tile, &calls[i], 1)   # the tiles shown in the meld
            if calls[i].type == CALL_KONG:
                v = eval13(&c, p.hand, &mi)
                for q in range(1, 4):
                    v += pay(&c, (s + q) & 3, s, st.cfg.kong_values[KONG_EXPOSED], False) / 3
                v += c.o[OPT_KONG]
            else:
                v = best_discard(&c, p.hand, &mi, &k, NULL)
            take_call_tiles(st.seen, tile, &calls[i], -1)
            if weight != 1.0:
                v = v * weight if v > 0 else v / weight
            if v > best_v:
                best_v = v
                best = i
        take_call_tiles(p.hand, tile, &calls[i], 1)
    if best < 0:
        return -1
    # not claiming, the seat still discards after its next draw: charge it the danger of
    # its safest tile now, as the claim's best discard was charged its own
    now = eval13(&c, p.hand, &p.mi)
    if c.defend:
        safest = 1e30
        for k in range(34):
            if p.hand[k] and c.cost[k] < safest:
                safest = c.cost[k]
                risk = c.risk[k]
        now = now * (1 - risk) - fold_weight(&c) * safest
    return best if best_v - now > (1 / c.o[OPT_CLAIM] - 1) * (now if now > 0 else -now) else -1


cdef bint holds_for_more(HandState* st, int s) noexcept nogil:
    """Wanzai, OPT_HOLD > 0: pass a win on a discard when the ready hand's own EV is more than
    OPT_HOLD times what the win brings now.  A discard win is paid by one seat, a self-draw
    by all three (十三爛 2 against 3 x 2), so a ready hand with many waits may be worth
    more kept; the 漏胡 lock that follows a pass is what OPT_HOLD's margin pays for."""
    cdef Ctx c
    cdef Forms F
    cdef SeatState* p = &st.seat[s]
    cdef int f
    cdef double now = 0
    if is_anhua(st) or st.cfg.player_opts[s][OPT_HOLD] <= 0:
        return False
    init_values(&c, st, s)
    form_stats(&c, p.hand, &p.mi, &F)
    for f in range(N_FORMS):
        if F.ok[f] and F.d[f] == 0 and c.wz[f][1] > now:
            now = c.wz[f][1]
    return now > 0 and forms_value(&c, &F) > c.o[OPT_HOLD] * now


cdef bint ev_takes_win(HandState* st, int s, int kind) noexcept nogil:
    """Every win is taken (RULES §1: default policies take every legal win), but a Wanzai
    discard win held for more when OPT_HOLD > 0 (holds_for_more), and, when OPT_START is
    on, a special start whose sure payment is worth less than the hand's EV."""
    cdef Ctx c
    cdef SeatState* p = &st.seat[s]
    cdef int k, n = 0
    cdef double sure, later
    if kind == WIN_DISCARD:
        return not holds_for_more(st, s)
    if kind != WIN_INSTANT or st.cfg.player_opts[s][OPT_START] <= 0:
        return True
    init_ctx(&c, st, s, -2, -1)
    # in units of base, as `later` is valued (the cap too): play must not depend on base,
    # which only scales payments (RULES §1 Units)
    sure = st.cfg.instant_score
    if st.cfg.score_cap and sure > st.cfg.score_cap / <double>st.cfg.ev.base:
        sure = st.cfg.score_cap / <double>st.cfg.ev.base
    for k in range(34):
        n += p.hand[k]
    later = best_discard(&c, p.hand, &p.mi, &k, NULL) if n % 3 == 2 else eval13(&c, p.hand, &p.mi)
    return 3 * sure >= later

# ================================================================ test and fit shim

include "_ev_shim.pxi"
