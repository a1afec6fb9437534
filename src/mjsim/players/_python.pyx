# cython: language_level=3
"""The bridge to Python players.

A seat whose player is a Python object (mjsim.players.Player) is asked each decision
through the GIL.  The object sees a TableView of the live hand; `view.builtin(name)`
answers the pending question exactly as the native player `name` would (same RNG use),
so a Python wrapper of a built-in plays the identical hand.  An exception inside the
player stops the hand and is re-raised by NativeGame.
"""
from libc.string cimport memset, memcpy
from numbers import Integral

import numpy as np

from mjsim.core._state cimport (HandState, GameConfig, Call, CALL_CHOW, SRC_DRAW, PLAYER_PYTHON,
                                WIN_DISCARD, N_PLAYER_OPTS)
from mjsim.core cimport _eval
from mjsim.core._rng cimport Rng
from mjsim.core._hand cimport hand_shanten
from mjsim.players._builtin cimport builtin_turn, builtin_call, builtin_takes_win
from mjsim.players._search cimport sample_hidden, decision_rng
from mjsim.players._ev cimport ev_discard_risk
from mjsim.core._wall cimport live_left
from mjsim.vocab import PLAYERS, WIN_KIND_NAMES, TURN_NAMES, CALL_NAMES, MELD_NAMES
from mjsim.players.python import builtin_row

cdef enum:
    ASK_TURN = 0
    ASK_CALL = 1
    ASK_WIN = 2


