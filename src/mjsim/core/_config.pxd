from mjsim.core._eval cimport EvalConfig
from mjsim.core._state cimport GameConfig

cdef int fill_eval_config(EvalConfig* c, dict d) except -1
cdef int fill_game_config(GameConfig* c, dict d) except -1
