"""`mjsim balance`: search the rule values that meet a designer's targets."""
from __future__ import annotations

import contextlib
import math
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from mjsim.analysis.terminal import FoldingTable as Table
from mjsim.cli.common import (_RUN_HELP, _check_outputs, _note_slow_work, _run_specs, app, console, err,
                              load_rules, refuse_set_with)



@app.command("balance")
def balance_cmd(
    vary: list[str] = typer.Option(..., "--vary", help=(
        "KEY=LO..HI (integers; floats for probabilities such as fire) or KEY=a,b,c (repeatable). A list-valued "
        "key (values.qixiaodui) gets the value in every entry; values.qixiaodui[1]=... varies one entry.")),
    target: list[str] = typer.Option(..., "--target", help=(
        "\"SECTION:MEASURE OP VALUE\" with OP =, <= or >= (repeatable), over any measure of the summary, e.g. "
        "\"pattern money:qixiaodui=0.06\", \"property money:qingyise=10%\", \"score:dealer - non-dealer<=0\".")),
    rules: str = typer.Option("wanzai", "--rules", "-r", help=_RUN_HELP["rules"]),
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
    players: list[str] = typer.Option(["ev"], "--players", help=(
        _RUN_HELP["players"] + " Given more than once: one search per population, the answers side by side. "
        "Default ev, whose play follows values and multipliers; greedy's play never reads them, so under "
        "greedy only the payments move (a share of money still responds, a pattern's frequency does not).")),
    hands: int = typer.Option(400_000, "--hands", "-n", help=(
        "The most hands any candidate is played for, in whole sessions.")),
    session_hands: int = typer.Option(16, "--session-hands", help=_RUN_HELP["session"]),
    seed: int = typer.Option(0, "--seed", help=_RUN_HELP["seed"] + " The same for every candidate (same walls)."),
    workers: int = typer.Option(0, "--workers", "-w", help=_RUN_HELP["workers"]),
    chunk: Optional[int] = typer.Option(None, "--chunk", help=(
        "Hands per chunk: a candidate's first step is one chunk, and its hands grow in whole chunks up to "
        "--hands (rounded down to whole chunks). Default: --hands/64, at least 4,000 (all of --hands if fewer), "
        "at most 20,000, in whole sessions; a size from half that up to 20,000 that divides --hands is "
        "preferred, the nearest. With search players the default chunk is about 20 s of work instead (as in "
        "simulate, so that Ctrl-C loses little) and the first step is that size in whole chunks.")),
    trials: int = typer.Option(40, "--trials", help="Several --vary or --target: candidates Optuna plays."),
    out: str = typer.Option("mjsim-balance", "--out", "-o", help="Output directory, one partition per candidate (rerun to resume)."),
    backend: str = typer.Option("local", "--backend", help=_RUN_HELP["backend"]),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=_RUN_HELP["scheduler"]),
    scheduler_timeout: Optional[float] = typer.Option(None, "--scheduler-timeout", help=_RUN_HELP["scheduler_timeout"]),
    progress: bool = typer.Option(True, "--progress/--no-progress", help=_RUN_HELP["progress"]),
    allow_version_mix: bool = typer.Option(False, "--allow-version-mix", help=_RUN_HELP["version_mix"]),
    html: Optional[Path] = typer.Option(None, "--html", help="Response plot page (default DIR/balance.html)."),
    write: Optional[Path] = typer.Option(None, "--write", help="Write the chosen rules (first --players) as a TOML file for --rules."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the answer as JSON: best values, targets at them, every candidate."),
):
    """Find the rule values that meet targets: every candidate on the same seeds, bisection
    for one parameter, Optuna for several; answers with 95% intervals."""
    from mjsim.run import balance as bal
    from mjsim.run import runner
    from mjsim.run.spec import table_seconds_per_hand

    _check_outputs(("--html", html or Path(out) / "balance.html"), ("--write", write), tables=(None, json_out))
    base = load_rules(rules, settings)
    varies = [bal.parse_vary(v, base) for v in vary]
    # a --vary of one position (values.pinghu[1]) keeps the rest of the key as --set gave it
    refuse_set_with("--vary", [v.key for v in varies if v.index is None], settings)
    targets = bal.parse_targets(target, base.game)
    populations = [runner.parse_players(p) for p in players]
    if len(set(populations)) != len(populations):
        raise ValueError("--players: a population is given twice")
    if trials < 1:
        raise ValueError(f"--trials must be 1 or more, got {trials}")
    bal.hands_plan(hands, session_hands, chunk)        # bad sizes before any work
    for pop in populations if progress else ():
        who = f" ({','.join(pop)})" if len(populations) > 1 else ""
        _note_slow_work(hands * table_seconds_per_hand(base, pop), f"each candidate's {hands:,} hands at most{who}",
                        workers, backend, "(a search plays about 10 to 40 candidates; the same command resumes it)",
                        times=MIN_CANDIDATES)
    answers = []
    with _balance_bar(progress) as bar:
        for pop in populations:
            suffix = f" [{','.join(pop)}]" if len(populations) > 1 else ""
            answers.append(bal.balance(
                base, varies, targets, players=pop, out=out, hands=hands, seed=seed,
                session_hands=session_hands, chunk=chunk, trials=trials, label_suffix=suffix, progress=bar,
                run_step=lambda spec: _run_specs([spec], out, workers, backend, scheduler,
                                                 progress and _step_lines(spec),
                                                 allow_version_mix=allow_version_mix,
                                                 scheduler_timeout=scheduler_timeout, note=False,
                                                 interrupted=_step_interrupted(spec, out))))
    for a in answers:
        rows = bal.table_rows(a)
        table = Table(title=escape(f"candidates, players {','.join(a.players)}"), title_justify="left")
        for h in rows[0]:
            table.add_column(escape(h), justify="right")
        for r in rows[1:]:
            table.add_row(*map(escape, r))
        console.print(table)
    if len(answers) > 1:
        side = Table(title="answers side by side", title_justify="left")
        side.add_column("players")
        side.add_column("answer")
        for a in answers:
            side.add_row(escape(",".join(a.players)), escape(bal.summary_line(a)))
        console.print(side)
    for a in answers:
        prefix = f"{','.join(a.players)}: " if len(answers) > 1 else ""
        console.print(prefix + bal.summary_line(a), highlight=False, markup=False, soft_wrap=True)
        if a.result.message:
            console.print(prefix + a.result.message, highlight=False, markup=False, soft_wrap=True)
    page = bal.html_page(answers, base, " ".join(sys.argv))
    from mjsim.analysis import report

    path = report.write_html(html or Path(out) / "balance.html", page)
    if write is not None:
        err.print(f"rules: {bal.write_rules(write, answers[0].rules(base))} (use with --rules {write})",
                  highlight=False, markup=False)
    if json_out is not None:
        err.print(f"json: {bal.write_json(json_out, answers)}", highlight=False, markup=False)
    err.print(f"dataset: {out}   response plot: {path}", highlight=False, markup=False)


