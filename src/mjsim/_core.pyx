# cython: language_level=3
"""Python face of the native core.

Thin `def` wrappers that copy Python inputs into fixed-size C arrays once and call the
nogil functions of _eval.pyx; batch entry points loop over numpy rows without the GIL.
Validation of user input with messages for a person happens in engine.py. The wrappers
still check, at their top, every argument that would index a C array (counts, kinds, meld
numbers, contexts, table sizes), so that no call from Python can read or write out of
bounds: a bad argument is a ValueError, never a crash. The batch row check runs here only
(engine.py relies on it), fused into the batch loops: each row is checked just before it is
evaluated.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t, uint32_t, int32_t, int8_t, uint64_t
from libc.string cimport memset

from mjsim.core cimport _eval
from mjsim.core._eval cimport EvalConfig, MeldInfo, EvalResult
from mjsim.core._tables cimport N_KINDS
from mjsim.core._config cimport fill_eval_config

from mjsim.core._game import NativeGame      # playing hands: the loop's Python face

cnp.import_array()

from mjsim.vocab import PATTERNS, PROPERTIES, CATEGORY_NAMES as CATEGORIES, CONTEXT_NAMES as CONTEXTS
assert len(PATTERNS) == _eval.N_PATTERNS and len(PROPERTIES) == _eval.N_PROPERTIES


def property_names(uint32_t bits):
    return frozenset(PROPERTIES[i] for i in range(len(PROPERTIES)) if bits & (1u << i))


cdef class CoreConfig:
    """The rule parameters the evaluator reads, as a C struct, from the rule set's
    eval_config(rules) (mjsim.rulesets.native; engine.core_config builds it)."""
    cdef EvalConfig cfg

    def __init__(self, dict config):
        fill_eval_config(&self.cfg, config)


cdef void _fill_counts(uint8_t* out, counts) except *:
    cdef int i
    for i in range(N_KINDS):
        out[i] = counts[i]


cdef void _fill_melds(MeldInfo* mi, melds) except *:
    """melds: (n, has_chow, has_concealed_kong, suit_mask, counts34)"""
    mi.n, mi.has_chow, mi.has_concealed_kong, mi.suit_mask = melds[0], melds[1], melds[2], melds[3]
    _fill_counts(mi.counts, melds[4])


def _check_hand(CoreConfig config, counts, melds, int indicator, int sizes):
    """The arguments every hand wrapper indexes with: counts, melds, the indicator."""
    cdef int k, v, total = 0
    if len(counts) != N_KINDS:
        raise ValueError(f"counts must hold {N_KINDS} tile counts, got {len(counts)}")
    for k in range(N_KINDS):
        v = counts[k]
        if not 0 <= v <= 4:
            raise ValueError(f"counts[{k}] = {v} is outside 0..4")
        total += v
    if len(melds) != 5 or len(melds[4]) != N_KINDS:
        raise ValueError("melds must be (n, has_chow, has_concealed_kong, suit_mask, counts34)")
    if not 0 <= melds[0] <= 4 or not 0 <= melds[3] <= 15:
        raise ValueError(f"melds: n {melds[0]} must be 0..4 and suit_mask {melds[3]} 0..15")
    for k in range(N_KINDS):
        v = melds[4][k]
        if not 0 <= v <= 4 or v + counts[k] > 4:
            raise ValueError(f"melds hold {v} of kind {k}: more than 4 copies with the hand")
    if total + 3 * melds[0] > 14 or total + 3 * melds[0] < sizes:
        raise ValueError(f"{total} concealed tiles with {melds[0]} melds is not a hand")
    if config.cfg.game == _eval.GAME_ANHUA:
        if not -1 <= indicator < 27:    # -1: tiles at face value (the players ask that too)
            raise ValueError(f"an Anhua indicator is a suited kind 0..26 or -1, got {indicator}")
        if any(counts[k] for k in range(27, N_KINDS)):
            raise ValueError("Anhua counts hold honors")
    elif indicator != -1:
        raise ValueError(f"Wanzai has no indicator: pass -1, got {indicator}")


def evaluate_hand(CoreConfig config, counts, melds, int win_tile, bint self_draw,
                  int indicator, int context):
    """-> (win, pattern code, property bits, points, category, hard)"""
    cdef uint8_t c[N_KINDS]
    cdef MeldInfo mi
    cdef EvalResult r
    _check_hand(config, counts, melds, indicator, 14)
    if not -1 <= win_tile < N_KINDS or (win_tile >= 0 and not counts[win_tile]):
        raise ValueError(f"win_tile {win_tile} must be -1 or a kind held in the hand")
    if not 0 <= context <= 3:
        raise ValueError(f"context must be 0..3, got {context}")
    _fill_counts(c, counts)
    _fill_melds(&mi, melds)
    _eval.evaluate(&config.cfg, c, &mi, win_tile, self_draw, indicator, context, &r)
    return bool(r.win), r.pattern, r.props, r.points, r.category, bool(r.hard)


def shanten_hand(CoreConfig config, counts, melds, int indicator):
    cdef uint8_t c[N_KINDS]
    cdef MeldInfo mi
    _check_hand(config, counts, melds, indicator, 13)
    _fill_counts(c, counts)
    _fill_melds(&mi, melds)
    return _eval.shanten(&config.cfg, c, &mi, indicator)


def shanten_neighbours_hand(CoreConfig config, counts, melds, int indicator, int sign):
    """-> (shanten, [shanten after adding (sign +1) or removing (-1) one tile of each kind; 127 = impossible])"""
    cdef uint8_t c[N_KINDS]
    cdef int8_t out[N_KINDS]
    cdef MeldInfo mi
    _check_hand(config, counts, melds, indicator, 13)
    if sign not in (-1, 1):
        raise ValueError(f"sign must be +1 (add a tile) or -1 (remove one), got {sign}")
    _fill_counts(c, counts)
    _fill_melds(&mi, melds)
    base = _eval.shanten_neighbours(&config.cfg, c, &mi, indicator, sign, out)
    return base, [out[k] for k in range(N_KINDS)]


def mask_scan_hand(CoreConfig config, counts, melds, int indicator):
    """Test view of the mask pass on a 3n+2 hand -> None when the pass leaves the
    hand to shanten_neighbours, else (shanten, [shanten after discarding each kind; 127 =
    not held], {k: sorted kinds whose draw then lowers the shanten, for each discard k the
    pass answers: a non-wild kind that keeps the shanten})."""
    cdef uint8_t c[N_KINDS]
    cdef int8_t out[N_KINDS]
    cdef MeldInfo mi
    cdef _eval.DiscardScan s
    cdef uint64_t m
    cdef int k, a, b, sh
    _check_hand(config, counts, melds, indicator, 14)
    _fill_counts(c, counts)
    _fill_melds(&mi, melds)
    sh = _eval.discard_scan(&config.cfg, c, &mi, indicator, &s, out)
    if sh == _eval.SCAN_FALLBACK:
        return None
    _eval.wild_kinds(indicator, &a, &b)
    useful = {}
    for k in range(N_KINDS):
        if c[k] and (s.unn >> k) & 1 and k != a and k != b:
            m = _eval.discard_useful(&s, c, k)
            useful[k] = [j for j in range(N_KINDS) if (m >> j) & 1]
    return sh, [out[k] for k in range(N_KINDS)], useful


def useful_mask_hand(CoreConfig config, counts, melds, int indicator):
    """Test view of the mask pass on a 3n+1 hand -> None when it leaves the hand to
    shanten_neighbours, else (shanten, sorted kinds whose draw lowers it)."""
    cdef uint8_t c[N_KINDS]
    cdef MeldInfo mi
    cdef uint64_t m
    cdef int sh = 0
    _check_hand(config, counts, melds, indicator, 13)
    _fill_counts(c, counts)
    _fill_melds(&mi, melds)
    m = _eval.useful_mask(&config.cfg, c, &mi, indicator, &sh)
    if (m >> _eval.MASK_FALLBACK_BIT) & 1:
        return None
    return sh, [j for j in range(N_KINDS) if (m >> j) & 1]


def waits_hand(CoreConfig config, counts, melds, int indicator):
    cdef uint8_t c[N_KINDS]
    cdef uint8_t out[N_KINDS]
    cdef MeldInfo mi
    _check_hand(config, counts, melds, indicator, 13)
    _fill_counts(c, counts)
    _fill_melds(&mi, melds)
    _eval.waits(&config.cfg, c, &mi, indicator, out)
    return [k for k in range(N_KINDS) if out[k]]


cdef extern from "_rowcheck.h":
    ctypedef struct mjsim_row_rule:
        uint8_t cap[48]
        int lo
        unsigned span
    int MJSIM_ROW_SIMD
    bint mjsim_row_ok(const uint8_t* row, const mjsim_row_rule* r) noexcept nogil
    bint mjsim_row_ok_plain(const uint8_t* row, const mjsim_row_rule* r) noexcept nogil
    bint mjsim_row_ok_simd(const uint8_t* row, const mjsim_row_rule* r) noexcept nogil


cdef void _row_rule(mjsim_row_rule* r, int size_a, int size_b, int n_kinds, int indicator) noexcept nogil:
    """Caps and sizes of a batch's rows (size_a <= size_b; n_kinds 0..34; indicator -1..33)."""
    cdef int k
    memset(r, 0, sizeof(mjsim_row_rule))
    for k in range(n_kinds):
        r.cap[k] = 4
    if indicator >= 0 and r.cap[indicator] > 3:
        r.cap[indicator] = 3
    r.lo = size_a
    r.span = size_b - size_a


