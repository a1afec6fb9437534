"""Issue 22: what a newcomer sees from the CLI. Output without a terminal is whole (no cell
cut to "…"), tables can be had as CSV/JSON, and the small fixes: Chinese names in `hand`,
the three views in `query --help`, no `<bool>` beside flags, "did you mean" for rules keys,
the overflow message naming the key that overflows, `--hands` that is not a whole number
of sessions refused with the counts that work, and `mjsim cache`."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest

import mjsim
from cli_helpers import one_line
from mjsim import vocab as names
from mjsim.run import runner
from mjsim.cli import main
from mjsim.rulesets.rules import RulesError

CUT = "…"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    c = capsys.readouterr()
    return code, c.out, c.err


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A real 3,200-hand Wanzai run (the size the issue's cut summary had)."""
    out = tmp_path_factory.mktemp("whole") / "d"
    assert main(["simulate", "--hands", "3200", "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    return out


def test_simulate_summary_piped_is_whole(dataset, capsys):
    """The summary printed again by a resumed run (nothing left to play) is not cut."""
    code, out, err = run(capsys, "simulate", "--hands", "3200", "--workers", "1", "--out", dataset,
                         "--no-progress")
    assert code == 0, err
    assert CUT not in out and CUT not in err
    assert "qixing_shisanlan 七星十三爛" in out            # the longest id with its name, whole
    assert "Wilson" in out                                  # the method column, not "(Wilso…"
    assert max(len(line) for line in out.splitlines()) > 80  # laid out wider than 80 columns


def test_report_compare_query_hand_piped_are_whole(dataset, capsys, tmp_path):
    outputs = []
    for argv in (("report", dataset, "--no-html"),
                 ("compare", dataset, dataset, "--html", tmp_path / "c.html"),
                 ("query", dataset, "SELECT pattern, list(DISTINCT array_to_string(properties, ',')) AS p "
                                    "FROM wins GROUP BY 1"),
                 ("hand", "--melds", "pung:111p,pung:222p,chow:345s,chow:東南西", "--discard", "--win-tile", "1m",
                  "11m")):
        code, out, err = run(capsys, *argv)
        assert code == 0, (argv, err)
        assert CUT not in out, (argv, [l for l in out.splitlines() if CUT in l][:3])
        outputs.append(out)
    assert "qixing_shisanlan 七星十三爛" in outputs[0]


def test_report_and_compare_in_a_narrow_terminal_wrap_cells_rather_than_cut_them(dataset):
    """On an 80-column terminal a cell too wide wraps onto more lines: no interval loses digits."""
    from rich.console import Console

    from mjsim.analysis import report, stats

    found = stats.summarize_all(dataset)
    screen = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    report.print_report(found, screen)
    report.print_comparison(found[0], found, screen)
    text = screen.file.getvalue()
    assert CUT not in text, [line for line in text.splitlines() if CUT in line][:3]
    assert max(len(line) for line in text.splitlines()) <= 80


def test_query_and_hand_in_a_narrow_terminal_wrap_cells_rather_than_cut_them(dataset, capsys, monkeypatch):
    """Every table the CLI prints folds (one mechanism, analysis.terminal.FoldingTable): a
    long SQL value and a hand's properties on a 40-column terminal keep every character."""
    from rich.console import Console

    import mjsim.cli.analyse
    import mjsim.cli.evaluate

    screen = Console(file=io.StringIO(), force_terminal=True, width=40, color_system=None)
    monkeypatch.setattr(mjsim.cli.analyse, "console", screen)
    monkeypatch.setattr(mjsim.cli.evaluate, "console", screen)
    long = "x" * 30 + "0123456789"
    assert run(capsys, "query", dataset, f"SELECT '{long}' AS a")[0] == 0
    assert run(capsys, "hand", "--melds", "pung:111p,pung:222p,chow:345s,chow:東南西", "--discard",
               "--win-tile", "1m", "11m")[0] == 0
    text = screen.file.getvalue()
    assert CUT not in text, [line for line in text.splitlines() if CUT in line][:3]
    cells = "".join(c for c in text if not c.isspace() and c not in "│┃")
    assert long in cells and "pinghu平胡,quanqiuren全求人" in cells


def test_sweep_piped_is_whole(capsys, tmp_path):
    code, out, err = run(capsys, "sweep", "--rules", "anhua", "--grid", "birds=0,1", "--hands", "800",
                         "--workers", "1", "--out", tmp_path / "s", "--no-progress")
    assert code == 0, err
    assert CUT not in out and CUT not in err
    assert "dealer − non-dealer" in out and "defined by the change of birds" in out   # the widest cell, whole


def test_piped_output_is_whole_in_a_subprocess_with_columns_80(dataset):
    """What a CI log gets (COLUMNS=80 included): the same whole table."""
    env = dict(os.environ, COLUMNS="80")
    out = subprocess.run([sys.executable, "-m", "mjsim.cli", "report", str(dataset), "--no-html"],
                         capture_output=True, text=True, env=env, check=True).stdout
    assert CUT not in out and "qixing_shisanlan 七星十三爛" in out


def test_simulate_writes_its_summary_as_csv_and_json(dataset, capsys, tmp_path):
    code, out, err = run(capsys, "simulate", "--hands", "3200", "--workers", "1", "--out", dataset,
                         "--no-progress", "--csv", tmp_path / "s.csv", "--json", tmp_path / "s.json")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO((tmp_path / "s.csv").read_text())))
    records = json.loads((tmp_path / "s.json").read_text())
    assert len(rows) == len(records) > 20
    pinghu = next(r for r in records if r["measure"] == "pinghu")
    assert 0 < pinghu["estimate"] < 1 and pinghu["ci_low"] <= pinghu["estimate"] <= pinghu["ci_high"]
    assert pinghu["chinese"] == names.chinese("pinghu") and pinghu["n"] == 3200
    assert [r["measure"] for r in rows] == [r["measure"] for r in records]


