"""A test player that makes 漏胡 (RULES pass_ron_lock) observable: greedy, except that it lets
its first discard win of each hand pass.  A Python player (mjsim.players.Player), so the
production player codes hold only players a user would choose."""
from mjsim.players import Builtin


class PassOnce(Builtin):
    def __init__(self):
        super().__init__("greedy")

    def win(self, view, tile, kind):
        if kind == "discard" and view.passed_wins == 0:
            return False
        return super().win(view, tile, kind)

    def __repr__(self) -> str:
        return "PassOnce()"