cdef int _row_problem(const uint8_t* row, int size_a, int size_b, int n_kinds, int indicator) noexcept nogil:
    """What is wrong with a row, in the order the messages name it: 1 a count over 4, 2 a kind
    the game does not use (Anhua's honors), 3 four of the indicator, 4 the size; 0 nothing."""
    cdef int k, total = 0, over = 0, extra = 0
    for k in range(N_KINDS):
        total += row[k]
        over |= row[k] > 4
    for k in range(n_kinds, N_KINDS):
        extra += row[k]
    if over:
        return 1
    if extra:
        return 2
    if indicator >= 0 and row[indicator] > 3:
        return 3
    if total != size_a and total != size_b:
        return 4
    return 0


def _problem_of(const uint8_t[:, ::1] counts, Py_ssize_t row, int size_a, int size_b, int n_kinds,
                int indicator):
    """_row_problem of a row the fast check refused (never 0: the two state the same rules)."""
    cdef int problem = _row_problem(&counts[row, 0], size_a, size_b, n_kinds, indicator)
    if not problem:
        raise AssertionError(f"mjsim_row_ok refused row {row}, which _row_problem accepts")
    return problem


def _check_arguments(const uint8_t[:, ::1] counts, int size_a, int size_b, int n_kinds, int indicator):
    if counts.shape[1] != N_KINDS:
        raise ValueError(f"counts must have {N_KINDS} columns, got {counts.shape[1]}")
    if not 0 <= n_kinds <= N_KINDS or not -1 <= indicator < N_KINDS:
        raise ValueError(f"n_kinds {n_kinds} must be 0..{N_KINDS} and indicator {indicator} -1..{N_KINDS - 1}")
    if not 0 <= size_a <= size_b <= 4 * N_KINDS:
        raise ValueError(f"sizes {size_a}, {size_b} must be 0 <= size_a <= size_b <= {4 * N_KINDS}")