cdef class TableView:
    """What seat `seat` may look at while deciding; valid only during the call."""
    cdef HandState* st
    cdef readonly int seat
    cdef int ask, tile, n, win_kind
    cdef const int* kinds
    cdef const int* types
    cdef const Call* calls
    cdef bint valid

    cdef void _check(self) except *:
        if not self.valid:
            raise RuntimeError("a TableView is only valid during the decision it was given for")

    @property
    def dealer(self):
        self._check()
        return self.st.dealer

    @property
    def hand(self):
        """This seat's concealed tiles as 34 counts."""
        self._check()
        return [self.st.seat[self.seat].hand[k] for k in range(34)]

    @property
    def seen(self):
        """Copies of each kind visible to everyone (discards and exposed melds)."""
        self._check()
        return [self.st.seen[k] for k in range(34)]

    @property
    def melds(self):
        """Per seat, the declared melds as (kind, [tiles]); concealed kongs included."""
        self._check()
        cdef int q, i, k
        return [[(MELD_NAMES[self.st.seat[q].melds[i].kind],
                  [self.st.seat[q].melds[i].tiles[k] for k in range(self.st.seat[q].melds[i].n)])
                 for i in range(self.st.seat[q].n_melds)] for q in range(4)]

    @property
    def discards(self):
        self._check()
        cdef int q, i
        return [[self.st.seat[q].discards[i] for i in range(self.st.seat[q].n_discards)] for q in range(4)]

    @property
    def wall_left(self):
        self._check()
        return live_left(&self.st.wall)

    @property
    def drawn(self):
        """On a turn: the tile just drawn (None after a claim or on the dealer's first turn).
        A locked hand (Anhua) must discard it unless it kongs."""
        self._check()
        return None if self.ask != ASK_TURN or self.tile < 0 else self.tile

    @property
    def wild_indicator(self):
        """Anhua: the turned-up tile's kind (None under Wanzai)."""
        self._check()
        return None if self.st.indicator < 0 else self.st.indicator

    @property
    def wilds(self):
        """Anhua: the two wild kinds (indicator kind, next rank); () under Wanzai."""
        self._check()
        return () if self.st.wild_a < 0 else (self.st.wild_a, self.st.wild_b)

    @property
    def locked(self):
        """Per seat: is its hand locked after a 補章 (Anhua)?"""
        self._check()
        return [bool(self.st.seat[q].locked) for q in range(4)]

    @property
    def passed_wins(self):
        """Discard wins this seat has let pass so far in this hand (漏胡: RULES pass_ron_lock)."""
        self._check()
        return self.st.seat[self.seat].passed_wins

    @property
    def scores(self):
        """Net score of each seat so far in this hand (kong payments)."""
        self._check()
        return [self.st.deltas[q] for q in range(4)]

    def shanten(self):
        """Shanten of this seat's concealed hand over every hand form (wilds as wilds)."""
        self._check()
        return hand_shanten(self.st, self.st.seat[self.seat].hand, &self.st.seat[self.seat].mi)

    def builtin(self, name):
        """The answer the built-in player `name` (as --players takes it: "ev_v1",
        "ev:fold=1", "search:samples=64") gives to the pending question."""
        self._check()
        code, row = builtin_row("anhua" if self.st.cfg.game == _eval.GAME_ANHUA else "wanzai", name)
        if row is None:
            return self._ask_builtin(code)
        # the seat's options row swapped for the call: a copy of the configuration, so the
        # game's own is never written to (other hands and seats read it)
        cdef GameConfig cfg = self.st.cfg[0]
        cdef const GameConfig* own = self.st.cfg
        cdef int j
        for j in range(N_PLAYER_OPTS):
            cfg.player_opts[self.seat][j] = row[j]
        self.st.cfg = &cfg
        try:
            return self._ask_builtin(code)
        finally:
            self.st.cfg = own

    cdef object _ask_builtin(self, int code):
        cdef int t = -1, action
        if self.ask == ASK_WIN:
            return bool(builtin_takes_win(self.st, self.seat, code, self.tile, self.win_kind))
        if self.ask == ASK_CALL:
            action = builtin_call(self.st, self.seat, code, self.tile, self.calls, self.n)
            return None if action < 0 else action
        action = builtin_turn(self.st, self.seat, code, self.n, self.kinds, self.types, self.tile, &t)
        return (TURN_NAMES[action], t)

    # ---- test shims for the search player's native entries (tests/test_search.py)

    def _tile_counts(self):
        """Copies of each kind over every place a tile can be (tile conservation)."""
        self._check()
        return _tile_counts(self.st)

    def _readiness(self):
        """Fit shim (bench/fit_search_readiness.py): per seat, (melds, discards made,
        shanten of its concealed hand).  The shanten of other seats is hidden information:
        this is for fitting the search's opponent model on self-play, never for a player."""
        self._check()
        cdef int q
        return [(self.st.seat[q].n_melds, self.st.seat[q].n_discarded,
                 hand_shanten(self.st, self.st.seat[q].hand, &self.st.seat[q].mi)) for q in range(4)]

    def _ev_risk(self):
        """Fit shim (bench/read_calibration.py): ev's estimate, per kind this seat holds, of
        the chance that discarding it now deals in (ev_discard_risk; 0 for kinds not held)."""
        self._check()
        cdef double risk[34]
        cdef int k
        ev_discard_risk(self.st, self.seat, self.tile, risk)
        return [risk[k] for k in range(34)]

    def _sample_hidden(self, unsigned long long sample, double read=0.0, int steps=0, int peek=0):
        """The live hand with the tiles this seat cannot see dealt afresh (_search's
        sample_hidden on stream `sample` of this decision) -> (concealed hands per seat,
        the wall's untaken tiles in position order, tile counts of the sample), or None
        when the sampler refuses."""
        self._check()
        cdef HandState out
        cdef Rng r
        cdef int q, k, i
        decision_rng(self.st, self.seat, sample, &r)
        if sample_hidden(self.st, self.seat, &out, &r, read, steps, peek) < 0:
            return None
        hands = [[out.seat[q].hand[k] for k in range(34)] for q in range(4)]
        wall = [out.wall.tiles[i] for i in range(out.wall.n) if not out.wall.taken[i]]
        return hands, wall, _tile_counts(&out)

    def _continue_as(self, str name, choice, bint others_claim=True):
        """Continue a copy of the live hand to its end with `choice` taken now (a turn
        option; at a claim the index of a call or None: play_on_discard, where the seats
        asked after this one may still claim a passed tile, unless not `others_claim`; at
        a win on a discard True or False: play_on_win) and the built-in `name` in every
        Python seat -> (deltas, end, winners, tile counts at the end).  The live hand is
        not touched."""
        self._check()
        cdef HandState copy
        cdef GameConfig cfg
        cdef int q
        if self.ask == ASK_WIN and self.win_kind != WIN_DISCARD:
            raise ValueError("_continue_as: only on a turn, a claim or a win on a discard")
        if self.ask == ASK_CALL and choice is not None and not 0 <= choice < self.n:
            raise ValueError(f"_continue_as: no call {choice!r}")
        memcpy(&copy, self.st, sizeof(HandState))
        memcpy(&cfg, self.st.cfg, sizeof(GameConfig))
        cfg.py_context = NULL
        for q in range(4):
            if cfg.players[q] == PLAYER_PYTHON:
                cfg.players[q] = PLAYERS.index(name)
        copy.cfg = &cfg
        copy.events = NULL
        if self.ask == ASK_WIN:
            copy.play_on_win(&copy, copy.last_discarder, self.tile, self.seat, bool(choice))
        elif self.ask == ASK_CALL:
            copy.play_on_discard(&copy, copy.last_discarder, self.tile,
                                 -1 if choice is None else self.seat, &self.calls[choice or 0],
                                 self.seat if others_claim else -1)
        else:
            copy.play_on(&copy, self.seat, SRC_DRAW, -1, TURN_NAMES.index(choice[0]), choice[1])
        return ([copy.deltas[q] for q in range(4)], copy.end,
                [copy.wins[q].winner for q in range(copy.n_winners)], _tile_counts(&copy))


