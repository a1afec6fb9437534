"""The `mjsim` command.

Every user error (bad tile, bad rules key, bad value) ends as one line on stderr and exit
code 2, never a traceback; a failure of the machine or of a library (memory, disk, a lost
connection) ends as one line and exit code 1.
"""
from __future__ import annotations

import contextlib
import errno
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mjsim.play import engine
from mjsim.vocab import label
from mjsim.run.spec import SEPARATOR
from mjsim.rulesets.rules import Rules, RulesError, parse_override
from mjsim.tiles import format_tiles, parse_tiles

def _hide_flag_types() -> None:
    """Typer's rich help writes a flag's type beside it (`--help <bool>`): a flag takes no
    value, so show none (options that take a value keep theirs)."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_mjsim_flags_hidden", False):
        return

    def display_type_rich(self, ctx):
        return None if self.is_flag and self.metavar is None else shown(self, ctx)

    display_type_rich._mjsim_flags_hidden = True
    TyperOption.display_type_rich = display_type_rich


_hide_flag_types()

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Monte Carlo engine for Wanzai and Anhua mahjong.",
)
console = Console()
err = Console(stderr=True, soft_wrap=True)

# Without a terminal (a file, a pipe, a CI log) rich would lay tables out in 80 columns and
# cut cells ("qixing…"); no table of mjsim's is this wide, so piped output is always whole.
PIPE_WIDTH = 10_000


def whole_width(c: Console) -> None:
    """Give a console that does not write to a terminal room for every table at full width
    (COLUMNS included: a CI log's 80 would cut them again)."""
    if not c.is_terminal:
        c.width = PIPE_WIDTH


def error_line(message) -> None:
    """One line on stderr: the message is data (it quotes user text), never rich markup."""
    err.print(f"[bold red]error:[/] {escape(' '.join(str(message).split()))}", highlight=False)


def fail(message: str, code: int = 2) -> None:
    error_line(message)
    raise typer.Exit(code)


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


def _print_json(value) -> None:
    """JSON on stdout, whole (never through rich: no wrapping, no markup)."""
    import json

    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=1, default=str) + "\n")


def _tiles(kinds, chinese: bool) -> str:
    return format_tiles(kinds, chinese=chinese)


def _print_version(value: bool) -> None:
    if value:
        from mjsim.version import __version__

        console.print(f"mjsim {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the mjsim version and exit."),
) -> None:
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
    json_out: bool = typer.Option(False, "--json", help="Print the result as one JSON object instead of a table."),
):
    """Evaluate a hand: win, pattern (with its Chinese name), points, shanten and waits."""
    r = load_rules(rules, settings)
    meld_list = parse_meld_option(melds)
    kinds = parse_tiles(tiles)
    facts = _hand_facts(r, kinds, meld_list, discard, win_tile, wild, context, chinese)
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
    if len(kinds) == 14 - 3 * n_melds:
        e = engine.evaluate(r, kinds, meld_list, win_tile=win_tile, self_draw=not discard, wild=wild, context=context)
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


# --------------------------------------------------------------------------------------
# simulate, report, compare, sweep, query (heavy imports inside: `mjsim hand` stays fast)

_RUN_HELP = {
    "rules": "wanzai, anhua or a rules TOML file.",
    "set": "Override a rule parameter: key=value (repeatable).",
    "players": "One player for all seats (ev, the default; greedy is the fast value-blind baseline) or four "
               "comma-separated (ev,greedy,ev,ev).",
    "populations": " Repeat for more populations (--players ev --players greedy): each plays the same seeds and "
                   "the differences are shown per population, with whether they agree.",
    "session": "Hands per session: dealer rotation and fire persistence run within a session; 1 = independent hands, each with its own first dealer (rules: first_dealer).",
    "seed": "Master seed: (seed, hand index) fixes every hand.",
    "workers": "Worker processes (local) or tasks in flight (dask); 0 = all cores.",
    "chunk": "Hands per chunk file (a multiple of --session-hands); default about 20,000.",
    "backend": "local (process pool) or dask (dask.distributed).",
    "scheduler": "Dask scheduler address (tcp://host:8786); default: a LocalCluster.",
    "scheduler_timeout": "Seconds to wait for --scheduler to answer as a Dask scheduler.",
    "progress": "Show progress on stderr (a bar on a terminal, a line every 10 s otherwise).",
    "version_mix": "Resume a dataset written by another mjsim version (mixes versions in one dataset).",
    "out": "Output directory (created; rerun the same command to resume).",
}


