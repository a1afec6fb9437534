"""The native engine: tables, scoring and shanten, the wall, the hand state, the loop and
its settlement (Cython, no Python objects inside loops).  mjsim._core is its Python face."""
from mjsim._buildpath import debug_build_first as _debug_build_first

_debug_build_first(__path__, "core")
