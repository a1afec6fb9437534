"""`mjsim hand`: evaluate one hand under a rule set."""
from __future__ import annotations

from typing import Optional

import typer
from rich.markup import escape

from mjsim.analysis.terminal import FoldingTable as Table
from mjsim.play import engine
from mjsim.vocab import label
from mjsim.rulesets.rules import Rules
from mjsim.tiles import TileError, parse_tile, parse_tiles
from mjsim.cli.common import _RUN_HELP, _print_json, _tiles, app, console, load_rules, parse_meld_option



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
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
    json_out: bool = typer.Option(False, "--json", help="Print the result as one JSON object instead of a table."),
):
    """Evaluate a hand: win, pattern (with its Chinese name), points, shanten and waits."""
    r = load_rules(rules, settings)
    meld_list = parse_meld_option(melds)
    kinds = parse_tiles(tiles)
    win_kind, wild_kind = _option_tile("--win-tile", win_tile), _wild_option(r, wild)
    _check_context(context, discard)
    facts = _hand_facts(r, kinds, meld_list, discard, win_kind, wild_kind, context, chinese)
    if json_out:
        _print_json(facts)
        return
    table = Table(show_header=False, box=None)
    for key, value in facts.items():
        if key == "melds":
            continue
        if key in ("pattern", "wild_category"):
            value = label(value)
        elif key == "properties":
            value = ", ".join(label(p) for p in value)
        elif key == "points":
            value = f"{value} per payer ({'discarder pays' if discard else 'each other player pays'})"
        elif key == "win":
            value = "yes" if value else "no"
        elif key == "waits":
            value = value or "none"
        table.add_row(key.replace("_", " "), escape(str(value)))
    console.print(table)


# The options are checked here, before the engine, whose messages name its own keywords
# (wild=, context=, self_draw=): a user of the command should read the option they typed.

def _option_tile(option: str, text: Optional[str]) -> Optional[int]:
    """A one-tile option as a tile kind (None if not given); a bad tile names the option."""
    if text is None:
        return None
    try:
        return parse_tile(text)
    except TileError as e:
        raise TileError(f"{option}: {e}") from None


def _wild_option(r: Rules, wild: Optional[str]) -> Optional[int]:
    """--wild as a tile kind: required by a game with wilds, refused by one without."""
    if not r.traits.wilds:
        if wild is not None:
            raise ValueError(f"{r.game} has no wilds: leave out --wild")
        return None
    if wild is None:
        raise ValueError(f"{r.game} needs the turned-up wild indicator tile: give it as --wild, e.g. --wild 3s")
    kind = _option_tile("--wild", wild)
    try:
        return engine._indicator(r, kind)
    except TileError as e:      # an honor
        raise TileError(f"--wild: {e}") from None


def _check_context(context: Optional[str], discard: bool) -> None:
    if context is None:
        return
    if context not in engine.CONTEXTS:
        raise ValueError(f"--context must be one of {', '.join(engine.CONTEXTS)}, got {context!r}")
    if context == "gangshanghua" and discard:
        raise ValueError("--context gangshanghua is a win on one's own draw after a kong: leave out --discard")
    if context != "gangshanghua" and not discard:
        raise ValueError(f"--context {context} is a win on another player's tile: add --discard")


def _hand_facts(r: Rules, kinds, meld_list, discard, win_tile, wild, context, chinese) -> dict:
    """What `mjsim hand` shows, as plain values (the table and --json print the same)."""
    n_melds = len(meld_list)
    facts: dict = {"rules": f"{r.game} ({r.variant})",
                   "hand": _tiles(kinds, chinese) + "".join(f"  [{k} {_tiles(parse_tiles(t), chinese)}]"
                                                             for k, t in meld_list),
                   "melds": [[k, t] for k, t in meld_list]}
    if wild is not None and r.traits.wilds:
        ind = engine._indicator(r, wild)
        facts["wilds"] = f"indicator {_tiles([ind], chinese)} → {_tiles(engine.wild_tiles(ind), chinese)}"
    waiting = len(kinds) == 13 - 3 * n_melds
    if waiting and win_tile is None and (discard or context):
        raise ValueError("a hand of 13 tiles is evaluated as a win only with the tile it wins on: give --win-tile")
    # a waiting hand and --win-tile: the win it makes (--discard and --context apply to it)
    whole = list(kinds) + [win_tile] if waiting and win_tile is not None else kinds
    if whole is not kinds:
        facts["win_tile"] = _tiles([win_tile], chinese) + " (added to the 13)"
    if len(whole) == 14 - 3 * n_melds:
        e = engine.evaluate(r, whole, meld_list, win_tile=win_tile, self_draw=not discard, wild=wild, context=context)
        facts["win"] = bool(e.win)
        if e.win:
            facts["pattern"] = e.pattern
            facts["points"] = int(e.points)
        if e.properties:
            facts["properties"] = sorted(e.properties)
        if e.category:
            facts["wild_category"] = e.category
    facts["shanten"] = int(engine.shanten(r, kinds, meld_list, wild=wild))
    if len(kinds) == 13 - 3 * n_melds:
        w = engine.waits(r, kinds, meld_list, wild=wild)
        facts["waits"] = _tiles(parse_tiles("".join(w)), chinese) if w else ""
    return facts