def find_bad_row(const uint8_t[:, ::1] counts, int size_a, int size_b, int n_kinds, int indicator):
    """First row that breaks a batch's invariants -> (row, problem) or (-1, None).

    The same check the batch loops run on each row before evaluating it (they stop at
    the first bad row); this pass alone is for callers that only validate.
    """
    cdef Py_ssize_t n, i, bad = -1
    cdef mjsim_row_rule rule
    _check_arguments(counts, size_a, size_b, n_kinds, indicator)
    n = counts.shape[0]
    _row_rule(&rule, size_a, size_b, n_kinds, indicator)
    with nogil:
        for i in range(n):
            if not mjsim_row_ok(&counts[i, 0], &rule):
                bad = i
                break
    if bad < 0:
        return -1, None
    problem = _problem_of(counts, bad, size_a, size_b, n_kinds, indicator)
    return bad, ("count", "honor", "indicator", "size")[problem - 1]


def _rows_ok(const uint8_t[:, ::1] counts, int size_a, int size_b, int n_kinds, int indicator, bint simd):
    """Test view: the row check's verdict on every row (simd=False: the plain-C statement)."""
    cdef Py_ssize_t i, n
    cdef mjsim_row_rule rule
    _check_arguments(counts, size_a, size_b, n_kinds, indicator)
    n = counts.shape[0]
    _row_rule(&rule, size_a, size_b, n_kinds, indicator)
    out = np.zeros(n, dtype=np.bool_)
    cdef cnp.npy_bool[::1] out_v = out
    for i in range(n):
        if simd:
            out_v[i] = mjsim_row_ok_simd(&counts[i, 0], &rule)
        else:
            out_v[i] = mjsim_row_ok_plain(&counts[i, 0], &rule)
    return out


ROW_CHECK_SIMD = bool(MJSIM_ROW_SIMD)


cdef extern from "_build.h":
    int MJSIM_IS_DEBUG_BUILD

# True in the bounds-checked build (MJSIM_DEBUG=1 at build time): the CLI says so on stderr
DEBUG_BUILD = bool(MJSIM_IS_DEBUG_BUILD)


