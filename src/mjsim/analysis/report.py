"""Reports: rich terminal tables and one self-contained HTML file (plots embedded as PNG).

`print_report` / `html_report` describe the variants of one dataset; `print_comparison` /
`html_comparison` put a baseline and other variants side by side with differences, 95 %
intervals, raw and adjusted p-values and a flag (✱) where the adjusted p < 0.05 (the tests
are named once, in a legend; see mjsim.stats). Every id is shown with its Chinese name.
"""
from __future__ import annotations

import base64
import contextlib
import html
import io
import json
import math
import re
import warnings
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from string import Template

import numpy as np

from mjsim.analysis import stats as st
from mjsim.vocab import chinese
from mjsim.vocab import label as zh_label
from mjsim.analysis.stats import Comparison, Mean, Pairing, Rate, VariantStats

__all__ = ["comparison_frame", "html_comparison", "html_report", "print_comparison", "print_report",
           "print_agreement", "print_summary", "report_frame", "write_html", "write_table"]

SECTIONS = ("outcome", "win kind", "pattern", "pattern points", "pattern money", "property",
            "property money", "wild category",
            "seat", "money", "birds", "kongs", "fire", "score", "win", "hand")
TITLES = {
    "outcome": "Outcomes", "win kind": "Win kinds", "pattern": "Patterns (scored pattern of a winner)",
    "pattern points": "Points per win, by pattern", "pattern money": "Share of win money, by pattern",
    "property": "Properties (every id a winning hand has)",
    "property money": "Share of win money, by property (a win counts for each property it has)", "wild category": "Anhua wild categories",
    "seat": "Seats: wins, deal-ins and claims", "money": "Money by reason (share of all payments)", "birds": "Birds (抓鳥)", "kongs": "Kongs", "fire": "Fire (上火)",
    "score": "Net score per hand", "win": "Win values", "hand": "Hand length and claims",
}
SIG = "✱"
#: one letter per test in the comparison tables, explained once in the legend
TEST_MARK = {st.PAIRED_TEST: "P", st.MCNEMAR_TEST: "M", st.FISHER_TEST: "F", st.RATE_TEST: "Z", st.MEAN_TEST: "W"}
TEST_LEGEND = {
    "P": "paired t-test on per-hand differences, standard error clustered by session (t, sessions−1 df)",
    "M": "exact McNemar test on the hands where the event differs",
    "F": "Fisher's exact test (a count below 10)",
    "Z": "two-proportion z-test on effective counts (n / design effect); interval: Newcombe's hybrid score",
    "W": "Welch's t-test on session-clustered standard errors (Welch-Satterthwaite df)",
}


# ------------------------------------------------------------------------------------
# Number formatting


def pct(x: float) -> str:
    """A proportion as a percentage with about three significant digits."""
    if x is None or not math.isfinite(x):
        return "–"
    v = 100 * x
    if v == 0:
        return "0"
    # digits enough to tell the value from 0 % and from 100 % (99.997 must not read 100.0)
    if 50 < v < 100:
        decimals = 1 - math.floor(math.log10(100 - v))
    else:
        decimals = 2 - math.floor(math.log10(abs(v)))
    decimals = min(6, max(1, decimals))
    return f"{v:.{decimals}f}"


def num(x: float, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, (int, np.integer)) or float(x).is_integer() and abs(x) >= 1000:
        return f"{int(x):,}"
    return f"{x:.{digits}f}"


def count(x: float) -> str:
    return f"{int(round(x)):,}" if x is not None and math.isfinite(x) else "–"