def _run_specs(specs, out, workers, backend, scheduler, progress, *, allow_version_mix=False,
               scheduler_timeout=None):
    from mjsim.run import runner

    try:
        return runner.run(specs, out, workers=workers, backend=backend, scheduler=scheduler,
                          progress=progress, console=err, allow_version_mix=allow_version_mix,
                          scheduler_timeout=runner.DASK_CONNECT_SECONDS if scheduler_timeout is None
                          else scheduler_timeout)
    except runner.RunInterrupted as e:
        err.print(runner.interrupted_message(e.result), highlight=False, markup=False)
        raise typer.Exit(130)
    except runner.RunFailed as e:    # after some chunks were written: not bad input
        fail(str(e), code=1)
    except runner.GameUnavailable as e:
        fail(str(e))


def _run_precision(spec, out, targets, max_hands, run_step):
    """simulate --precision: grow the run (each step through `run_step`, which prints the
    errors); one line per step; the summed RunResult."""
    from mjsim.run import precision as prec

    def step(hands, widths):
        parts = ", ".join(f"{t.name} ±{widths[t.name]:.4g} (target {t.halfwidth:g})" for t in targets)
        err.print(f"{hands:,} hands: {parts}", highlight=False, markup=False)

    final, _, widths, met, results = prec.run_to_precision(spec, out, targets, max_hands=max_hands, report=step,
                                                           run_step=run_step)
    if met:
        err.print(f"precision reached with {final.hands:,} hands (the same dataset as --hands {final.hands})",
                  highlight=False, markup=False)
    else:
        short = [t.name for t in targets if widths[t.name] > t.halfwidth]
        err.print(f"warning: --max-hands {max_hands:,} reached before the precision of {', '.join(short)}",
                  highlight=False, markup=False)
    total = results[-1]
    for r in results[:-1]:
        total.hands_done += r.hands_done
        total.seconds += r.seconds
        total.simulate_seconds += r.simulate_seconds
        total.encode_seconds += r.encode_seconds
        total.write_seconds += r.write_seconds
    total.hands_skipped = total.hands_total - total.hands_done
    return total


def _timing_line(result) -> str:
    if not result.hands_done:
        return f"all {result.hands_total:,} hands were already in {result.out}: nothing to run"
    work = result.simulate_seconds + result.encode_seconds
    share = 100 * (result.encode_seconds + result.write_seconds) / work if work else 0.0
    skipped = f" ({result.hands_skipped:,} already done)" if result.hands_skipped else ""
    return (f"{result.hands_done:,} hands{skipped} in {result.seconds:.1f} s "
            f"({result.hands_done / max(result.seconds, 1e-9):,.0f} hands/s, {result.workers} {result.backend} "
            f"worker{'' if result.workers == 1 else 's'}); Arrow + Parquet {share:.1f}% of worker time")


@app.command()
def simulate(
    rules: str = typer.Option("wanzai", "--rules", "-r", help=_RUN_HELP["rules"]),
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
    players: list[str] = typer.Option([], "--players", help=_RUN_HELP["players"] + (
        " Repeat for more populations: one variant each, named by its players, on the same seeds.")),
    hands: int = typer.Option(100_000, "--hands", "-n", help="Number of hands."),
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
    max_hands: int = typer.Option(10_000_000, "--max-hands", help="With --precision: the most hands to play."),
    allow_version_mix: bool = typer.Option(False, "--allow-version-mix", help=_RUN_HELP["version_mix"]),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Also write the summary's measures as a CSV table."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the summary's measures as JSON records."),
):
    """Play seeded hands into a Parquet dataset (resumable), then print a summary."""
    from mjsim.run import runner

    r = load_rules(rules, settings)
    pops = _populations(players)
    if precision:
        from mjsim.run import precision as prec

        if len(pops) > 1:
            raise ValueError("--precision runs one population: give --players once")
        targets = prec.parse_targets(precision, r.game)
        spec = runner.make_spec(r, players=pops[0][1], hands=max_hands, session_hands=session_hands, seed=seed,
                                chunk=chunk)
        result = _run_precision(spec, out, targets, max_hands, lambda step: _run_specs(
            [step], out, workers, backend, scheduler, progress, allow_version_mix=allow_version_mix,
            scheduler_timeout=scheduler_timeout))
        _summary(out, [spec.variant], result, csv, json_out)
        return
    several = len(pops) > 1
    specs = [runner.make_spec(r, players=pl, hands=hands, session_hands=session_hands, seed=seed, chunk=chunk,
                              label=f"{name}{SEPARATOR}{r.variant}" if several else "",
                              population=name if several else "")
             for name, pl in pops]
    result = _run_specs(specs, out, workers, backend, scheduler, progress,
                        allow_version_mix=allow_version_mix, scheduler_timeout=scheduler_timeout)
    _summary(out, [s.variant for s in specs], result, csv, json_out)


