"""Reports: terminal tables, the self-contained HTML, and the report/compare/sweep commands.
Datasets come from the FAKE game loop (tests/fake_game.py)."""
from __future__ import annotations

import base64
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

import fake_game
import mjsim
import mjsim.vocab
from mjsim.analysis import report
from mjsim.run import runner
from mjsim.analysis import stats
from mjsim.cli import main

WANZAI = mjsim.Rules.load("wanzai")
PNG = b"\x89PNG\r\n\x1a\n"


def make_dataset(root: Path, **kw) -> Path:
    kw.setdefault("hands", 4000)
    kw.setdefault("chunk", 2000)
    return fake_game.make_dataset(root, **kw)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    return {
        "a": make_dataset(base / "a"),
        "b": make_dataset(base / "b", simulator="fake_game:simulate_chunk_few_wins"),
        "anhua": make_dataset(base / "anhua", rules=mjsim.Rules.load("anhua")),
    }


class _Resources(HTMLParser):
    """Every URL the page would load: images, scripts, stylesheets, frames."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.urls.append(value)


def _images(text: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)]


def assert_self_contained(text: str) -> None:
    parser = _Resources()
    parser.feed(text)
    external = [u for u in parser.urls if not u.startswith(("data:", "#"))]
    assert not external, f"the report loads {external}"
    assert "<script" not in text and "<link" not in text


def _headings(text: str) -> list[tuple[str, str, str]]:
    return re.findall(r'<h([23]) id="([^"]+)">([^<]*)</h[23]>', text)


def assert_toc_and_unique_headings(text: str) -> None:
    heads = _headings(text)
    assert heads
    titles = [t for _, _, t in heads]
    assert len(titles) == len(set(titles)), f"repeated headings: {sorted(t for t in titles if titles.count(t) > 1)}"
    toc = re.search(r'<nav class="toc">(.*?)</nav>', text, re.S).group(1)
    for _, ident, _ in heads:
        assert f'href="#{ident}"' in toc


def test_html_report_is_self_contained_with_plots(data):
    s = stats.variant_stats(data["a"])
    text = report.html_report([s])
    assert_self_contained(text)
    assert_toc_and_unique_headings(text)
    images = _images(text)
    assert len(images) >= 6      # patterns, properties, win kinds, scores, session result, hand length
    assert all(img.startswith(PNG) and len(img) > 2000 for img in images)
    for title in ("Pattern frequencies", "Score distributions", "Session result distribution",
                  "Hand length distribution"):
        assert re.search(rf'<h4 id="[^"]+">{title}</h4>\s*<img', text)
    for pattern in mjsim.play.engine.PATTERNS[:15]:    # every Wanzai pattern, seen or not, with its Chinese name
        zh = mjsim.vocab.chinese(pattern)
        assert zh and f'<td>{pattern}<span class="zh" lang="zh-Hant">{zh}</span></td>' in text
    # values beside frequencies, points per win and share of money per pattern
    row = re.search(r"<tr><td>qixiaodui<span[^>]*>七小對</span></td>(.*?)</tr>", text).group(1)
    cells = re.findall(r"<td>([^<]*)</td>", row)
    assert cells[0] == "5 / 5" and len(cells) == 7
    r = next(r for r in s.rates if r.key == ("pattern money", "qixiaodui"))
    assert cells[5] == report.pct(r.freq)
    win = next(r for r in s.rates if r.key == ("outcome", "win"))
    lo, hi = win.ci
    assert f"<td>{win.count:,.0f}</td><td>{report.pct(win.freq)}</td><td>[{report.pct(lo)}, {report.pct(hi)}]</td>" in text
    assert "Wilson" in text and "dealer − non-dealer" in text and "hands with exposed kong" in text
    assert "seat 0" in text and "deals in %" in text and "A seat&#x27;s net result over a whole session" in text
    assert "Noto Sans CJK" in text                  # a CJK font stack


def test_html_report_anhua_shows_wild_categories_and_birds(data):
    text = report.html_report([stats.variant_stats(data["anhua"])])
    assert "Anhua wild categories" in text and "wins with a bird hit" in text and "qi_wang" in text
    assert '七王' in text and "<td>×4</td>" in text         # 硬莊's multiplier beside it
    assert_toc_and_unique_headings(text)
    assert len(_images(text)) >= 7


def test_terminal_report_and_comparison(data):
    a, b = stats.variant_stats(data["a"]), stats.variant_stats(data["b"])
    console = Console(record=True, width=220)
    report.print_report([a], console)
    out = console.export_text()
    assert "mjsim report: wanzai" in out and "95% CI % (Wilson)" in out and "dealer − non-dealer" in out
    assert "qixiaodui 七小對" in out and "shisanlan 十三爛" in out and "pinghu 平胡" in out
    console = Console(record=True, width=220)
    report.print_comparison(a, [b], console)
    out = console.export_text()
    win_line = next(line for line in out.splitlines() if line.strip(" │").startswith("win "))
    assert report.SIG in win_line and "<0.0001 P" in win_line           # paired: same seed
    assert out.count("clustered by session") == 1                      # the method once, in the legend
    assert "hands played identically" in out and "Holm" in out


def test_html_comparison_flags_the_significant_rows(data):
    a, b = stats.variant_stats(data["a"]), stats.variant_stats(data["b"])
    text = report.html_comparison(a, [b])
    assert_self_contained(text)
    assert_toc_and_unique_headings(text)
    assert len(_images(text)) >= 7                       # forest plots and distributions
    assert re.search(r'<h4 id="[^"]+">Differences of rates vs baseline \(percentage points\)</h4>\s*<img', text)
    row = re.search(r'<tr class="sig"><td>win<span[^>]*>胡</span></td>.*?</tr>', text)
    assert row and "P</td>" in row.group(0) and report.SIG in row.group(0)
    assert text.count("paired t-test on per-hand differences") == 1      # in the legend, not per cell
    same = report.html_comparison(a, [a])
    assert 'class="sig"' not in same


def test_dollar_signs_in_labels_are_text_not_mathtext(data, tmp_path, capsys):
    """A label (a rules file name, a model path) with $ in it: matplotlib would read
    "$1 and $2" as mathtext and fail to parse it; the plots print it as written."""
    a, b = stats.variant_stats(data["a"]), stats.variant_stats(data["b"])
    a.info["label"], b.info["label"] = "price $1 and $2", "rules $x$ and $"
    page = report.html_report([a])
    assert len(_images(page)) >= 6 and "price $1 and $2" in page
    page = report.html_comparison(a, [b])
    assert len(_images(page)) >= 7 and "rules $x$ and $" in page
    # through the CLI too: a rules file whose name holds $ names the variant and the plots
    rules = tmp_path / "price_$1_to_$2.toml"
    rules.write_text('rules = "wanzai"\nbase = 2\n', encoding="utf-8")
    out = make_dataset(tmp_path / "d", rules=mjsim.Rules.load(rules))
    assert main(["report", str(out)]) == 0, capsys.readouterr().err
    assert main(["compare", str(data["a"]), str(out), "--html", str(tmp_path / "c.html")]) == 0, \
        capsys.readouterr().err
    assert "price_$1_to_$2" in (out / "report.html").read_text()
    assert "price_$1_to_$2" in (tmp_path / "c.html").read_text()


def test_cli_report_and_compare(data, tmp_path, capsys):
    import pandas as pd

    html = tmp_path / "r.html"
    assert main(["report", str(data["a"]), "--html", str(html), "--csv", str(tmp_path / "r.csv"),
                 "--json", str(tmp_path / "r.json")]) == 0
    assert "pinghu" in capsys.readouterr().out
    assert html.read_text().startswith("<!DOCTYPE html>")
    csv = pd.read_csv(tmp_path / "r.csv")
    js = pd.read_json(tmp_path / "r.json", orient="records")
    assert len(csv) == len(js) > 50 and {"measure", "estimate", "ci_low", "ci_high", "method"} <= set(csv.columns)
    assert (js["chinese"] == "七小對").any()
    out = tmp_path / "c.html"
    assert main(["compare", str(data["a"]), str(data["b"]), "--html", str(out), "--csv", str(tmp_path / "c.csv")]) == 0
    assert report.SIG in capsys.readouterr().out
    assert 'class="sig"' in out.read_text()
    c = pd.read_csv(tmp_path / "c.csv")
    win = c[(c["section"] == "outcome") & (c["measure"] == "win")].iloc[0]
    assert bool(win["significant"]) and win["paired"] and win["p_adjusted"] >= win["p"]
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert "no such dataset directory" in capsys.readouterr().err
    assert main(["report", str(data["a"]), "--no-html", "--csv", str(tmp_path / "r.txt")]) == 2
    assert ".csv or .json" in capsys.readouterr().err
    assert main(["compare", str(data["a"]), str(data["b"]), "--adjust", "bonferonni"]) == 2
    assert "--adjust must be" in capsys.readouterr().err


def test_cli_sweep_runs_every_variant_and_compares(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(runner, "SIMULATOR", "fake_game:simulate_chunk")
    out = tmp_path / "sweep"
    code = main(["sweep", "--grid", "base=1,2", "--hands", "1600", "--chunk", "800", "--workers", "1",
                 "--out", str(out), "--no-progress", "--json", str(tmp_path / "s.json")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    parts = sorted(p.name for p in (out / "hands").glob("variant=*"))
    assert parts == ["variant=base%3D1", "variant=base%3D2"]   # readable labels, URI-encoded
    assert len(list((out / "wins").glob("variant=*/*.parquet"))) == 4
    assert "base=1" in captured.out and "base=2" in captured.out
    assert "1,600 of 1,600 hands played identically" in " ".join(captured.out.split())
    text = (out / "compare.html").read_text()
    assert_self_contained(text)
    # the fake's points scale with `base`: twice the points per win, clearly significant
    row = re.search(r"<tr[^>]*><td>points per win</td>.*?</tr>", text).group(0)
    assert 'class="sig"' in row and "P</td>" in row
    win = re.search(r"<tr[^>]*><td>win<span.*?</tr>", text)
    assert win is None                       # same walls, same outcomes: identical, not shown
    assert (tmp_path / "s.json").read_text().lstrip().startswith("[")

    assert main(["sweep", "--grid", "birdz=1,2", "--hands", "800", "--out", str(tmp_path / "bad")]) == 2
    assert "birdz" in capsys.readouterr().err and not (tmp_path / "bad").exists()
    assert main(["sweep", "--grid", "base=1", "--hands", "800", "--out", str(tmp_path / "one")]) == 2
    assert "nothing to compare" in capsys.readouterr().err


def test_one_session_says_its_intervals_are_not_clustered(data, tmp_path):
    """A variant of one session has no clustered variance: the report must not call its
    intervals session-clustered, and says what they are instead."""
    one = stats.variant_stats(make_dataset(tmp_path / "one", hands=16, chunk=16))
    many = stats.variant_stats(data["a"])
    assert one.sessions == 1 and many.sessions >= 2
    assert "one session only" in report.method_note([one]) and "wanzai" in report.method_note([one])
    assert report.method_note([many]) == report.METHOD_NOTE
    assert set(one.frame()["method"]) == {"Wilson score, hands taken as independent (one session)",
                                          "none: a clustered standard error needs two sessions"}
    assert all(math.isnan(m.ci[0]) for m in one.means)
    assert not any("independent" in m for m in many.frame()["method"])
    console = Console(record=True, width=400)
    report.print_report([one], console)
    assert "one session only" in console.export_text()
    assert "one session only" in report.html_report([one])


def test_comparing_a_dataset_with_its_copy_says_nothing_differs(data, tmp_path, capsys):
    """Every measure is identical in every hand, so none is tested: one line instead of
    the headers of an empty table."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(data["a"], copy)
    assert main(["compare", str(data["a"]), str(copy), "--html", str(tmp_path / "c.html")]) == 0
    out = capsys.readouterr().out
    assert f"vs baseline wanzai [{data['a']}]: no measure differs" in " ".join(out.split())
    assert "Δ vs baseline" not in out
    assert "4,000 of 4,000 hands played identically" in out
    assert "<p>No measure differs.</p>" in (tmp_path / "c.html").read_text()
