"""Reports: rich terminal tables and one self-contained HTML file (plots embedded as PNG).

`print_report` / `html_report` describe the variants of one dataset; `print_comparison` /
`html_comparison` put a baseline and other variants side by side with differences, 95 %
intervals, p-values and a flag (✱) where p < 0.05 (tests named in the output, see
mjsim.stats).
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from mjsim import stats as st
from mjsim.stats import Comparison, Mean, Rate, VariantStats

__all__ = ["html_comparison", "html_report", "print_comparison", "print_report", "print_summary",
           "write_html"]

SECTIONS = ("outcome", "win kind", "pattern", "property", "wild category", "birds", "kongs",
            "fire", "score", "win", "hand")
TITLES = {
    "outcome": "Outcomes", "win kind": "Win kinds", "pattern": "Patterns (scored pattern of a winner)",
    "property": "Properties (every id a winning hand has)", "wild category": "Anhua wild categories",
    "birds": "Birds", "kongs": "Kongs", "fire": "Fire (上火)", "score": "Net score per hand",
    "win": "Win values", "hand": "Hand length",
}
SIG = "✱"


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


def pval(p: float) -> str:
    if p is None or not math.isfinite(p):
        return "–"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def rate_cells(r: Rate) -> list[str]:
    lo, hi = r.ci
    return [f"{r.count:,}", pct(r.freq), f"[{pct(lo)}, {pct(hi)}]"]


def mean_cells(m: Mean) -> list[str]:
    lo, hi = m.ci
    return [num(m.mean), num(m.sd), num(m.min, 0) if math.isfinite(m.min) else "–",
            num(m.max, 0) if math.isfinite(m.max) else "–", f"[{num(lo)}, {num(hi)}]"]


RATE_HEAD = ["count", "per hand %", "95% CI % (Wilson)"]
MEAN_HEAD = ["mean", "sd", "min", "max", "95% CI of mean"]


def _by_section(items: Sequence) -> dict[str, list]:
    out: dict[str, list] = {}
    for item in items:
        out.setdefault(item.section, []).append(item)
    return {s: out[s] for s in [*SECTIONS, *[k for k in out if k not in SECTIONS]] if s in out}


def _rate_head(section: str, items: Sequence[Rate]) -> list[str]:
    unit = items[0].unit if items else "hands"
    return ["count", f"per {unit[:-1]} %", "95% CI % (Wilson)"]


def _info_rows(s: VariantStats) -> list[tuple[str, str]]:
    info = s.info
    rows = [("variant", s.variant), ("rules", s.game), ("hands", f"{s.hands:,}"), ("wins", f"{s.wins:,}")]
    if info.get("label"):
        rows.insert(1, ("label", info["label"]))
    if info.get("changes"):
        rows.append(("changed rules", ", ".join(f"{k}={json.dumps(v)}" for k, v in info["changes"].items())))
    for key, name in (("seed", "seed"), ("session_hands", "hands per session")):
        if key in info:
            rows.append((name, str(info[key])))
    if info.get("players"):
        rows.append(("players", ",".join(info["players"])))
    if info and not info.get("complete", True):
        rows.append(("status", "INCOMPLETE: resume the run for the full dataset"))
    return rows


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
    from rich.table import Table

    table = Table(title=title, title_justify="left", title_style="bold")
    table.add_column("")
    for h in head:
        table.add_column(h, justify="right")
    return table


def print_report(stats_list: Sequence[VariantStats], console=None, *, full: bool = True) -> None:
    """Every measure of every variant; `full=False` drops never-seen rows and properties."""
    from rich.table import Table

    console = _console(console)
    for s in stats_list:
        kind = "report" if full else "summary"
        head = Table(show_header=False, box=None, title=f"mjsim {kind}: {_m(s.label)}", title_justify="left",
                     title_style="bold magenta")
        for k, v in _info_rows(s):
            head.add_row(k, _m(v))
        console.print(head)
        rates = [r for r in s.rates if full or (r.count and r.section != "property")]
        for section, items in _by_section(rates).items():
            table = _table(TITLES.get(section, section), _rate_head(section, items))
            for r in items:
                table.add_row(_m(r.name), *rate_cells(r))
            console.print(table)
        for section, items in _by_section(s.means).items():
            if not full and section == "win":
                continue
            table = _table(TITLES.get(section, section), MEAN_HEAD)
            for m in items:
                table.add_row(_m(m.name), *mean_cells(m))
            console.print(table)


def print_summary(stats_list: Sequence[VariantStats], console=None) -> None:
    """The short table `mjsim simulate` prints at the end."""
    print_report(stats_list, console, full=False)


def _cmp_rows(base: VariantStats, others: Sequence[VariantStats]):
    """[(section, name, base measure, [(measure, Comparison) per other])] in section order."""
    per_other = [{(c.section, c.name): c for c in st.compare(base, o)} for o in others]
    keys = list(per_other[0]) if per_other else []
    for more in per_other[1:]:
        keys += [k for k in more if k not in keys]
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


def _all_zero(base, cs) -> bool:
    rates = [base] + [c.b for c in cs if c is not None]
    return all(isinstance(r, Rate) and r.count == 0 for r in rates)


def print_comparison(base: VariantStats, others: Sequence[VariantStats], console=None) -> None:
    from rich.table import Table

    console = _console(console)
    table = Table(title=f"mjsim compare: baseline {_m(base.label)}", title_justify="left", title_style="bold magenta")
    table.add_column("measure")
    table.add_column(f"{_m(base.label)}\n({base.hands:,} hands)", justify="right")
    for o in others:
        table.add_column(f"{_m(o.label)}\n({o.hands:,} hands)", justify="right")
        table.add_column("Δ vs baseline [95% CI]", justify="right")
        table.add_column("p", justify="right")
    section = None
    for sec, name, a, cs in _cmp_rows(base, others):
        if _all_zero(a, cs):
            continue
        if sec != section:   # a bold row per section keeps the measure column narrow
            if section is not None:
                table.add_section()
            table.add_row(f"[bold]{TITLES.get(sec, sec).split(' (')[0]}")
            section = sec
        cells = [_m(name), _value(a)]
        for c in cs:
            mark = f" {SIG}" if c is not None and c.significant else ""
            cells += [_value(c.b if c else None), _diff(c), (pval(c.p) + mark) if c else "–"]
        table.add_row(*cells)
    console.print(table)
    console.print(f"{SIG} p < {st.ALPHA}: rates by the {st.RATE_TEST} (interval: Newcombe's hybrid score), "
                  f"means by {st.MEAN_TEST} (Welch-Satterthwaite df); no multiple-comparison correction. "
                  f"Rates in %, differences in percentage points (pp).", highlight=False)


# ------------------------------------------------------------------------------------
# Plots (matplotlib, Agg, PNG embedded as base64)


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)   # no display, same output everywhere
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
    _plt().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def plot_rates(stats_list: Sequence[VariantStats], section: str, title: str) -> str | None:
    """Horizontal bars (log scale) of per-hand frequency with Wilson 95 % error bars."""
    names: list[str] = []
    for s in stats_list:
        names += [r.name for r in s.rates if r.section == section and r.name not in names]
    if not names:
        return None
    plt = _plt()
    k = len(stats_list)
    height = 0.8 / k
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(names) * max(1, k * 0.7) + 1.2))
    y = np.arange(len(names))
    for j, s in enumerate(stats_list):
        rates = {r.name: r for r in s.rates if r.section == section}
        freq = np.array([rates[n].freq if n in rates else 0.0 for n in names])
        lo = np.array([rates[n].ci[0] if n in rates else 0.0 for n in names])
        hi = np.array([rates[n].ci[1] if n in rates else 0.0 for n in names])
        shown = freq > 0       # log axis: a zero has no bar, only its upper bound
        pos = y + (j - (k - 1) / 2) * height
        ax.barh(pos[shown], freq[shown], height=height, label=s.label, alpha=0.8)
        ax.errorbar(freq[shown], pos[shown], xerr=[freq[shown] - lo[shown], hi[shown] - freq[shown]],
                    fmt="none", ecolor="black", capsize=2, lw=0.8)
        ax.scatter(hi[~shown], pos[~shown], marker="<", color="grey", s=12)
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xscale("log")
    _percent_axis(ax.xaxis)
    ax.set_xlabel("per hand (log scale); whiskers: 95% Wilson interval; ◀: upper bound of a zero count")
    ax.set_title(title)
    if k > 1:
        ax.legend(fontsize="small")
    ax.grid(axis="x", which="both", alpha=0.3)
    return _png(fig)


def plot_scores(stats_list: Sequence[VariantStats]) -> str | None:
    """Distribution of a seat's net score per hand, dealer and non-dealer (log y)."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    drawn = False
    for ax, role in zip(axes, ("dealer", "non-dealer")):
        for s in stats_list:
            x, c = s.histograms.get("score per hand", {}).get(role, (np.array([]), np.array([])))
            if not len(x):
                continue
            p = c / c.sum()
            lo, hi = _central(x, c, 0.001)
            keep = (x >= lo) & (x <= hi)
            # scores take few, scattered values: points joined by thin lines, not steps
            ax.plot(x[keep], p[keep], marker=".", lw=0.8, label=s.label)
            drawn = True
        ax.set_yscale("log")
        _percent_axis(ax.yaxis)
        ax.set_title(f"{role} (central 99.8%)")
        ax.set_xlabel("net score in the hand")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of hands")
    if len(stats_list) > 1:
        axes[1].legend(fontsize="small")
    if not drawn:
        plt.close(fig)
        return None
    return _png(fig)