def _summary(out, variants: list[str], result, csv: Optional[Path], json_out: Optional[Path]) -> None:
    """simulate's end: the summary table (and its measures as files), the timing line."""
    from mjsim.analysis import report
    from mjsim.analysis import stats

    found = stats.summarize_all(out, only=variants)
    report.print_summary(found, console)
    _write_tables(report.report_frame(found), csv, json_out)
    err.print(_timing_line(result), highlight=False, markup=False)
    err.print(f"dataset: {out}   full report: mjsim report {out}", highlight=False, markup=False)


@app.command("report")
def report_cmd(
    directory: Path = typer.Argument(..., help="A dataset directory made by simulate or sweep."),
    html: Optional[Path] = typer.Option(None, "--html", help="HTML file to write (default DIR/report.html)."),
    variant: list[str] = typer.Option([], "--variant", help="Only these variants (repeatable)."),
    no_html: bool = typer.Option(False, "--no-html", help="Terminal tables only."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Also write every measure as a CSV table."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write every measure as JSON records."),
):
    """Tables of every measure with 95% intervals, and a self-contained HTML report with plots."""
    from mjsim.analysis import report
    from mjsim.analysis import stats

    missing = set(variant) - set(stats.variants(directory))
    if missing:
        raise ValueError(f"{directory} has no variant {', '.join(sorted(missing))} "
                         f"(it has {', '.join(stats.variants(directory))})")
    found = stats.summarize_all(directory, only=variant or None)
    report.print_report(found, console)
    _write_tables(report.report_frame(found), csv, json_out)
    if not no_html:
        path = report.write_html(html or Path(directory) / "report.html", report.html_report(found))
        err.print(f"HTML report: {path}", highlight=False, markup=False)


def _one_variant(directory: Path, variant: Optional[str], option: str):
    from mjsim.analysis import stats

    found = stats.variants(directory)
    if variant is None and len(found) > 1:
        raise ValueError(f"{directory} holds {len(found)} variants ({', '.join(found)}): choose one with {option}")
    return stats.variant_stats(directory, variant)


def _write_tables(frame, csv: Optional[Path], json_out: Optional[Path]) -> None:
    from mjsim.analysis import report

    for path in (csv, json_out):
        if path is not None:
            err.print(f"table: {report.write_table(frame, path)}", highlight=False, markup=False)


_ADJUST_HELP = "Multiple-comparison adjustment of the p-values: holm, fdr_bh (Benjamini-Hochberg) or none."


def _check_adjust(adjust: str) -> str:
    if adjust not in ("holm", "fdr_bh", "none"):
        raise ValueError(f"--adjust must be holm, fdr_bh or none, got {adjust!r}")
    return adjust


def _comparison(base, others, html_path: Path, csv, json_out, adjust: str):
    from mjsim.analysis import report
    from mjsim.analysis import stats

    results = stats.compare_all(base, others, adjust=adjust)
    note = _blind_line(base, others)
    report.print_comparison(base, others, console, results=results, adjust=adjust)
    _write_tables(report.comparison_frame(base, others, results), csv, json_out)
    return report.write_html(html_path, report.html_comparison(base, others, results=results, adjust=adjust,
                                                               note=note))


