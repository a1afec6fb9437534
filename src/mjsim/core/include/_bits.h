/* Bit helpers shared by the native modules (_seat.h, _masks.h, _eval, _greedy, _tables):
 * one copy each, declared for Cython in _bits.pxd. */
#ifndef MJSIM_BITS_H
#define MJSIM_BITS_H

#include <stdint.h>

static inline int mjsim_pop64(uint64_t x) {
#if defined(__POPCNT__) || defined(__aarch64__)
    return __builtin_popcountll(x);
#else
    /* the portable build has no popcount instruction, and the builtin would call libgcc */
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline int mjsim_ctz64(uint64_t x) {   /* x != 0 */
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) { x >>= 1; n++; }
    return n;
#endif
}

static inline int mjsim_msb64(uint64_t x) {   /* x != 0 */
#if defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(x);   /* bsr on any x86-64, no lzcnt needed */
#else
    int n = 63;
    while (!(x >> 63)) { x <<= 1; n--; }
    return n;
#endif
}

#endif
