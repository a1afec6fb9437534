"""Reports: terminal tables, the self-contained HTML, and the report/compare/sweep commands.
Datasets come from the FAKE game loop (tests/fake_game.py)."""
from __future__ import annotations

import base64
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

import fake_game
import mjsim
from mjsim import report, runner, stats
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
    external = [u for u in parser.urls if not u.startswith("data:")]
    assert not external, f"the report loads {external}"
    assert "<script" not in text and "<link" not in text


def test_html_report_is_self_contained_with_plots(data):
    s = stats.summarize(data["a"])
    text = report.html_report([s])
    assert_self_contained(text)
    images = _images(text)
    assert len(images) >= 5                        # patterns, properties, win kinds, scores, hand length
    assert all(img.startswith(PNG) and len(img) > 2000 for img in images)
    for title in ("Pattern frequencies", "Score distributions", "Hand length distribution"):
        assert f"<h3>{title}</h3><img" in text
    for pattern in mjsim.engine.PATTERNS[:15]:    # every Wanzai pattern, seen or not
        assert f"<td>{pattern}</td>" in text
    win = next(r for r in s.rates if r.key == ("outcome", "win"))
    lo, hi = win.ci
    assert f"<td>{win.count:,}</td><td>{report.pct(win.freq)}</td><td>[{report.pct(lo)}, {report.pct(hi)}]</td>" in text
    assert "Wilson" in text and "dealer" in text and "hands with exposed kong" in text


def test_html_report_anhua_shows_wild_categories_and_birds(data):
    text = report.html_report([stats.summarize(data["anhua"])])
    assert "Anhua wild categories" in text and "wins with a bird hit" in text and "qi_wang" in text
    assert len(_images(text)) >= 6


def test_terminal_report_and_comparison(data):
    a, b = stats.summarize(data["a"]), stats.summarize(data["b"])
    console = Console(record=True, width=200)
    report.print_report([a], console)
    out = console.export_text()
    assert "mjsim report: wanzai" in out and "95% CI % (Wilson)" in out and "non-dealer" in out
    console = Console(record=True, width=200)
    report.print_comparison(a, [b], console)
    out = console.export_text()
    win_line = next(line for line in out.splitlines() if line.strip(" │").startswith("win "))
    assert report.SIG in win_line and "<0.0001" in win_line
    assert "two-proportion z-test" in out and "Welch's t-test" in out


def test_html_comparison_flags_the_significant_rows(data):
    a, b = stats.summarize(data["a"]), stats.summarize(data["b"])
    text = report.html_comparison(a, [b])
    assert_self_contained(text)
    assert len(_images(text)) >= 5
    row = re.search(r'<tr class="sig"><td>outcome: win</td>.*?</tr>', text)
    assert row and "yes (two-proportion z-test (pooled))" in row.group(0)
    same = report.html_comparison(a, [a])
    assert 'class="sig"' not in same and "no (Welch&#x27;s t-test)" in same


def test_cli_report_and_compare(data, tmp_path, capsys):
    html = tmp_path / "r.html"
    assert main(["report", str(data["a"]), "--html", str(html)]) == 0
    assert "pinghu" in capsys.readouterr().out
    assert html.read_text().startswith("<!DOCTYPE html>")
    out = tmp_path / "c.html"
    assert main(["compare", str(data["a"]), str(data["b"]), "--html", str(out)]) == 0
    assert report.SIG in capsys.readouterr().out
    assert 'class="sig"' in out.read_text()
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert "no such dataset directory" in capsys.readouterr().err


def test_cli_sweep_runs_every_variant_and_compares(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(runner, "SIMULATOR", "fake_game:simulate_chunk")
    out = tmp_path / "sweep"
    code = main(["sweep", "--grid", "base=1,2", "--hands", "1600", "--chunk", "800", "--workers", "1",
                 "--out", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    parts = sorted(p.name for p in (out / "hands").glob("variant=*"))
    assert parts == ["variant=base%3D1", "variant=base%3D2"]   # readable labels, URI-encoded
    assert len(list((out / "wins").glob("variant=*/*.parquet"))) == 4
    assert "base=1" in captured.out and "base=2" in captured.out
    text = (out / "compare.html").read_text()
    assert_self_contained(text)
    # the fake's points scale with `base`: twice the points per win, clearly significant
    row = re.search(r"<tr[^>]*><td>win: points per win</td>.*?</tr>", text).group(0)
    assert 'class="sig"' in row and "Welch" in row
    win = re.search(r"<tr[^>]*><td>outcome: win</td>.*?</tr>", text).group(0)
    assert 'class="sig"' not in win               # same seed, same win/draw outcomes

    assert main(["sweep", "--grid", "birdz=1,2", "--hands", "800", "--out", str(tmp_path / "bad")]) == 2
    assert "birdz" in capsys.readouterr().err and not (tmp_path / "bad").exists()
    assert main(["sweep", "--grid", "base=1", "--hands", "800", "--out", str(tmp_path / "one")]) == 2
    assert "nothing to compare" in capsys.readouterr().err
