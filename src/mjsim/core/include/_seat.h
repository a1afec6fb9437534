/* Constants and bit helpers for the hand loop's per-seat state (_seat.pxd).
 * Builtins where the compiler has them, plain loops elsewhere; both give the same answer. */
#ifndef MJSIM_SEAT_H
#define MJSIM_SEAT_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_bits.h"

/* MJSIM_DEBUG (setup.py, debug builds): every read of the cached state is checked
 * against a recomputation from the seat's counts. */
#ifdef MJSIM_DEBUG
#define MJSIM_CHECK_SEATS 1
#else
#define MJSIM_CHECK_SEATS 0
#endif

/* group of each kind (3 suits, honors) and the base-5 weight of its count in that group's
 * table index (_tables.pxd suit_index / honor_index) */
static const uint8_t mjsim_kind_group[34] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3};
/* the kinds of each group as a bit mask over kinds */
static const uint64_t mjsim_group_kinds[4] = {
    0x1FFULL, 0x1FFULL << 9, 0x1FFULL << 18, 0x7FULL << 27};
/* the kinds of the groups in a 4-bit group mask (bit g: group g) */
#define MJSIM_GK(m) ((((m) & 1) ? 0x1FFULL : 0) | (((m) & 2) ? 0x1FFULL << 9 : 0) | \
                     (((m) & 4) ? 0x1FFULL << 18 : 0) | (((m) & 8) ? 0x7FULL << 27 : 0))

/* The standard-form part of the win filter (_seat.pxd _win_filter) by the melds facts
 * (bits 0..3: group g is exactly melds) and pair facts (bits 4..7: melds and a pair) of
 * the 3n+1 hand's groups: one group takes the tile, so every other group must already be
 * melds or melds and a pair, with at most one pair between them.  With one group neither,
 * that group takes it (and the others hold at most one pair); with none neither and two
 * pair groups, one of those takes it (a melds group given a tile would be neither). */
#define MJSIM_WG_NEITHER(i) (0xF & ~(((i) & 0xF) | ((i) >> 4)))
#define MJSIM_WG_REST(i) (((i) >> 4) & (((i) >> 4) - 1))     /* pair groups but the lowest */
#define MJSIM_ONE(m) ((m) && !((m) & ((m) - 1)))
#define MJSIM_WG(i) (MJSIM_WG_NEITHER(i) ? \
    ((MJSIM_ONE(MJSIM_WG_NEITHER(i)) && !MJSIM_WG_REST(i)) ? MJSIM_WG_NEITHER(i) : 0) : \
    (MJSIM_ONE(MJSIM_WG_REST(i)) ? ((i) >> 4) : 0))
#define MJSIM_WK(i) MJSIM_GK(MJSIM_WG(i))
#define MJSIM_WK4(i) MJSIM_WK(i), MJSIM_WK((i) + 1), MJSIM_WK((i) + 2), MJSIM_WK((i) + 3)
#define MJSIM_WK16(i) MJSIM_WK4(i), MJSIM_WK4((i) + 4), MJSIM_WK4((i) + 8), MJSIM_WK4((i) + 12)
#define MJSIM_WK64(i) MJSIM_WK16(i), MJSIM_WK16((i) + 16), MJSIM_WK16((i) + 32), MJSIM_WK16((i) + 48)
static const uint64_t mjsim_win_kinds[256] = {
    MJSIM_WK64(0), MJSIM_WK64(64), MJSIM_WK64(128), MJSIM_WK64(192)};
#undef MJSIM_WK64
#undef MJSIM_WK16
#undef MJSIM_WK4
#undef MJSIM_WK
#undef MJSIM_WG
#undef MJSIM_ONE
#undef MJSIM_WG_REST
#undef MJSIM_WG_NEITHER
#undef MJSIM_GK
static const int32_t mjsim_kind_step[34] = {
    1, 5, 25, 125, 625, 3125, 15625, 78125, 390625,
    1, 5, 25, 125, 625, 3125, 15625, 78125, 390625,
    1, 5, 25, 125, 625, 3125, 15625, 78125, 390625,
    1, 5, 25, 125, 625, 3125, 15625};

/* by rank within a suit: which of the kinds t-2, t-1, (t), t+1, t+2 (bits 0..4) exist in
 * t's suit, for the chow test (_seat.pxd seat_may_chow) */
static const uint8_t mjsim_chow_window[9] = {
    0x18, 0x1A, 0x1B, 0x1B, 0x1B, 0x1B, 0x1B, 0x0B, 0x03};

/* index of the j-th set bit (0-based, from the lowest) of x; x has more than j bits set */
static inline int mjsim_select64(uint64_t x, int j) {
    while (j-- > 0)
        x &= x - 1;
    return mjsim_ctz64(x);
}

/* mjsim_select64 for an x with exactly n bits set: a j in the upper half is counted down
 * from the highest bit, so at most n/2 bits are cleared either way */
static inline int mjsim_select64_loop(uint64_t x, int n, int j) {
    if (2 * j < n)
        return mjsim_select64(x, j);
    for (j = n - 1 - j; j > 0; j--)
        x ^= (uint64_t)1 << mjsim_msb64(x);
    return mjsim_msb64(x);
}

/* The random player's discard is a select per turn; BMI2's pdep deposits bit j onto x's
 * j-th set bit in one instruction.  The portable build has no BMI2, so a copy compiled
 * for it is chosen at run time (as _masks.h does for popcnt), except on AMD family 17h
 * (Zen 1 and 2), whose pdep is microcoded and slower than the loop. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__BMI2__) && !defined(MJSIM_NO_SIMD)
#define MJSIM_PDEP_DISPATCH 1
__attribute__((target("bmi,bmi2"), noinline))
static int mjsim_select64_pdep(uint64_t x, int j) {
    return (int)__builtin_ctzll(__builtin_ia32_pdep_di((uint64_t)1 << j, x));
}

static inline int mjsim_select64_n(uint64_t x, int n, int j) {
    if (__builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam17h"))
        return mjsim_select64_pdep(x, j);
    return mjsim_select64_loop(x, n, j);
}
#else
#define MJSIM_PDEP_DISPATCH 0
static inline int mjsim_select64_n(uint64_t x, int n, int j) {
    return mjsim_select64_loop(x, n, j);
}
#endif

/* does some kind of a 34-count hand have 4 copies?  Counts are 0..4, so a count is 4 iff
 * its bit 2 is set: the first 32 counts at once, then the last two */
#if defined(__SSE2__) && !defined(MJSIM_NO_SIMD)
#include <emmintrin.h>
static inline int mjsim_any_four(const uint8_t* hand) {
    __m128i x = _mm_or_si128(_mm_loadu_si128((const __m128i*)hand),
                             _mm_loadu_si128((const __m128i*)(hand + 16)));
    /* bit 2 of each byte to its bit 7 (the shift stays inside a byte for those bits) */
    return _mm_movemask_epi8(_mm_slli_epi64(x, 5)) != 0 || ((hand[32] | hand[33]) & 4) != 0;
}
#else
static inline int mjsim_any_four(const uint8_t* hand) {
    uint64_t w[4];
    memcpy(w, hand, 32);
    return ((w[0] | w[1] | w[2] | w[3]) & 0x0404040404040404ULL) != 0 || ((hand[32] | hand[33]) & 4) != 0;
}
#endif

static inline void mjsim_seat_fail(const char* what, int seat) {
    fprintf(stderr, "mjsim: seat %d's cached state is stale (%s): a hand change bypassed "
            "_seat.pxd's update functions\n", seat, what);
    abort();
}

#endif
