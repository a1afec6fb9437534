"""Players: `mjsim arena` (the duplicate arena), `fit-ev` (the ev model) and `replay` (one hand, move by move)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mjsim.cli.common import (_RUN_HELP, InterruptSaid, _check_outputs, _hands_bar, _note_slow_work, app, console, err,
                              load_rules)

ARENA_INTERRUPTED = ("interrupted: the arena keeps no partial result; the same command plays the same deals "
                     "again from the start")



@app.command()
def arena(
    challenger: str = typer.Argument(..., help="The player to judge: a name, optionally with options (ev:fold=0.5)."),
    baseline: str = typer.Option("ev", "--baseline", "-b", help="The three other players (and the reference table)."),
    rules: str = typer.Option("wanzai", "--rules", "-r", help=_RUN_HELP["rules"]),
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
    deals: int = typer.Option(2_000, "--deals", "-n", help="Deals; each is played 5 times (challenger in each seat, and 4x baseline)."),
    seed: int = typer.Option(0, "--seed", help=_RUN_HELP["seed"]),
    workers: int = typer.Option(0, "--workers", "-w", help="Worker processes; 0 = all cores."),
    chunk: Optional[int] = typer.Option(None, "--chunk", help="Deals per task (default 2,000, or about 20 s of work with a search player); "
                                 "does not change the result."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help=_RUN_HELP["progress"]),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write every figure of the result as JSON."),
):
    """Duplicate arena: CHALLENGER in each seat against three baselines on the same deals;
    the edge in points per seat-hand with a deal-clustered 95% interval."""
    from mjsim.run import arena as arena_mod

    _check_outputs(tables=(None, json_out))
    r = load_rules(rules, settings)
    ch, base = arena_mod.parse_player(challenger), arena_mod.parse_player(baseline)
    if progress:
        _note_slow_work(arena_mod.cpu_seconds(r, ch, base, deals), f"these {deals:,} deals at five tables", workers,
                        "local", "(an arena keeps nothing: Ctrl-C ends it, and the same command plays the same deals)")
    try:
        with _hands_bar(progress, f"{ch} vs 3x {base}") as advance:
            result = arena_mod.run_arena(r, ch, base, deals=deals, seed=seed, workers=workers, chunk=chunk,
                                         progress=advance)
    except KeyboardInterrupt:
        # not the generic line: an arena keeps nothing on disk to resume from
        err.print(ARENA_INTERRUPTED, highlight=False, markup=False)
        raise InterruptSaid from None
    for line in arena_mod.format_lines(result):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    if json_out is not None:
        err.print(f"result: {arena_mod.write_json(result, json_out)}", highlight=False, markup=False)


@app.command("fit-ev")
def fit_ev(
    rules: str = typer.Option("wanzai", "--rules", "-r", help=_RUN_HELP["rules"]),
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
    hands: int = typer.Option(3_000, "--hands", "-n", help="Self-play hands to fit on."),
    seed: int = typer.Option(12345, "--seed", help=_RUN_HELP["seed"]),
    players: str = typer.Option("ev", "--players", help=_RUN_HELP["players"]),
    out: Path = typer.Option(..., "--out", "-o", help="Model file (JSON) to write; use it with --players ev:model=FILE."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help=_RUN_HELP["progress"]),
):
    """Re-fit the ev player's win-probability and danger model by self-play under RULES,
    into OUT (the entry for the rules' game; other entries in OUT are kept)."""
    from mjsim.run import evfit
    from mjsim.run import runner

    r = load_rules(rules, settings)
    hands = runner._positive_int("--hands (number of hands)", hands, maximum=runner.MAX_HANDS)
    if hands < 100:
        raise ValueError(f"--hands must be at least 100 to fit the model, got {hands}")
    seed = runner._positive_int("--seed", seed, minimum=0, maximum=runner.MAX_SEED)
    names = runner.parse_players(players)
    _check_outputs(("--out", out))
    evfit.read_existing(out, r.game)        # a file it cannot update: refused before the fit
    with _hands_bar(progress, f"fit-ev {r.variant}") as advance:
        entry = evfit.fit(r, hands=hands, seed=seed, players=names,
                          progress=None if advance is None else (lambda i: advance(i, hands)))
    evfit.write(out, r.game, entry)
    console.print(f"wrote the {r.game} model ({entry['fitted_on']['decisions']:,} decisions) to "
                  f"{out}; play it with --players ev:model={out}", highlight=False, markup=False)


@app.command()
def replay(
    rules: str = typer.Option("wanzai", "--rules", "-r", help="wanzai, anhua or a rules TOML file."),
    seed: int = typer.Option(0, "--seed", help="Master seed of the run (0..2^64-1)."),
    hand_index: int = typer.Option(0, "--hand", help="Hand index within the run."),
    players: str = typer.Option("ev", "--players", help="One player for all seats or four comma-separated (simulate's default: ev)."),
    session_hands: int = typer.Option(16, "--session-hands", help="Session length used by the run (dealer and fire carry over); simulate's default."),
    chinese: bool = typer.Option(False, "--chinese", help="Show tiles with Chinese names."),
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
):
    """Replay one hand of a run: every event, one per line, and the scoring explained."""
    from mjsim.play import game
    from mjsim.run import runner
    from mjsim.play.replay import describe

    seed = runner._positive_int("--seed", seed, minimum=0, maximum=runner.MAX_SEED)
    hand_index = runner._positive_int("--hand", hand_index, minimum=0, maximum=runner.MAX_HANDS - 1)
    session_hands = runner._positive_int("--session-hands", session_hands, maximum=runner.MAX_SESSION_HANDS)
    r = load_rules(rules, settings)
    from mjsim.run import runner

    names = runner.parse_players(players)
    if len(names) == 1:
        names = names * 4
    record = game.play(r, seed=seed, hand_index=hand_index, players=names, log=True, session_hands=session_hands)
    for line in describe(record, r, chinese=chinese):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