def test_query_json_and_csv_give_every_row(dataset, capsys):
    sql = "SELECT hand_index, dealer FROM hands ORDER BY hand_index"
    code, out, _ = run(capsys, "query", dataset, sql, "--json")
    assert code == 0
    rows = json.loads(out)
    assert len(rows) == 3200 and rows[5] == {"hand_index": 5, "dealer": rows[5]["dealer"]}
    code, out2, _ = run(capsys, "query", dataset, sql, "--csv")
    assert len(out2.strip().splitlines()) == 3201
    code, _, err = run(capsys, "query", dataset, sql, "--csv", "--json")
    assert code == 2 and "choose one" in one_line(err)


def test_arena_json(capsys, tmp_path):
    code, out, err = run(capsys, "arena", "random", "--baseline", "greedy", "--deals", "40", "--workers", "1",
                         "--no-progress", "--json", tmp_path / "a.json")
    assert code == 0, err
    got = json.loads((tmp_path / "a.json").read_text())
    assert got["deals"] == 40 and got["challenger"] == "random" and got["baseline"] == "greedy"
    assert got["edge"]["low"] <= got["edge"]["mean"] <= got["edge"]["high"]
    assert f"{got['edge']['mean']:+.4f}" in out                 # the same figure the text shows


def test_arena_json_writes_null_for_a_missing_interval(capsys, tmp_path):
    """One deal has no deal-clustered interval: the terminal says so, the file has null
    (valid JSON: NaN is not a JSON number)."""
    code, out, err = run(capsys, "arena", "greedy", "--baseline", "random", "--deals", "1", "--workers", "1",
                         "--no-progress", "--json", tmp_path / "a.json")
    assert code == 0, err
    assert "(no interval)" in out and "nan" not in out

    def refuse(constant):
        raise ValueError(f"{constant} in the JSON")

    got = json.loads((tmp_path / "a.json").read_text(), parse_constant=refuse)
    assert got["edge"]["low"] is None and got["edge"]["high"] is None and got["edge"]["se"] is None
    assert got["edge"]["mean"] == float(out.split("edge (points per seat-hand): ")[1].split()[0])


def test_hand_shows_chinese_names_beside_ids(capsys):
    code, out, _ = run(capsys, "hand", "147m258p9s1234567z")
    assert code == 0
    assert "qixing_shisanlan 七星十三爛" in out
    assert "shisanlan 十三爛" in out                       # a property, named too
    code, out, _ = run(capsys, "hand", "--rules", "anhua", "--wild", "1p", "22335566778899m")
    assert code == 0 and f"pinghu {names.chinese('pinghu')}" in out or "yingzhuang 硬莊" in out


def test_hand_json(capsys):
    code, out, _ = run(capsys, "hand", "147m258p9s1234567z", "--json")
    assert code == 0
    got = json.loads(out)
    e = mjsim.evaluate(mjsim.Rules.load("wanzai"), "147m258p9s1234567z")
    assert got["win"] is True and got["pattern"] == e.pattern and got["points"] == e.points
    assert set(got["properties"]) == set(e.properties)


def test_query_help_names_all_three_views(capsys):
    code, out, _ = run(capsys, "query", "--help")
    assert code == 0
    text = " ".join(out.split())
    for view in ("hands", "wins", "payments"):
        assert view in text


