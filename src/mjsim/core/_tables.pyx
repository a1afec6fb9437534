# cython: language_level=3
"""Per-group distance tables, built once per machine (cached) and mapped by each process on import.

One general builder serves every group: a group is a list of kinds and the melds that can
be formed from them (suits: triplets and runs; Wanzai honors: triplets, any three winds,
中發白).  A block of the decomposition only ever matters through the tiles it already
holds (its *shape*); filling a meld costs 3 - len(shape) tiles and a pair 2 - len(shape).
Recursing on the lowest kind present visits every decomposition once, so the tables are
exact, and only count vectors of at most 14 tiles are filled (those are all a hand can hold).
"""
from mjsim.core import table_cache

from libc.stdlib cimport calloc, malloc
from libc.string cimport memcpy, memset
from libc.stdint cimport uint8_t, uint16_t, uint32_t, int32_t, uint64_t

from mjsim.core._masks cimport mjsim_plus_eq15

from mjsim.core._bits cimport mjsim_ctz64

cdef enum:
    MAX_SHAPES = 64
    MAX_HAND = 14

ctypedef struct Shape:
    int lowest
    int size
    int32_t offset      # index delta of removing the shape's tiles
    uint8_t kinds[3]
    uint8_t copies[3]   # how many times kinds[k] occurs in the shape

ctypedef struct GroupSpec:
    int n_kinds
    int n_shapes
    Shape shapes[MAX_SHAPES]
    int32_t pw[9]       # 5**kind: a kind's weight in the base-5 index
    uint8_t pair258[9]  # per kind: may be the 2/5/8 pair

cdef Tables _TABLES
cdef bint _BUILT = False


cdef const Tables* tables() noexcept nogil:
    return &_TABLES


cdef int _add_meld(GroupSpec* g, int x, int y, int z):
    """Add every distinct non-empty sub-multiset of the meld (x, y, z) as a shape."""
    cdef int meld[3]
    cdef int mask, j, n, k, dup
    cdef uint8_t ks[3]
    cdef Shape* s
    meld[0] = x; meld[1] = y; meld[2] = z
    for mask in range(1, 8):
        n = 0
        for j in range(3):
            if mask & (1 << j):
                ks[n] = meld[j]
                n += 1
        # kinds ascending so shapes compare by value
        for j in range(n):
            for k in range(j + 1, n):
                if ks[k] < ks[j]:
                    ks[j], ks[k] = ks[k], ks[j]
        dup = 0
        for j in range(g.n_shapes):
            s = &g.shapes[j]
            if s.size == n:
                dup = 1
                for k in range(n):
                    if s.kinds[k] != ks[k]:
                        dup = 0
                if dup:
                    break
        if dup:
            continue
        s = &g.shapes[g.n_shapes]
        g.n_shapes += 1
        s.size = n
        s.lowest = ks[0]
        s.offset = 0
        for k in range(n):
            s.kinds[k] = ks[k]
            s.offset += g.pw[ks[k]]
        for k in range(n):
            s.copies[k] = 0
            for j in range(n):
                s.copies[k] += ks[j] == ks[k]
    return 0


cdef GroupSpec _spec_with_triplets(int n_kinds):
    cdef GroupSpec g
    cdef int i
    memset(&g, 0, sizeof(g))
    g.n_kinds = n_kinds
    g.pw[0] = 1
    for i in range(1, n_kinds):
        g.pw[i] = g.pw[i - 1] * 5
    for i in range(n_kinds):
        _add_meld(&g, i, i, i)
    return g


cdef GroupSpec _suit_spec():
    cdef GroupSpec g = _spec_with_triplets(9)
    cdef int i
    for i in range(7):
        _add_meld(&g, i, i + 1, i + 2)
    g.pair258[1] = g.pair258[4] = g.pair258[7] = 1
    return g


cdef GroupSpec _honor_spec():
    """東南西北中發白: triplets, any three different winds, and 中發白 (RULES §2.1)."""
    cdef GroupSpec g = _spec_with_triplets(7)
    _add_meld(&g, 0, 1, 2)
    _add_meld(&g, 0, 1, 3)
    _add_meld(&g, 0, 2, 3)
    _add_meld(&g, 1, 2, 3)
    _add_meld(&g, 4, 5, 6)
    return g


cdef inline bint _fits(const Shape* s, const uint8_t* c) noexcept nogil:
    """The hand holds the shape's tiles (shapes may repeat a kind: two or three of a tile)."""
    cdef int k
    for k in range(s.size):
        if s.copies[k] > c[s.kinds[k]]:
            return False
    return True


