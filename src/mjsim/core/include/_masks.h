/* Which targets of a group's distance row reach the hand's distance (the mask pass of
 * _eval.pyx).  Rows are laid out [2 * m + q] (m melds, q = holds the pair) as in
 * _rowmin.h; the other groups' row `rest` pairs target (m, q) of the group with
 * (melds - m, 1 - q), i.e. byte i with byte 2 * melds + 1 - i.  SSE2 where available,
 * a plain loop elsewhere; both give the same answer (tests/test_masks.py runs whichever
 * the build has, and the game digests pin the results). */
#ifndef MJSIM_MASKS_H
#define MJSIM_MASKS_H
#include <stdint.h>
#include "_bits.h"
#include "_rowmin.h"

#if defined(__SSE2__) && !defined(MJSIM_NO_SIMD)
#include <emmintrin.h>
/* sums[i] = row[i] + rest[2 * melds + 1 - i] (saturating) for i <= 2 * melds + 1, 255 beyond */
static inline __m128i mjsim_paired_sums(const uint8_t* row, const uint8_t* rest, int melds) {
    __m128i r = _mm_loadu_si128((const __m128i*)rest);
    __m128i s;
    /* reverse the 16 bytes: swap bytes in words, words in quads, then the quads */
    r = _mm_or_si128(_mm_slli_epi16(r, 8), _mm_srli_epi16(r, 8));
    r = _mm_shufflelo_epi16(r, 0x1B);
    r = _mm_shufflehi_epi16(r, 0x1B);
    r = _mm_shuffle_epi32(r, 0x4E);
    switch (melds) {   /* bring byte 2 * melds + 1 to position 0; the shift is an immediate */
    case 0: r = _mm_srli_si128(r, 14); break;
    case 1: r = _mm_srli_si128(r, 12); break;
    case 2: r = _mm_srli_si128(r, 10); break;
    case 3: r = _mm_srli_si128(r, 8); break;
    default: r = _mm_srli_si128(r, 6); break;
    }
    s = _mm_adds_epu8(_mm_loadu_si128((const __m128i*)row), r);
    /* bytes past the row's 2 * melds + 2 targets are never a split */
    switch (melds) {
    case 0: return _mm_or_si128(s, _mm_slli_si128(_mm_set1_epi8((char)0xff), 2));
    case 1: return _mm_or_si128(s, _mm_slli_si128(_mm_set1_epi8((char)0xff), 4));
    case 2: return _mm_or_si128(s, _mm_slli_si128(_mm_set1_epi8((char)0xff), 6));
    case 3: return _mm_or_si128(s, _mm_slli_si128(_mm_set1_epi8((char)0xff), 8));
    default: return _mm_or_si128(s, _mm_slli_si128(_mm_set1_epi8((char)0xff), 10));
    }
}

/* the hand's distance: the cheapest split of the group against the rest */
static inline int mjsim_split_min(const uint8_t* row, const uint8_t* rest, int melds) {
    __m128i s = mjsim_paired_sums(row, rest, melds);
    s = _mm_min_epu8(s, _mm_srli_si128(s, 8));
    s = _mm_min_epu8(s, _mm_srli_si128(s, 4));
    s = _mm_min_epu8(s, _mm_srli_si128(s, 2));
    s = _mm_min_epu8(s, _mm_srli_si128(s, 1));
    return _mm_cvtsi128_si32(s) & 0xff;
}

/* bit i: target i of the group is in a split costing D */
static inline int mjsim_split_reach(const uint8_t* row, const uint8_t* rest, int melds, int D) {
    __m128i s = mjsim_paired_sums(row, rest, melds);
    return _mm_movemask_epi8(_mm_cmpeq_epi8(s, _mm_set1_epi8((char)D)));
}
#else
static inline int mjsim_split_min(const uint8_t* row, const uint8_t* rest, int melds) {
    int i, v, best = 255;
    for (i = 0; i <= 2 * melds + 1; i++) {
        v = row[i] + rest[2 * melds + 1 - i];
        if (v > 255) v = 255;
        if (v < best) best = v;
    }
    return best;
}

static inline int mjsim_split_reach(const uint8_t* row, const uint8_t* rest, int melds, int D) {
    int i, v, bits = 0;
    for (i = 0; i <= 2 * melds + 1; i++) {
        v = row[i] + rest[2 * melds + 1 - i];
        if (v > 255) v = 255;
        if (v == D) bits |= 1 << i;
    }
    return bits;
}
#endif
/* the unseen copies of the kinds in mask m, with the build's own popcount */
static inline int mjsim_planes_count_c(uint64_t m, const uint64_t* planes) {
    return (int)(mjsim_pop64(m & planes[0]) + 2 * mjsim_pop64(m & planes[1]) + 4 * mjsim_pop64(m & planes[2]));
}

