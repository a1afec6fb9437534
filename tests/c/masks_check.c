/* Prints the results of every _masks.h helper on seeded random inputs, one case a line;
 * tests/test_masks_simd.py compares the SSE2 build with the -DMJSIM_NO_SIMD one. */
#include <stdio.h>
#include <stdint.h>
#include "_masks.h"

static uint32_t state = 12345u;
static uint32_t next(void) { state = state * 1664525u + 1013904223u; return state >> 8; }

int main(void) {
    uint8_t a[16], b[16], o[16], o2[16], o3[16], o4[16], hand[34], hidden[34], seen[34];
    uint64_t planes[3], m;
    int i, n, melds, D;
    for (n = 0; n < 20000; n++) {
        for (i = 0; i < 16; i++) {
            a[i] = i < 10 ? (uint8_t)(next() % 16) : 255;
            b[i] = i < 10 ? (uint8_t)(next() % 16) : 255;
        }
        if (next() % 8 == 0) a[next() % 10] = 255;
        melds = (int)(next() % 5);
        D = mjsim_split_min(a, b, melds);
        printf("%d %d %d", melds, D, mjsim_split_reach(a, b, melds, D));
        mjsim_combine_upto(a, b, o, melds);
        for (i = 0; i <= 2 * melds + 1; i++) printf(" %d", o[i]);
        /* the paired combine: (a, b) and (b, b) against b, each as combine_upto gives it */
        mjsim_combine2_upto(a, b, b, o2, o3, melds);
        mjsim_combine_upto(b, b, o4, melds);
        for (i = 0; i < 16; i++)
            if (o2[i] != o[i] || o3[i] != o4[i]) { printf("combine2 differs\n"); return 1; }
        printf(" %d", mjsim_plus_eq15(a, b, (int)(next() % 2)));
        for (i = 0; i < 34; i++) {
            hand[i] = (uint8_t)(next() % 5);
            hidden[i] = (uint8_t)(next() % 3 == 0 ? next() % 2 : 0);
            seen[i] = (uint8_t)(next() % 4);
        }
        mjsim_unseen_planes(hand, hidden, seen, planes);
        m = ((uint64_t)next() << 24) ^ next();
        /* the count the build uses (popcnt when dispatched) and the portable C count */
        printf(" %llu %d %d\n", (unsigned long long)mjsim_held_mask(hand), mjsim_planes_count(m, planes),
               mjsim_planes_count_c(m, planes));
    }
    return 0;
}