def _blind_line(base, others) -> str | None:
    """The one line above a comparison whose players cannot respond to its change (printed,
    and returned for the HTML page)."""
    from mjsim.run.populations import blind_note

    note = blind_note(base, others)
    if note:
        console.print(note, highlight=False, markup=False, soft_wrap=True)
    return note


def _populations(texts: list[str]):
    """--players given 0..n times -> [(name, players)]; none: the default population."""
    from mjsim.run import runner
    from mjsim.run.populations import populations

    return populations(texts or [runner.DEFAULT_PLAYERS])


def _population_comparisons(names, groups, html_path: Path, csv, json_out, adjust: str) -> list[Path]:
    """`groups[p]`: population p's baseline then its compared variants (the same grid points
    in every population).  Each population's tables (and HTML file), then every difference
    side by side with whether the populations agree; the CSV/JSON rows carry both."""
    import pandas as pd

    from mjsim.analysis import report
    from mjsim.run import runner
    from mjsim.analysis import stats
    from mjsim.run.populations import agreement_rows, strip_population

    per_population, frames, paths = [], [], []
    for name, (base, *others) in zip(names, groups):
        console.print(f"population {name}", style="bold", highlight=False, markup=False)
        results = stats.compare_all(base, others, adjust=adjust)
        note = _blind_line(base, others)
        report.print_comparison(base, others, console, results=results, adjust=adjust)
        per_population.append([comps for _, comps in results])
        frame = report.comparison_frame(base, others, results)
        frame.insert(0, "population", name)
        frames.append(frame)
        path = html_path.with_name(f"{html_path.stem}-{runner.encode_variant(name)}{html_path.suffix}")
        paths.append(report.write_html(path, report.html_comparison(base, others, results=results, adjust=adjust,
                                                                    note=note)))
    # the j-th compared variant is one grid point in every population: named as in the first
    labels = [strip_population(o.label, names[0]) for o in groups[0][1:]]
    rows = agreement_rows(labels, per_population)
    report.print_agreement(names, rows, console)
    agreed = {(r.variant, r.section, r.name): r.agree for r in rows}
    for (_, *others), frame in zip(groups, frames):
        point = {o.variant: labels[j] for j, o in enumerate(others)}
        frame["populations_agree"] = [agreed.get((point[v], sec, m)) for v, sec, m in
                                      zip(frame["variant"], frame["section"], frame["measure"])]
    _write_tables(pd.concat(frames, ignore_index=True), csv, json_out)
    return paths


@app.command("compare")
def compare_cmd(
    dir_a: Path = typer.Argument(..., help="Baseline dataset."),
    dir_b: Path = typer.Argument(..., help="Dataset to compare with the baseline (may be DIR_A with another variant)."),
    variant_a: Optional[str] = typer.Option(None, "--variant-a", help="Variant of DIR_A (needed when it holds several)."),
    variant_b: Optional[str] = typer.Option(None, "--variant-b", help="Variant of DIR_B (needed when it holds several)."),
    html: Path = typer.Option(Path("mjsim-compare.html"), "--html", help="HTML file to write."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Also write the comparison as a CSV table."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the comparison as JSON records."),
    adjust: str = typer.Option("holm", "--adjust", help=_ADJUST_HELP),
    players: list[str] = typer.Option([], "--players", help=(
        "Compare the variants these players played (in each dataset). Repeat for more populations: each is "
        "compared on its own, then every difference is shown per population, with whether they agree.")),
):
    """Two datasets side by side: differences, 95% intervals, adjusted significance (paired when they share a seed)."""
    from mjsim.analysis import stats

    adjust = _check_adjust(adjust)
    if players:
        _compare_populations(dir_a, dir_b, variant_a, variant_b, players, html, csv, json_out, adjust)
        return
    a = _one_variant(dir_a, variant_a, "--variant-a")
    b = _one_variant(dir_b, variant_b, "--variant-b")
    stats.pairing(a, b)     # refuses two games in one line
    if a.label == b.label:   # e.g. two seeds of the shipped rules: tell the columns apart
        a.info["label"], b.info["label"] = f"{a.label} [{dir_a}]", f"{b.label} [{dir_b}]"
    path = _comparison(a, [b], html, csv, json_out, adjust)
    err.print(f"HTML comparison: {path}", highlight=False, markup=False)


