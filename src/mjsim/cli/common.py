"""What every command shares: the Typer application, the consoles, one-line errors, rules
and meld options, table output, runs and their progress, and the failures of the machine."""
from __future__ import annotations

import contextlib
import errno
import math
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from mjsim.jsonsafe import null_if_not_finite
from mjsim.rulesets.rules import Rules, command_line_overrides, parse_override, split_entry
from mjsim.tiles import format_tiles


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


def directory_arg(text: str) -> Path:
    """A dataset directory as typed. Typer's own Path conversion turns "" into ".", so an
    empty argument (an unset shell variable) would read the current directory."""
    if text == "":
        raise typer.BadParameter("an empty path names no directory; give the dataset directory")
    return Path(text)


def load_rules(name: str, settings: list[str]) -> Rules:
    """--rules with its --set overrides (read as rules.command_line_overrides reads them)."""
    if not name.strip():
        raise ValueError("--rules is empty: give a shipped rule set (wanzai, anhua) or a TOML file")
    pairs = [parse_override(s) for s in settings]
    base = Rules.load(name)
    return base.with_overrides(**command_line_overrides(base, pairs))


def refuse_set_with(option: str, keys, settings: list[str]) -> None:
    """A key in --set and in `option` (--grid, --vary): the other's values would replace
    --set's without a word, so say it once instead. Different entries of one list
    (--set values.qixiaodui[0]=3 --grid values.qixiaodui[1]=5,10) go together, and so does
    a whole list in --set with one entry varied."""
    set_keys = [split_entry(parse_override(s)[0]) for s in settings]
    for given in keys:
        key, index = split_entry(given)
        for set_key, set_index in set_keys:
            if set_key == key and (index is None or index == set_index):
                typed = set_key if set_index is None else f"{set_key}[{set_index}]"
                raise ValueError(f"--set {typed} and {option} {given}: {option} gives it its values, so --set's "
                                 f"would be ignored; give the key in one of them")


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
    """JSON on stdout, whole (never through rich: no wrapping, no markup), and strict: NaN
    and infinities are null, as in report and arena JSON (strict parsers reject NaN)."""
    import json

    sys.stdout.write(json.dumps(null_if_not_finite(value), ensure_ascii=False, indent=1, default=str,
                                allow_nan=False) + "\n")


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


# --------------------------------------------------------------------------------------
# the run commands (heavy imports inside: `mjsim hand` stays fast)

_RUN_HELP = {
    "rules": "wanzai, anhua or a rules TOML file.",
    "set": "Override a rule parameter: key=value (repeatable). A list takes a TOML list, one value for every "
           "entry (values.qixiaodui=10), or values.qixiaodui[1]=10 for one entry.",
    "players": "One player for all seats (ev, the default; greedy is the fast value-blind baseline) or four "
               "comma-separated (ev,greedy,ev,ev).",
    "populations": " Repeat for more populations (--players ev --players greedy): each plays the same seeds and "
                   "the differences are shown per population, with whether they agree.",
    "session": "Hands per session: dealer rotation and fire persistence run within a session; 1 = independent hands, each with its own first dealer (rules: first_dealer).",
    "seed": "Master seed: (seed, hand index) fixes every hand.",
    "workers": "Worker processes (local) or tasks in flight (dask); 0 = all cores.",
    "chunk": "Hands per chunk file (a multiple of --session-hands); default about 20,000, or about 20 s of work "
             "with search players (the unit a run resumes from: Ctrl-C loses the chunks in progress).",
    "backend": "local (process pool) or dask (dask.distributed).",
    "scheduler": "Dask scheduler address (tcp://host:8786); default: a LocalCluster.",
    "scheduler_timeout": "Seconds to wait for --scheduler to answer as a Dask scheduler (default 5).",
    "progress": "Show progress on stderr (a bar on a terminal, a line every 10 s otherwise).",
    "version_mix": "Resume a dataset written by another mjsim version (mixes versions in one dataset).",
    "out": "Output directory (created; rerun the same command to resume).",
}


class InterruptSaid(Exception):
    """A run was interrupted and has said what it kept: exit 130 without another line."""


