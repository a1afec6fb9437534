/* Prints _seat.h's any-four test and select on seeded random inputs, one case a line,
 * each beside a plain statement of it; tests/test_masks_simd.py compares the SSE2 (and
 * run-time pdep) build with the -DMJSIM_NO_SIMD one. */
#include <stdio.h>
#include <stdint.h>
#include "_seat.h"

static uint32_t state = 4321u;
static uint32_t next(void) { state = state * 1664525u + 1013904223u; return state >> 8; }

int main(void) {
    uint8_t hand[34];
    uint64_t x;
    int i, n, j, bits, four, k;
    for (n = 0; n < 20000; n++) {
        four = 0;
        for (i = 0; i < 34; i++) {
            hand[i] = (uint8_t)(next() % 4);
            if (next() % 64 == 0) hand[i] = 4;
            four |= hand[i] == 4;
        }
        x = ((uint64_t)next() << 24 ^ next()) & ((1ULL << 34) - 1);
        x |= 1ULL << (next() % 34);
        bits = 0;
        for (i = 0; i < 34; i++) bits += (int)(x >> i & 1);
        j = (int)(next() % (uint32_t)bits);
        for (k = 0, i = 0; i < 34; i++)
            if (x >> i & 1 && k++ == j) break;
        printf("%d %d %d %d\n", mjsim_any_four(hand), four, mjsim_select64_n(x, bits, j), i);
    }
    return 0;
}
