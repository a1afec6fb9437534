"""ev by default, the note when the players cannot respond to a change, and answers under
several player populations (issue 19 items 3 and 4): `sweep`/`compare`/`simulate` take
--players more than once, each population on the same seeds, every difference shown per
population with whether they agree.  The real game on small hand counts."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest

import mjsim
from cli_helpers import cli, one_line
from mjsim.run import populations as P
from mjsim.run import runner
from mjsim.analysis import stats
from mjsim.analysis.stats import Comparison, Rate

WANZAI = mjsim.Rules.load("wanzai")


def _side(players, **overrides):
    """What blind_note reads of a variant: the manifest's players and the rules."""
    return SimpleNamespace(info={"players": list(players)}, rules=WANZAI.with_overrides(**overrides))


def _cmp(diff, lo, hi):
    r = Rate("pattern", "qixiaodui", 1, 10, "hands", 0.0)
    return Comparison("pattern", "qixiaodui", r, r, diff, (lo, hi), 0.5, "t")


# ---------------------------------------------------------------- ev is the default


def test_ev_is_the_default_population():
    assert runner.DEFAULT_PLAYERS == "ev"
    assert runner.make_spec(WANZAI, hands=16, chunk=16).players == ("ev",) * 4


def test_simulate_without_players_plays_ev(tmp_path, capsys):
    out = tmp_path / "d"
    code, _, err = cli(capsys, "simulate", "--hands", "32", "--chunk", "32", "--workers", "1", "--out", out,
                       "--no-progress")
    assert code == 0, err
    assert json.loads((out / "manifest.json").read_text())["variants"]["wanzai"]["players"] == ["ev"] * 4


# ---------------------------------------------------------------- the value-blind note


def test_blind_note_for_value_changes_under_value_blind_players():
    a, b = _side(["greedy"] * 4), _side(["greedy"] * 4, **{"values.qixiaodui": [10, 20]})
    note = P.blind_note(a, [b])
    assert note is not None and "values.qixiaodui" in note and "greedy" in note and "\n" not in note
    mixed = [_side(["random", "greedy_v1", "greedy", "greedy"], **{"values.qixiaodui": [10, 20]})]
    assert P.blind_note(_side(["random", "greedy_v1", "greedy", "greedy"]), mixed) is not None


@pytest.mark.parametrize("players, overrides", [
    (["ev"] * 4, {"values.qixiaodui": [10, 20]}),               # ev reads values
    (["greedy", "greedy", "ev", "greedy"], {"values.qixiaodui": [10, 20]}),   # one seat responds
    (["ev:fold=2"] * 4, {"values.qixiaodui": [10, 20]}),
    (["greedy"] * 4, {"piao": [1, 0, 0, 0]}),                    # not a value: no claim made
    (["greedy"] * 4, {}),                                        # nothing changed
])
def test_no_blind_note(players, overrides):
    assert P.blind_note(_side(players), [_side(players, **overrides)]) is None


def test_blind_note_for_anhua_multipliers():
    anhua = mjsim.Rules.load("anhua")
    a = SimpleNamespace(info={"players": ["greedy"] * 4}, rules=anhua)
    b = SimpleNamespace(info={"players": ["greedy"] * 4}, rules=anhua.with_overrides(**{"multipliers.qi_wang": 32}))
    assert "multipliers.qi_wang" in P.blind_note(a, [b])


def test_blind_note_needs_the_players_recorded():
    a = SimpleNamespace(info={}, rules=WANZAI)
    assert P.blind_note(a, [_side(["greedy"] * 4, **{"values.qixiaodui": [10, 20]})]) is None


# ---------------------------------------------------------------- agreement


@pytest.mark.parametrize("cs, expected", [
    ([_cmp(0.02, 0.01, 0.03), _cmp(0.025, 0.02, 0.04)], True),     # same sign, overlapping
    ([_cmp(0.02, 0.01, 0.03), _cmp(0.05, 0.04, 0.06)], False),     # same sign, apart
    ([_cmp(0.01, -0.01, 0.03), _cmp(-0.01, -0.03, 0.01)], True),   # opposite signs, both unknown (0 inside)
    ([_cmp(0.02, 0.01, 0.03), _cmp(-0.02, -0.03, -0.01)], False),  # opposite known signs
    ([_cmp(0.0, 0.0, 0.0), _cmp(0.004, -0.01, 0.02)], True),       # blind vs a change within noise
    ([_cmp(0.0, 0.0, 0.0), _cmp(0.0, 0.0, 0.0)], True),            # identical in both
    ([_cmp(0.0, 0.0, 0.0), _cmp(0.04, 0.03, 0.05)], False),        # blind vs responding
    ([_cmp(0.02, 0.0, 0.04), _cmp(0.03, 0.01, 0.05), _cmp(0.035, 0.035, 0.035)], True),
    ([_cmp(0.02, 0.0, 0.03), _cmp(0.03, 0.01, 0.05), _cmp(0.035, 0.035, 0.035)], False),  # no common point
    ([_cmp(0.02, 0.0, 0.04), None], None),
    ([_cmp(0.02, float("nan"), float("nan")), _cmp(0.02, 0.0, 0.04)], None),
])
def test_agree(cs, expected):
    assert P.agree(cs) is expected


