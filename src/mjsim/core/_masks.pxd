# The SSE2 helpers of _masks.h (each with a plain-C twin), declared once for every module.
from libc.stdint cimport uint8_t, uint64_t

cdef extern from "_masks.h":
    uint64_t mjsim_held_mask(const uint8_t* hand) noexcept nogil
    void mjsim_combine_upto(const uint8_t* a, const uint8_t* b, uint8_t* o, int melds) noexcept nogil
    void mjsim_combine2_upto(const uint8_t* a1, const uint8_t* a2, const uint8_t* b, uint8_t* o1,
                             uint8_t* o2, int melds) noexcept nogil
    int mjsim_split_min(const uint8_t* row, const uint8_t* rest, int melds) noexcept nogil
    int mjsim_split_reach(const uint8_t* row, const uint8_t* rest, int melds, int D) noexcept nogil
    void mjsim_unseen_planes(const uint8_t* hand, const uint8_t* hidden, const uint8_t* seen,
                             uint64_t* planes) noexcept nogil
    int mjsim_planes_count(uint64_t m, const uint64_t* planes) noexcept nogil
    int mjsim_plus_eq15(const uint8_t* a, const uint8_t* b, int delta) noexcept nogil