def pval(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "–"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def name_cell(name: str) -> str:
    """An id with its Chinese name: 'qixiaodui 七小對'."""
    return zh_label(name)


def rate_cells(r: Rate) -> list[str]:
    lo, hi = r.ci
    return [count(r.count), pct(r.freq), f"[{pct(lo)}, {pct(hi)}]"]


def mean_cells(m: Mean) -> list[str]:
    lo, hi = m.ci
    return [num(m.mean), num(m.sd), num(m.min, 0) if math.isfinite(m.min) else "–",
            num(m.max, 0) if math.isfinite(m.max) else "–", f"[{num(lo)}, {num(hi)}]"]


CI_RATE = "95% CI % (Wilson)"
MEAN_HEAD = ["mean", "sd", "min", "max", "95% CI of mean"]
METHOD_NOTE = ("Rates: hands (or wins) in which it happened; a hand with several winners of one pattern counts "
               "once. Rate intervals: Wilson score on the effective sample size (n / design effect, the "
               "design effect from the session-clustered variance, at least 1, times Korn-Graubard's (t(sessions−1)/z)² "
               "for few sessions). Mean intervals: t with "
               "sessions−1 df on the session-clustered standard error. Hands of one session are dependent "
               "(dealer, 上火); sessions are independent.")


def method_note(stats_list: Sequence[VariantStats]) -> str:
    """METHOD_NOTE, and what it cannot promise for a variant of one session: with a single
    session no clustered variance exists, so that variant's intervals treat its hands as
    independent and are too narrow wherever a hand depends on the ones before it."""
    single = [s.label for s in stats_list if s.sessions < 2]
    if not single:
        return METHOD_NOTE
    who = ", ".join(single)
    return (METHOD_NOTE + f" {who}: one session only, so no session-clustered interval exists: its rate "
            "intervals treat the hands as independent and may be too narrow, and its means have none (run "
            "more sessions: --session-hands below --hands).")


def _rate_head(items: Sequence[Rate]) -> list[str]:
    unit = items[0].unit if items else "hands"
    if unit == "points":      # a share of money: the count is points, not events
        return ["points", "share %", "95% CI % (Wilson, effective n)"]
    return ["count", f"per {unit[:-1]} %", CI_RATE]


def _by_section(items: Sequence) -> dict[str, list]:
    out: dict[str, list] = {}
    for item in items:
        out.setdefault(item.section, []).append(item)
    return {s: out[s] for s in [*SECTIONS, *[k for k in out if k not in SECTIONS]] if s in out}


def _info_rows(s: VariantStats) -> list[tuple[str, str]]:
    info = s.info
    rows = [("variant", s.variant), ("rules", f"{s.game} {chinese(s.game)}".strip()), ("hands", f"{s.hands:,}"),
            ("wins", f"{s.wins:,}")]
    if info.get("label"):
        rows.insert(1, ("label", info["label"]))
    if info.get("changes"):
        rows.append(("changed rules", ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}"
                                                for k, v in info["changes"].items())))
    for key, name in (("seed", "seed"), ("session_hands", "hands per session")):
        if key in info:
            rows.append((name, str(info[key])))
    if info.get("players"):
        rows.append(("players", ",".join(info["players"])))
    if info and not info.get("complete", True):
        rows.append(("status", "INCOMPLETE: resume the run for the full dataset"))
    return rows


def pattern_value(s: VariantStats, pattern: str) -> str:
    """The value the rules give a pattern: Wanzai [discard, self] 番, Anhua ×multiplier."""
    rules = s.rules
    if rules is None:
        return "–"
    if rules.traits.pattern_values:
        v = rules.get(f"values.{pattern}")
        return f"{v[0]} / {v[1]}" if v is not None else "–"
    v = rules.get(f"multipliers.{pattern}")
    return f"×{v}" if v is not None else "–"


def pattern_rows(s: VariantStats) -> list[list[str]]:
    """Per pattern: value, count, frequency and interval, mean points per win, share of money."""
    points = {m.name: m for m in s.means if m.section == "pattern points"}
    money = {r.name: r for r in s.rates if r.section == "pattern money"}
    rows = []
    for r in (r for r in s.rates if r.section == "pattern"):
        p, m = points.get(r.name), money.get(r.name)
        lo, hi = r.ci
        mlo, mhi = m.ci if m else (math.nan, math.nan)
        rows.append([name_cell(r.name), pattern_value(s, r.name), count(r.count), pct(r.freq),
                     f"[{pct(lo)}, {pct(hi)}]", num(p.mean, 2) if p and p.n else "–",
                     pct(m.freq) if m else "–", f"[{pct(mlo)}, {pct(mhi)}]" if m and m.count else "–"])
    return rows


PATTERN_HEAD = ["value", "count", "per hand %", CI_RATE, "points per win", "share of win money %", "95% CI %"]
VALUE_NOTE = {"wanzai": "value: 番 per paying player, on a discard / on a self-draw (rules [values])",
              "anhua": "value: the basic-type multiplier (rules [multipliers])"}


def seat_rows(s: VariantStats) -> list[list[str]]:
    rates = {r.name: r for r in s.rates if r.section == "seat"}
    means = {m.name: m for m in s.means if m.section == "score"}
    claims = {m.name: m for m in s.means if m.section == "seat"}
    rows = []
    for seat in range(4):
        w, d, m = rates.get(f"seat {seat} wins"), rates.get(f"seat {seat} deals in"), means.get(f"seat {seat}")
        cells = [f"seat {seat}"]
        for r in (w, d):
            cells += [pct(r.freq), "[{}, {}]".format(*map(pct, r.ci))] if r else ["–", "–"]
        c = claims.get(f"seat {seat} claims per hand")
        cells.append(num(c.mean) if c else "–")
        cells += [num(m.mean), "[{}, {}]".format(*map(num, m.ci))] if m else ["–", "–"]
        rows.append(cells)
    return rows


SEAT_HEAD = ["wins %", CI_RATE, "deals in %", CI_RATE, "claims per hand", "net per hand", "95% CI"]
SPREAD_HEAD = ["seat-sessions", "mean", "sd", "min", "5%", "25%", "median", "75%", "95%", "max"]


def spread_rows(s: VariantStats) -> list[list[str]]:
    return [["all seats" if d["seat"] == "all" else f"seat {d['seat']}", f"{d['sessions']:,}", num(d["mean"], 2),
             num(d["sd"], 2), num(d["min"], 0), *(num(d[k], 1) for k in ("q5", "q25", "q50", "q75", "q95")),
             num(d["max"], 0)] for d in s.session_spread]