cdef int _batch_kinds(CoreConfig config, int indicator) except -1:
    """The kinds a batch's rows may hold, after checking the indicator for the game."""
    anhua = config.cfg.game == _eval.GAME_ANHUA
    if anhua and not -1 <= indicator < 27:
        raise ValueError(f"an Anhua indicator is a suited kind 0..26 or -1, got {indicator}")
    if not anhua and indicator != -1:
        raise ValueError(f"Wanzai has no indicator: pass -1, got {indicator}")
    return 27 if anhua else N_KINDS


def _raise_bad_row(const uint8_t[:, ::1] counts, Py_ssize_t row, int problem, int size_a, int size_b,
                   int indicator):
    """The ValueError engine.py shows for a row a batch loop must not see."""
    if problem == 1:
        raise ValueError(f"counts row {row} has a count outside 0..4 (only 4 copies of a tile exist)")
    if problem == 2:
        raise ValueError(f"counts row {row} holds honors; Anhua has none")
    if problem == 3:
        from mjsim.tiles import kind_name

        raise ValueError(f"counts row {row} holds 4 of the indicator {kind_name(indicator)}; only 3 remain")
    want = " or ".join(map(str, sorted({size_a, size_b})))
    raise ValueError(f"counts row {row} holds {sum(counts[row, k] for k in range(N_KINDS))} tiles; "
                     f"every row must hold {want}")


def check_batch(CoreConfig config, const uint8_t[:, ::1] counts, int size_a, int size_b, int indicator):
    """ValueError naming the first row a batch loop must not see (the batch loops run the
    same check fused into their own loop)."""
    row, problem = find_bad_row(counts, size_a, size_b, _batch_kinds(config, indicator), indicator)
    if row >= 0:
        _raise_bad_row(counts, row, ("count", "honor", "indicator", "size").index(problem) + 1,
                       size_a, size_b, indicator)


def evaluate_batch(CoreConfig config, const uint8_t[:, ::1] counts, bint self_draw, int indicator):
    """Evaluate N concealed 14-tile hands (no melds) -> (win, pattern, points) arrays."""
    cdef Py_ssize_t n = counts.shape[0], i, bad = -1
    cdef MeldInfo mi
    cdef EvalResult r
    cdef mjsim_row_rule rule
    cdef int n_kinds = _batch_kinds(config, indicator)
    _check_arguments(counts, 14, 14, n_kinds, indicator)
    _row_rule(&rule, 14, 14, n_kinds, indicator)
    win = np.zeros(n, dtype=np.bool_)
    pattern = np.full(n, -1, dtype=np.int8)
    points = np.zeros(n, dtype=np.int32)
    cdef cnp.npy_bool[::1] win_v = win
    cdef int8_t[::1] pattern_v = pattern
    cdef int32_t[::1] points_v = points
    memset(&mi, 0, sizeof(MeldInfo))
    with nogil:
        for i in range(n):
            # each row is checked just before it is evaluated; the first bad one ends the
            # batch with the error a separate pass would have raised, and no results (what
            # is wrong with it is worked out after the loop, which keeps the loop lean)
            if not mjsim_row_ok(&counts[i, 0], &rule):
                bad = i
                break
            _eval.evaluate(&config.cfg, &counts[i, 0], &mi, -1, self_draw, indicator,
                           _eval.CTX_NONE, &r)
            win_v[i] = r.win
            pattern_v[i] = r.pattern
            points_v[i] = r.points
    if bad >= 0:
        _raise_bad_row(counts, bad, _problem_of(counts, bad, 14, 14, n_kinds, indicator), 14, 14, indicator)
    return win, pattern, points


def shanten_batch(CoreConfig config, const uint8_t[:, ::1] counts, int indicator):
    """Shanten of N concealed 13- or 14-tile hands (no melds) -> int8 array."""
    cdef Py_ssize_t n = counts.shape[0], i, bad = -1
    cdef MeldInfo mi
    cdef mjsim_row_rule rule
    cdef int n_kinds = _batch_kinds(config, indicator)
    _check_arguments(counts, 13, 14, n_kinds, indicator)
    _row_rule(&rule, 13, 14, n_kinds, indicator)
    out = np.zeros(n, dtype=np.int8)
    cdef int8_t[::1] out_v = out
    memset(&mi, 0, sizeof(MeldInfo))
    with nogil:
        for i in range(n):
            if not mjsim_row_ok(&counts[i, 0], &rule):
                bad = i
                break
            out_v[i] = _eval.shanten(&config.cfg, &counts[i, 0], &mi, indicator)
    if bad >= 0:
        _raise_bad_row(counts, bad, _problem_of(counts, bad, 13, 14, n_kinds, indicator), 13, 14, indicator)
    return out