@pytest.mark.parametrize("argv", [(), ("simulate",), ("query",), ("hand",), ("report",), ("cache",), ("arena",)])
def test_no_type_shown_beside_flags(capsys, argv):
    code, out, _ = run(capsys, *argv, "--help")
    assert code == 0 and "--help" in out
    assert "<bool>" not in out


def test_unknown_rules_key_gets_did_you_mean():
    with pytest.raises(RulesError, match=r"did you mean 'birds'\?"):
        mjsim.Rules.load("anhua", brids=2)
    with pytest.raises(RulesError, match=r"did you mean 'multipliers.qingyise'\?"):
        mjsim.Rules.load("anhua", **{"multipliers.qingyse": 2})
    for game, key, near in (("anhua", "qingyise", "multipliers.qingyise"),     # a bare id finds its table
                            ("anhua", "multiplier.qingyise", "multipliers.qingyise"),
                            ("wanzai", "pinhu", "values.pinghu"),
                            ("anhua", "kongvalues.added", "kong_values.added")):  # the other game's key
        with pytest.raises(RulesError) as e:
            mjsim.Rules.load(game, **{key: 2})
        assert f"did you mean '{near}'?" in str(e.value)
    assert "that key belongs to the wanzai rules" in str(e.value)
    with pytest.raises(RulesError, match="known keys: rules, base"):      # nothing near: the list
        mjsim.Rules.load("anhua", zzzz=1)


@pytest.mark.parametrize("key, overrides", [
    ("multipliers.qingyise", {"multipliers.qingyise": 100_000_000}),      # the case
    ("multipliers.xiaoqidui", {"multipliers.xiaoqidui": 100_000_000}),
    ("multipliers.gangshangpao", {"multipliers.gangshangpao": 100_000_000}),
    ("birds", {"birds": 10, "multipliers.qingyise": 1000, "multipliers.xiaoqidui": 1000}),  # 2^10 the largest
])
def test_overflow_names_the_key_that_overflows(key, overrides):
    with pytest.raises(RulesError, match="32-bit") as e:
        mjsim.Rules.load("anhua", **overrides)
    assert e.value.key == key and f"key '{key}'" in str(e.value)


def test_wanzai_overflow_blames_the_larger_factor():
    with pytest.raises(RulesError) as e:
        mjsim.Rules.load("wanzai", base=2, **{"values.pinghu": [2_000_000_000, 1]})
    assert e.value.key == "values.pinghu"


def test_hands_not_a_whole_number_of_sessions_names_the_counts_that_work(capsys):
    with pytest.raises(ValueError) as e:
        runner.make_spec(mjsim.Rules.load("wanzai"), hands=1000, session_hands=16)
    msg = str(e.value)
    assert "--hands 992 or --hands 1,008 or --session-hands 20" in msg   # 20 divides 1000, nearest 16
    for hands, k in ((992, 16), (1008, 16), (1000, 20)):     # each suggestion is accepted
        runner.make_spec(mjsim.Rules.load("wanzai"), hands=hands, session_hands=k)
    code, _, err = run(capsys, "simulate", "--hands", "1000", "--out", "/nonexistent/x", "--no-progress")
    assert code == 2 and "--hands 992" in one_line(err)


def test_nearest_session_length_for_a_prime_count():
    msg = runner._not_whole_sessions(1009, 16)      # 1009 is prime: only 1 divides it
    assert "--hands 1,008 or --hands 1,024" in msg and "--session-hands 1" in msg


def test_cache_lists_and_clears(tmp_path, monkeypatch, capsys):
    from mjsim.core import _tables

    monkeypatch.setenv("MJSIM_CACHE_DIR", str(tmp_path))
    mine = _tables.cache_path()
    (tmp_path / "tables-00000000deadbeef.bin").write_bytes(b"x" * 1000)
    open(mine, "wb").write(b"y" * 2000)
    (tmp_path / "notes.txt").write_text("not ours")
    code, out, _ = run(capsys, "cache")
    assert code == 0 and str(tmp_path) in out
    assert "tables-00000000deadbeef.bin" in out and "this build" in out and "2 files" in out
    code, out, _ = run(capsys, "cache", "--clear")
    assert code == 0 and "deleted 2 files" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    code, out, _ = run(capsys, "cache")
    assert code == 0 and "0 files" in out


def test_cache_keeps_one_other_build():
    """A save keeps this build's file and the other flavour's (tests/test_table_cache.py
    checks the pruning itself)."""
    from mjsim.core import table_cache

    assert table_cache.KEEP == 1


