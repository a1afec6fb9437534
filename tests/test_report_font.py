"""Issue 22: the report renders Chinese anywhere. mjsim ships a CJK subset font (Noto Sans
CJK TC, SIL OFL 1.1, made by tools/make_cjk_font.py) with its licence; the HTML embeds it
as a data-URL @font-face and the plots use it."""
from __future__ import annotations

import base64
import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

import fake_game
import mjsim
from mjsim import vocab as names
from mjsim.analysis import report
from mjsim.analysis import stats

ROOT = Path(__file__).resolve().parents[1]
FONT = resources.files("mjsim").joinpath("data/mjsim-cjk.otf")
LICENCE = resources.files("mjsim").joinpath("data/OFL-mjsim-cjk.txt")


def cmap(data: bytes) -> set[str]:
    import io

    return {chr(c) for c in TTFont(io.BytesIO(data)).getBestCmap()}


def cjk(text: str) -> set[str]:
    return {c for c in text if ord(c) >= 0x2E80}


def test_the_font_ships_small_with_its_licence():
    assert FONT.is_file() and LICENCE.is_file()
    size = len(FONT.read_bytes())
    assert 5_000 < size < 100_000                      # tens of KB, not the 19 MB collection
    text = LICENCE.read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in text and "Adobe" in text
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["mjsim"]
    assert "data/*.otf" in data and "data/*.txt" in data
    # a Modified Version under the OFL: not under the reserved names
    font = TTFont(FONT.open("rb"))
    assert font["name"].getDebugName(1) == report.CJK_FONT_FAMILY
    assert "Noto" not in font["name"].getDebugName(4)


def test_the_subset_covers_every_chinese_character_mjsim_writes():
    have = cmap(FONT.read_bytes())
    wanted = cjk("".join(names.CHINESE.values()))
    for path in sorted((ROOT / "src" / "mjsim").rglob("*.py")) + [ROOT / "src/mjsim/analysis/report_template.html"]:
        wanted |= cjk(path.read_text(encoding="utf-8"))      # tile names, section titles
    assert wanted and not wanted - have, sorted(wanted - have)
    assert {chr(c) for c in range(0x20, 0x7F)} <= have     # and ASCII


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    d = fake_game.make_dataset(tmp_path_factory.mktemp("font") / "d", hands=800, chunk=800)
    return report.html_report(stats.summarize_all(d))


def test_the_html_embeds_the_font_as_a_data_url(html):
    m = re.search(r'@font-face \{ font-family: "([^"]+)"; src: url\(data:font/otf;base64,([A-Za-z0-9+/=]+)\)', html)
    assert m, "no embedded @font-face"
    assert m.group(1) == report.CJK_FONT_FAMILY
    assert base64.b64decode(m.group(2)) == FONT.read_bytes()
    body_rule = re.search(r"body \{ font-family: ([^;]+);", html).group(1)
    assert f'"{report.CJK_FONT_FAMILY}"' in body_rule               # and the page uses it
    assert cjk(html) and cjk(html) <= cmap(FONT.read_bytes())        # every Chinese character it shows


def test_the_plots_use_the_shipped_font():
    from matplotlib import font_manager

    assert report.cjk_font() == report.CJK_FONT_FAMILY
    found = font_manager.findfont(font_manager.FontProperties(family=report.CJK_FONT_FAMILY),
                                  fallback_to_default=False)
    assert Path(found).resolve() == Path(str(FONT)).resolve()
    assert report.plot_label("qixiaodui") == "qixiaodui 七小對"


def test_characters_the_font_lacks_are_named_once_on_the_page_not_warned(tmp_path):
    """A user's own Chinese (a rules file 規則.toml) beyond the bundled subset: the plots draw
    boxes, the page says which characters, and matplotlib's warnings stay off stderr."""
    import warnings

    d = fake_game.make_dataset(tmp_path / "d", hands=800, chunk=800)
    s = stats.summarize_all(d)[0]
    s.info["label"] = "[bold]規則[red]"
    assert not cjk("規則") <= cmap(FONT.read_bytes())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = report.html_report([s])
        both = report.html_comparison(s, [s])
    assert not [w for w in caught if "missing from font" in str(w.message)]
    note = report.missing_glyphs_note({"規", "則"})
    assert page.count(note) == 1 and both.count(note) == 1