cdef int _lan_of_mask(int mask) noexcept nogil:
    """Largest subset of the present ranks with pairwise gaps of at least 3."""
    cdef int best = 0, sub, i, last, n, ok
    sub = mask
    while True:
        last = -10
        n = 0
        ok = 1
        for i in range(9):
            if sub & (1 << i):
                if i - last < 3:
                    ok = 0
                    break
                last = i
                n += 1
        if ok and n > best:
            best = n
        if sub == 0:
            break
        sub = (sub - 1) & mask
    return best


cdef inline void _next_counts(uint8_t* c) noexcept nogil:
    """The next count vector in table-index order (a base-5 odometer, lowest kind first)."""
    cdef int i = 0
    while c[i] == 4:
        c[i] = 0
        i += 1
    c[i] += 1


cdef int _build_group(GroupTable* t, const GroupSpec* g, bint suit) except -1:
    cdef int32_t size = 1, idx
    cdef const int32_t* pw = g.pw
    cdef int i, m, p, lowest, total, j, sz, best, v, n_present, mask, target
    cdef uint8_t c[9]
    cdef uint8_t* d
    cdef uint8_t* e
    cdef const Shape* s
    cdef uint8_t lan_by_mask[512]
    for i in range(g.n_kinds):
        size *= 5
    t.size = size
    t.dist = <uint8_t*>calloc(<size_t>size * DIST_STRIDE, 1)
    t.need = <uint8_t*>calloc(<size_t>size * 4, 1)
    t.facts = <uint8_t*>calloc(<size_t>size, 1)
    if t.dist == NULL or t.need == NULL or t.facts == NULL:
        raise MemoryError("mjsim: cannot allocate lookup tables")
    for mask in range(512):
        lan_by_mask[mask] = _lan_of_mask(mask)
    memset(c, 0, sizeof(c))
    with nogil:
        for idx in range(size):
            if idx:
                _next_counts(c)
            total = 0
            lowest = -1
            for i in range(g.n_kinds):
                total += c[i]
                if lowest < 0 and c[i]:
                    lowest = i
            if total > MAX_HAND:
                continue
            d = t.dist + <size_t>idx * DIST_STRIDE
            for m in range(MAX_MELDS + 1):
                for p in range(N_PAIR):
                    if lowest < 0:
                        d[m * 3 + p] = 3 * m + (2 if p else 0)
                        continue
                    # the lowest tile is left out of every block ...
                    best = t.dist[<size_t>(idx - pw[lowest]) * DIST_STRIDE + m * 3 + p]
                    # ... or starts a meld shape ...
                    if m:
                        for j in range(g.n_shapes):
                            s = &g.shapes[j]
                            if s.lowest == lowest and _fits(s, c):
                                v = 3 - s.size + t.dist[<size_t>(idx - s.offset) * DIST_STRIDE + (m - 1) * 3 + p]
                                if v < best:
                                    best = v
                    # ... or the pair
                    if p == 1 or (p == 2 and suit and g.pair258[lowest]):
                        for sz in range(1, 3):
                            if sz <= c[lowest]:
                                v = 2 - sz + t.dist[<size_t>(idx - sz * pw[lowest]) * DIST_STRIDE + m * 3]
                                if v < best:
                                    best = v
                    d[m * 3 + p] = best
            e = t.need + <size_t>idx * 4
            for p in range(N_PAIR):
                best = INF
                for m in range(MAX_MELDS + 1):
                    target = 3 * m + (2 if p else 0)
                    if target >= total and d[m * 3 + p] == target - total:
                        best = target - total
                        break
                e[p] = best
            mask = 0
            n_present = 0
            for i in range(g.n_kinds):
                if c[i]:
                    mask |= 1 << i
                    n_present += 1
            e[3] = lan_by_mask[mask] if suit else n_present
            t.facts[idx] = ((e[0] == 0) | ((e[1] == 0) << 1) | ((e[2] == 0) << 2)
                            | ((e[3] == total) << 3) | ((total > 0) << 4))
    _build_masks(t, g, suit, lan_by_mask)
    return 0


