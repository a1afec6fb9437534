# Per-group lookup tables shared by the evaluator, the players and the game loop.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, int32_t

cdef enum:
    N_KINDS = 34
    N_SUITED = 27
    SUIT_KINDS = 9
    HONOR_KINDS = 7
    SUIT_SIZE = 1953125      # 5**9 base-5 count vectors of one suit
    HONOR_SIZE = 78125       # 5**7 for the seven honors (Wanzai)
    MAX_MELDS = 4
    N_PAIR = 3               # pair column: 0 none, 1 any pair, 2 a 2/5/8 pair
    DIST_STRIDE = 16         # bytes per entry of the distance table (15 used)
    INF = 99

# dist[idx*16 + m*3 + p]: fewest tiles to add to a sub-multiset of the group so that it
# forms m melds plus (p>0) one pair.  need[idx*4 + p]: fewest jokers to add so that ALL of
# the group's tiles form melds plus (p>0) a pair (INF when impossible with <= 4 melds);
# need[idx*4 + 3]: the largest 十三爛-compatible subset (suits) or distinct kinds (honors).
#
# masks[rank[idx]] (entries of at most 14 tiles; rank -1 beyond): per target t = m*3+p,
# nec[t] = kinds (bit i = the group's kind i) one more of which lowers dist[t] by one
# (none for a kind held 4 times or an entry of 14 tiles), unn[t] = kinds held one fewer of
# which keeps dist[t].  `form` packs the other hand forms' per-group facts: bits 0-8 the
# kinds one more of which grows need[3] (十三爛), 9-17 the kinds held one fewer of which keep
# it, 18-20 the pairs (count // 2 summed), 21-24 the odd counts, 25-28 need[3] itself.
ctypedef struct MaskEntry:
    uint16_t nec[15]
    uint16_t unn[15]
    uint32_t form

#
# facts[idx]: the hand loop's per-group facts (_seat.pxd), one byte per entry: bit 0
# need[0] == 0 (the tiles are exactly melds), bit 1 need[1] == 0 (melds and a pair), bit 2
# need[2] == 0 (melds and a 2/5/8 pair), bit 3 need[3] equals the tile count (十三爛-
# compatible as a whole), bit 4 the group holds a tile.
ctypedef struct GroupTable:
    uint8_t* dist
    uint8_t* need
    int32_t size
    int32_t* rank
    MaskEntry* masks
    uint8_t* facts

ctypedef struct Tables:
    GroupTable suit
    GroupTable honor
    const uint8_t* group_facts[4]   # facts of groups 0..3: the suit table thrice, then honors

cdef const Tables* tables() noexcept nogil


cdef inline int need_of_rows(const uint8_t** rows, int n_groups, int pt) noexcept nogil:
    """Fewest jokers making every tile part of melds + one pair (pair column pt), from the
    groups' need rows: each group is completed on its own; exactly one group (or two
    jokers) holds the pair."""
    cdef int g, total = 0, forced = 0, pair_delta = 2
    cdef const uint8_t* e
    for g in range(n_groups):
        e = rows[g]
        if e[0] == INF:
            if e[pt] == INF or forced:
                return INF
            forced = 1  # this group can only be completed around the pair
            total += e[pt]
        else:
            total += e[0]
            if e[pt] != INF and e[pt] - e[0] < pair_delta:
                pair_delta = e[pt] - e[0]
    return total if forced else total + pair_delta

cdef inline int32_t suit_index(const uint8_t* c) noexcept nogil:
    return (c[0] + 5 * (c[1] + 5 * (c[2] + 5 * (c[3] + 5 * (c[4] + 5 * (c[5]
            + 5 * (c[6] + 5 * (c[7] + 5 * c[8]))))))))

cdef inline int32_t honor_index(const uint8_t* c) noexcept nogil:
    return c[0] + 5 * (c[1] + 5 * (c[2] + 5 * (c[3] + 5 * (c[4] + 5 * (c[5] + 5 * c[6])))))