/* The portable x86-64 build has no popcnt instruction, so the greedy tie-break (three
 * popcounts per candidate) spends ~45 instructions on a software count; a CPU that has
 * popcnt (every x86-64 since about 2008) takes a copy compiled for it, chosen at run time.
 * A target-specific function cannot be inlined into the portable caller, so the copy is
 * a call; the choice reads libgcc's CPU model, set once at load. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__POPCNT__) && !defined(MJSIM_NO_SIMD)
#define MJSIM_POPCNT_DISPATCH 1
__attribute__((target("popcnt"), noinline))
static int mjsim_planes_count_popcnt(uint64_t m, const uint64_t* planes) {
    return (int)(__builtin_popcountll(m & planes[0]) + 2 * __builtin_popcountll(m & planes[1])
                 + 4 * __builtin_popcountll(m & planes[2]));
}

static inline int mjsim_planes_count(uint64_t m, const uint64_t* planes) {
    if (__builtin_cpu_supports("popcnt"))
        return mjsim_planes_count_popcnt(m, planes);
    return mjsim_planes_count_c(m, planes);
}
#else
#define MJSIM_POPCNT_DISPATCH 0
static inline int mjsim_planes_count(uint64_t m, const uint64_t* planes) {
    return mjsim_planes_count_c(m, planes);
}
#endif

#if defined(__SSE2__) && !defined(MJSIM_NO_SIMD)
static inline uint64_t mjsim_chunks(int lo, int mid, int hi) {
    return (uint64_t)(lo & 0xffff) | ((uint64_t)(mid & 0xffff) << 16) | ((uint64_t)((hi >> 14) & 3) << 32);
}

/* Kinds (bit k) with hand[k] > 0, and the unseen copies 4 - hand - hidden - seen of every
 * kind (at least 0) as three bit planes: bit k of planes[i] is bit i of kind k's count.
 * The 34-byte arrays are read as bytes 0-15, 16-31 and 18-33. */
static inline uint64_t mjsim_held_mask(const uint8_t* hand) {
    const __m128i z = _mm_setzero_si128();
    int a = ~_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)hand), z));
    int b = ~_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(hand + 16)), z));
    int c = ~_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(hand + 18)), z));
    return mjsim_chunks(a, b, c);
}

static inline __m128i mjsim_unseen16(const uint8_t* hand, const uint8_t* hidden, const uint8_t* seen, int at) {
    __m128i v = _mm_subs_epu8(_mm_set1_epi8(4), _mm_loadu_si128((const __m128i*)(hand + at)));
    v = _mm_subs_epu8(v, _mm_loadu_si128((const __m128i*)(hidden + at)));
    return _mm_subs_epu8(v, _mm_loadu_si128((const __m128i*)(seen + at)));
}

static inline void mjsim_unseen_planes(const uint8_t* hand, const uint8_t* hidden, const uint8_t* seen,
                                       uint64_t* planes) {
    __m128i a = mjsim_unseen16(hand, hidden, seen, 0);
    __m128i b = mjsim_unseen16(hand, hidden, seen, 16);
    __m128i c = mjsim_unseen16(hand, hidden, seen, 18);
    /* a 16-bit shift by 7 - i moves bit i of each byte to the byte's top bit (bits moving
     * in from the lower byte land below it) */
    planes[0] = mjsim_chunks(_mm_movemask_epi8(_mm_slli_epi16(a, 7)), _mm_movemask_epi8(_mm_slli_epi16(b, 7)),
                             _mm_movemask_epi8(_mm_slli_epi16(c, 7)));
    planes[1] = mjsim_chunks(_mm_movemask_epi8(_mm_slli_epi16(a, 6)), _mm_movemask_epi8(_mm_slli_epi16(b, 6)),
                             _mm_movemask_epi8(_mm_slli_epi16(c, 6)));
    planes[2] = mjsim_chunks(_mm_movemask_epi8(_mm_slli_epi16(a, 5)), _mm_movemask_epi8(_mm_slli_epi16(b, 5)),
                             _mm_movemask_epi8(_mm_slli_epi16(c, 5)));
}
/* mjsim_combine_rows of _rowmin.h (its MJSIM_TERM) for the first melds + 1 meld counts only
 * (the mask pass never reads further): a hand with declared melds skips the terms it cannot use. */
static inline void mjsim_combine_upto(const uint8_t* a, const uint8_t* bp, uint8_t* o, int melds) {
    const __m128i ones = _mm_set1_epi8((char)0xff);
    const __m128i zero = _mm_setzero_si128();
    const __m128i even = _mm_set_epi8(0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1);
    __m128i b = _mm_loadu_si128((const __m128i*)bp);
    __m128i out = ones;
    switch (melds) {
    default: MJSIM_TERM(4); /* fall through */
    case 3: MJSIM_TERM(3);  /* fall through */
    case 2: MJSIM_TERM(2);  /* fall through */
    case 1: MJSIM_TERM(1);  /* fall through */
    case 0: MJSIM_TERM(0);
    }
    out = _mm_or_si128(out, _mm_slli_si128(ones, 10));
    _mm_storeu_si128((__m128i*)o, out);
}
/* mjsim_combine_upto(a1, b) and (a2, b) at once: the mask pass forms two rests against
 * each shared product, and b's shifted copies are made once per term for both. */
