# cython: language_level=3
"""The Python face of the hand loop: a validated configuration and four players
(`NativeGame`, built by mjsim.game), playing one hand into a record or a chunk of hands
into numpy columns, in nogil loops."""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, int64_t, uint64_t
from libc.string cimport memset, memcpy

from mjsim.core cimport _eval
from mjsim.core._state cimport *
from mjsim.core._wall cimport MAX_WALL, live_left
from mjsim.core._config cimport fill_game_config
from mjsim.core._loop cimport play_hand, start_session, next_session_state

cnp.import_array()


# ================================================================ Python face

cdef class NativeGame:
    """A validated configuration (Wanzai or Anhua) and four players (built by mjsim.game).

    `players` holds a built-in player code per seat, or a Python player object
    (PLAYER_PYTHON is then used for that seat).
    """
    def __init__(self, dict config, players, player_opts=None):
        """`config`: the rule set's native_config(rules) (mjsim.rulesets.native)."""
        cdef int i, j
        fill_game_config(&self.cfg, config)
        for i, opts in enumerate(player_opts or ()):
            for j in range(min(len(opts), N_PLAYER_OPTS)):
                self.cfg.player_opts[i][j] = opts[j]
        self.py_context = (tuple(None if isinstance(x, int) else x for x in players), [])
        self.cfg.py_context = <void*>self.py_context
        if len(players) != 4:
            raise ValueError(f"four players, got {len(players)}")
        for i in range(4):
            code = players[i] if isinstance(players[i], int) else PLAYER_PYTHON
            if not 0 <= code <= PLAYER_PYTHON:
                raise ValueError(f"seat {i}: no built-in player has code {code}")
            self.cfg.players[i] = code

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
            end=st.end, next_dealer=st.next_dealer, draws=st.draws, live_draws=st.live_draws,
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


def _pay_arrays(Py_ssize_t n):
    return dict(hand_index=np.zeros(n, np.int64), payer=np.zeros(n, np.int8),
                receiver=np.zeros(n, np.int8), amount=np.zeros(n, np.int64),
                reason=np.zeros(n, np.int8), pattern=np.zeros(n, np.int16))

