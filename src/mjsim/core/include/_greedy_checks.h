/* Greedy's debug self-checks (_greedy.pyx). */
#ifndef MJSIM_GREEDY_CHECKS_H
#define MJSIM_GREEDY_CHECKS_H
/* debug builds (MJSIM_DEBUG) check the shortcuts below against the evaluator */
#include <stdio.h>
#include <stdlib.h>
#ifdef MJSIM_DEBUG
#define MJSIM_CHECK_GREEDY 1
#else
#define MJSIM_CHECK_GREEDY 0
#endif
static void mjsim_greedy_fail(const char* what, int seat) {
    fprintf(stderr, "mjsim: greedy shortcut disagrees with _eval (%s), seat %d\n", what, seat);
    abort();
}
#endif