#define MJSIM_TERM2(M1)                                                                     \
    do {                                                                                    \
        __m128i shifted = MJSIM_SHIFTED(M1);                                                \
        __m128i moved = MJSIM_MOVED(M1);                                                    \
        out1 = _mm_min_epu8(out1, _mm_adds_epu8(shifted, _mm_set1_epi8((char)a1[2 * (M1)])));  \
        out1 = _mm_min_epu8(out1, _mm_adds_epu8(moved, _mm_set1_epi8((char)a1[2 * (M1) + 1]))); \
        out2 = _mm_min_epu8(out2, _mm_adds_epu8(shifted, _mm_set1_epi8((char)a2[2 * (M1)])));  \
        out2 = _mm_min_epu8(out2, _mm_adds_epu8(moved, _mm_set1_epi8((char)a2[2 * (M1) + 1]))); \
    } while (0)

static inline void mjsim_combine2_upto(const uint8_t* a1, const uint8_t* a2, const uint8_t* bp,
                                       uint8_t* o1, uint8_t* o2, int melds) {
    const __m128i ones = _mm_set1_epi8((char)0xff);
    const __m128i zero = _mm_setzero_si128();
    const __m128i even = _mm_set_epi8(0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1);
    __m128i b = _mm_loadu_si128((const __m128i*)bp);
    __m128i out1 = ones, out2 = ones;
    switch (melds) {
    default: MJSIM_TERM2(4); /* fall through */
    case 3: MJSIM_TERM2(3);  /* fall through */
    case 2: MJSIM_TERM2(2);  /* fall through */
    case 1: MJSIM_TERM2(1);  /* fall through */
    case 0: MJSIM_TERM2(0);
    }
    _mm_storeu_si128((__m128i*)o1, _mm_or_si128(out1, _mm_slli_si128(ones, 10)));
    _mm_storeu_si128((__m128i*)o2, _mm_or_si128(out2, _mm_slli_si128(ones, 10)));
}

/* bit t (t < 15): a[t] + delta == b[t], for the table builder's masks */
static inline int mjsim_plus_eq15(const uint8_t* a, const uint8_t* b, int delta) {
    __m128i x = _mm_add_epi8(_mm_loadu_si128((const __m128i*)a), _mm_set1_epi8((char)delta));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_loadu_si128((const __m128i*)b))) & 0x7fff;
}
#else
static inline int mjsim_plus_eq15(const uint8_t* a, const uint8_t* b, int delta) {
    int t, bits = 0;
    for (t = 0; t < 15; t++)
        if ((uint8_t)(a[t] + delta) == b[t]) bits |= 1 << t;
    return bits;
}

static inline void mjsim_combine_upto(const uint8_t* a, const uint8_t* b, uint8_t* o, int melds) {
    int m, m1, v0, v1, x;
    for (m = 0; m < 16; m++) o[m] = 255;
    for (m = 0; m <= melds && m <= 4; m++) {
        v0 = 255; v1 = 255;
        for (m1 = 0; m1 <= m; m1++) {
            x = a[2 * m1] + b[2 * (m - m1)];         if (x < v0) v0 = x;
            x = a[2 * m1 + 1] + b[2 * (m - m1)];     if (x < v1) v1 = x;
            x = a[2 * m1] + b[2 * (m - m1) + 1];     if (x < v1) v1 = x;
        }
        o[2 * m] = (uint8_t)(v0 > 255 ? 255 : v0);
        o[2 * m + 1] = (uint8_t)(v1 > 255 ? 255 : v1);
    }
}

static inline void mjsim_combine2_upto(const uint8_t* a1, const uint8_t* a2, const uint8_t* b,
                                       uint8_t* o1, uint8_t* o2, int melds) {
    mjsim_combine_upto(a1, b, o1, melds);
    mjsim_combine_upto(a2, b, o2, melds);
}

static inline uint64_t mjsim_held_mask(const uint8_t* hand) {
    uint64_t m = 0;
    int k;
    for (k = 0; k < 34; k++)
        if (hand[k]) m |= (uint64_t)1 << k;
    return m;
}

static inline void mjsim_unseen_planes(const uint8_t* hand, const uint8_t* hidden, const uint8_t* seen,
                                       uint64_t* planes) {
    int k, v;
    planes[0] = planes[1] = planes[2] = 0;
    for (k = 0; k < 34; k++) {
        v = 4 - hand[k] - hidden[k] - seen[k];
        if (v < 0) v = 0;
        planes[0] |= (uint64_t)(v & 1) << k;
        planes[1] |= (uint64_t)((v >> 1) & 1) << k;
        planes[2] |= (uint64_t)((v >> 2) & 1) << k;
    }
}
#endif
#endif