#: the fewest candidates a search plays (the cost note counts at least these)
MIN_CANDIDATES = 10


def _step_lines(spec) -> bool:
    """Off a terminal, a step that takes longer than a progress interval (search players:
    minutes) prints the runner's plain progress lines; a terminal has the search's bar, and
    fast steps would only add a line each."""
    from mjsim.run import runner
    from mjsim.run.spec import table_seconds_per_hand

    return not err.is_terminal and spec.hands * table_seconds_per_hand(spec.rules, spec.players) > runner.PROGRESS_EVERY


def _step_interrupted(spec, out):
    """The interrupt line of one step of the search: what the step had done, and that the
    search's finished steps are kept (the runner's own line reads like the whole search)."""
    def line(result) -> str:
        return (f"interrupted in the step of {spec.label} ({result.chunks_done + result.chunks_skipped:,} of "
                f"{result.chunks_total:,} of its chunks complete); every finished step of the search is kept "
                f"in {out}: run the same command again to resume")
    return line


@contextlib.contextmanager
def _balance_bar(enabled: bool):
    """One progress bar over the candidates and their hands (rich, stderr); yields
    progress(label, hands of this step, hands played so far)."""
    if not enabled:
        yield None
        return
    if not err.is_terminal:
        # a rich bar off a terminal shows nothing meanwhile and leaves an empty line when it
        # stops (before the answer, or before a refusal's one line): plain lines instead
        yield _progress_lines()
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    state: dict = {"n": 0}

    def advance(label: str, step_hands: int, played: int) -> None:
        if not state.get("bar"):
            bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[hands]}"),
                           TimeElapsedColumn(), console=err, transient=True)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task("balance", total=None, hands="")
        state["n"] += 1
        state["bar"].update(state["task"], description=escape(f"candidate {state['n']}: {label}"),
                            hands=f"{step_hands:,} hands ({played:,} played so far)")

    try:
        yield advance
    finally:
        if state.get("bar"):
            state["bar"].stop()


def _progress_lines(every: float | None = None):
    """progress(label, step hands, played) off a terminal: a line when a step starts at
    least `every` seconds (the runner's PROGRESS_EVERY) after the last line, as simulate
    prints a line every 10 s."""
    import time

    from mjsim.run import runner

    every = runner.PROGRESS_EVERY if every is None else every
    state = {"n": 0, "last": -math.inf}        # the first candidate is always said

    def say(label: str, step_hands: int, played: int) -> None:
        state["n"] += 1
        if time.monotonic() - state["last"] >= every:
            state["last"] = time.monotonic()
            err.print(f"candidate {state['n']}: {label}, {step_hands:,} hands ({played:,} played so far)",
                      highlight=False, markup=False)
    return say
