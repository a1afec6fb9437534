/* Pairs, tile totals and count shapes of a 34-kind count array (_eval.pyx). */
#ifndef MJSIM_PAIRS_H
#define MJSIM_PAIRS_H
/* The pairs (count / 2 summed) and the tiles of the first n kinds (n = 27 or 34) of a
 * 34-kind count array (every count 0..4).  SSE2: the 34 bytes as loads 0-15, 16-31 and
 * 18-33 (the last keeps its two top bytes, kinds 32 and 33), kinds >= n masked off; the
 * bytewise sums stay <= 12, so one psadbw per quantity adds them up. */
#include <stdint.h>
static inline void mjsim_pairs_total_plain(const uint8_t* c, int n, int* pairs, int* total) {
    int i, p = 0, t = 0;
    for (i = 0; i < n; i++) {
        p += c[i] >> 1;
        t += c[i];
    }
    *pairs = p;
    *total = t;
}
static inline int mjsim_count_shape_plain(const uint8_t* c) {
    int i, odd = 0, multi = 0;
    for (i = 0; i < 34; i++) {
        odd |= c[i] & 1;
        multi |= c[i] > 1;
    }
    return odd | (multi << 1);
}
#if defined(__SSE2__) && !defined(MJSIM_NO_SIMD)
#include <emmintrin.h>
static inline void mjsim_pairs_total(const uint8_t* c, int n, int* pairs, int* total) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i lim = _mm_set1_epi8((char)n);
    const __m128i up16 = _mm_set_epi8(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16);
    const __m128i top2 = _mm_set_epi8(-1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i even = _mm_set1_epi8((char)0xfe);
    __m128i a = _mm_loadu_si128((const __m128i*)c);
    __m128i b = _mm_and_si128(_mm_loadu_si128((const __m128i*)(c + 16)), _mm_cmpgt_epi8(lim, up16));
    __m128i t = _mm_and_si128(_mm_loadu_si128((const __m128i*)(c + 18)),
                              _mm_and_si128(top2, _mm_cmpgt_epi8(lim, _mm_add_epi8(up16, _mm_set1_epi8(2)))));
    __m128i v = _mm_add_epi8(_mm_add_epi8(a, b), t);
    /* count & ~1 is twice count / 2, so the even parts sum to twice the pairs */
    __m128i h = _mm_add_epi8(_mm_add_epi8(_mm_and_si128(a, even), _mm_and_si128(b, even)),
                             _mm_and_si128(t, even));
    __m128i s = _mm_sad_epu8(v, zero);
    __m128i ps = _mm_sad_epu8(h, zero);
    *total = _mm_cvtsi128_si32(s) + _mm_extract_epi16(s, 4);
    *pairs = (_mm_cvtsi128_si32(ps) + _mm_extract_epi16(ps, 4)) >> 1;
}
/* Over the 34 kinds: bit 0 some count is odd, bit 1 some count is above 1; the OR of
 * the three loads keeps both (the overlap repeats kinds, which an "any" ignores). */
static inline int mjsim_count_shape(const uint8_t* c) {
    __m128i o = _mm_or_si128(_mm_or_si128(_mm_loadu_si128((const __m128i*)c),
                                          _mm_loadu_si128((const __m128i*)(c + 16))),
                             _mm_loadu_si128((const __m128i*)(c + 18)));
    const __m128i zero = _mm_setzero_si128();
    int odd = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(o, _mm_set1_epi8(1)), zero)) != 0xffff;
    int multi = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(o, _mm_set1_epi8((char)0xfe)), zero)) != 0xffff;
    return odd | (multi << 1);
}
#define MJSIM_PAIRS_SIMD 1
#else
#define MJSIM_PAIRS_SIMD 0
#define mjsim_pairs_total mjsim_pairs_total_plain
#define mjsim_count_shape mjsim_count_shape_plain
#endif
#endif
