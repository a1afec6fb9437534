/* The batch API's row check (_core.pyx). */
#ifndef MJSIM_ROWCHECK_H
#define MJSIM_ROWCHECK_H
/* The batch row check (evaluate_batch, shanten_batch): every count at most its kind's
 * cap (4; 3 for the Anhua indicator, whose fourth copy is face up; 0 for kinds the game
 * does not use) and the row's sum one of the allowed hand sizes.  Exact: a row passes
 * iff the scalar statement of the rules (_row_problem) finds nothing. */
#include <stdint.h>
typedef struct {
    uint8_t cap[48] __attribute__((aligned(16)));   /* kinds 0..33; 34.. unused */
    int lo;                                          /* sizes lo..lo + span */
    unsigned span;
} mjsim_row_rule;

static inline int mjsim_row_ok_plain(const uint8_t* row, const mjsim_row_rule* r) {
    int k, total = 0, over = 0;
    for (k = 0; k < 34; k++) {
        total += row[k];
        over |= row[k] > r->cap[k];
    }
    return !over && (unsigned)(total - r->lo) <= r->span;
}

#if defined(__SSE2__) && !defined(MJSIM_NO_SIMD)
#include <emmintrin.h>
/* The 34 bytes as three loads: 0-15, 16-31 and 18-33 (its last two bytes are kinds 32,
 * 33).  A byte over its cap leaves a nonzero saturating difference; once none does,
 * every byte is <= 4, so the bytewise sum of the three loads cannot wrap and one psadbw
 * adds it up (the third load masked to its last two bytes).  About 20 instructions. */
static inline int mjsim_row_ok_simd(const uint8_t* row, const mjsim_row_rule* r) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i tail = _mm_set_epi8(-1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    __m128i a = _mm_loadu_si128((const __m128i*)row);
    __m128i b = _mm_loadu_si128((const __m128i*)(row + 16));
    __m128i c = _mm_loadu_si128((const __m128i*)(row + 18));
    __m128i over = _mm_or_si128(
        _mm_or_si128(_mm_subs_epu8(a, _mm_load_si128((const __m128i*)r->cap)),
                     _mm_subs_epu8(b, _mm_load_si128((const __m128i*)(r->cap + 16)))),
        _mm_subs_epu8(c, _mm_loadu_si128((const __m128i*)(r->cap + 18))));
    /* the excess lands at bit 16 and up, where no row size reaches */
    __m128i s = _mm_add_epi64(_mm_sad_epu8(_mm_add_epi8(_mm_add_epi8(a, b), _mm_and_si128(c, tail)), zero),
                              _mm_slli_epi64(_mm_sad_epu8(over, zero), 16));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    return (unsigned)(_mm_cvtsi128_si32(s) - r->lo) <= r->span;
}
#define MJSIM_ROW_SIMD 1
#define mjsim_row_ok mjsim_row_ok_simd
#else
#define MJSIM_ROW_SIMD 0
#define mjsim_row_ok mjsim_row_ok_plain
static inline int mjsim_row_ok_simd(const uint8_t* row, const mjsim_row_rule* r) {
    return mjsim_row_ok_plain(row, r);
}
#endif
#endif
