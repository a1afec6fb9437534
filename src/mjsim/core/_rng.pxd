# Per-hand random numbers: xoshiro256** seeded through splitmix64 (Vigna & Blackman).
#
# Everything is inline and works on a state struct passed by pointer, so there is no
# global state and a hand's random stream depends only on (master seed, hand index).
from libc.stdint cimport uint64_t, uint32_t

ctypedef struct Rng:
    uint64_t s[4]

# 2^64 / golden ratio: spreads consecutive hand indices over the seed space.
cdef inline uint64_t _golden() noexcept nogil:
    return 0x9E3779B97F4A7C15ULL


cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    cdef uint64_t z
    x[0] += 0x9E3779B97F4A7C15ULL
    z = x[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng* r, uint64_t master_seed, uint64_t hand_index) noexcept nogil:
    """State = four splitmix64 outputs from master_seed ^ (hand_index * golden)."""
    cdef uint64_t x = master_seed ^ (hand_index * _golden())
    cdef int i
    # one extra mix so that (seed, index) pairs differing in few bits still diverge at once
    splitmix64(&x)
    for i in range(4):
        r.s[i] = splitmix64(&x)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    """xoshiro256** step."""
    cdef uint64_t result = _rotl(r.s[1] * 5, 7) * 9
    cdef uint64_t t = r.s[1] << 17
    r.s[2] ^= r.s[0]
    r.s[3] ^= r.s[1]
    r.s[1] ^= r.s[2]
    r.s[0] ^= r.s[3]
    r.s[2] ^= t
    r.s[3] = _rotl(r.s[3], 45)
    return result


cdef inline uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    """Unbiased integer in [0, n) for n >= 1 (Lemire's multiply-and-reject)."""
    cdef uint64_t m = (rng_next(r) >> 32) * <uint64_t>n
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t threshold
    if low < n:
        threshold = (<uint32_t>(-n)) % n   # 2^32 mod n: the biased leftovers to reject
        while low < threshold:
            m = (rng_next(r) >> 32) * <uint64_t>n
            low = <uint32_t>m
    return <uint32_t>(m >> 32)


cdef inline double rng_uniform(Rng* r) noexcept nogil:
    """Uniform double in [0, 1) from the top 53 bits."""
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)
