# The bit helpers of _bits.h (one copy for every native module).
from libc.stdint cimport uint64_t

cdef extern from "_bits.h":
    int mjsim_pop64(uint64_t x) noexcept nogil
    int mjsim_ctz64(uint64_t x) noexcept nogil     # x != 0
    int mjsim_msb64(uint64_t x) noexcept nogil     # x != 0
