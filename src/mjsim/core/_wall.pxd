# The wall: shuffle, dice and dealing (RULES §1), live draws from the head and
# replacement draws from the tail.
from libc.stdint cimport uint8_t
from mjsim.core._rng cimport Rng

cdef enum:
    WALL_TABLE = 0          # ring of stacks of two, dice choose where drawing starts
    WALL_FLAT = 1           # plain list: deal from the front, replacements from the back
    MAX_WALL = 136
    DEALT = 53              # 14 + 3 * 13 tiles leave the wall in the deal

ctypedef struct Wall:
    uint8_t tiles[MAX_WALL]     # tiles in draw order (table: ring order from the live start)
    uint8_t taken[MAX_WALL]     # 1 once a position has left the wall
    int n                       # tiles in play: 136 (Wanzai) or 108 (Anhua)
    int model
    int start_stack             # table model: physical stack where live drawing starts
    int head                    # next position a live draw looks at
    int rep                     # replacement draws looked at so far (counted from the back)
    int left                    # positions not yet taken

cdef void fill_tiles(uint8_t* tiles, int n) noexcept nogil
cdef void shuffle_tiles(uint8_t* tiles, int n, Rng* r) noexcept nogil
cdef int throw_dice(Rng* r, int* dice) noexcept nogil
cdef int seat_wall_start(int n, int seat) noexcept nogil
cdef int dice_wall(int dealer, int dice_sum) noexcept nogil
cdef void wall_build(Wall* w, const uint8_t* physical, int n, int model, int dealer,
                     int dice_sum) noexcept nogil
cdef void wall_deal(Wall* w, int dealer, uint8_t dealt[4][14]) noexcept nogil
cdef int draw_replacement(Wall* w) noexcept nogil


cdef inline uint8_t wall_take(Wall* w, int pos) noexcept nogil:
    w.taken[pos] = 1
    w.left -= 1
    return w.tiles[pos]


# inline: the hand loop draws a live tile about 80 times a hand
cdef inline int draw_live(Wall* w) noexcept nogil:
    """Next tile from the head, or -1 when the wall is empty."""
    cdef int t
    if w.left <= 0:
        return -1
    while w.taken[w.head]:
        w.head += 1
    # past the tile taken: the next draw does not look at it again (head reaches n only
    # once every position is taken, and then left is 0)
    t = wall_take(w, w.head)
    w.head += 1
    return t
cdef inline int live_left(const Wall* w) noexcept nogil:
    return w.left