cdef list _tile_counts(const HandState* st):
    """Per kind: concealed hands, melds, pools, the wall's untaken tiles, the indicator, the
    補章 tiles set aside and the birds: every copy of the game is in exactly one of them."""
    cdef int counts[34]
    cdef int q, k, i, j
    memset(counts, 0, sizeof(counts))
    for q in range(4):
        for k in range(34):
            counts[k] += st.seat[q].hand[k]
        for i in range(st.seat[q].n_melds):
            for j in range(st.seat[q].melds[i].n):
                counts[st.seat[q].melds[i].tiles[j]] += 1
        for i in range(st.seat[q].n_discards):
            counts[st.seat[q].discards[i]] += 1
    for i in range(st.wall.n):
        if not st.wall.taken[i]:
            counts[st.wall.tiles[i]] += 1
    if st.indicator >= 0:
        counts[st.indicator] += 1
    for i in range(st.n_aside):
        counts[st.aside[i]] += 1
    for i in range(st.n_birds):
        counts[st.birds[i]] += 1
    return [counts[k] for k in range(34)]


cdef TableView _view(HandState* st, int s, int ask):
    cdef TableView v = TableView.__new__(TableView)
    v.st = st
    v.seat = s
    v.ask = ask
    v.valid = True
    return v


cdef object _player(HandState* st, int s):
    return (<object>st.cfg.py_context)[0][s]


cdef void _fail(HandState* st, exc) noexcept:
    (<object>st.cfg.py_context)[1].append(exc)
    st.aborted = 1


cdef int python_turn(HandState* st, int s, int n_kongs, const int* kinds, const int* types,
                     int drawn, int* tile) noexcept nogil:
    cdef int i, k
    with gil:
        view = _view(st, s, ASK_TURN)
        view.n, view.kinds, view.types, view.tile = n_kongs, kinds, types, drawn
        options = [(TURN_NAMES[types[i]], kinds[i]) for i in range(n_kongs)]
        if st.seat[s].locked:
            options.append(("discard", drawn))   # a locked hand discards what it drew
        else:
            options += [("discard", k) for k in range(34) if st.seat[s].hand[k]]
        try:
            choice = _player(st, s).turn(view, options)
            # the kind an integer, not a bool or a float that equals one ("discard", True)
            if (not isinstance(choice, (tuple, list)) or tuple(choice) not in options
                    or isinstance(choice[1], bool) or not isinstance(choice[1], Integral)):
                raise ValueError(f"seat {s}: turn() returned {choice!r}, not one of {options}")
            choice = options[options.index(tuple(choice))]   # its own ints, not the answer's
        except BaseException as e:
            _fail(st, e)
            choice = options[len(options) - 1]   # (wraparound is off in this module)
        finally:
            view.valid = False
        tile[0] = choice[1]
        return TURN_NAMES.index(choice[0])


cdef int python_call(HandState* st, int s, int tile, const Call* calls, int n) noexcept nogil:
    cdef int i
    with gil:
        view = _view(st, s, ASK_CALL)
        view.tile, view.calls, view.n = tile, calls, n
        options = [(CALL_NAMES[calls[i].type],) + ((calls[i].a, calls[i].b) if calls[i].type == CALL_CHOW else ())
                   for i in range(n)]
        try:
            pick = _player(st, s).claim(view, tile, options)
            if pick is not None and (isinstance(pick, bool) or not isinstance(pick, Integral) or not 0 <= pick < n):
                raise ValueError(f"seat {s}: claim() returned {pick!r}; expected None or an index 0..{n - 1} "
                                 f"into options {options}")
            if pick is not None:
                pick = int(pick)       # a numpy integer too (np.argmax over the options)
        except BaseException as e:
            _fail(st, e)
            pick = None
        finally:
            view.valid = False
        return -1 if pick is None else pick


cdef bint python_takes_win(HandState* st, int s, int tile, int kind) noexcept nogil:
    with gil:
        view = _view(st, s, ASK_WIN)
        view.tile, view.win_kind = tile, kind
        try:
            take = _player(st, s).win(view, None if tile < 0 else tile, WIN_KIND_NAMES[kind])
            # True or False only: "no", 2 or None would be read by truth and decide silently
            if not isinstance(take, (bool, np.bool_)):
                raise ValueError(f"seat {s}: win() returned {take!r}; expected True (take the win) or False (pass)")
            take = bool(take)
        except BaseException as e:
            _fail(st, e)
            take = False
        finally:
            view.valid = False
        return take
