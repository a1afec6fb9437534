"""The module paths of mjsim 0.3 before its packages (mjsim.game, mjsim.runner, ...), kept
importable as aliases of their new homes: `import mjsim.game` gives the very module
object `mjsim.play.game`, so attributes set on one are seen through the other.
Deprecated: new code imports the new paths."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: old path -> new path
OLD_PATHS = {
    "mjsim.engine": "mjsim.play.engine",
    "mjsim.game": "mjsim.play.game",
    "mjsim.replay": "mjsim.play.replay",
    "mjsim.evplayer": "mjsim.players.ev",
    "mjsim.searchplayer": "mjsim.players.search",
    "mjsim.rules": "mjsim.rulesets.rules",
    "mjsim.runner": "mjsim.run.runner",
    "mjsim.dask_backend": "mjsim.run.backends.dask",
    "mjsim.precision": "mjsim.run.precision",
    "mjsim.arena": "mjsim.run.arena",
    "mjsim.populations": "mjsim.run.populations",
    "mjsim.evfit": "mjsim.run.evfit",
    "mjsim.balance": "mjsim.run.balance",
    "mjsim.measures": "mjsim.analysis.measures",
    "mjsim.chunkstats": "mjsim.analysis.chunkstats",
    "mjsim.stats": "mjsim.analysis.stats",
    "mjsim.report": "mjsim.analysis.report",
    "mjsim.names": "mjsim.vocab",
}


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in OLD_PATHS:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(OLD_PATHS[spec.name])

    def exec_module(self, module):
        pass


def install() -> None:
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())