def _compare_populations(dir_a: Path, dir_b: Path, variant_a, variant_b, players, html: Path, csv, json_out,
                         adjust: str) -> None:
    """compare --players P [--players Q ...]: per population, its variant of DIR_A against
    its variant of DIR_B."""
    from mjsim.analysis import stats
    from mjsim.run.populations import select_variant

    pops = _populations(players)
    groups = []
    for _, pl in pops:
        a = stats.variant_stats(dir_a, select_variant(dir_a, pl, variant_a, "--variant-a"))
        b = stats.variant_stats(dir_b, select_variant(dir_b, pl, variant_b, "--variant-b"))
        stats.pairing(a, b)     # refuses two games in one line
        if a.label == b.label:
            a.info["label"], b.info["label"] = f"{a.label} [{dir_a}]", f"{b.label} [{dir_b}]"
        groups.append([a, b])
    names = [name for name, _ in pops]
    if len(pops) == 1:
        path = _comparison(groups[0][0], groups[0][1:], html, csv, json_out, adjust)
        err.print(f"HTML comparison: {path}", highlight=False, markup=False)
        return
    paths = _population_comparisons(names, groups, html, csv, json_out, adjust)
    err.print(f"HTML comparisons: {', '.join(map(str, paths))}", highlight=False, markup=False)


@app.command()
def sweep(
    grid: list[str] = typer.Option(..., "--grid", help="key=v1,v2,... (repeatable): every combination is a variant; the first is the baseline."),
    rules: str = typer.Option("wanzai", "--rules", "-r", help=_RUN_HELP["rules"]),
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
    players: list[str] = typer.Option([], "--players", help=_RUN_HELP["players"] + _RUN_HELP["populations"]),
    hands: int = typer.Option(100_000, "--hands", "-n", help="Hands per variant."),
    session_hands: int = typer.Option(16, "--session-hands", help=_RUN_HELP["session"]),
    seed: int = typer.Option(0, "--seed", help=_RUN_HELP["seed"] + " The same for every variant (same walls)."),
    workers: int = typer.Option(0, "--workers", "-w", help=_RUN_HELP["workers"]),
    chunk: Optional[int] = typer.Option(None, "--chunk", help=_RUN_HELP["chunk"]),
    out: str = typer.Option("mjsim-sweep", "--out", "-o", help="Output directory, one partition per variant."),
    backend: str = typer.Option("local", "--backend", help=_RUN_HELP["backend"]),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=_RUN_HELP["scheduler"]),
    scheduler_timeout: Optional[float] = typer.Option(None, "--scheduler-timeout", help=_RUN_HELP["scheduler_timeout"]),
    progress: bool = typer.Option(True, "--progress/--no-progress", help=_RUN_HELP["progress"]),
    allow_version_mix: bool = typer.Option(False, "--allow-version-mix", help=_RUN_HELP["version_mix"]),
    html: Optional[Path] = typer.Option(None, "--html", help="Comparison HTML (default DIR/compare.html)."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Also write the comparison as a CSV table."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the comparison as JSON records."),
    adjust: str = typer.Option("holm", "--adjust", help=_ADJUST_HELP),
):
    """Run every combination of a grid of rule values into one dataset and compare them (paired: same walls)."""
    from mjsim.run import runner
    from mjsim.analysis import stats

    adjust = _check_adjust(adjust)

    base = load_rules(rules, settings)
    grid_values = runner.parse_grid(grid)
    pops = _populations(players)
    several = len(pops) > 1
    groups = [runner.sweep_specs(base, grid_values, population=name if several else "", players=pl, hands=hands,
                                 session_hands=session_hands, seed=seed, chunk=chunk) for name, pl in pops]
    if len(groups[0]) < 2:
        raise ValueError("the grid gives a single rule set: nothing to compare (give at least two values)")
    specs = [s for g in groups for s in g]
    result = _run_specs(specs, out, workers, backend, scheduler, progress,
                        allow_version_mix=allow_version_mix, scheduler_timeout=scheduler_timeout)
    found = {s.variant: s for s in stats.summarize_all(out, only=[s.variant for s in specs])}
    ordered = [[found[s.variant] for s in g] for g in groups]
    html_path = html or Path(out) / "compare.html"
    if several:
        paths = _population_comparisons([name for name, _ in pops], ordered, html_path, csv, json_out, adjust)
        where = "HTML comparisons: " + ", ".join(map(str, paths))
    else:
        where = f"HTML comparison: {_comparison(ordered[0][0], ordered[0][1:], html_path, csv, json_out, adjust)}"
    err.print(_timing_line(result), highlight=False, markup=False)
    err.print(f"dataset: {out}   {where}", highlight=False, markup=False)


