/* The tiles of a game in kind order (_wall.pyx). */
#ifndef MJSIM_TILES_H
#define MJSIM_TILES_H
/* kinds in order, four copies each (fill_tiles) */
static const unsigned char mjsim_ordered_tiles[136] = {
#define MJSIM_K4(k) k, k, k, k
    MJSIM_K4(0), MJSIM_K4(1), MJSIM_K4(2), MJSIM_K4(3), MJSIM_K4(4), MJSIM_K4(5),
    MJSIM_K4(6), MJSIM_K4(7), MJSIM_K4(8), MJSIM_K4(9), MJSIM_K4(10), MJSIM_K4(11),
    MJSIM_K4(12), MJSIM_K4(13), MJSIM_K4(14), MJSIM_K4(15), MJSIM_K4(16), MJSIM_K4(17),
    MJSIM_K4(18), MJSIM_K4(19), MJSIM_K4(20), MJSIM_K4(21), MJSIM_K4(22), MJSIM_K4(23),
    MJSIM_K4(24), MJSIM_K4(25), MJSIM_K4(26), MJSIM_K4(27), MJSIM_K4(28), MJSIM_K4(29),
    MJSIM_K4(30), MJSIM_K4(31), MJSIM_K4(32), MJSIM_K4(33)
#undef MJSIM_K4
};
#endif
