# cython: language_level=3
"""The wall (RULES §1): shuffle, two dice, table-model or flat dealing, head/tail draws.

The table model is turned into one draw-order array at build time: the ring of stacks is
rotated so that position 0 is the top of the stack where live drawing starts. Live draws
then move forward from the front and replacement draws move backward from the end, stack
by stack, top tile first. Both skip positions already taken (the two ends meet in the
middle of a stack near the end of a hand), and `left` counts what is still there.
"""
from libc.stdint cimport uint8_t
from libc.string cimport memset, memcpy
import numpy as np
cimport numpy as cnp

from mjsim.core._rng cimport Rng, rng_seed, rng_below

cnp.import_array()


cdef extern from "_tiles.h":
    const uint8_t mjsim_ordered_tiles[136]


cdef void fill_tiles(uint8_t* tiles, int n) noexcept nogil:
    """Kinds in order, four copies each: 136 tiles use all 34 kinds, 108 only the suits."""
    memcpy(tiles, mjsim_ordered_tiles, n)


cdef void shuffle_tiles(uint8_t* tiles, int n, Rng* r) noexcept nogil:
    """Fisher-Yates, last position first."""
    # the generator works on a local copy: a byte store through `tiles` may alias *r, so
    # with r itself the compiler would reload and store the state around every swap
    cdef Rng g = r[0]
    cdef int i, j
    cdef uint8_t t
    for i in range(n - 1, 0, -1):
        j = rng_below(&g, i + 1)
        t = tiles[i]
        tiles[i] = tiles[j]
        tiles[j] = t
    r[0] = g


cdef int throw_dice(Rng* r, int* dice) noexcept nogil:
    dice[0] = 1 + rng_below(r, 6)
    dice[1] = 1 + rng_below(r, 6)
    return dice[0] + dice[1]


cdef int seat_wall_start(int n, int seat) noexcept nogil:
    """First physical stack of seat's wall: 17 stacks each (136), or 14,13,14,13 (108)."""
    if n == 136:
        return 17 * seat
    # 14 + 13 stacks per pair of seats
    return 27 * (seat >> 1) + 14 * (seat & 1)


cdef int dice_wall(int dealer, int dice_sum) noexcept nogil:
    """Whose wall the dice choose: odd -> 對家, 4/8/12 -> 上家, 2/6/10 -> 下家."""
    if dice_sum & 1:
        return (dealer + 2) & 3
    if dice_sum % 4 == 0:
        return (dealer + 3) & 3
    return (dealer + 1) & 3