def _spread_title(s: VariantStats) -> str:
    k = s.session_spread[0]["hands per session"] if s.session_spread else 0
    return f"A seat's net result over a whole session ({k} hands)"


def _sections(s: VariantStats, full: bool):
    """(title, head, rows) of every table of a variant, each title once."""
    shown = set()
    out = []
    rates = _by_section([r for r in s.rates if full or (r.count and r.section not in ("property", "property money"))])
    means = _by_section(s.means)
    for section in [*SECTIONS, *[k for k in (*rates, *means) if k not in SECTIONS]]:
        if section in shown or section in ("pattern points", "pattern money"):
            continue
        shown.add(section)
        title = TITLES.get(section, section)
        if section == "pattern":
            out.append((title, ["pattern", *PATTERN_HEAD], pattern_rows(s), VALUE_NOTE.get(s.game, "")))
            continue
        if section == "seat":
            out.append((title, ["", *SEAT_HEAD], seat_rows(s), ""))
            continue
        if section in rates:
            out.append((title, ["", *_rate_head(rates[section])],
                        [[name_cell(r.name), *rate_cells(r)] for r in rates[section]], ""))
        if section in means and (full or section != "win"):
            sub = title if section not in rates else f"{title}: means"
            out.append((sub, ["", *MEAN_HEAD], [[name_cell(m.name), *mean_cells(m)] for m in means[section]], ""))
    if s.session_spread:
        out.append((_spread_title(s), ["", *SPREAD_HEAD], spread_rows(s), ""))
    return out


# ------------------------------------------------------------------------------------
# Terminal


def _m(text) -> str:
    """Plain text for rich: labels such as "wanzai [runs/a]" must not be read as markup."""
    from rich.markup import escape

    return escape(str(text))


def _console(console=None):
    from rich.console import Console

    return console or Console()


def _table(title: str, head: Sequence[str]):
    from mjsim.analysis.terminal import FoldingTable as Table

    table = Table(title=_m(title), title_justify="left", title_style="bold")
    table.add_column(_m(head[0]) if head else "")
    for h in head[1:]:
        table.add_column(_m(h), justify="right")
    return table


def print_report(stats_list: Sequence[VariantStats], console=None, *, full: bool = True) -> None:
    """Every measure of every variant; `full=False` drops never-seen rows and properties."""
    from mjsim.analysis.terminal import FoldingTable as Table

    console = _console(console)
    for s in stats_list:
        kind = "report" if full else "summary"
        head = Table(show_header=False, box=None, title=f"mjsim {kind}: {_m(s.label)}", title_justify="left",
                     title_style="bold magenta")
        for k, v in _info_rows(s):
            head.add_row(k, _m(v))
        console.print(head)
        for title, cols, rows, note in _sections(s, full):
            table = _table(title, cols)
            for row in rows:
                table.add_row(*map(_m, row))
            console.print(table)
            if note:
                console.print(_m(note), style="dim", highlight=False)
    if stats_list:
        console.print(_m(method_note(stats_list)), style="dim", highlight=False)


def print_summary(stats_list: Sequence[VariantStats], console=None) -> None:
    """The short table `mjsim simulate` prints at the end."""
    print_report(stats_list, console, full=False)


def _cmp_rows(base: VariantStats, results: Sequence[tuple[Pairing, list[Comparison]]]):
    """[(section, name, base measure, [Comparison or None per other])] in section order."""
    per_other = [{(c.section, c.name): c for c in comps} for _, comps in results]
    keys: list = []
    for p in per_other:
        keys += [k for k in p if k not in keys]
    rows = []
    for key in keys:
        cs = [p.get(key) for p in per_other]
        first = next(c for c in cs if c is not None)
        rows.append((key[0], key[1], first.a, cs))
    order = {s: i for i, s in enumerate(SECTIONS)}
    rows.sort(key=lambda r: order.get(r[0], len(order)))
    return rows


def _value(m) -> str:
    if m is None:
        return "–"
    return pct(m.freq) + " %" if isinstance(m, Rate) else num(m.mean)


def _diff(c: Comparison | None) -> str:
    if c is None:
        return "–"
    f = (lambda x: pct(x)) if isinstance(c.a, Rate) else num
    unit = " pp" if isinstance(c.a, Rate) else ""
    return f"{_signed(f(c.diff))}{unit} [{f(c.ci[0])}, {f(c.ci[1])}]"


def _signed(text: str) -> str:
    return text if text.startswith("-") or text in ("0", "–") else "+" + text


def _p_cells(c: Comparison | None) -> list[str]:
    if c is None:
        return ["–", "–"]
    if not c.tested:
        return ["–", c.note.removeprefix("not tested: ")]
    mark = f" {SIG}" if c.significant else ""
    return [f"{pval(c.p)} {TEST_MARK.get(c.test, '?')}", pval(c.p_adj) + mark]


def _quiet(a, cs) -> bool:
    """Rows with nothing to say: no events anywhere, or identical in every hand."""
    return all(c is None or (not c.tested and c.diff == 0) for c in cs)