@app.command()
def query(
    directory: Path = typer.Argument(..., help="A dataset directory."),
    sql: str = typer.Argument(..., help='SQL over the views hands, wins and payments, e.g. "SELECT pattern, count(*) FROM wins GROUP BY 1".'),
    limit: int = typer.Option(50, "--limit", help="Rows to show in the table (0 or more)."),
    csv: bool = typer.Option(False, "--csv", help="Print every row as CSV instead of a table."),
    json_rows: bool = typer.Option(False, "--json", help="Print every row as a JSON record (one array) instead of a table."),
):
    """Run SQL (DuckDB) over the dataset: the views `hands`, `wins` and `payments` (quote the column "end")."""
    from mjsim.analysis import stats

    if limit < 0:
        raise ValueError(f"--limit must be 0 or more, got {limit}")
    if csv and json_rows:
        raise ValueError("--csv and --json: choose one")
    columns, rows = stats.query(directory, sql)
    if json_rows:
        _print_json([dict(zip(map(str, columns), row)) for row in rows])
        return
    if csv:
        import csv as csv_module

        writer = csv_module.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return

    table = Table()
    for c in columns:
        table.add_column(escape(str(c)))
    for row in rows[:limit]:
        table.add_row(*("NULL" if v is None else escape(str(v)) for v in row))
    console.print(table)
    if len(rows) > limit:
        err.print(f"{len(rows) - limit:,} more rows not shown (--limit, or --csv for all)", highlight=False, markup=False)


@app.command()
def arena(
    challenger: str = typer.Argument(..., help="The player to judge: a name, optionally with options (ev:fold=0.5)."),
    baseline: str = typer.Option("ev", "--baseline", "-b", help="The three other players (and the reference table)."),
    rules: str = typer.Option("wanzai", "--rules", "-r", help=_RUN_HELP["rules"]),
    settings: list[str] = typer.Option([], "--set", help=_RUN_HELP["set"]),
    deals: int = typer.Option(2_000, "--deals", "-n", help="Deals; each is played 5 times (challenger in each seat, and 4x baseline)."),
    seed: int = typer.Option(0, "--seed", help=_RUN_HELP["seed"]),
    workers: int = typer.Option(0, "--workers", "-w", help="Worker processes; 0 = all cores."),
    chunk: Optional[int] = typer.Option(None, "--chunk", help="Deals per task (default 2,000); does not change the result."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help=_RUN_HELP["progress"]),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write every figure of the result as JSON."),
):
    """Duplicate arena: CHALLENGER in each seat against three baselines on the same deals;
    the edge in points per seat-hand with a deal-clustered 95% interval."""
    from mjsim.run import arena as arena_mod

    r = load_rules(rules, settings)
    ch, base = arena_mod.parse_player(challenger), arena_mod.parse_player(baseline)
    with _hands_bar(progress, f"{ch} vs 3x {base}") as advance:
        result = arena_mod.run_arena(r, ch, base, deals=deals, seed=seed, workers=workers, chunk=chunk,
                                     progress=advance)
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
    if hands < 100:
        raise ValueError(f"--hands must be at least 100 to fit the model, got {hands}")
    names = runner.parse_players(players)
    with _hands_bar(progress, f"fit-ev {r.variant}") as advance:
        entry = evfit.fit(r, hands=hands, seed=seed, players=names,
                          progress=None if advance is None else (lambda i: advance(i, hands)))
    evfit.write(out, r.game, entry)
    console.print(f"wrote the {r.game} model ({entry['fitted_on']['decisions']:,} decisions) to "
                  f"{out}; play it with --players ev:model={out}", highlight=False, markup=False)


