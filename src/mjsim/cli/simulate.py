"""`mjsim simulate`: a seeded run to a Parquet dataset, with its summary."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mjsim.run.spec import SEPARATOR, check_sizes
from mjsim.cli.common import (_RUN_HELP, _check_outputs, _note_slow_run, _populations, _run_precision, _run_specs,
                              _summary, app, load_rules)



DEFAULT_HANDS = 100_000
DEFAULT_MAX_HANDS = 10_000_000


@app.command()
def simulate(
    rules: str = typer.Option("wanzai", "--rules", "-r", help=_RUN_HELP["rules"]),
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
    players: list[str] = typer.Option([], "--players", help=_RUN_HELP["players"] + (
        " Repeat for more populations: one variant each, named by its players, on the same seeds.")),
    hands: Optional[int] = typer.Option(None, "--hands", "-n", show_default=False,
                                        help=f"Number of hands (default {DEFAULT_HANDS:,})."),
    session_hands: int = typer.Option(16, "--session-hands", help=_RUN_HELP["session"]),
    seed: int = typer.Option(0, "--seed", help=_RUN_HELP["seed"]),
    workers: int = typer.Option(0, "--workers", "-w", help=_RUN_HELP["workers"]),
    chunk: Optional[int] = typer.Option(None, "--chunk", help=_RUN_HELP["chunk"]),
    out: str = typer.Option("mjsim-results", "--out", "-o", help=_RUN_HELP["out"]),
    backend: str = typer.Option("local", "--backend", help=_RUN_HELP["backend"]),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=_RUN_HELP["scheduler"]),
    scheduler_timeout: Optional[float] = typer.Option(None, "--scheduler-timeout", help=_RUN_HELP["scheduler_timeout"]),
    progress: bool = typer.Option(True, "--progress/--no-progress", help=_RUN_HELP["progress"]),
    precision: list[str] = typer.Option([], "--precision", help=(
        "MEASURE=HALFWIDTH (repeatable): add chunks, in order, until that 95% interval is this narrow, e.g. "
        "qixiaodui=0.0005 (a rate as a proportion) or dealer=0.05 (points); replaces --hands. Measures: win, "
        "draw, dealer, dealer_advantage, points_per_win, seat0..seat3, every pattern id, win kind and (Anhua) "
        "wild category.")),
    max_hands: Optional[int] = typer.Option(None, "--max-hands", show_default=False, help=(
        f"With --precision: the most hands to play (default {DEFAULT_MAX_HANDS:,}).")),
    allow_version_mix: bool = typer.Option(False, "--allow-version-mix", help=_RUN_HELP["version_mix"]),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Also write the summary's measures as a CSV table."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the summary's measures as JSON records."),
):
    """Play seeded hands into a Parquet dataset (resumable), then print a summary."""
    from mjsim.run import runner

    _check_outputs(tables=(csv, json_out))
    r = load_rules(rules, settings)
    pops = _populations(players)
    if precision:
        from mjsim.run import precision as prec

        if len(pops) > 1:
            raise ValueError("--precision runs one population: give --players once")
        if hands is not None:
            raise ValueError("--precision replaces --hands: it plays until the interval is narrow enough; "
                             "give the most hands to play with --max-hands")
        max_hands = DEFAULT_MAX_HANDS if max_hands is None else max_hands
        targets = prec.parse_targets(precision, r.game)
        # the spec below carries the cap as its hands: checked first, so a refusal names --max-hands
        check_sizes(max_hands, session_hands, "--max-hands")
        spec = runner.make_spec(r, players=pops[0][1], hands=max_hands, session_hands=session_hands, seed=seed,
                                chunk=chunk)
        if progress:
            _note_slow_run([spec], workers, backend, what=f"at most {max_hands:,} hands (--max-hands)")
        result = _run_precision(spec, out, targets, max_hands, lambda step: _run_specs(
            [step], out, workers, backend, scheduler, progress, allow_version_mix=allow_version_mix,
            scheduler_timeout=scheduler_timeout, note=False))
        _summary(out, [spec.variant], result, csv, json_out)
        return
    if max_hands is not None:
        raise ValueError("--max-hands is the most hands --precision may play; without --precision give --hands")
    hands = DEFAULT_HANDS if hands is None else hands
    several = len(pops) > 1
    specs = [runner.make_spec(r, players=pl, hands=hands, session_hands=session_hands, seed=seed, chunk=chunk,
                              label=f"{name}{SEPARATOR}{r.variant}" if several else "",
                              population=name if several else "")
             for name, pl in pops]
    result = _run_specs(specs, out, workers, backend, scheduler, progress,
                        allow_version_mix=allow_version_mix, scheduler_timeout=scheduler_timeout)
    _summary(out, [s.variant for s in specs], result, csv, json_out)