def _adjust_name(adjust: str) -> str:
    return st.ADJUST_NAMES.get(adjust, adjust)


def _pairing_lines(others: Sequence[VariantStats], results) -> list[str]:
    lines = []
    for o, (pair, _) in zip(others, results):
        text = f"{o.label}: {pair.reason}"
        if pair.paired and pair.identical is not None:
            text += f"; {pair.identical:,} of {pair.hands:,} hands played identically"
        lines.append(text)
    return lines


def _legend(adjust: str) -> str:
    tests = "; ".join(f"{k}: {v}" for k, v in TEST_LEGEND.items())
    return (f"{SIG}: adjusted p < {st.ALPHA} ({_adjust_name(adjust)} over every test of this comparison). "
            f"Tests: {tests}. Rates in %, differences in percentage points (pp); measures the change itself "
            f"defines, measures identical in every hand and never-seen events are not tested.")


def print_comparison(base: VariantStats, others: Sequence[VariantStats], console=None, *,
                     results=None, adjust: str = st.ADJUST) -> None:
    """One table per variant against the baseline (narrow enough for a terminal), then
    how each was paired, then the legend once."""
    from mjsim.analysis.terminal import FoldingTable as Table

    console = _console(console)
    results = results if results is not None else st.compare_all(base, others, adjust=adjust)
    for o, result in zip(others, results):
        table = Table(title=f"mjsim compare: {_m(o.label)} vs baseline {_m(base.label)}", title_justify="left",
                      title_style="bold magenta")
        table.add_column("measure")
        table.add_column(f"{_m(base.label)}\n({base.hands:,} hands)", justify="right")
        table.add_column(f"{_m(o.label)}\n({o.hands:,} hands)", justify="right")
        table.add_column("Δ vs baseline [95% CI]", justify="right")
        table.add_column("p", justify="right")
        table.add_column(f"p adj. ({_adjust_name(adjust)})", justify="right")
        section = None
        for sec, name, a, cs in _cmp_rows(base, [result]):
            if _quiet(a, cs):
                continue
            if sec != section:   # a bold row per section keeps the measure column narrow
                if section is not None:
                    table.add_section()
                table.add_row(f"[bold]{_m(TITLES.get(sec, sec).split(' (')[0])}")
                section = sec
            c = cs[0]
            table.add_row(_m(name_cell(name)), _value(a), _value(c.b if c else None), _diff(c), *map(_m, _p_cells(c)))
        if section is None:     # every row was quiet: no headers over nothing
            console.print(f"mjsim compare: {o.label} vs baseline {base.label}: no measure differs",
                          highlight=False, markup=False, soft_wrap=True)
            continue
        console.print(table)
    for line in _pairing_lines(others, results):
        console.print(_m(line), highlight=False)
    console.print(_m(_legend(adjust)), style="dim", highlight=False)


def _agree_cell(value: bool | None) -> str:
    return "–" if value is None else ("yes" if value else "no")


def print_agreement(names: Sequence[str], rows, console=None) -> None:
    """The differences of every population side by side (mjsim.populations.agreement_rows),
    with whether they agree: a point common to every 95 % interval."""
    from mjsim.analysis.terminal import FoldingTable as Table

    console = _console(console)
    several = len({r.variant for r in rows}) > 1
    order = {s: i for i, s in enumerate(SECTIONS)}
    table = Table(title="mjsim populations: each difference under each population", title_justify="left",
                  title_style="bold magenta")
    table.add_column("measure")
    if several:
        table.add_column("variant")
    for name in names:
        table.add_column(f"Δ {_m(name)} [95% CI]", justify="right")
    table.add_column("agree", justify="center")
    section = None
    shown = [r for r in rows if not _quiet(None, r.comparisons)]
    first: dict = {}
    for i, r in enumerate(shown):
        first.setdefault((r.section, r.name), i)
    # by section, then measure (in first-seen order), the variants of one measure together
    for r in sorted(shown, key=lambda r: (order.get(r.section, len(order)), first[(r.section, r.name)])):
        if r.section != section:
            if section is not None:
                table.add_section()
            table.add_row(f"[bold]{_m(TITLES.get(r.section, r.section).split(' (')[0])}")
            section = r.section
        table.add_row(_m(name_cell(r.name)), *([_m(r.variant)] if several else []),
                      *(_diff(c) for c in r.comparisons), _agree_cell(r.agree))
    console.print(table)
    console.print(_m("agree: the populations' 95% intervals share a point (so no two differences that exclude 0 "
                     "have opposite signs); – : a population lacks the measure or its interval"),
                  style="dim", highlight=False)


# ------------------------------------------------------------------------------------
# Tables for other programs


def report_frame(stats_list: Sequence[VariantStats]):
    """Every measure of every variant, one row each (pandas)."""
    import pandas as pd

    return pd.concat([s.frame() for s in stats_list], ignore_index=True)


