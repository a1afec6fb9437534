"""Write docs/examples/three-questions.ipynb (the cells; run it, or let the tests run it, for
the outputs): `python tools/make_example_notebook.py [--execute]`."""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().parents[1] / "docs" / "examples" / "three-questions.ipynb"

CELLS = [
    ("md", """# The three questions, from Python

A rule designer asks three things of a rule set: **how often** does each hand happen,
**what changes** when a rule changes, and **what should the rules be**. This notebook
answers each with mjsim's Python API on a few thousand hands (small on purpose: it runs
in the test suite in well under a minute; use 100,000 or more hands for real answers, and
read the 95% intervals, which say how far a small run can be trusted)."""),
    ("code", """import tempfile
from pathlib import Path

import mjsim
from mjsim import Rules
from mjsim.analysis import report
from mjsim.run import runner
from mjsim.analysis import stats

work = Path(tempfile.mkdtemp(prefix="mjsim-example-"))
print(mjsim.__version__)"""),
    ("md", """## 1. How often?

Play 3,200 Wanzai hands with four greedy players (200 sessions of 16 hands; seed 0) into a
Parquet dataset, then read every measure with its 95% interval."""),
    ("code", """spec = runner.make_spec(Rules.load("wanzai"), players="greedy", hands=3200, seed=0)
runner.run(spec, work / "wanzai", workers=1, progress=False)
summary = stats.summarize(work / "wanzai")
patterns = summary[summary["section"] == "pattern"]
patterns[["measure", "chinese", "count", "estimate", "ci_low", "ci_high", "method"]].head(8)"""),
    ("md", """`estimate` is the share of hands won with that pattern; `ci_low`/`ci_high` its
session-clustered Wilson interval. Anything else is SQL over the `hands`, `wins` and
`payments` tables:"""),
    ("code", """stats.query_frame(work / "wanzai", \"\"\"
    SELECT winner = dealer AS dealer_won, count(*) AS wins, avg(received) AS received_per_win
    FROM wins JOIN hands USING (seed, hand_index) GROUP BY 1 ORDER BY 1\"\"\")"""),
    ("md", """## 2. What changes?

Does making the dealer pay and receive double (`dealer_pays_double`) change the dealer's
result? Both variants are played on the **same seed**, so hand *i* is dealt the same wall
in both and the comparison is paired hand by hand."""),
    ("code", """grid = runner.parse_grid(["dealer_pays_double=false,true"])
specs = runner.sweep_specs(Rules.load("wanzai"), grid, players="greedy", hands=1600, seed=1)
runner.run(specs, work / "dealer", workers=1, progress=False)
base, other = stats.summarize_all(work / "dealer", only=[s.variant for s in specs])
results = stats.compare_all(base, [other])
table = report.comparison_frame(base, [other], results)
table[table["measure"].isin(["dealer", "dealer − non-dealer", "received per win"])]"""),
    ("md", """Each row gives both values, the difference with its 95% interval (paired t on
per-hand differences, clustered by session) and the p-value adjusted over every test of the
comparison (Holm)."""),
    ("md", """## 3. What should the rules be?

Say the target is an Anhua game whose dealer keeps an edge of at most 1 point per hand over
the other seats. Birds (抓鳥) multiply payments: how many can the game have? A
small hand-made sweep over the candidates answers it, on the same walls for each."""),
    ("code", """grid = runner.parse_grid(["birds=0,1,2"])
specs = runner.sweep_specs(Rules.load("anhua"), grid, players="greedy", hands=1600, seed=2)
runner.run(specs, work / "birds", workers=1, progress=False)
rows = []
for s in stats.summarize_all(work / "birds", only=[s.variant for s in specs]):
    f = s.frame()
    edge = f[f["measure"] == "dealer − non-dealer"].iloc[0]
    rows.append((s.label, float(edge["estimate"]), float(edge["ci_low"]), float(edge["ci_high"])))
target = 1.0
for label, estimate, low, high in rows:
    verdict = "meets it" if high <= target else "misses it" if low > target else "undecided: play more hands"
    print(f"{label}: dealer edge {estimate:+.3f} [{low:+.3f}, {high:+.3f}] -> {verdict}")"""),
    ("md", """With more hands the intervals narrow and the answer sharpens. `mjsim balance`
automates this search: it plays candidate rule values against targets you name and reports
the values that meet them (see *Balancing rules* in the user guide). Players matter here:
`greedy` never reads the values, the `ev` player plays for them (see *Players*)."""),
]


def build() -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.cells = [new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def main() -> None:
    nb = build()
    if "--execute" in sys.argv:
        from nbclient import NotebookClient

        NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, OUT)
    print(OUT)


if __name__ == "__main__":
    main()
