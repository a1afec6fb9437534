/* Compiled twice by tests/test_rowmin.py: the SIMD and the plain-C versions of _rowmin.h
 * must print the same answers for the same random rows. */
#include <stdio.h>
#include <stdlib.h>
#include "_rowmin.h"

int main(void) {
    unsigned seed = 12345;
    uint8_t a[16], b[16], o[16];
    int i, n;
    for (n = 0; n < 20000; n++) {
        for (i = 0; i < 16; i++) {
            seed = seed * 1103515245u + 12345u;
            a[i] = (i < 10) ? (uint8_t)((seed >> 16) % 20) : 255;
            seed = seed * 1103515245u + 12345u;
            b[i] = (i < 10) ? (uint8_t)((seed >> 16) % 20) : 255;
        }
        if (n % 7 == 0) b[3] = 250;   /* near saturation */
        mjsim_combine_rows(a, b, o);
        for (i = 0; i < 10; i++) printf("%d ", o[i]);
        printf("%d\n", mjsim_row_min_plus(a, b));
    }
    return 0;
}