cdef int _build_masks(GroupTable* t, const GroupSpec* g, bint suit,
                      const uint8_t* lan_by_mask) except -1:
    """The masks of every entry of at most 14 tiles, from the finished distances: a kind is
    necessary for a target when one more of it lowers the distance (by one: a tile moves a
    distance by at most one), unnecessary when one fewer keeps it.  Players then get the
    shanten after each discard and the useful draws of each from one pass over the groups
    (_eval.discard_scan)."""
    cdef int32_t idx, n_valid = 0, r
    cdef const int32_t* pw = g.pw
    cdef int i, j, tt, total, lan, present, nec_l, unn_l, pairs, odd, hits
    cdef uint8_t c[9]
    cdef const uint8_t* d
    cdef MaskEntry* me
    cdef uint16_t bit
    t.rank = <int32_t*>malloc(<size_t>t.size * sizeof(int32_t))
    if t.rank == NULL:
        raise MemoryError("mjsim: cannot allocate lookup tables")
    memset(c, 0, sizeof(c))
    with nogil:
        for idx in range(t.size):
            if idx:
                _next_counts(c)
            total = 0
            for i in range(g.n_kinds):
                total += c[i]
            if total > MAX_HAND:
                t.rank[idx] = -1
            else:
                t.rank[idx] = n_valid
                n_valid += 1
    t.masks = <MaskEntry*>calloc(<size_t>n_valid, sizeof(MaskEntry))
    if t.masks == NULL:
        raise MemoryError("mjsim: cannot allocate lookup tables")
    memset(c, 0, sizeof(c))
    with nogil:
        for idx in range(t.size):
            if idx:
                _next_counts(c)
            r = t.rank[idx]
            if r < 0:
                continue
            me = &t.masks[r]
            d = t.dist + <size_t>idx * DIST_STRIDE
            total = 0
            present = 0
            pairs = 0
            odd = 0
            for i in range(g.n_kinds):
                total += c[i]
                pairs += c[i] >> 1
                odd += c[i] & 1
                if c[i]:
                    present |= 1 << i
            for j in range(g.n_kinds):
                bit = <uint16_t>(1 << j)
                if c[j] < 4 and total < MAX_HAND:
                    hits = mjsim_plus_eq15(t.dist + <size_t>(idx + pw[j]) * DIST_STRIDE, d, 1)
                    while hits:
                        tt = mjsim_ctz64(hits)
                        hits &= hits - 1
                        me.nec[tt] |= bit
                if c[j]:
                    hits = mjsim_plus_eq15(t.dist + <size_t>(idx - pw[j]) * DIST_STRIDE, d, 0)
                    while hits:
                        tt = mjsim_ctz64(hits)
                        hits &= hits - 1
                        me.unn[tt] |= bit
            # 十三爛: the largest gap-3 subset of the present ranks (suits) or the number of
            # distinct honors; only presence matters, so a second copy can always go
            lan = t.need[<size_t>idx * 4 + 3]
            nec_l = 0
            unn_l = 0
            for j in range(g.n_kinds):
                if c[j] == 0:
                    if not suit or lan_by_mask[present | (1 << j)] > lan:
                        nec_l |= 1 << j
                elif c[j] >= 2 or (suit and lan_by_mask[present & ~(1 << j)] == lan):
                    unn_l |= 1 << j
            if total == MAX_HAND:
                nec_l = 0
            me.form = (<uint32_t>nec_l | (<uint32_t>unn_l << 9) | (<uint32_t>pairs << 18)
                       | (<uint32_t>odd << 21) | (<uint32_t>lan << 25))
    return 0


cdef int32_t _n_masks(const GroupTable* t) noexcept nogil:
    """Entries with masks: one past the largest rank (ranks count the valid entries)."""
    cdef int32_t i
    for i in range(t.size - 1, -1, -1):
        if t.rank[i] >= 0:
            return t.rank[i] + 1
    return 0


cdef uint64_t _checksum(const uint8_t* p, size_t n) noexcept nogil:
    """A multiply-xor hash over the bytes (8 at a time): cheap enough to check every load of
    the cache (~10 ms), and any flipped or lost byte changes it."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, w
    cdef size_t i
    for i in range(0, n - n % 8, 8):
        memcpy(&w, p + i, 8)
        h = (h ^ w) * 0x100000001B3ULL
        h ^= h >> 29
    for i in range(n - n % 8, n):
        h = (h ^ p[i]) * 0x100000001B3ULL
    return h


def _group_sizes(size, n_masks):
    """Byte lengths of one group's arrays (dist, need, rank, masks, facts), in file order."""
    return [size * DIST_STRIDE, size * 4, size * sizeof(int32_t), n_masks * sizeof(MaskEntry), size]


