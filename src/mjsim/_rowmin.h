/* min over i of saturate(d[i] + r[i]) for two 16-byte rows: the last step of combining one
 * group's distance row with the rest of the hand.  SSE2 where available (every x86-64),
 * a plain loop elsewhere; both give the same answer. */
#ifndef MJSIM_ROWMIN_H
#define MJSIM_ROWMIN_H
#include <stdint.h>

#if defined(__SSE2__)
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
#endif
