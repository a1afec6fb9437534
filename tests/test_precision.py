"""simulate --precision: chunks are added in order until the named intervals are narrow
enough, and the dataset is the one a fixed --hands of that size writes."""
from __future__ import annotations

from dataclasses import replace

import pyarrow.dataset as ds
import pytest

import mjsim

from mjsim.run import precision
from mjsim.run import runner
from mjsim.analysis import stats
from mjsim.cli import main
from cli_helpers import cli, one_line


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(runner, "SIMULATOR", "fake_game:simulate_chunk")


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.glob("*/*/*.parquet"))


def _table(root, name):
    keys = [("hand_index", "ascending")] + ([("winner", "ascending")] if name == "wins" else [])
    return ds.dataset(root / name, format="parquet", partitioning="hive").to_table().sort_by(keys)


def test_precision_grows_until_met_and_equals_a_fixed_run(fake, tmp_path, capsys):
    grown, fixed = tmp_path / "grown", tmp_path / "fixed"
    args = ["--chunk", "800", "--workers", "1", "--no-progress", "--seed", "4"]
    assert main(["simulate", "--precision", "win=0.01", "--precision", "qixiaodui=0.004", "--out", str(grown),
                 *args]) == 0
    err = capsys.readouterr().err
    assert "precision reached with" in err
    hands = stats.variant_stats(grown).hands
    assert hands % 800 == 0 and hands > 800
    steps = [line for line in err.splitlines() if " hands: win ±" in line]
    assert len(steps) >= 2
    s = stats.variant_stats(grown)
    widths = precision.halfwidths(s, precision.parse_targets(["win=0.01", "qixiaodui=0.004"], "wanzai"))
    assert widths["win"] <= 0.01 and widths["qixiaodui"] <= 0.004
    assert main(["simulate", "--hands", str(hands), "--out", str(fixed), *args]) == 0
    assert _files(grown) == _files(fixed)
    for name in runner.TABLES:
        assert _table(grown, name).equals(_table(fixed, name))
    m = runner.read_manifest(grown)["variants"]["wanzai"]
    assert m["hands"] == hands and m["complete"] is True
    # resuming the same command plays nothing new
    assert main(["simulate", "--precision", "win=0.01", "--precision", "qixiaodui=0.004", "--out", str(grown),
                 *args]) == 0
    assert stats.variant_stats(grown).hands == hands