def _percent_axis(axis) -> None:
    """Log axes of proportions read as percentages; no crowded labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    lo, hi = sorted(axis.get_view_interval())
    decades = math.log10(hi / lo) if lo > 0 else 99
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades <= 3 else (1.0,)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:g}%"))
    axis.set_minor_formatter(NullFormatter())


def _central(x: np.ndarray, c: np.ndarray, tail: float) -> tuple[float, float]:
    cum = np.cumsum(c) / c.sum()
    return x[np.searchsorted(cum, tail)], x[min(len(x) - 1, np.searchsorted(cum, 1 - tail))]


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
    ax.set_title("Hand length")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    if not drawn:
        plt.close(fig)
        return None
    return _png(fig)


def _plots(stats_list: Sequence[VariantStats]) -> list[tuple[str, str]]:
    out = []
    for section, title in (("pattern", "Pattern frequencies"), ("property", "Property frequencies"),
                           ("win kind", "Win kinds"), ("wild category", "Anhua wild categories")):
        png = plot_rates(stats_list, section, title)
        if png:
            out.append((title, png))
    for title, png in (("Score distributions", plot_scores(stats_list)),
                       ("Hand length distribution", plot_hand_length(stats_list))):
        if png:
            out.append((title, png))
    return out


# ------------------------------------------------------------------------------------
# HTML

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1.5em; font-size: .9em; }
th, td { padding: .2em .7em; border-bottom: 1px solid #eee; }
th { background: #f4f4f4; text-align: right; } th:first-child, td:first-child { text-align: left; }
td { text-align: right; font-variant-numeric: tabular-nums; }
tr.sig td { background: #fff3d6; } .note { color: #555; font-size: .85em; }
img { max-width: 100%; display: block; margin: .5em 0 1.5em; }
"""