def _run_specs(specs, out, workers, backend, scheduler, progress, *, allow_version_mix=False,
               scheduler_timeout=None, interrupted=None, note=True):
    """runner.run with the CLI's messages; `interrupted(result)`, when given, is the line an
    interrupt prints instead of the runner's (a run that is one step of a larger search,
    which says what the whole will cost itself: `note` False)."""
    from mjsim.run import runner

    if progress and note:
        _note_slow_run(specs, workers, backend)
    try:
        return runner.run(specs, out, workers=workers, backend=backend, scheduler=scheduler,
                          progress=progress, console=err, allow_version_mix=allow_version_mix,
                          scheduler_timeout=runner.DASK_CONNECT_SECONDS if scheduler_timeout is None
                          else scheduler_timeout)
    except runner.RunInterrupted as e:
        err.print((interrupted or runner.interrupted_message)(e.result), highlight=False, markup=False)
        raise InterruptSaid from None
    except runner.RunFailed as e:    # after some chunks were written: not bad input
        fail(str(e), code=1)
    except runner.GameUnavailable as e:
        fail(str(e))


#: a run whose players need more CPU than this says so before it starts (search seats)
SLOW_RUN_SECONDS = 600


def _duration(seconds: float) -> str:
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 90:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.0f} seconds"


def _note_slow_run(specs, workers, backend, what: str | None = None) -> None:
    """One line before a long run of slow players (a search seat plays about 9 Wanzai hands a
    second): what it will cost, that the progress line shows the ETA and what Ctrl-C keeps."""
    from mjsim.run import spec as runspec

    cpu = sum(s.hands * runspec.table_seconds_per_hand(s.rules, s.players) for s in specs)
    _note_slow_work(cpu, what or f"these {sum(s.hands for s in specs):,} hands", workers, backend,
                    "(less if resuming); the progress line shows the time left, and Ctrl-C keeps every "
                    "finished chunk")


def _note_slow_work(cpu: float, what: str, workers, backend, then: str, times: int = 1) -> None:
    """`note: search players need about X of CPU for WHAT, about Y on W workers THEN`, when X
    (done at least `times` times: balance's candidates) is over SLOW_RUN_SECONDS. W is what
    the local pool will use: --workers, capped at the cores this process may use as the
    runner caps it (unknown on Dask)."""
    from mjsim.run import runner
    from mjsim.run import spec as runspec

    if cpu * times < SLOW_RUN_SECONDS:
        return
    where = ""
    if backend == "local":
        cores = runner.default_workers()
        w = min(runspec.worker_count(workers, cores), cores)
        where = f", about {_duration(cpu / w)} on {w} worker{'s' if w != 1 else ''}"
    err.print(f"note: search players need about {_duration(cpu)} of CPU for {what}{where} {then}",
              highlight=False, markup=False)


