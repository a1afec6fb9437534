"""Player names, parsed once: `greedy`, `ev:fold=0.5,claim=2`, `search:samples=8`.

Every part of mjsim that takes a player name (the game, runs, sweeps, the arena, the CLI)
reads it here: the base name and its options (checked against the player's option keys:
ev's in mjsim.players.ev, search's own in mjsim.players.search), one canonical spelling,
and the re-joining of comma-split command-line text.
"""
from __future__ import annotations

import math
from pathlib import Path

from mjsim import vocab
from mjsim.players import ev as evplayer
from mjsim.players import search as searchplayer
from mjsim.players.ev import EV_NAMES, KEYS, STYLE, PlayerOptionError

__all__ = ["PlayerOptionError", "canonical", "file_problem", "join_names", "native_player", "split_name"]


def native_player(game: str, base: str, options: dict) -> tuple[int, list[float] | None]:
    """What a seat of the native loop plays for a known player name, as split_name gives it:
    (its code in vocab.PLAYERS, its options row, or None where the defaults do: a seat's
    row is ev's and search's defaults unless set). ev_v1 is the native ev with its own
    model and style."""
    if base in EV_NAMES:
        row = evplayer.player_opts(game, options, base) if options or base != "ev" else None
        return vocab.PLAYERS.index("ev"), row
    if base == "search":
        return vocab.PLAYERS.index("search"), searchplayer.player_opts(game, options) if options else None
    return vocab.PLAYERS.index(base), None


def file_problem(path: str) -> str | None:
    """Why `path` cannot be read as an option's file (a model), as words after its name."""
    p = Path(path)
    if p.is_dir():
        return "is a directory, not a file"
    if p.exists() and not p.is_file():
        return "is not a regular file (a device or pipe)"
    if not p.exists():
        return "not found"
    return None


def split_name(name: str) -> tuple[str, dict]:
    """'ev:fold=0.5,claim=2' -> ('ev', {'fold': 0.5, 'claim': 2.0}); a plain name -> (name, {}).
    Only `ev` and `ev_v1` take options; bad keys and values raise PlayerOptionError."""
    name = name.strip()
    base, sep, rest = name.partition(":")
    base = base.strip()
    if not sep:
        return base, {}
    if base not in (*EV_NAMES, "search"):
        raise PlayerOptionError(f"player {base!r} takes no options (only {', '.join(EV_NAMES)} and search do), "
                                f"got {name!r}")
    keys = _keys(base)
    options: dict = {}
    for item in rest.split(","):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or not key:
            raise PlayerOptionError(f"player {name!r}: options are key=value pairs ({', '.join(keys)}), got {item.strip()!r}")
        if key not in keys:
            raise PlayerOptionError(f"player {name!r}: unknown option {key!r} (expected one of {', '.join(keys)})")
        if key in options:
            raise PlayerOptionError(f"player {name!r}: option {key!r} given twice")
        if key not in KEYS:     # search's own (mjsim.searchplayer)
            options[key] = searchplayer.parse_option(name, key, value)
            continue
        if key == "model":
            problem = file_problem(value)
            if problem:
                raise PlayerOptionError(f"player {name!r}: model file {value!r} {problem}")
            options[key] = value
            continue
        _, lo, hi = STYLE[key]
        try:
            v = float(value)
        except ValueError:
            v = math.nan
        if not lo <= v <= hi:
            raise PlayerOptionError(f"player {name!r}: {key} must be a number {lo:g}..{hi:g}, got {value!r}")
        options[key] = v
    return base, options


def _keys(base: str) -> tuple[str, ...]:
    """The option keys of player `base` (search takes ev's and its own)."""
    if base == "search":
        return KEYS + searchplayer.KEYS
    return KEYS


def canonical(name: str) -> str:
    """One spelling per player: options in a fixed order, numbers as %g."""
    base, options = split_name(name)
    if not options:
        return base
    parts = [f"{k}={options[k]}" if isinstance(options[k], str) else f"{k}={options[k]:g}"
             for k in _keys(base) if k in options]
    return f"{base}:{','.join(parts)}"


def join_names(tokens: list[str]) -> list[str]:
    """Comma-split player text back into names: 'ev:fold=1,claim=2,greedy' -> two names
    (a token with '=' but no ':' continues the options of the name before it)."""
    out: list[str] = []
    for t in tokens:
        if out and "=" in t and ":" not in t and ":" in out[-1]:
            out[-1] = f"{out[-1]},{t}"
        else:
            out.append(t)
    return out
