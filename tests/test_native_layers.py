"""The native modules cimport each other in one direction (docs/developer/native.md): no
circle, the state and the engine know no player, and the loop reaches the players only
through players/_api.pxd."""
import re
from pathlib import Path

import mjsim

ROOT = Path(mjsim.__file__).parent
CIMPORT = re.compile(r"^\s*(?:from (mjsim(?:\.\w+)+) cimport ([\w, ()\n]+?)$|cimport (mjsim(?:\.\w+)+))", re.M)


def _module(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.replace("_eval_scans", "_eval")     # an include of _eval.pyx


def _graph() -> dict:
    graph: dict = {}
    files = [p for p in ROOT.rglob("_*.p*") if p.suffix in (".pyx", ".pxd", ".pxi") and "_debug_build" not in p.parts]
    assert len(files) > 20, files
    for path in files:
        deps = graph.setdefault(_module(path), set())
        for m in CIMPORT.finditer(path.read_text(encoding="utf-8")):
            target = (m.group(1) or m.group(3))[len("mjsim."):]
            if m.group(1) and target in ("core", "players"):     # from mjsim.core cimport _eval
                deps.update(f"{target}.{x.strip()}" for x in m.group(2).strip("()").split(",") if x.strip())
            else:
                deps.add(target)
        deps.discard(_module(path))
    return graph


def _cycle(graph: dict):
    state: dict = {}

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                return path[path.index(dep):] + [dep] if dep in path else [node, dep]
            if dep not in state:
                found = visit(dep, path + [dep])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_the_scan_sees_the_known_edges():
    graph = _graph()
    assert "players._api" in graph["core._loop"]
    assert "core._state" in graph["players._ev"]
    assert "core._tables" in graph["core._eval"]


def test_no_cimport_circle():
    assert _cycle(_graph()) is None


def test_a_planted_circle_is_found():
    graph = {k: set(v) for k, v in _graph().items()}
    graph["core._state"].add("core._loop")
    assert _cycle(graph) is not None


def test_engine_knows_no_player_and_loop_uses_the_interface():
    graph = _graph()
    for module, deps in graph.items():
        players = {d for d in deps if d.startswith("players.")}
        if module == "core._loop":
            assert players <= {"players._api", "players._random"}, players
        elif module == "core._testing":
            continue                    # test shims may reach anything
        elif module.startswith("core.") or module == "_core":
            assert not players, (module, players)
