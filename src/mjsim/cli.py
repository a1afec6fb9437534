"""The `mjsim` command.

Every user error (bad tile, bad rules key, bad value) ends as one line on stderr and exit
code 2, never a traceback.
"""
from __future__ import annotations

import sys
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from mjsim import engine
from mjsim.rules import Rules, RulesError, parse_override
from mjsim.tiles import format_tiles, parse_tiles

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Monte Carlo engine for Wanzai and Anhua mahjong.",
)
console = Console()
err = Console(stderr=True, soft_wrap=True)


def fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(2)


def load_rules(name: str, settings: list[str]) -> Rules:
    overrides = dict(parse_override(s) for s in settings)
    return Rules.load(name, **overrides)


def parse_meld_option(text: str) -> list[tuple[str, str]]:
    """'pung:111m,chow:234p' -> [('pung', '111m'), ('chow', '234p')]"""
    melds = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, sep, tiles = part.partition(":")
        if not sep:
            raise ValueError(f"meld {part!r} must look like kind:tiles, e.g. pung:111m")
        melds.append((kind.strip(), tiles.strip()))
    return melds


def _tiles(kinds, chinese: bool) -> str:
    return format_tiles(kinds, chinese=chinese)


@app.callback()
def _root() -> None:
    """Monte Carlo engine for Wanzai (萬載) and Anhua seven-wild (安化七王) mahjong."""


@app.command()
def hand(
    tiles: str = typer.Argument(..., help="Concealed tiles, e.g. 147m258p9s1234567z (Chinese accepted)."),
    rules: str = typer.Option("wanzai", "--rules", "-r", help="wanzai, anhua or a rules TOML file."),
    melds: str = typer.Option("", "--melds", help="Declared melds: pung:111m,chow:234p,kong:5555s,concealed_kong:...,added_kong:..."),
    discard: bool = typer.Option(False, "--discard", help="Won on a discard (default: self-draw)."),
    win_tile: Optional[str] = typer.Option(None, "--win-tile", help="The winning tile (matters for Anhua discard wins)."),
    wild: Optional[str] = typer.Option(None, "--wild", help="Anhua: the turned-up indicator tile."),
    context: Optional[str] = typer.Option(None, "--context", help="gangshanghua, qiangganghu or gangshangpao."),
    chinese: bool = typer.Option(False, "--chinese", help="Show tiles with Chinese names."),
    settings: list[str] = typer.Option([], "--set", help="Override a rule parameter: key=value (repeatable)."),
):
    """Evaluate a hand: win, pattern, points, shanten and waits."""
    r = load_rules(rules, settings)
    meld_list = parse_meld_option(melds)
    kinds = parse_tiles(tiles)
    n_melds = len(meld_list)
    table = Table(show_header=False, box=None)
    table.add_row("rules", f"{r.game} ({r.variant})")
    table.add_row("hand", _tiles(kinds, chinese) + "".join(f"  [{k} {_tiles(parse_tiles(t), chinese)}]" for k, t in meld_list))
    if wild is not None and r.game == "anhua":
        ind = engine._indicator(r, wild)
        table.add_row("wilds", f"indicator {_tiles([ind], chinese)} → {_tiles(engine.wild_tiles(ind), chinese)}")
    if len(kinds) == 14 - 3 * n_melds:
        e = engine.evaluate(r, kinds, meld_list, win_tile=win_tile, self_draw=not discard, wild=wild, context=context)
        table.add_row("win", "yes" if e.win else "no")
        if e.win:
            table.add_row("pattern", e.pattern)
            table.add_row("points", f"{e.points} per payer ({'discarder pays' if discard else 'each other player pays'})")
        if e.properties:
            table.add_row("properties", ", ".join(sorted(e.properties)))
        if e.category:
            table.add_row("wild category", e.category)
    table.add_row("shanten", str(engine.shanten(r, kinds, meld_list, wild=wild)))
    if len(kinds) == 13 - 3 * n_melds:
        w = engine.waits(r, kinds, meld_list, wild=wild)
        table.add_row("waits", _tiles(parse_tiles("".join(w)), chinese) if w else "none")
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    try:
        app(args=argv, standalone_mode=False)
    except typer.Exit as e:
        return e.exit_code
    except (ValueError, RulesError) as e:  # TileError and RulesError are ValueErrors
        err.print(f"[bold red]error:[/] {e}", highlight=False)
        return 2
    except OSError as e:
        err.print(f"[bold red]error:[/] {e}", highlight=False)
        return 2
    except Exception as e:
        # usage errors from typer's bundled click: they know how to print themselves
        if hasattr(e, "show") and hasattr(e, "exit_code"):
            e.show()
            return e.exit_code
        if type(e).__name__ == "Abort":
            err.print("aborted")
            return 130
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