def _run_precision(spec, out, targets, max_hands, run_step):
    """simulate --precision: grow the run (each step through `run_step`, which prints the
    errors); one line per step; the summed RunResult."""
    from mjsim.run import precision as prec

    def step(hands, widths):
        parts = ", ".join((f"{t.name} ±{widths[t.name]:.4g}" if math.isfinite(widths[t.name]) else
                           f"{t.name} no interval yet") + f" (target {t.halfwidth:g})" for t in targets)
        err.print(f"{hands:,} hands: {parts}", highlight=False, markup=False)

    final, _, widths, met, results = prec.run_to_precision(spec, out, targets, max_hands=max_hands, report=step,
                                                           run_step=run_step)
    if met:
        err.print(f"precision reached with {final.hands:,} hands (the same dataset as --hands {final.hands})",
                  highlight=False, markup=False)
    else:
        short = [t.name for t in targets if widths[t.name] > t.halfwidth]
        # the run grows in whole chunks: name what it played when that is short of --max-hands
        played = "" if final.hands == max_hands else f" ({final.hands:,} hands: whole chunks of {spec.chunk:,})"
        err.print(f"warning: --max-hands {max_hands:,} reached{played} before the precision of {', '.join(short)}",
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


def _summary(out, variants: list[str], result, csv: Optional[Path], json_out: Optional[Path]) -> None:
    """simulate's end: the summary table (and its measures as files), the timing line."""
    from mjsim.analysis import report
    from mjsim.analysis import stats

    found = stats.summarize_all(out, only=variants)
    report.print_summary(found, console)
    _write_tables(report.report_frame(found), csv, json_out)
    err.print(_timing_line(result), highlight=False, markup=False)
    err.print(f"dataset: {out}   full report: mjsim report {out}", highlight=False, markup=False)


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


def _check_outputs(*options: tuple[str, Optional[Path]], tables: tuple[Optional[Path], Optional[Path]] = (None, None)
                   ) -> None:
    """Each (option, file) given, and the table files `tables` (--csv, --json), can be
    written: checked before any work, one line naming the option, the file and the problem.
    A table's file name ends as its option says (--csv x.json is refused, not guessed)."""
    from mjsim.dataset.storage import check_writable_file

    csv, json_out = tables
    for option, path, suffix in (("--csv", csv, ".csv"), ("--json", json_out, ".json")):
        if path is not None and path.suffix.lower() != suffix:
            raise ValueError(f"{option} {path}: {option} writes {suffix[1:].upper()}, so the file name must end "
                             f"with {suffix} (a table is written as .csv or .json)")
    for option, path in (*options, ("--csv", csv), ("--json", json_out)):
        if path is not None:
            check_writable_file(option, path)


_ADJUST_HELP = "Multiple-comparison adjustment of the p-values: holm, fdr_bh (Benjamini-Hochberg) or none."


def _check_adjust(adjust: str) -> str:
    from mjsim.analysis.stats import ADJUST_METHODS

    if adjust not in ADJUST_METHODS:
        raise ValueError(f"--adjust must be {', '.join(ADJUST_METHODS[:-1])} or {ADJUST_METHODS[-1]}, got {adjust!r}")
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


def _html_paths(html_path: Path, names: list[str]) -> list[Path]:
    """The HTML file(s) a comparison writes: `html_path` for one population, else one file
    per population beside it (NAME-POPULATION.html). The population is spelt with letters,
    digits and . = - _ only: a percent-encoded name (search%2Cev) opened as a file:// URL is
    decoded by the browser into a file that does not exist; names that then coincide are
    numbered."""
    import re

    if len(names) < 2:
        return [html_path]
    slugs = [re.sub(r"[^A-Za-z0-9.=_-]+", "_", n) for n in names]
    slugs = [f"{s}-{i + 1}" if slugs.count(s) > 1 else s for i, s in enumerate(slugs)]
    return [html_path.with_name(f"{html_path.stem}-{s}{html_path.suffix}") for s in slugs]


def _population_comparisons(names, groups, html_path: Path, csv, json_out, adjust: str) -> list[Path]:
    """`groups[p]`: population p's baseline then its compared variants (the same grid points
    in every population).  Each population's tables (and HTML file), then every difference
    side by side with whether the populations agree; the CSV/JSON rows carry both."""
    import pandas as pd

    from mjsim.analysis import report
    from mjsim.analysis import stats
    from mjsim.run.populations import agreement_rows, strip_population

    per_population, frames, paths = [], [], []
    for name, (base, *others), path in zip(names, groups, _html_paths(html_path, names)):
        console.print(f"population {name}", style="bold", highlight=False, markup=False)
        results = stats.compare_all(base, others, adjust=adjust)
        note = _blind_line(base, others)
        report.print_comparison(base, others, console, results=results, adjust=adjust)
        per_population.append([comps for _, comps in results])
        frame = report.comparison_frame(base, others, results)
        frame.insert(0, "population", name)
        frames.append(frame)
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


@contextlib.contextmanager
def _hands_bar(enabled: bool, label: str):
    """Progress counting hands on stderr: a rich bar on a terminal, otherwise a plain line
    every PROGRESS_EVERY seconds and one at the end (a rich bar off a terminal shows
    nothing meanwhile); yields progress(done, total)."""
    if not enabled:
        yield None
        return
    if not err.is_terminal:
        with _hands_lines(label) as advance:
            yield advance
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


@contextlib.contextmanager
def _hands_lines(label: str, every: float | None = None):
    """progress(done, total) off a terminal: the runner's plain lines (every `every`
    seconds, PROGRESS_EVERY by default, and one at the end), from the first report on, so
    that input errors come first."""
    import time

    from mjsim.run import runner

    state = {"done": 0, "total": 0, "t0": time.perf_counter()}

    def line() -> str:
        elapsed = time.perf_counter() - state["t0"]
        return runner.progress_line(label, state["done"], state["total"], state["done"] / elapsed if elapsed > 0 else 0.0)

    with contextlib.ExitStack() as lines:
        def advance(done: int, total: int) -> None:
            state["done"], state["total"] = done, total
            if not state.get("started"):
                state["started"] = True
                lines.enter_context(runner.periodic_lines(err, line, runner.PROGRESS_EVERY if every is None else every))

        yield advance


DEBUG_NOTICE = ("note: this mjsim is the debug build (bounds-checked, about 13x slower); "
                "`pip install .` (or `pip install -e .` without MJSIM_DEBUG) gives the release build")


def debug_notice() -> str | None:
    """The stderr line for a debug build nobody asked for (MJSIM_BUILD=debug asks for it)."""
    from mjsim import _core

    if _core.DEBUG_BUILD and os.environ.get("MJSIM_BUILD", "") != "debug":
        return DEBUG_NOTICE
    return None


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