def comparison_frame(base: VariantStats, others: Sequence[VariantStats], results):
    """One row per (variant, measure): both values, the difference, its interval, p, adjusted p."""
    import pandas as pd

    rows = []
    for o, (pair, comps) in zip(others, results):
        for c in comps:
            value = (lambda m: m.freq) if isinstance(c.a, Rate) else (lambda m: m.mean)
            rows.append({"baseline": base.variant, "variant": o.variant, "section": c.section, "measure": c.name,
                         "chinese": chinese(c.name), "kind": "rate" if isinstance(c.a, Rate) else "mean",
                         "baseline_value": value(c.a), "value": value(c.b), "diff": c.diff, "ci_low": c.ci[0],
                         "ci_high": c.ci[1], "p": c.p, "p_adjusted": c.p_adj, "significant": c.significant,
                         "test": c.test, "paired": c.paired, "note": c.note,
                         "identical_hands": pair.identical if pair.paired else None})
    return pd.DataFrame(rows)


def write_table(frame, path: str | Path) -> Path:
    """A DataFrame as CSV or JSON (records), by the file's suffix; complete or absent."""
    from mjsim.dataset.storage import write_output

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise ValueError(f"{path}: a table is written as .csv or .json")
    if suffix == ".csv":
        text = frame.to_csv(index=False)
    else:
        text = frame.to_json(orient="records", indent=1, force_ascii=False)
    return write_output(path, text.encode("utf-8"))


# ------------------------------------------------------------------------------------
# Plots (matplotlib, Agg, PNG embedded as base64)

#: The CJK font mjsim ships (src/mjsim/data, made by tools/make_cjk_font.py: a subset of
#: Noto Sans CJK TC, SIL OFL 1.1, with ASCII and every Chinese character mjsim writes): the
#: HTML embeds it and the plots use it, so Chinese renders on a machine without a CJK font.
CJK_FONT_FILE = Path(__file__).resolve().parents[1] / "data" / "mjsim-cjk.otf"
CJK_FONT_FAMILY = "mjsim CJK subset"
#: installed CJK families matplotlib may use if the shipped file is missing
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK JP", "Source Han Sans SC",
             "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "Droid Sans Fallback", "AR PL UMing CN")


def cjk_font() -> str | None:
    """The CJK family for the plots: the shipped subset (registered with matplotlib once),
    else the first installed CJK font, else None (plots then show ids only)."""
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    if CJK_FONT_FAMILY not in names and CJK_FONT_FILE.is_file():
        try:
            font_manager.fontManager.addfont(str(CJK_FONT_FILE))
            names.add(CJK_FONT_FAMILY)
        except (OSError, RuntimeError, ValueError):
            pass
    if CJK_FONT_FAMILY in names:
        return CJK_FONT_FAMILY
    return next((f for f in CJK_FONTS if f in names), None)


def cjk_font_data_url() -> str:
    """The shipped font as a data URL for the HTML's @font-face ('' if it is missing)."""
    if not CJK_FONT_FILE.is_file():
        return ""
    return "data:font/otf;base64," + base64.b64encode(CJK_FONT_FILE.read_bytes()).decode("ascii")


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)   # no display, same output everywhere
    import matplotlib.pyplot as plt

    # every text on a plot is data (labels, rules file names, model paths): never mathtext,
    # so "$1 and $2" is printed as written instead of failing to parse
    matplotlib.rcParams["text.parse_math"] = False
    font = cjk_font()
    if font:   # Latin from DejaVu, Chinese from the CJK font (matplotlib's per-glyph fallback)
        matplotlib.rcParams["font.family"] = ["DejaVu Sans", font]
    return plt


def plot_label(name: str) -> str:
    return zh_label(name) if cjk_font() else name


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
    _plt().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


#: matplotlib's warning for a character no font of the plot has (a user's own Chinese label)
_MISSING_GLYPH = re.compile(r"Glyph (\d+) .*missing from font")