def _output_commands(dataset, tmp_path):
    """(command line up to the output option, what it would create) per command."""
    return {
        "simulate": (["simulate", "--players", "greedy", "--hands", "32", "--out", tmp_path / "s", "--no-progress"],
                     tmp_path / "s"),
        "report": (["report", dataset], None),
        "compare": (["compare", dataset, dataset], None),
        "sweep": (["sweep", "--rules", "anhua", "--grid", "birds=0,1", "--players", "greedy", "--hands", "32",
                   "--out", tmp_path / "w", "--no-progress"], tmp_path / "w"),
        "arena": (["arena", "greedy", "--baseline", "random", "--deals", "1", "--workers", "1", "--no-progress"], None),
        "balance": (["balance", "--rules", "anhua", "--vary", "birds=0..2", "--players", "greedy",
                     "--target", "score:dealer - non-dealer<=0", "--hands", "1600", "--out", tmp_path / "b", "--no-progress"],
                    tmp_path / "b"),
    }


@pytest.mark.parametrize("command, option", [
    ("simulate", "--csv"), ("simulate", "--json"), ("report", "--html"), ("report", "--csv"),
    ("compare", "--html"), ("compare", "--json"), ("sweep", "--html"), ("sweep", "--csv"), ("arena", "--json"),
    ("balance", "--html"), ("balance", "--write"), ("balance", "--json"),
])
def test_output_files_are_checked_before_any_work(dataset, capsys, tmp_path, command, option):
    argv, created = _output_commands(dataset, tmp_path)[command]
    suffix = {"--csv": ".csv", "--json": ".json", "--html": ".html", "--write": ".toml"}[option]
    folder = tmp_path / f"emptydir{suffix}"
    folder.mkdir()
    code, _, err = run(capsys, *argv, option, folder)
    assert code == 2
    assert one_line(err) == f"error: {option} {folder}: is a directory, not a file"
    a_file = tmp_path / "plain.txt"
    a_file.write_text("")
    code, _, err = run(capsys, *argv, option, a_file / f"out{suffix}")
    assert code == 2
    assert one_line(err) == f"error: {option} {a_file / f'out{suffix}'}: {a_file} exists and is not a directory"
    assert created is None or not created.exists()      # refused before any work
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder.name, "plain.txt"]
    assert not list(folder.iterdir())


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc, where no file can be made")
def test_output_file_in_a_directory_that_cannot_be_made(dataset, capsys):
    code, _, err = run(capsys, "report", dataset, "--html", "/proc/x/c.html")
    assert code == 2
    assert one_line(err).startswith("error: --html /proc/x/c.html: directory /proc/x does not exist and cannot "
                                    "be made in /proc (")


def test_a_failed_write_leaves_no_temporary_file(tmp_path):
    import pandas as pd

    from mjsim.analysis import report

    (tmp_path / "d.html").mkdir()
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(IsADirectoryError):
        report.write_html(tmp_path / "d.html", "<p>x</p>" * 1000)
    with pytest.raises(IsADirectoryError):
        report.write_table(pd.DataFrame({"a": [1]}), tmp_path / "d.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "d.html"]


@pytest.mark.parametrize("option, name, fmt", [("--csv", "t.json", "CSV"), ("--json", "t.csv", "JSON"),
                                               ("--json", "t.txt", "JSON")])
def test_a_table_file_named_for_the_other_format_is_refused(capsys, tmp_path, option, name, fmt):
    suffix = option.replace("--", ".")
    code, _, err = run(capsys, "simulate", "--players", "greedy", "--hands", "32", "--out", tmp_path / "s",
                       "--no-progress", option, tmp_path / name)
    assert code == 2
    assert one_line(err) == (f"error: {option} {tmp_path / name}: {option} writes {fmt}, so the file name must "
                             f"end with {suffix} (a table is written as .csv or .json)")
    assert not list(tmp_path.iterdir())       # refused before any work


def test_each_population_html_file_is_checked_before_any_work(capsys, tmp_path):
    """With several --players, sweep writes one HTML file per population beside --html;
    each of those is checked before the run, not found unwritable after it."""
    page = tmp_path / "c.html"
    (tmp_path / "c-random.html").mkdir()       # the second population's page cannot be written
    code, _, err = run(capsys, "sweep", "--rules", "anhua", "--grid", "birds=0,1", "--players", "greedy",
                       "--players", "random", "--hands", "32", "--out", tmp_path / "w", "--no-progress",
                       "--html", page)
    assert code == 2
    assert one_line(err) == f"error: --html {tmp_path / 'c-random.html'}: is a directory, not a file"
    assert not (tmp_path / "w").exists()       # refused before any work