cdef void wall_build(Wall* w, const uint8_t* physical, int n, int model, int dealer,
                     int dice_sum) noexcept nogil:
    """physical: tiles in ring order, position 2*stack (top) and 2*stack + 1 (bottom)."""
    cdef int offset
    w.n = n
    w.model = model
    memset(w.taken, 0, MAX_WALL)
    if model == WALL_TABLE:
        # the first dice_sum stacks of the chosen wall are passed over
        w.start_stack = (seat_wall_start(n, dice_wall(dealer, dice_sum)) + dice_sum) % (n // 2)
        # the ring rotated to start at that stack: two copies, no modulo per tile
        offset = 2 * w.start_stack
        memcpy(w.tiles, physical + offset, n - offset)
        memcpy(w.tiles + (n - offset), physical, offset)
    else:
        w.start_stack = 0
        memcpy(w.tiles, physical, n)
    w.head = 0
    w.rep = 0
    w.left = n


cdef void wall_deal(Wall* w, int dealer, uint8_t dealt[4][14]) noexcept nogil:
    """dealt[seat]: 14 tiles for the dealer, 13 (and an unused slot) for the others."""
    cdef int r, j, seat, k, base
    cdef int got[4]
    got[0] = got[1] = got[2] = got[3] = 0
    if w.model == WALL_TABLE:
        # three rounds, dealer first, two stacks (4 tiles) per player per round
        for r in range(3):
            for j in range(4):
                seat = (dealer + j) & 3
                base = 4 * (4 * r + j)
                for k in range(4):
                    dealt[seat][got[seat]] = wall_take(w, base + k)
                    got[seat] += 1
        # 跳牌: dealer tops of the 1st and 3rd next stacks, 下家 bottom of the 1st,
        # 對家 top of the 2nd, 上家 bottom of the 2nd
        dealt[dealer][12] = wall_take(w, 48)
        dealt[(dealer + 1) & 3][12] = wall_take(w, 49)
        dealt[(dealer + 2) & 3][12] = wall_take(w, 50)
        dealt[(dealer + 3) & 3][12] = wall_take(w, 51)
        dealt[dealer][13] = wall_take(w, 52)
    else:
        base = 0
        for j in range(4):
            seat = (dealer + j) & 3
            for k in range(14 if j == 0 else 13):
                dealt[seat][k] = wall_take(w, base)
                base += 1
    w.head = DEALT
    for j in range(4):
        if j != dealer:
            dealt[j][13] = 255


cdef inline int _replacement_pos(const Wall* w, int k) noexcept nogil:
    if w.model == WALL_TABLE:
        # last stack first, its top before its bottom
        return (w.n // 2 - 1 - k // 2) * 2 + (k & 1)
    return w.n - 1 - k


cdef int draw_replacement(Wall* w) noexcept nogil:
    """Next tile from the tail, or -1 when the wall is empty."""
    cdef int pos
    if w.left <= 0:
        return -1
    pos = _replacement_pos(w, w.rep)
    while w.taken[pos]:
        w.rep += 1
        pos = _replacement_pos(w, w.rep)
    w.rep += 1
    return wall_take(w, pos)


# ---------------------------------------------------------------- test shims

def _model_code(str model):
    if model not in ("table", "flat"):
        raise ValueError(f"wall model must be 'table' or 'flat', got {model!r}")
    return WALL_TABLE if model == "table" else WALL_FLAT


def deal_positions(str model, int dealer, int dice_sum, int n=136, int replacements=0):
    """Which physical positions (2*stack + 0 top / 1 bottom) go where, for a wall of n.

    -> (hands: 4 lists in dealing order, live: positions in live draw order after the
    deal, tail: the first `replacements` positions drawn as replacements, taken before
    any live draw).
    """
    cdef Wall w
    cdef uint8_t physical[MAX_WALL]
    cdef uint8_t dealt[4][14]
    cdef int i, t
    if n not in (136, 108):
        raise ValueError("n must be 136 or 108")
    if not 0 <= dealer < 4 or not 2 <= dice_sum <= 12:
        raise ValueError("dealer must be 0..3 and dice_sum 2..12")
    for i in range(n):
        physical[i] = i  # positions stand in for tiles
    wall_build(&w, physical, n, _model_code(model), dealer, dice_sum)
    wall_deal(&w, dealer, dealt)
    hands = [[dealt[s][i] for i in range(14 if s == dealer else 13)] for s in range(4)]
    tail = []
    for i in range(replacements):
        tail.append(draw_replacement(&w))
    live = []
    while True:
        t = draw_live(&w)
        if t < 0:
            break
        live.append(t)
    return hands, live, tail


def opening_counts(unsigned long long seed, unsigned long long start, Py_ssize_t count,
                   str model, int dealer=0, int n=136):
    """(count, 4, 34) uint8 opening hands of shuffled n-tile walls (136 or 108), for
    statistics."""
    if n not in (136, 108):
        raise ValueError("n must be 136 or 108")
    cdef int code = _model_code(model)
    cdef Rng r
    cdef Wall w
    cdef uint8_t physical[MAX_WALL]
    cdef uint8_t dealt[4][14]
    cdef int dice[2]
    cdef int s, k, d
    cdef Py_ssize_t h
    out = np.zeros((count, 4, 34), dtype=np.uint8)
    cdef uint8_t[:, :, ::1] v = out
    with nogil:
        for h in range(count):
            rng_seed(&r, seed, start + h)
            fill_tiles(physical, n)
            shuffle_tiles(physical, n, &r)
            d = throw_dice(&r, dice)
            wall_build(&w, physical, n, code, dealer, d)
            wall_deal(&w, dealer, dealt)
            for s in range(4):
                for k in range(14 if s == dealer else 13):
                    v[h, s, dealt[s][k]] += 1
    return out