def test_precision_stops_at_max_hands(fake, tmp_path, capsys):
    out = tmp_path / "cap"
    assert main(["simulate", "--precision", "dealer=0.0001", "--max-hands", "2400", "--chunk", "800",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    assert "--max-hands 2,400 reached before the precision of dealer" in capsys.readouterr().err
    assert stats.variant_stats(out).hands == 2400


def test_a_max_hands_between_chunks_names_what_was_played(fake, tmp_path, capsys):
    """The run grows in whole chunks: a --max-hands of 2.5 chunks plays two, and the warning
    says so rather than naming 2,000 hands it never played."""
    out = tmp_path / "cap"
    assert main(["simulate", "--precision", "dealer=0.0001", "--max-hands", "2000", "--chunk", "800",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    assert ("--max-hands 2,000 reached (1,600 hands: whole chunks of 800) before the precision of dealer"
            in capsys.readouterr().err)
    assert stats.variant_stats(out).hands == 1600


def test_a_rerun_with_a_smaller_max_hands_names_max_hands(fake, tmp_path, capsys):
    out = tmp_path / "cap"
    args = ["simulate", "--precision", "dealer=0.0001", "--chunk", "800", "--workers", "1", "--no-progress",
            "--out", str(out)]
    assert main([*args, "--max-hands", "2400"]) == 0
    capsys.readouterr()
    assert main([*args, "--max-hands", "1600"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already holds 2,400 hands" in err[0] and "--max-hands 2,400 or more" in err[0]
    assert stats.variant_stats(out).hands == 2400


def test_growing_the_manifest_waits_for_no_writer(fake, tmp_path, capsys):
    """The step that lets the manifest take more hands rewrites it under the directory
    lock: while another run holds the lock it is refused, the manifest unchanged."""
    from dataclasses import replace

    from mjsim.dataset.storage import directory_lock

    out = tmp_path / "grow"
    assert main(["simulate", "--hands", "1600", "--chunk", "800", "--workers", "1", "--no-progress",
                 "--out", str(out)]) == 0
    spec = runner.make_spec(mjsim.Rules.load("wanzai"), hands=1600, chunk=800, session_hands=16, seed=0)
    assert precision._recorded_hands(out, spec) == 1600
    before = (out / "manifest.json").read_bytes()
    with directory_lock(out):
        with pytest.raises(ValueError, match="being written by another mjsim run"):
            precision._allow_growth(out, replace(spec, hands=2400))
    assert (out / "manifest.json").read_bytes() == before
    precision._allow_growth(out, replace(spec, hands=2400))          # no other writer: it grows
    assert runner.read_manifest(out)["variants"]["wanzai"]["hands"] == 2400


@pytest.mark.parametrize("arg, message", [
    ("qixiaodiu=0.001", "unknown measure 'qixiaodiu' for wanzai; valid: win, draw, dealer"),
    ("win", "expected MEASURE=HALFWIDTH"),
    ("win=-1", "expected MEASURE=HALFWIDTH"),
    ("yingzhuang=0.01", "unknown measure 'yingzhuang'"),
])
def test_bad_precision_is_one_line(fake, tmp_path, capsys, arg, message):
    assert main(["simulate", "--precision", arg, "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "x").exists()
    if "unknown" in message:
        assert "qixiaodui" in err[0] and "seat3" in err[0]


def test_the_first_step_is_never_a_handful_of_sessions(fake, tmp_path, capsys):
    """An interval from one session does not exist, and one from a few is too uncertain to
    stop on: with chunks of one session (as search players' default chunks are a few), the
    first step plays MIN_FIRST_SESSIONS sessions in whole chunks before any target counts."""
    out = tmp_path / "one"
    assert main(["simulate", "--precision", "win=0.5", "--chunk", "16", "--session-hands", "16",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    first = precision.MIN_FIRST_SESSIONS * 16
    assert f"{first:,} hands: win ±" in err and "precision reached with" in err
    assert stats.variant_stats(out).sessions == precision.MIN_FIRST_SESSIONS
    # in whole chunks: chunks of 3 sessions round the first step up to 66 sessions
    out = tmp_path / "three"
    assert main(["simulate", "--precision", "win=0.5", "--chunk", "48", "--session-hands", "16",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    capsys.readouterr()
    assert stats.variant_stats(out).sessions == -(-precision.MIN_FIRST_SESSIONS // 3) * 3


@pytest.mark.parametrize("max_hands, message", [
    ("100", "error: --max-hands 100 is not a whole number of 16-hand sessions (--session-hands 16); the nearest "
            "that work: --max-hands 96 or --max-hands 112 or --session-hands 20"),
    ("0", "error: --max-hands (number of hands) must be 1 or more, got 0"),
])
def test_a_bad_max_hands_is_named_as_given(fake, tmp_path, capsys, max_hands, message):
    """--precision's cap is --max-hands: its refusal names it, not --hands (not given)."""
    code, _, err = cli(capsys, "simulate", "--precision", "win=0.5", "--max-hands", max_hands, "--chunk", "800",
                       "--workers", "1", "--no-progress", "--out", tmp_path / "x")
    assert code == 2 and one_line(err) == message
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("args, message", [
    (("--precision", "win=0.5", "--hands", "800"),
     "error: --precision replaces --hands: it plays until the interval is narrow enough; "
     "give the most hands to play with --max-hands"),
    (("--max-hands", "800"),
     "error: --max-hands is the most hands --precision may play; without --precision give --hands"),
])
def test_hands_options_that_would_be_ignored_are_refused(fake, tmp_path, capsys, args, message):
    """--hands beside --precision, or --max-hands without it, was accepted and silently had
    no effect: a user asking for 800 hands got up to 10 million, or the default 100,000."""
    code, _, err = cli(capsys, "simulate", *args, "--chunk", "800", "--workers", "1", "--no-progress",
                       "--out", tmp_path / "x")
    assert code == 2 and one_line(err) == message
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("game_name", ["wanzai", "anhua"])
def test_every_win_kind_a_game_plays_is_a_measure(game_name):
    """The summary's win kinds table lists the kinds found in the wins; --precision (and
    balance's targets) once knew only the listed ones, so Wanzai's 槓上花 row could not be
    asked for."""
    from mjsim.analysis import measures
    from mjsim.play import game
    from mjsim.run import balance

    _, wins = game.simulate_chunk(mjsim.Rules.load(game_name), ("greedy",) * 4, seed=7, start=0, count=1500)
    played = {game.WIN_KINDS[k] for k in wins["win_kind"]}
    assert "gangshanghua" in played            # the kind the list lacked is in these hands
    assert played <= set(measures.GAME_WIN_KINDS[game_name])
    names = precision.measure_names(game_name)
    targets = balance.known_measures(game_name)
    for kind in played:
        assert names[kind] == ("win kind", kind) and ("win kind", kind) in targets


def test_precision_on_gangshanghua_in_wanzai(fake, tmp_path, capsys):
    code, _, err = cli(capsys, "simulate", "--precision", "gangshanghua=0.5", "--max-hands", "1600", "--chunk",
                       "800", "--workers", "1", "--no-progress", "--out", tmp_path / "g")
    assert code == 0, err
    # the first step: 64 sessions in whole 800-hand chunks
    assert "1,600 hands: gangshanghua ±" in err and "precision reached" in err


def test_a_grown_manifest_is_incomplete_until_the_step_has_played(fake, tmp_path, capsys):
    """A step of --precision (or balance) first lets the manifest record more hands, then
    plays them. The manifest kept "complete": true meanwhile, so a kill between the two
    left a dataset that report and query refused as lacking hands it records as complete,
    instead of reading it as an incomplete one."""
    out = tmp_path / "d"
    spec = runner.make_spec(mjsim.Rules.load("wanzai"), hands=800, chunk=800, session_hands=16, seed=4)
    runner.run(spec, out, workers=1, progress=False)
    assert runner.read_manifest(out)["variants"]["wanzai"]["complete"] is True
    precision._allow_growth(out, replace(spec, hands=1600))
    entry = runner.read_manifest(out)["variants"]["wanzai"]
    assert entry["hands"] == 1600 and entry["complete"] is False
    code, text, err = cli(capsys, "report", out, "--no-html")
    assert code == 0 and "INCOMPLETE" in text
    # from Python: the stats say so, and a notebook's table is headed by it
    st = stats.variant_stats(out)
    assert st.complete is False and stats.summarize(out).attrs["complete"] is False
    assert st._repr_html_().startswith("<p><b>INCOMPLETE</b>: the 800 hands an interrupted run has played so far")
    # query has no header to say it in: one note on stderr, the rows on stdout as ever
    code, text, err = cli(capsys, "query", out, "SELECT count(*) AS n FROM hands", "--csv")
    assert code == 0 and text == "n\n800\n"
    assert one_line(err) == (f"note: {out} is incomplete (variant wanzai: an interrupted run); the query read "
                             "the chunks it holds, and resuming the run adds the rest")
    # resumed, it is complete
    runner.run(replace(spec, hands=1600), out, workers=1, progress=False)
    assert stats.variant_stats(out).complete is True and "INCOMPLETE" not in stats.variant_stats(out)._repr_html_()