@contextlib.contextmanager
def _noting_missing_glyphs(page: "_Page"):
    """Say once, on the page, which characters its plots could not draw, instead of
    matplotlib's warnings (two lines a character and plot) on stderr; other warnings pass."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    missing = set()
    for w in caught:
        found = _MISSING_GLYPH.search(str(w.message))
        if found:
            missing.add(chr(int(found.group(1))))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if missing:
        page.add(f"<p class=\"note\">{_esc(missing_glyphs_note(missing))}</p>")


def missing_glyphs_note(missing: set) -> str:
    return (f"The plots draw {''.join(sorted(missing))} as boxes: the font they use lacks "
            f"{'it' if len(missing) == 1 else 'them'} (mjsim bundles the Chinese of its own names only).")


def plot_rates(stats_list: Sequence[VariantStats], section: str, title: str) -> str | None:
    """Per-hand frequency as a dot with its 95 % interval as whiskers (log axis); a zero
    count as its upper bound (◀)."""
    names: list[str] = []
    for s in stats_list:
        names += [r.name for r in s.rates if r.section == section and r.name not in names]
    if not names:
        return None
    plt = _plt()
    k = len(stats_list)
    step = 0.7 / k
    fig, ax = plt.subplots(figsize=(8.5, 0.32 * len(names) * max(1, k * 0.6) + 1.3))
    y = np.arange(len(names))
    for j, s in enumerate(stats_list):
        rates = {r.name: r for r in s.rates if r.section == section}
        freq = np.array([rates[n].freq if n in rates else 0.0 for n in names])
        lo = np.array([rates[n].ci[0] if n in rates else 0.0 for n in names])
        hi = np.array([rates[n].ci[1] if n in rates else np.nan for n in names])
        seen = freq > 0
        pos = y + (j - (k - 1) / 2) * step
        dots = ax.errorbar(freq[seen], pos[seen], xerr=[freq[seen] - lo[seen], hi[seen] - freq[seen]], fmt="o",
                           ms=4, capsize=2, lw=1, label=s.label)
        zero = ~seen & np.isfinite(hi)
        ax.scatter(hi[zero], pos[zero], marker="<", color=dots[0].get_color(), s=18)
    ax.set_yticks(y, [plot_label(n) for n in names])
    ax.invert_yaxis()
    ax.set_xscale("log")
    _percent_axis(ax.xaxis)
    ax.set_xlabel("per hand (log scale): dot = frequency, whiskers = 95% Wilson interval, ◀ = upper bound of a zero count")
    if k > 1:       # the title is the page's heading above the image, not repeated in it
        ax.legend(fontsize="small")
    ax.grid(axis="x", which="major", alpha=0.3)
    return _png(fig)


def _bars(ax, stats_list, get, xlabel: str) -> bool:
    """Integer-valued distributions as bars (one colour per variant, side by side), the
    full range, each mean marked by a dashed line."""
    k = len(stats_list)
    width = 0.85 / k
    drawn = False
    for j, s in enumerate(stats_list):
        x, c = get(s)
        if not len(x):
            continue
        share = c / c.sum()
        bars = ax.bar(x + (j - (k - 1) / 2) * width, share, width=width, label=s.label, alpha=0.85)
        mean = float((x * c).sum() / c.sum())
        ax.axvline(mean, color=bars.patches[0].get_facecolor(), ls="--", lw=1)
        ax.annotate(f"mean {mean:.2f}", (mean, 1), xycoords=("data", "axes fraction"), xytext=(3, -12 - 11 * j),
                    textcoords="offset points", fontsize="x-small")
        drawn = True
    ax.set_xlabel(xlabel)
    ax.yaxis.set_major_formatter(_percent_formatter())
    ax.grid(axis="y", alpha=0.3)
    return drawn


def _percent_formatter():
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _: f"{100 * v:g}%")


def plot_scores(stats_list: Sequence[VariantStats]) -> str | None:
    """A seat's net score per hand, dealer and non-dealer: bars per value, full range."""
    plt = _plt()
    fig, axes = plt.subplots(2, 1, figsize=(10, 6.4))
    drawn = False
    empty = (np.array([]), np.array([]))
    for ax, role in zip(axes, ("dealer", "non-dealer")):
        drawn |= _bars(ax, stats_list, lambda s, r=role: s.histograms.get("score per hand", {}).get(r, empty),
                       f"{role}: net score in the hand")
        ax.set_ylabel("share of hands")
    if len(stats_list) > 1:
        axes[0].legend(fontsize="small")
    fig.tight_layout()
    if not drawn:
        plt.close(fig)
        return None
    return _png(fig)


def plot_session(stats_list: Sequence[VariantStats]) -> str | None:
    """A seat's net result over a whole session, all seats pooled: bars, full range."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(10, 3.4))
    empty = (np.array([]), np.array([]))
    drawn = _bars(ax, stats_list, lambda s: s.histograms.get("session result", {}).get("seat", empty),
                  "net result of a seat over one session")
    ax.set_ylabel("share of seat-sessions")
    if len(stats_list) > 1:
        ax.legend(fontsize="small")
    if not drawn:
        plt.close(fig)
        return None
    return _png(fig)


def _percent_axis(axis) -> None:
    """Log axes of proportions read as percentages; no crowded labels."""
    from matplotlib.ticker import LogLocator, NullFormatter

    lo, hi = sorted(axis.get_view_interval())
    decades = math.log10(hi / lo) if lo > 0 else 99
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades <= 3 else (1.0,)))
    axis.set_major_formatter(_percent_formatter())
    axis.set_minor_formatter(NullFormatter())


def plot_hand_length(stats_list: Sequence[VariantStats]) -> str | None:
    """Live tiles drawn per hand, for won and drawn hands (share of all hands)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 3.6))
    drawn = False
    for s in stats_list:
        groups = s.histograms.get("live tiles drawn", {})
        total = sum(c.sum() for _, c in groups.values()) or 1
        for end, style in (("win", "-"), ("draw", ":")):
            if end in groups:
                x, c = groups[end]
                ax.step(x, c / total, where="mid", ls=style, label=f"{s.label}: {end}")
                drawn = True
    ax.set_xlabel("live tiles drawn after the deal")
    ax.set_ylabel("share of all hands")
    ax.yaxis.set_major_formatter(_percent_formatter())
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    if not drawn:
        plt.close(fig)
        return None
    return _png(fig)