cdef void _point_group_facts() noexcept nogil:
    cdef int g
    for g in range(3):
        _TABLES.group_facts[g] = _TABLES.suit.facts
    _TABLES.group_facts[3] = _TABLES.honor.facts


cdef list _arrays():
    """(pointer address, byte length) of every table array, in file order."""
    cdef list out = []
    cdef GroupTable* t
    cdef int i
    for i in range(2):
        t = &_TABLES.suit if i == 0 else &_TABLES.honor
        addrs = [<size_t>t.dist, <size_t>t.need, <size_t>t.rank, <size_t>t.masks, <size_t>t.facts]
        out += zip(addrs, _group_sizes(t.size, _n_masks(t)))
    return out


def tables_checksum():
    """One number for the contents of every table (tests compare a cached load with a fresh
    build)."""
    cdef uint64_t h = 0
    cdef size_t addr, n
    for addr, n in _arrays():
        h = h * 31 + _checksum(<const uint8_t*>addr, n)
    return h


def _build():
    cdef GroupSpec spec
    spec = _suit_spec()
    _build_group(&_TABLES.suit, &spec, True)
    spec = _honor_spec()
    _build_group(&_TABLES.honor, &spec, False)
    _point_group_facts()


# ---------------------------------------------------------------- the per-machine cache
# The file itself (where, header, layout, atomic write, pruning) is table_cache.py's; here
# the arrays are written out and pointed into a mapped file.

_MAP = None          # the mapped cache file, kept open while its pages back the tables
SOURCE = None        # "built", "cache" or "built+saved": how this process got its tables


def cache_path():
    """This build's cache file, or None when caching is off (table_cache.cache_path)."""
    return table_cache.cache_path(__file__)


def _save(path):
    """Write the tables to `path` (whole or not at all)."""
    cdef size_t addr, n
    arrays = []
    for addr, n in _arrays():
        arrays.append(<const uint8_t[:n]><const uint8_t*>addr)
    header = table_cache.HEADER.pack(table_cache.MAGIC, table_cache.FORMAT, 0,
                                     table_cache.build_key(__file__), tables_checksum(),
                                     _TABLES.suit.size, _n_masks(&_TABLES.suit),
                                     _TABLES.honor.size, _n_masks(&_TABLES.honor))
    return table_cache.save(path, header, arrays)


def _load(path):
    """Point the tables into the mapped file if it is whole and made by this build; False
    (nothing changed) otherwise."""
    global _MAP
    cdef const uint8_t[::1] view
    cdef const uint8_t* base
    cdef GroupTable* t
    cdef GroupTable saved_suit = _TABLES.suit, saved_honor = _TABLES.honor
    opened = table_cache.open_mapped(path)
    if opened is None:
        return False
    mm, (magic, fmt, _, key, want, suit_size, suit_masks, honor_size, honor_masks) = opened
    if (magic != table_cache.MAGIC or fmt != table_cache.FORMAT or key != table_cache.build_key(__file__)
            or suit_size != SUIT_SIZE or honor_size != HONOR_SIZE):
        mm.close()
        return False
    offsets, total = table_cache.layout(_group_sizes(suit_size, suit_masks) + _group_sizes(honor_size, honor_masks))
    if len(mm) != total:
        mm.close()
        return False
    view = mm
    base = &view[0]
    for i, size in ((0, suit_size), (1, honor_size)):
        t = &_TABLES.suit if i == 0 else &_TABLES.honor
        t.size = size
        t.dist = <uint8_t*>(base + <size_t>offsets[5 * i])
        t.need = <uint8_t*>(base + <size_t>offsets[5 * i + 1])
        t.rank = <int32_t*>(base + <size_t>offsets[5 * i + 2])
        t.masks = <MaskEntry*>(base + <size_t>offsets[5 * i + 3])
        t.facts = <uint8_t*>(base + <size_t>offsets[5 * i + 4])
    if tables_checksum() != want:
        _TABLES.suit = saved_suit
        _TABLES.honor = saved_honor
        del view
        mm.close()
        return False
    _point_group_facts()
    _MAP = mm
    table_cache.touch(path)
    return True


def build_tables():
    """The tables, once per process: mapped from the per-machine cache when it holds this
    build's tables, else built (and saved there for the next process)."""
    global _BUILT, SOURCE
    if _BUILT:
        return
    path = cache_path()
    if path is not None and _load(path):
        SOURCE = "cache"
    else:
        _build()
        SOURCE = "built"
        if path is not None and _save(path):
            SOURCE = "built+saved"
    _BUILT = True


build_tables()
