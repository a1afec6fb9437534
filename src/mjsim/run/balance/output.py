"""What balancing writes: the answer's rules file, JSON, the HTML page with a plot per target,
and the table rows and summary line the CLI prints."""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mjsim.run.balance.simulate import _show

if TYPE_CHECKING:
    from mjsim.run.balance import Balance


# ------------------------------------------------------------------------------------
# Output: rules file, JSON, HTML page


def write_rules(path: str | Path, rules) -> Path:
    """The chosen rules as a TOML file, loadable by --rules."""
    from mjsim.dataset.storage import write_output

    return write_output(path, rules.to_toml().encode())


def write_json(path: str | Path, answers: Sequence[Balance]) -> Path:
    from mjsim.dataset.storage import write_output

    first = answers[0].as_json()
    data = {"best": first["best"], "targets": first["targets"], "status": first["status"],
            "populations": [a.as_json() for a in answers]}
    return write_output(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def _plot(answer: Balance, t_index: int) -> str | None:
    """Measure against the (first) varied parameter at the final hands: estimates with 95 %
    whiskers, the target line, the chosen value and the indistinguishable range."""
    from mjsim.analysis import report

    plt = report._plt()
    v = answer.varies[0]
    if v.kind == "choice" and not all(isinstance(x, (int, float)) for x in v.choices):
        return None
    final = answer.result.hands
    pts = sorted((answer.values(c.pos)[0], c.est[t_index]) for c in answer.result.evaluations
                 if c.hands == final)
    early = sorted((answer.values(c.pos)[0], c.est[t_index]) for c in answer.result.evaluations
                   if c.hands != final)
    t = answer.targets[t_index]
    best = answer.values(answer.result.best)[0]
    rng = answer.range
    span = rng[v.name] if rng and len(answer.varies) == 1 else None
    # the whole range, and a zoom on the candidates of the final hands around the answer
    xs = [x for x, _ in pts] or [best]
    zoom = (min(xs + [best]), max(xs + [best]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [1, 1.2]})
    for ax, view in zip(axes, ("all", "zoom")):
        shown_early = [(x, e) for x, e in early if view == "all" or zoom[0] <= x <= zoom[1]]
        if shown_early:
            ax.errorbar([x for x, _ in shown_early], [e[0] for _, e in shown_early],
                        yerr=[[e[0] - e[1] for _, e in shown_early], [e[2] - e[0] for _, e in shown_early]],
                        fmt="o", ms=3, color="#bbbbbb", ecolor="#dddddd", label="fewer hands")
        if pts:
            ax.errorbar([x for x, _ in pts], [e[0] for _, e in pts],
                        yerr=[[e[0] - e[1] for _, e in pts], [e[2] - e[0] for _, e in pts]],
                        fmt="o", ms=4, color="#1f77b4", capsize=2, label=f"{final:,} hands (95% interval)")
        ax.axhline(t.value, color="#d62728", lw=1, ls="--", label=f"target {t.op} {t.value:g}")
        ax.axvline(best, color="#2ca02c", lw=1, label=f"chosen {_show(best)}")
        if span and span[0] != span[1]:
            ax.axvspan(span[0], span[1], color="#2ca02c", alpha=0.12, label="cannot tell apart")
        if view == "zoom":
            pad = max(1, (zoom[1] - zoom[0]) * 0.1)
            ax.set_xlim(zoom[0] - pad, zoom[1] + pad)
            ax.set_title("around the answer", fontsize="small", loc="left")
            ax.legend(fontsize="x-small")
        else:
            ax.set_title("whole range", fontsize="small", loc="left")
        ax.set_xlabel(v.name)
        ax.set_ylabel(f"{t.section}: {t.name}")
    fig.tight_layout()
    return report._png(fig)


def html_page(answers: Sequence[Balance], base, command: str = "") -> str:
    from mjsim.analysis import report

    page = report._Page()
    esc = report._esc
    for a in answers:
        page.heading(2, f"players {','.join(a.players)}")
        page.add(f"<p>{esc(summary_line(a))}</p>")
        if a.result.message:
            page.add(f"<p class=\"note\">{esc(a.result.message)}</p>")
        rows = table_rows(a)
        head = "".join(f"<th>{esc(h)}</th>" for h in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
        page.heading(3, "Candidates")
        page.add(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        for i, t in enumerate(a.targets):
            png = _plot(a, i)
            if png:
                page.image(f"{t.section}: {t.name} against {a.varies[0].name}", png)
    page.heading(2, "Method")
    page.add(f"<p class=\"note\">{esc(METHOD)}</p>")
    if command:
        page.add(f"<p class=\"note\">{esc(command)}</p>")
    return page.render("mjsim balance")


METHOD = ("Every candidate is played on the same seed (common random numbers: hand i gets the same wall "
          "under every candidate). One parameter and one target: bracket, then bisect over the integers, "
          "playing 4 times more hands of the same seeds while the candidates either side of the answer "
          "cannot be told from the target at 95 %, up to --hands. Several parameters or targets: Optuna's "
          "multi-objective TPE over standardised deviations. Intervals: the summary's session-clustered 95 % "
          "intervals (Wilson on the effective n for rates and shares, t for means; a run of one session has "
          "no clustered variance, and its hands are taken as independent). The range of values the "
          "targets cannot tell apart: every value whose 95 % interval contains the target.")


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "–"
    return f"{x:.4g}" if abs(x) >= 1 or x == 0 else f"{x:.4f}"


def table_rows(a: Balance) -> list[list[str]]:
    """Header and one row per evaluation, sorted by values then hands."""
    head = [v.name for v in a.varies] + ["hands"] + [f"{t.section}:{t.name}" for t in a.targets]
    rows = []
    for c in sorted(a.result.evaluations, key=lambda c: (c.pos, c.hands)):
        cells = [_show(x) for x in a.values(c.pos)] + [f"{c.hands:,}"]
        cells += [f"{_fmt(e[0])} [{_fmt(e[1])}, {_fmt(e[2])}]" for e in c.est]
        rows.append(cells)
    return [head, *rows]


def summary_line(a: Balance) -> str:
    """'multipliers.qingyise = 66 (95%: 63..69 cannot be told apart); property money:qingyise 0.1002 [...]'"""
    best = ", ".join(f"{k} = {_show(v)}" for k, v in a.best.items())
    rng = a.range
    if rng is not None and a.result.status == "ok":
        approx = "" if a.result.range_exact else "about "
        single = all(lo == hi for lo, hi in rng.values()) and len(rng) == 1
        hit = all(t.met(*e) for t, e in zip(a.targets, a.best_estimates))
        if len(rng) == 1 and not single and all(t.op != "=" for t in a.targets):
            (k, (lo, hi)), = rng.items()      # an inequality every value of the range meets
            best += f" (every value of {k} {_show(lo)}..{_show(hi)} meets the target)"
        elif single and not a.result.resolved:
            # the end of the range (its own message follows), or --hands ran out first
            if not a.result.message:
                best += (" (not resolved: at 95% the target cannot yet be told apart from a neighbouring value; "
                         "more --hands would decide)")
        elif single and not hit:
            best += " (the target lies between two neighbouring values, each told apart from it at 95%: this is the closer)"
        elif single:
            best += " (the values either side are told apart from the target at 95%)"
        else:
            best += " (" + approx + "; ".join(f"{k} {_show(lo)}..{_show(hi)}" for k, (lo, hi) in rng.items()) \
                + " cannot be told apart at 95%)"
    ests = "; ".join(f"{t.section}:{t.name} {_fmt(e[0])} [{_fmt(e[1])}, {_fmt(e[2])}] (target {t.op} {t.value:g})"
                     for t, e in zip(a.targets, a.best_estimates))
    flag = {"unreachable": "UNREACHABLE: ", "conflict": "CONFLICT: ", "undecided": "UNDECIDED: "}.get(
        a.result.status, "")
    return f"{flag}{best}; {ests}; {a.result.hands:,} hands per candidate"
