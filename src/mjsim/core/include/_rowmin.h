/* min over i of saturate(d[i] + r[i]) for two 16-byte rows: the last step of combining one
 * group's distance row with the rest of the hand.  SSE2 where available (every x86-64),
 * a plain loop elsewhere; both give the same answer. */
#ifndef MJSIM_ROWMIN_H
#define MJSIM_ROWMIN_H
#include <stdint.h>

#if defined(__SSE2__) && !defined(MJSIM_NO_SIMD)
#include <emmintrin.h>
static inline int mjsim_row_min_plus(const uint8_t* d, const uint8_t* r) {
    __m128i s = _mm_adds_epu8(_mm_loadu_si128((const __m128i*)d), _mm_loadu_si128((const __m128i*)r));
    s = _mm_min_epu8(s, _mm_srli_si128(s, 8));
    s = _mm_min_epu8(s, _mm_srli_si128(s, 4));
    s = _mm_min_epu8(s, _mm_srli_si128(s, 2));
    s = _mm_min_epu8(s, _mm_srli_si128(s, 1));
    return _mm_cvtsi128_si32(s) & 0xff;
}
#else
static inline int mjsim_row_min_plus(const uint8_t* d, const uint8_t* r) {
    int best = 255, i, v;
    for (i = 0; i < 16; i++) {
        v = d[i] + r[i];
        if (v > 255) v = 255;
        if (v < best) best = v;
    }
    return best;
}
#endif

/* Rows of 16 bytes laid out [2 * m + q]: m = 0..4 melds, q = 1 with the pair; bytes 10..15
 * are 255.  out[m][q] = min over m1 of a[m1][.] + b[m - m1][.] with exactly one pair when
 * q = 1: the min-plus product of two groups' rows (saturating at 255).  MJSIM_TERM(M1) adds
 * the terms of a's m1 = M1 melds; _masks.h's combine uses it too (so it stays defined). */
#if defined(__SSE2__) && !defined(MJSIM_NO_SIMD)
/* b moved up by M1 meld counts, 255 shifted in: the terms pairing a's m1 = M1 (no pair)
 * with b's rows; MJSIM_MOVED pairs a's M1-with-pair byte with b's no-pair bytes only */
#define MJSIM_SHIFTED(M1) _mm_or_si128(_mm_slli_si128(b, 2 * (M1)), (M1) ? _mm_srli_si128(ones, 16 - 2 * (M1)) : zero)
#define MJSIM_MOVED(M1) _mm_or_si128(_mm_or_si128(_mm_slli_si128(b, 2 * (M1) + 1),                 \
                                                  _mm_srli_si128(ones, 16 - 2 * (M1) - 1)), even)
#define MJSIM_TERM(M1)                                                                      \
    do {                                                                                    \
        __m128i shifted = MJSIM_SHIFTED(M1);                                                \
        __m128i moved = MJSIM_MOVED(M1);                                                    \
        out = _mm_min_epu8(out, _mm_adds_epu8(shifted, _mm_set1_epi8((char)a[2 * (M1)])));  \
        out = _mm_min_epu8(out, _mm_adds_epu8(moved, _mm_set1_epi8((char)a[2 * (M1) + 1]))); \
    } while (0)

static inline void mjsim_combine_rows(const uint8_t* a, const uint8_t* bp, uint8_t* o) {
    const __m128i ones = _mm_set1_epi8((char)0xff);
    const __m128i zero = _mm_setzero_si128();
    const __m128i even = _mm_set_epi8(0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1);
    __m128i b = _mm_loadu_si128((const __m128i*)bp);
    __m128i out = ones;
    MJSIM_TERM(0);
    MJSIM_TERM(1);
    MJSIM_TERM(2);
    MJSIM_TERM(3);
    MJSIM_TERM(4);
    /* bytes past the five meld counts stay "impossible" */
    out = _mm_or_si128(out, _mm_slli_si128(ones, 10));
    _mm_storeu_si128((__m128i*)o, out);
}
#else
static inline void mjsim_combine_rows(const uint8_t* a, const uint8_t* b, uint8_t* o) {
    int m, m1, v0, v1, x;
    for (m = 0; m < 16; m++) o[m] = 255;
    for (m = 0; m <= 4; m++) {
        v0 = 255; v1 = 255;
        for (m1 = 0; m1 <= m; m1++) {
            x = a[2 * m1] + b[2 * (m - m1)];         if (x < v0) v0 = x;
            x = a[2 * m1 + 1] + b[2 * (m - m1)];     if (x < v1) v1 = x;
            x = a[2 * m1] + b[2 * (m - m1) + 1];     if (x < v1) v1 = x;
        }
        o[2 * m] = (uint8_t)v0;
        o[2 * m + 1] = (uint8_t)v1;
    }
}
#endif
#endif
