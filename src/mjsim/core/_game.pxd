from mjsim.core._state cimport GameConfig

cdef class NativeGame:
    cdef GameConfig cfg
    cdef tuple py_context          # (Python players per seat or None, errors raised in them)