@contextlib.contextmanager
def _hands_bar(enabled: bool, label: str):
    """A rich progress bar counting hands on stderr; yields progress(done, total)."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    state: dict = {}

    def advance(done: int, total: int) -> None:
        if not state:   # started by the first report: input errors come before any bar
            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TextColumn("hands"), TimeRemainingColumn(), console=err, transient=True)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task(escape(label), total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    try:
        yield advance
    finally:
        if state:
            state["bar"].stop()


@app.command()
def replay(
    rules: str = typer.Option("wanzai", "--rules", "-r", help="wanzai, anhua or a rules TOML file."),
    seed: int = typer.Option(0, "--seed", help="Master seed of the run (0..2^64-1)."),
    hand_index: int = typer.Option(0, "--hand", help="Hand index within the run."),
    players: str = typer.Option("ev", "--players", help="One player for all seats or four comma-separated (simulate's default: ev)."),
    session_hands: int = typer.Option(16, "--session-hands", help="Session length used by the run (dealer and fire carry over); simulate's default."),
    chinese: bool = typer.Option(False, "--chinese", help="Show tiles with Chinese names."),
    settings: list[str] = typer.Option([], "--set", help="Override a rule parameter: key=value (repeatable)."),
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


@app.command()
def cache(
    clear: bool = typer.Option(False, "--clear", help="Delete every table-cache file (each build rebuilds its own on first use)."),
):
    """List the table-cache files (one per build of the native core, about 79 MB each), or delete them."""
    import datetime

    from mjsim.core import _tables

    folder = Path(_tables.cache_dir())
    mine = _tables.cache_path()
    files = sorted(folder.glob("tables-*.bin")) + sorted(folder.glob(".tables-*")) if folder.is_dir() else []
    if clear:
        freed = 0
        for f in files:
            with contextlib.suppress(FileNotFoundError):
                size = f.stat().st_size
                f.unlink()
                freed += size
        console.print(f"deleted {len(files)} file{'' if len(files) == 1 else 's'} ({freed / 1e6:,.1f} MB) "
                      f"from {folder}", highlight=False, markup=False)
        return
    state = "off (MJSIM_TABLE_CACHE=0)" if mine is None else "on"
    console.print(f"table cache: {folder} ({state})", highlight=False, markup=False)
    for f in files:
        st = f.stat()
        when = datetime.datetime.fromtimestamp(st.st_mtime).strftime("%Y-%m-%d %H:%M")
        note = "  this build" if mine is not None and str(f) == mine else ""
        note = note or ("  unfinished save" if f.name.startswith(".") else "")
        console.print(f"{f.name}  {st.st_size / 1e6:,.1f} MB  last used {when}{note}", highlight=False, markup=False)
    total = sum(f.stat().st_size for f in files)
    console.print(f"{len(files)} file{'' if len(files) == 1 else 's'}, {total / 1e6:,.1f} MB; `mjsim cache --clear` "
                  f"deletes them (a save keeps this build's file and the one most recently used besides it)",
                  highlight=False, markup=False)


DEBUG_NOTICE = ("note: this mjsim is the debug build (bounds-checked, about 13x slower); "
                "`pip install .` (or `pip install -e .` without MJSIM_DEBUG) gives the release build")


def debug_notice() -> str | None:
    """The stderr line for a debug build nobody asked for (MJSIM_BUILD=debug asks for it)."""
    from mjsim import _core

    if _core.DEBUG_BUILD and os.environ.get("MJSIM_BUILD", "") != "debug":
        return DEBUG_NOTICE
    return None


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
        "Default ev: greedy never reads values or multipliers, so it cannot balance them.")),
    hands: int = typer.Option(400_000, "--hands", "-n", help="The most hands any candidate is played for."),
    session_hands: int = typer.Option(16, "--session-hands", help=_RUN_HELP["session"]),
    seed: int = typer.Option(0, "--seed", help=_RUN_HELP["seed"] + " The same for every candidate (same walls)."),
    workers: int = typer.Option(0, "--workers", "-w", help=_RUN_HELP["workers"]),
    chunk: Optional[int] = typer.Option(None, "--chunk", help="Hands per chunk, the step of the search's growth (default: --hands/64, at most 20,000)."),
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

    base = load_rules(rules, settings)
    varies = [bal.parse_vary(v, base) for v in vary]
    targets = bal.parse_targets(target, base.game)
    populations = [runner.parse_players(p) for p in players]
    if len(set(populations)) != len(populations):
        raise ValueError("--players: a population is given twice")
    if trials < 1:
        raise ValueError(f"--trials must be 1 or more, got {trials}")
    bal.hands_plan(hands, session_hands, chunk)        # bad sizes before any work
    answers = []
    with _balance_bar(progress) as bar:
        for pop in populations:
            suffix = f" [{','.join(pop)}]" if len(populations) > 1 else ""
            answers.append(bal.balance(
                base, varies, targets, players=pop, out=out, hands=hands, seed=seed,
                session_hands=session_hands, chunk=chunk, trials=trials, label_suffix=suffix, progress=bar,
                run_step=lambda spec: _run_specs([spec], out, workers, backend, scheduler, False,
                                                 allow_version_mix=allow_version_mix,
                                                 scheduler_timeout=scheduler_timeout)))
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


@contextlib.contextmanager
def _balance_bar(enabled: bool):
    """One progress bar over the candidates and their hands (rich, stderr); yields
    progress(label, hands of this step, hands played so far)."""
    if not enabled:
        yield None
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


def main(argv: list[str] | None = None) -> int:
    whole_width(console)
    whole_width(err)
    notice = debug_notice()
    if notice:
        err.print(notice, highlight=False, markup=False, soft_wrap=True)
    try:
        # with standalone_mode=False click returns typer.Exit's code instead of raising it
        code = app(args=argv, standalone_mode=False)
        if isinstance(code, int) and code:
            return code
    except typer.Exit as e:
        return e.exit_code
    except (ValueError, RulesError) as e:  # TileError and RulesError are ValueErrors
        error_line(e)
        return 2
    except MemoryError:
        error_line("out of memory: free memory (fewer --workers, a smaller --chunk) and run the same command again")
        return 1
    except Exception as e:
        failure = machine_failure(e)
        if failure:     # not the user's input: exit 1, and say what to try
            error_line(failure)
            return 1
        if isinstance(e, OSError):
            error_line(e)
            return 2
        # usage errors from typer's bundled click: one line, with where to find the usage
        if hasattr(e, "format_message") and hasattr(e, "exit_code"):
            ctx = getattr(e, "ctx", None)
            where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
            error_line(f"{e.format_message()}{where}")
            return e.exit_code
        if type(e).__name__ == "Abort":
            err.print("aborted")
            return 130
        if _is_duckdb_error(e):    # a damaged dataset read by report/compare
            error_line(f"reading the dataset failed: {e}")
            return 2
        raise
    return 0


#: errno values that say the machine, not the input, failed
_MACHINE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.ENOMEM, errno.EROFS, errno.EMFILE, errno.ENFILE}


def machine_failure(e: BaseException) -> str | None:
    """One line for a failure of the machine or of a library (memory, disk, a lost
    connection) with what to try; None for anything else (bad input keeps exit 2)."""
    text = " ".join(str(e).split())
    name = type(e).__name__
    if isinstance(e, (ConnectionError, TimeoutError)):
        return f"{text or name}: the connection failed; check the scheduler or the network and run the same command again"
    if isinstance(e, OSError) and e.errno in _MACHINE_ERRNOS:
        return f"{text}: free disk space or memory and run the same command again"
    if _is_duckdb_error(e) and ("OutOfMemory" in name or "Out of Memory" in text):
        return f"reading the dataset ran out of memory ({text}); free memory or use fewer workers and run it again"
    if _is_duckdb_error(e) and name in ("IOException", "IOError") and ("space" in text or "disk" in text):
        return f"reading the dataset failed on the disk ({text}); free disk space and run it again"
    if type(e).__module__.startswith("pyarrow") and "Memory" in name:
        return f"out of memory reading the dataset ({text}); free memory and run it again"
    return None


def _is_duckdb_error(e: BaseException) -> bool:
    return type(e).__module__.split(".")[0] in ("duckdb", "_duckdb")


if __name__ == "__main__":
    sys.exit(main())