def _esc(x) -> str:
    return html.escape(str(x))


def _html_table(head: Sequence[str], rows: Sequence[Sequence[str]], classes: Sequence[str] | None = None) -> str:
    out = ["<table><tr>" + "".join(f"<th>{_esc(h)}</th>" for h in head) + "</tr>"]
    for i, row in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _page(title: str, body: list[str]) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    from mjsim import __version__

    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>\n"
            f"<h1>{_esc(title)}</h1><p class=\"note\">mjsim {_esc(__version__)}, {stamp}</p>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _img(title: str, png: str) -> str:
    return f"<h3>{_esc(title)}</h3><img alt=\"{_esc(title)}\" src=\"data:image/png;base64,{png}\">"


def html_report(stats_list: Sequence[VariantStats], title: str = "mjsim report") -> str:
    body = []
    for s in stats_list:
        body.append(f"<h2>{_esc(s.label)}</h2>")
        body.append(_html_table(["", ""], _info_rows(s)))
        for section, items in _by_section(s.rates).items():
            body.append(f"<h3>{_esc(TITLES.get(section, section))}</h3>")
            body.append(_html_table(["", *_rate_head(section, items)], [[r.name, *rate_cells(r)] for r in items]))
        for section, items in _by_section(s.means).items():
            body.append(f"<h3>{_esc(TITLES.get(section, section))}</h3>")
            body.append(_html_table(["", *MEAN_HEAD], [[m.name, *mean_cells(m)] for m in items]))
        body.append("<h2>Plots</h2>" if len(stats_list) == 1 else f"<h2>Plots: {_esc(s.label)}</h2>")
        body += [_img(t, png) for t, png in _plots([s])]
    body.append("<p class=\"note\">Rates are hands (or wins) in which the event happened, with 95% Wilson "
                "score intervals; a hand with several winners of one pattern counts once.</p>")
    return _page(title, body)


def html_comparison(base: VariantStats, others: Sequence[VariantStats], title: str = "mjsim comparison") -> str:
    body = ["<h2>Variants</h2>"]
    for s in (base, *others):
        body.append(f"<h3>{_esc(s.label)}{' (baseline)' if s is base else ''}</h3>")
        body.append(_html_table(["", ""], _info_rows(s)))
    body.append("<h2>Measures side by side</h2>")
    head = ["measure", f"{base.label} (baseline)"]
    for o in others:
        head += [o.label, f"Δ {o.label} − baseline [95% CI]", "p", "significant"]
    rows, classes = [], []
    for sec, name, a, cs in _cmp_rows(base, others):
        if _all_zero(a, cs):
            continue
        row = [f"{sec}: {name}", _value(a)]
        for c in cs:
            row += [_value(c.b if c else None), _diff(c), pval(c.p) if c else "–",
                    (f"yes ({c.test})" if c.significant else f"no ({c.test})") if c else "–"]
        rows.append(row)
        classes.append("sig" if any(c is not None and c.significant for c in cs) else "")
    body.append(_html_table(head, rows, classes))
    body.append(f"<p class=\"note\">Significant: p &lt; {st.ALPHA}. Rates: {_esc(st.RATE_TEST)}, difference "
                f"interval by Newcombe's hybrid score method. Means: {_esc(st.MEAN_TEST)} with "
                f"Welch-Satterthwaite degrees of freedom. No correction for multiple comparisons: about 1 in 20 "
                f"measures that do not truly differ is flagged by chance. Rates in %, differences in percentage "
                f"points.</p>")
    body.append("<h2>Plots</h2>")
    body += [_img(t, png) for t, png in _plots([base, *others])]
    return _page(title, body)


def write_html(path: str | Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
