"""manifest.json: one entry per variant saying what made it (rules, seed, players, sessions,
chunking, mjsim version, environment); the check that refuses to mix runs."""
from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING


from mjsim.dataset import storage

if TYPE_CHECKING:
    from mjsim.run.spec import RunSpec


_SHAPING = ("rules_hash", "seed", "players", "session_hands", "chunk", "hands")
#: what shapes a variant's hands besides how many there are: runs that agree on these
#: deal and play the same hands, so the shorter one's chunks are a prefix of the longer's
SHAPING_BUT_HANDS = tuple(k for k in _SHAPING if k != "hands")
_FLAG = {"rules_hash": "--rules/--set", "seed": "--seed", "players": "--players",
         "session_hands": "--session-hands", "chunk": "--chunk", "hands": "--hands"}


def read_manifest(out: Path) -> dict:
    """DIR/manifest.json ({"variants": {}} when there is none), its structure checked:
    OSError naming the file when it is unreadable or not an mjsim manifest."""
    path = Path(out) / "manifest.json"
    if not path.exists():
        return {"variants": {}}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise OSError(f"{path}: unreadable manifest ({e})") from None
    problem = _manifest_problem(data)
    if problem:
        raise OSError(f"{path}: not an mjsim manifest ({problem})")
    return data


def _manifest_problem(data) -> str | None:
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    variants = data.get("variants")
    if not isinstance(variants, dict):
        return "no object 'variants'"
    bad = next((name for name, entry in variants.items() if not isinstance(entry, dict)), None)
    if bad is not None:
        return f"variant {bad!r} is not an object"
    runs = data.get("runs", [])
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        return "'runs' is not a list of objects"
    return None


def check_manifest(out: Path, specs: Sequence[RunSpec], allow_version_mix: bool = False) -> None:
    """A directory may only be resumed with the settings (and the mjsim version) that made it."""
    from mjsim.version import __version__

    known = read_manifest(out)["variants"]
    for spec in specs:
        old = known.get(spec.variant)
        if old is None:
            continue
        diffs = shaping_diffs(old, spec.manifest_entry())
        if diffs:
            raise ValueError(
                f"{out} already holds variant {spec.variant} made with {'; '.join(diffs)}: "
                f"rerun with those settings to resume, or choose another --out"
            )
        if not allow_version_mix and old.get("mjsim_version", __version__) != __version__:
            raise ValueError(_version_mix_message(out, spec.variant, old.get("mjsim_version"), __version__))


def shaping_diffs(old: dict, new: dict, fields: Sequence[str] = _SHAPING) -> list[str]:
    """'--seed 5 (now 6)' for each of `fields` on which a recorded entry and a new one differ."""
    return [f"{_FLAG[k]} {_show(old.get(k))} (now {_show(new[k])})" for k in fields if old.get(k) != new[k]]


def _version_mix_message(out, variant: str, old: str | None, new: str) -> str:
    return (f"{out} holds variant {variant} written by mjsim {old}, this is mjsim {new}: resuming would "
            f"mix two versions in one dataset; choose another --out, or pass --allow-version-mix")


def _show(v) -> str:
    return ",".join(map(str, v)) if isinstance(v, list) else str(v)


def write_manifest(out: Path, specs: Sequence[RunSpec], complete: dict[str, bool]) -> None:
    """Record the variants of a run; called once when a run starts (nothing complete yet)
    and once when it ends. Each run also appends to ``runs``: the command line, the start
    and end times (UTC) and the environment that made the data (mjsim, Python, platform,
    dependency versions)."""
    data = read_manifest(out)
    for spec in specs:
        data["variants"][spec.variant] = {**spec.manifest_entry(), "complete": complete.get(spec.variant, False)}
    names = [s.variant for s in specs]
    runs = data.setdefault("runs", [])
    if not any(complete.values()):
        runs.append({"command": _command_line(), "started": _now(), "finished": None, "variants": names,
                     **environment()})
    else:
        for entry in reversed(runs):
            if entry.get("variants") == names and entry.get("finished") is None:
                entry["finished"] = _now()
                break
    storage.write_atomic(Path(out) / "manifest.json", (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _command_line() -> list[str]:
    import sys

    return [os.path.basename(sys.argv[0]) if sys.argv else "", *sys.argv[1:]]


#: distributions whose versions can change the data or how it is read
_DEPENDENCIES = ("numpy", "pyarrow", "duckdb", "scipy", "statsmodels", "pandas", "Cython", "typer", "rich",
                 "matplotlib", "dask", "distributed")


def environment() -> dict:
    """mjsim, Python, platform and dependency versions (absent ones left out)."""
    import platform
    from importlib import metadata

    from mjsim.version import __version__

    versions = {}
    for name in _DEPENDENCIES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    return {"mjsim_version": __version__, "python": platform.python_version(),
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            "machine": platform.machine(), "dependencies": versions}