def test_populations_parse_and_refuse_repeats():
    assert P.populations(["ev", "greedy,ev,ev,ev"]) == [("ev", ("ev",) * 4),
                                                         ("greedy,ev,ev,ev", ("greedy", "ev", "ev", "ev"))]
    with pytest.raises(ValueError, match="given twice"):
        P.populations(["ev", "ev,ev,ev,ev"])


# ---------------------------------------------------------------- sweep and compare, two populations


@pytest.fixture(scope="module")
def two_populations(tmp_path_factory):
    """A sweep of 七小對's value under ev and under greedy: 64 hands a variant."""
    import io
    from contextlib import redirect_stdout

    from mjsim.cli import main

    root = tmp_path_factory.mktemp("pop")
    out, csv = root / "sweep", root / "cmp.csv"
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["sweep", "--grid", "values.qixiaodui=[2,4],[20,40]", "--players", "ev", "--players", "greedy",
                     "--hands", "64", "--chunk", "64", "--workers", "1", "--out", str(out), "--no-progress",
                     "--csv", str(csv)])
    assert code == 0
    return out, csv, buf.getvalue()


def test_sweep_runs_each_population_on_the_same_seeds(two_populations):
    out, _, _ = two_populations
    assert stats.variants(out) == ["ev / values.qixiaodui=[2,4]", "ev / values.qixiaodui=[20,40]",
                                   "greedy / values.qixiaodui=[2,4]", "greedy / values.qixiaodui=[20,40]"]
    manifest = json.loads((out / "manifest.json").read_text())["variants"]
    assert {v["seed"] for v in manifest.values()} == {0}
    assert manifest["greedy / values.qixiaodui=[20,40]"]["players"] == ["greedy"] * 4
    assert manifest["ev / values.qixiaodui=[2,4]"]["population"] == "ev"
    # the same deals: each session's first dealer (then play decides who deals) and every dice throw
    df = pd.read_parquet(out / "hands", columns=["hand_index", "hand_in_session", "dealer", "dice", "variant"])
    by = {v: g.sort_values("hand_index") for v, g in df.groupby("variant", observed=True)}
    first = by["ev / values.qixiaodui=[2,4]"]
    for g in by.values():
        assert (g["dice"].to_numpy() == first["dice"].to_numpy()).all()
        opening = (g["hand_in_session"] == 0).to_numpy()
        assert (g["dealer"].to_numpy()[opening] == first["dealer"].to_numpy()[opening]).all()


def test_sweep_shows_each_population_and_whether_they_agree(two_populations):
    out, csv, text = two_populations
    assert text.index("population ev") < text.index("population greedy") < text.index("mjsim populations")
    lines = text.splitlines()
    notes = [l for l in lines if l.startswith("note: ")]
    assert len(notes) == 1 and "greedy" in notes[0] and "values.qixiaodui" in notes[0]
    assert lines[lines.index("population greedy") + 1] == notes[0]       # right above greedy's table
    frame = pd.read_csv(csv)
    assert set(frame["population"]) == {"ev", "greedy"}
    greedy = frame[frame["population"] == "greedy"]
    assert (greedy["identical_hands"] == 64).all()            # value-blind: every hand the same
    ev = frame[frame["population"] == "ev"]
    assert (ev["identical_hands"] < 64).all()                 # ev plays for 七小對's new value
    # the agree column is what P.agree says of the two rows of a measure
    for (section, measure), g in frame.groupby(["section", "measure"]):
        if len(g) != 2:
            continue
        rows = {r.population: r for r in g.itertuples()}
        cs = [_cmp(rows[p].diff, rows[p].ci_low, rows[p].ci_high) for p in ("ev", "greedy")]
        want = P.agree(cs)
        got = rows["ev"].populations_agree
        assert (None if pd.isna(got) else bool(got)) is want, (section, measure)
    assert "note: greedy never reads" in (out / "compare-greedy.html").read_text()
    assert "note: greedy never reads" not in (out / "compare-ev.html").read_text()