def plot_forest(base: VariantStats, others: Sequence[VariantStats], results) -> list[tuple[str, str]]:
    """Every tested difference against the baseline with its 95 % interval, one panel per
    section (each with its own scale: rates in percentage points, means in their unit);
    a filled dot is significant after the adjustment."""
    plt = _plt()
    out = []
    order = {s: i for i, s in enumerate(SECTIONS)}
    for kind, title, scale in (("rate", "Differences of rates vs baseline (percentage points)", 100.0),
                               ("mean", "Differences of means vs baseline", 1.0)):
        sections: dict[str, list[str]] = {}
        for _, comps in results:
            for c in comps:
                if (kind == "rate") == isinstance(c.a, Rate) and c.tested:
                    names = sections.setdefault(c.section, [])
                    if c.name not in names:
                        names.append(c.name)
        if not sections:
            continue
        keys = sorted(sections, key=lambda k: order.get(k, len(order)))
        k = len(others)
        step = 0.7 / max(k, 1)
        heights = [max(1.0, 0.28 * len(sections[sec]) * max(1, 0.6 * k)) + 0.5 for sec in keys]
        fig, axes = plt.subplots(len(keys), 1, figsize=(9, sum(heights) + 0.6), squeeze=False,
                                 gridspec_kw={"height_ratios": heights})
        for ax, sec in zip(axes[:, 0], keys):
            y = {name: i for i, name in enumerate(sections[sec])}
            for j, (o, (_, comps)) in enumerate(zip(others, results)):
                pts = [(y[c.name], c) for c in comps if c.section == sec and c.name in y and c.tested]
                if not pts:
                    continue
                color = f"C{j}"
                pos = np.array([p for p, _ in pts]) + (j - (k - 1) / 2) * step
                d = np.array([c.diff for _, c in pts]) * scale
                lo = np.array([c.ci[0] for _, c in pts]) * scale
                hi = np.array([c.ci[1] for _, c in pts]) * scale
                sig = np.array([c.significant for _, c in pts])
                ax.errorbar(d, pos, xerr=[d - lo, hi - d], fmt="none", lw=1, capsize=2, ecolor=color, label=o.label)
                ax.scatter(d[sig], pos[sig], color=color, s=22, zorder=3)
                ax.scatter(d[~sig], pos[~sig], facecolors="white", edgecolors=color, s=22, zorder=3)
            ax.axvline(0, color="black", lw=0.8)
            ax.set_yticks(range(len(y)), [plot_label(n) for n in y], fontsize="small")
            ax.set_ylim(len(y) - 0.5, -0.5)
            ax.set_title(TITLES.get(sec, sec), fontsize="small", loc="left")
            ax.grid(axis="x", alpha=0.3)
        axes[0, 0].legend(fontsize="x-small", loc="best")
        axes[-1, 0].set_xlabel(("percentage points" if kind == "rate" else "difference in the measure's unit")
                               + "; whiskers: 95% interval; filled dot: significant after adjustment")
        fig.tight_layout()
        out.append((title, _png(fig)))
    return out


def _plots(stats_list: Sequence[VariantStats]) -> list[tuple[str, str]]:
    out = []
    for section, title in (("pattern", "Pattern frequencies"), ("property", "Property frequencies"),
                           ("win kind", "Win kind frequencies"), ("wild category", "Wild category frequencies")):
        png = plot_rates(stats_list, section, title)
        if png:
            out.append((title, png))
    for title, png in (("Score distributions", plot_scores(stats_list)),
                       ("Session result distribution", plot_session(stats_list)),
                       ("Hand length distribution", plot_hand_length(stats_list))):
        if png:
            out.append((title, png))
    return out


# ------------------------------------------------------------------------------------
# HTML


def _esc(x) -> str:
    return html.escape(str(x))


def _html_name(name: str) -> str:
    zh = chinese(name)
    return f"{_esc(name)}<span class=\"zh\" lang=\"zh-Hant\">{_esc(zh)}</span>" if zh else _esc(name)


def _html_table(head: Sequence[str], rows: Sequence[Sequence[str]], classes: Sequence[str] | None = None,
                first_is_name: bool = True) -> str:
    out = ["<table><tr>" + "".join(f"<th>{_esc(h)}</th>" for h in head) + "</tr>"]
    for i, row in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        cells = [f"<td>{row[0]}</td>" if first_is_name else f"<td>{_esc(row[0])}</td>"]
        cells += [f"<td>{_esc(c)}</td>" for c in row[1:]]
        out.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _name_html(cell: str) -> str:
    """A first cell 'qixiaodui 七小對' (from name_cell) as id plus a marked Chinese span."""
    head, _, tail = cell.partition(" ")
    if tail and chinese(head) == tail:
        return _html_name(head)
    return _esc(cell)


