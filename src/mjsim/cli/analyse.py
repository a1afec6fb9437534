"""Reading datasets: `mjsim report`, `compare`, `sweep` (a grid of variants compared with the
base) and `query` (SQL on the dataset)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from mjsim.analysis.terminal import FoldingTable as Table
from mjsim.cli.common import (_ADJUST_HELP, _RUN_HELP, _check_adjust, _check_outputs, _comparison, _html_paths,
                              _one_variant, _population_comparisons, _populations, _print_json, _run_specs, _timing_line, _write_tables,
                              app, console, directory_arg, err, load_rules, refuse_set_with)



@app.command("report")
def report_cmd(
    directory: Path = typer.Argument(..., parser=directory_arg, metavar="DIR", help="A dataset directory made by simulate or sweep."),
    html: Optional[Path] = typer.Option(None, "--html", help="HTML file to write (default DIR/report.html)."),
    variant: list[str] = typer.Option([], "--variant", help="Only these variants (repeatable)."),
    no_html: bool = typer.Option(False, "--no-html", help="Terminal tables only."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Also write every measure as a CSV table."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write every measure as JSON records."),
):
    """Tables of every measure with 95% intervals, and a self-contained HTML report with plots."""
    from mjsim.analysis import report
    from mjsim.analysis import stats

    stats.check_dataset_dir(directory)     # before DIR/report.html is named as the problem
    _check_outputs(("--html", None if no_html else html or Path(directory) / "report.html"), tables=(csv, json_out))
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


@app.command("compare")
def compare_cmd(
    dir_a: Path = typer.Argument(..., parser=directory_arg, metavar="DIR_A", help="Baseline dataset."),
    dir_b: Path = typer.Argument(..., parser=directory_arg, metavar="DIR_B", help="Dataset to compare with the baseline (may be DIR_A with another variant)."),
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
    names = [name for name, _ in _populations(players)] if players else []
    _check_outputs(*(("--html", p) for p in _html_paths(html, names)), tables=(csv, json_out))
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
    pops = _populations(players)
    _check_outputs(*(("--html", p) for p in _html_paths(html or Path(out) / "compare.html", [n for n, _ in pops])),
                   tables=(csv, json_out))

    base = load_rules(rules, settings)
    grid_values = runner.parse_grid(grid)
    refuse_set_with("--grid", [k for k, _ in grid_values], settings)
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
    directory: Path = typer.Argument(..., parser=directory_arg, metavar="DIR", help="A dataset directory."),
    sql: str = typer.Argument(..., help='SQL over the views hands, wins and payments, e.g. "SELECT pattern, count(*) FROM wins GROUP BY 1".'),
    limit: int = typer.Option(50, "--limit", help="Rows to show in the table (0 or more)."),
    csv: bool = typer.Option(False, "--csv", help="Print every row as CSV instead of a table."),
    json_rows: bool = typer.Option(False, "--json", help="Print every row as a JSON record (one array) instead of a table."),
    verify: bool = typer.Option(False, "--verify", help=(
        "First check every page checksum of the dataset (DuckDB does not; about 0.8 s a million hands).")),
):
    """Run SQL (DuckDB) over the dataset: the views `hands`, `wins` and `payments` (quote the column "end")."""
    from mjsim.analysis import stats

    if limit < 0:
        raise ValueError(f"--limit must be 0 or more, got {limit}")
    if csv and json_rows:
        raise ValueError("--csv and --json: choose one")
    columns, rows = stats.query(directory, sql, verify=verify)
    unfinished = stats.incomplete_variants(directory)
    if unfinished:
        # report shows INCOMPLETE in its header; a query has none, so say it here
        err.print(f"note: {directory} is incomplete (variant {', '.join(unfinished)}: an interrupted run); "
                  f"the query read the chunks it holds, and resuming the run adds the rest",
                  highlight=False, markup=False, soft_wrap=True)
    if json_rows:
        _print_query_json(columns, rows)
    elif csv:
        _print_query_csv(columns, rows)
    else:
        _print_query_table(columns, rows, limit)


def _print_query_json(columns: list[str], rows: list[tuple]) -> None:
    """Every row as a JSON record: a record keeps one value per name, so two columns of one
    name are refused rather than one of them silently dropped (CSV and the table keep both)."""
    seen: set[str] = set()
    for name in map(str, columns):
        if name in seen:
            raise ValueError(f"--json: two columns are named {name!r} and a JSON record keeps only one: "
                             f"give them different names with AS (e.g. ... AS {name}_2), or use --csv")
        seen.add(name)
    _print_json([dict(zip(map(str, columns), row)) for row in rows])


def _print_query_csv(columns: list[str], rows: list[tuple]) -> None:
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)


def _print_query_table(columns: list[str], rows: list[tuple], limit: int) -> None:
    table = Table()
    for c in columns:
        table.add_column(escape(str(c)))
    for row in rows[:limit]:
        table.add_row(*("NULL" if v is None else escape(str(v)) for v in row))
    console.print(table)
    hidden = len(rows) - limit
    if hidden > 0:
        err.print(f"{hidden:,} more {'row' if hidden == 1 else 'rows'} not shown (--limit, or --csv for all)",
                  highlight=False, markup=False)