def test_compare_takes_populations_from_one_dataset(two_populations, tmp_path, capsys):
    out, _, _ = two_populations
    csv = tmp_path / "c.csv"
    code, text, err = cli(capsys, "compare", out, out, "--variant-a", "values.qixiaodui=[2,4]",
                          "--variant-b", "values.qixiaodui=[20,40]", "--players", "greedy", "--players", "ev",
                          "--html", tmp_path / "c.html", "--csv", csv)
    assert code == 0, err
    assert text.index("population greedy") < text.index("population ev") < text.index("mjsim populations")
    frame = pd.read_csv(csv)
    assert set(frame["variant"]) == {"greedy / values.qixiaodui=[20,40]", "ev / values.qixiaodui=[20,40]"}
    assert (tmp_path / "c-greedy.html").is_file() and (tmp_path / "c-ev.html").is_file()
    # one population: the plain comparison of that population's two variants
    code, text, err = cli(capsys, "compare", out, out, "--variant-a", "values.qixiaodui=[2,4]",
                          "--variant-b", "values.qixiaodui=[20,40]", "--players", "greedy",
                          "--html", tmp_path / "one.html")
    assert code == 0, err
    assert text.startswith("note: greedy never reads") and "mjsim populations" not in text


@pytest.mark.parametrize("extra, message", [
    (["--players", "random"], "no variant played by 'random'"),
    (["--players", "greedy"], "choose one with --variant-a"),
    (["--players", "ev", "--players", "ev,ev,ev,ev"], "given twice"),
    (["--players", "ev:fold=99"], "fold must be a number 0..10"),
])
def test_compare_population_errors(two_populations, capsys, extra, message):
    out, _, _ = two_populations
    code, _, err = cli(capsys, "compare", out, out, *extra)
    assert code == 2
    assert message in one_line(err)


def test_simulate_two_populations_and_compare_two_datasets(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    for out, extra in ((a, []), (b, ["--set", "values.daqidui=[20,40]"])):
        code, _, err = cli(capsys, "simulate", "--hands", "32", "--chunk", "32", "--workers", "1", "--out", out,
                           "--no-progress", "--players", "greedy", "--players", "ev", *extra)
        assert code == 0, err
    assert stats.variants(a) == ["greedy / wanzai", "ev / wanzai"]
    code, text, err = cli(capsys, "compare", a, b, "--players", "greedy", "--players", "ev",
                          "--html", tmp_path / "ab.html")
    assert code == 0, err
    assert "paired: same seed 0" in text and "mjsim populations" in text
    assert sum(l.startswith("note: ") for l in text.splitlines()) == 1
    code, _, err = cli(capsys, "simulate", "--hands", "32", "--players", "ev", "--players", "greedy",
                       "--precision", "win=0.1", "--out", tmp_path / "p")
    assert code == 2 and "--precision runs one population" in one_line(err)


def test_sweep_with_one_value_blind_population_says_so(tmp_path, capsys):
    code, text, err = cli(capsys, "sweep", "--grid", "values.qixiaodui=[2,4],[20,40]", "--players", "greedy",
                          "--hands", "32", "--chunk", "32", "--workers", "1", "--out", tmp_path / "s",
                          "--no-progress")
    assert code == 0, err
    assert text.splitlines()[0].startswith("note: greedy never reads what a hand is worth")
    assert "note: greedy never reads what a hand is worth" in (tmp_path / "s" / "compare.html").read_text()
    assert stats.variants(tmp_path / "s") == ["values.qixiaodui=[2,4]", "values.qixiaodui=[20,40]"]


def test_per_population_pages_have_plain_file_names():
    """search%2Cev%2Cev%2Cev.html, opened as a file:// URL, is decoded by a browser into a
    file that does not exist."""
    from pathlib import Path

    from mjsim.cli.common import _html_paths

    paths = _html_paths(Path("d/compare.html"), ["ev", "search,ev,ev,ev", "ev:fold=1", "ev;fold=1"])
    assert [p.name for p in paths] == ["compare-ev.html", "compare-search_ev_ev_ev.html",
                                       "compare-ev_fold=1-3.html", "compare-ev_fold=1-4.html"]
    assert _html_paths(Path("d/compare.html"), ["ev"]) == [Path("d/compare.html")]