class _Page:
    """Headings with unique ids, collected into a table of contents."""

    def __init__(self):
        self.body: list[str] = []
        self.toc: list[tuple[int, str, str]] = []
        self._ids: set[str] = set()

    def heading(self, level: int, text: str) -> None:
        base = "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-") or "s"
        ident, n = base, 1
        while ident in self._ids:
            n += 1
            ident = f"{base}-{n}"
        self._ids.add(ident)
        self.toc.append((level, ident, text))
        self.body.append(f"<h{level} id=\"{_esc(ident)}\">{_esc(text)}</h{level}>")

    def add(self, text: str) -> None:
        self.body.append(text)

    def image(self, title: str, png: str) -> None:
        self.heading(4, title)
        self.body.append(f"<img alt=\"{_esc(title)}\" src=\"data:image/png;base64,{png}\">")

    def render(self, title: str) -> str:
        from mjsim.version import __version__

        toc = ["<nav class=\"toc\"><strong>Contents</strong><ul>"]
        depth = 2
        for level, ident, text in self.toc:
            if level > 3:
                continue
            while depth < level:
                toc.append("<ul>")
                depth += 1
            while depth > level:
                toc.append("</ul>")
                depth -= 1
            toc.append(f"<li><a href=\"#{_esc(ident)}\">{_esc(text)}</a></li>")
        while depth > 2:
            toc.append("</ul>")
            depth -= 1
        toc.append("</ul></nav>")
        stamp = f"mjsim {__version__}, {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}"
        template = Template((Path(__file__).with_name("report_template.html")).read_text(encoding="utf-8"))
        return template.substitute(title=_esc(title), stamp=_esc(stamp), toc="\n".join(toc), body="\n".join(self.body),
                                   cjk_font=cjk_font_data_url(), cjk_family=CJK_FONT_FAMILY)


def _variant_html(page: _Page, s: VariantStats, heading: str) -> None:
    page.heading(2, heading)
    page.add(_html_table(["", ""], _info_rows(s), first_is_name=False))
    for title, head, rows, note in _sections(s, full=True):
        page.heading(3, title)
        page.add(_html_table(head, [[_name_html(r[0]), *r[1:]] for r in rows]))
        if note:
            page.add(f"<p class=\"note\">{_esc(note)}</p>")


def html_report(stats_list: Sequence[VariantStats], title: str = "mjsim report") -> str:
    page = _Page()
    with _noting_missing_glyphs(page):
        for s in stats_list:
            _variant_html(page, s, s.label)
            page.heading(3, "Plots" if len(stats_list) == 1 else f"Plots: {s.label}")
            for t, png in _plots([s]):
                page.image(t, png)
    page.heading(2, "Method")
    page.add(f"<p class=\"note\">{_esc(method_note(stats_list))}</p>")
    return page.render(title)


def html_comparison(base: VariantStats, others: Sequence[VariantStats], title: str = "mjsim comparison", *,
                    results=None, adjust: str = st.ADJUST, note: str | None = None) -> str:
    """`note`: a line shown first (mjsim.populations.blind_note)."""
    results = results if results is not None else st.compare_all(base, others, adjust=adjust)
    page = _Page()
    if note:
        page.add(f"<p class=\"note\">{_esc(note)}</p>")
    page.heading(2, "Variants")
    for s in (base, *others):
        page.add(f"<h4>{_esc(s.label)}{' (baseline)' if s is base else ''}</h4>")
        page.add(_html_table(["", ""], _info_rows(s), first_is_name=False))
    page.add("<ul>" + "".join(f"<li>{_esc(line)}</li>" for line in _pairing_lines(others, results)) + "</ul>")
    page.heading(2, "Measures side by side")
    head = ["measure", f"{base.label} (baseline)"]
    for o in others:
        head += [o.label, f"Δ {o.label} − baseline [95% CI]", "p (test)", f"p adj. ({_adjust_name(adjust)})"]
    rows, classes = [], []
    section = None
    for sec, name, a, cs in _cmp_rows(base, results):
        if _quiet(a, cs):
            continue
        if sec != section:
            rows.append([_esc(TITLES.get(sec, sec))] + [""] * (len(head) - 1))
            classes.append("section")
            section = sec
        row = [_html_name(name), _value(a)]
        for c in cs:
            row += [_value(c.b if c else None), _diff(c), *_p_cells(c)]
        rows.append(row)
        classes.append("sig" if any(c is not None and c.significant for c in cs) else "")
    if rows:
        page.add(_html_table(head, rows, classes))
    else:
        page.add("<p>No measure differs.</p>")
    page.add(f"<p class=\"note\">{_esc(_legend(adjust))}</p>")
    with _noting_missing_glyphs(page):
        page.heading(2, "Differences with their intervals")
        for t, png in plot_forest(base, others, results):
            page.image(t, png)
        page.heading(2, "Plots")
        for t, png in _plots([base, *others]):
            page.image(t, png)
    page.heading(2, "Method")
    page.add(f"<p class=\"note\">{_esc(method_note([base, *others]))}</p>")
    return page.render(title)


def write_html(path: str | Path, text: str) -> Path:
    """The page, complete or absent (no temporary file is left behind)."""
    from mjsim.dataset.storage import write_output

    return write_output(path, text.encode("utf-8"))
