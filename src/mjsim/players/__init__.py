"""The players: native built-ins (_random, _greedy, _ev, _search behind _api.pxd's one
dispatch) and the Python player protocol."""
from mjsim._buildpath import debug_build_first as _debug_build_first

_debug_build_first(__path__, "players")

from mjsim.players.python import Builtin, Player

__all__ = ["Builtin", "Player"]
