"""Hostile input: rich markup in user text, huge and odd values, SQL that writes or reads
outside the dataset, arguments that would index past native arrays.

Each case: one line on stderr (or one ValueError from the API), a non-zero exit, and the
dataset unchanged and nothing written elsewhere.
"""
from __future__ import annotations

import hashlib
import math
import re
import shlex
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import mjsim
from mjsim import _core
from mjsim.play import engine
from mjsim.run import runner
from mjsim.analysis import stats
from mjsim.rulesets import native
from cli_helpers import cli, one_line

FAKE = "fake_game:simulate_chunk"
README = Path(__file__).resolve().parents[1] / "README.md"
CLI_GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "cli.md"   # README's examples moved here


def _example_lines() -> list[str]:
    return README.read_text().splitlines() + CLI_GUIDE.read_text().splitlines()
WANZAI = mjsim.Rules.load("wanzai")
ANHUA = mjsim.Rules.load("anhua")




def snapshot(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    import fake_game

    return fake_game.make_dataset(tmp_path_factory.mktemp("hostile") / "data", hands=1600, chunk=800)


# ------------------------------------------------------------------------------------
# Rich markup is data


@pytest.mark.parametrize("text, quoted", [
    ("[/]", "'[/]'"),
    ("[bold]", "'[bold]'"),
    ("12[bold]3m", "'12[bold]3m'"),
    ("[red]1m[/red]", "'[red]1m[/red]'"),
])
def test_markup_in_a_hand_is_quoted_verbatim(capsys, text, quoted):
    code, _, err = cli(capsys, "hand", text)
    assert code == 2
    line = one_line(err)
    assert quoted in line and "unknown tile character '['" in line


def test_markup_in_options_is_quoted_verbatim(capsys, tmp_path):
    code, _, err = cli(capsys, "hand", "--set", "base=[bold]x", "11m")
    assert code == 2 and "[bold]x" in one_line(err)
    code, _, err = cli(capsys, "hand", "--melds", "pung:[/]", "11m")
    assert code == 2 and "[/]" in one_line(err)
    rules = tmp_path / "br[ack]et.toml"
    rules.write_text('rules = "wanzai"\nbirds = 1\n')
    code, _, err = cli(capsys, "hand", "--rules", str(rules), "11m")
    assert code == 2 and str(rules) in one_line(err)


def test_the_readme_meld_example_shows_its_melds(capsys):
    line = next(l for l in _example_lines() if l.startswith('mjsim hand "11m" --melds'))
    argv = shlex.split(line.split("#")[0])[1:]
    code, out, _ = cli(capsys, *argv)
    assert code == 0
    hand = next(l for l in out.splitlines() if l.strip().startswith("hand"))
    for meld in ("[pung 111p]", "[pung 222p]", "[chow 345s]", "[chow 123z]"):
        assert meld in hand


# ------------------------------------------------------------------------------------
# SQL: one read-only statement over the dataset


@pytest.mark.parametrize("sql, message", [
    ("SELECT * FROM read_csv('/etc/passwd')", "/etc/passwd"),
    ("SELECT * FROM read_text('/etc/hostname')", "/etc/hostname"),
    ("SELECT * FROM '{outside}/x.csv'", "x.csv"),
    ("SELECT * FROM glob('/etc/*')", "/etc/"),
    ("COPY (SELECT 1) TO '{outside}/x.csv'", "not COPY"),
    ("COPY (SELECT 1) TO '{data}/hands/variant=wanzai/chunk-s1-000000000000-800.parquet'", "not COPY"),
    ("COPY hands TO '{data}/x.parquet'", "not COPY"),
    ("ATTACH '{outside}/x.db' AS x", "not ATTACH"),
    ("EXPORT DATABASE '{outside}/db'", "not EXPORT"),
    ("CREATE TABLE t AS SELECT 1", "not CREATE"),
    ("INSTALL httpfs", "not INSTALL ("),   # DuckDB parses INSTALL as a LOAD statement: named as typed
    ("/* a comment */ force  install httpfs", "not FORCE INSTALL ("),
    ("LOAD json", "not LOAD ("),
    ("UPDATE EXTENSIONS", "not UPDATE ("),  # a statement type duckdb's Python enum lacks
    ("USE memory", "not USE ("),            # DuckDB: SET
    ("IMPORT DATABASE '{outside}'", "not IMPORT ("),   # DuckDB: PRAGMA
    ("CHECKPOINT", "not CHECKPOINT ("),     # DuckDB: CALL
    ("SELECT * FROM (PIVOT hands ON dealer)", "PIVOT ... ON column IN (value, ...)"),   # DuckDB: MULTI
    ("SET enable_external_access = true", "not SET"),
    ("PRAGMA version", "not PRAGMA"),
    ("SELECT 1; COPY (SELECT 1) TO '{outside}/x.csv'", "exactly one SELECT statement, got 2"),
    ("SELECT 1; SELECT 2", "exactly one SELECT statement, got 2"),
    ("", "give one SELECT statement"),
])
def test_query_refuses_anything_but_one_read_only_select(dataset, tmp_path, capsys, sql, message):
    outside = tmp_path / "outside"
    outside.mkdir()
    sql = sql.format(outside=outside, data=dataset)
    before = snapshot(dataset)
    code, out, err = cli(capsys, "query", dataset, sql)
    assert code == 2
    assert message in one_line(err)
    with pytest.raises(ValueError, match=re.escape(message)):
        stats.query(dataset, sql)
    assert snapshot(dataset) == before
    assert list(outside.iterdir()) == []


def test_the_sandbox_cannot_be_undone_from_python(dataset, tmp_path):
    con = stats.connect(dataset)
    import duckdb

    with pytest.raises(duckdb.Error):
        con.execute("SET enable_external_access = true")
    with pytest.raises(duckdb.Error):
        con.execute(f"COPY (SELECT 1) TO '{tmp_path}/y.csv'")
    assert not (tmp_path / "y.csv").exists()
    # reading inside the dataset is what it is for
    assert con.execute("SELECT count(*) FROM hands").fetchone() == (1600,)


def test_query_limit(dataset, capsys):
    code, _, err = cli(capsys, "query", dataset, "SELECT hand_index FROM hands", "--limit", "-1")
    assert code == 2 and "--limit must be 0 or more, got -1" in one_line(err)
    code, out, err = cli(capsys, "query", dataset, "SELECT hand_index FROM hands", "--limit", "0")
    assert code == 0 and "1,600 more rows not shown" in err
    code, out, err = cli(capsys, "query", dataset, "SELECT hand_index FROM hands LIMIT 1", "--limit", "0")
    assert code == 0 and one_line(err) == "1 more row not shown (--limit, or --csv for all)"


def test_query_json_is_strict(dataset, capsys):
    """NaN and infinities are null, however nested (strict JSON parsers reject NaN)."""
    import json

    def refuse(constant):
        raise ValueError(f"{constant} in the JSON")

    sql = ("SELECT 'nan'::DOUBLE AS x, 'inf'::DOUBLE AS y, '-inf'::FLOAT AS z, "
           "[1.5, 'nan'::DOUBLE] AS l, {'a': 'inf'::DOUBLE} AS s")
    code, out, err = cli(capsys, "query", dataset, sql, "--json")
    assert code == 0, err
    assert json.loads(out, parse_constant=refuse) == [{"x": None, "y": None, "z": None, "l": [1.5, None],
                                                       "s": {"a": None}}]


def test_query_json_refuses_two_columns_of_one_name(dataset, capsys):
    code, out, err = cli(capsys, "query", dataset, "SELECT 1 AS a, 2 AS a", "--json")
    assert code == 2 and out == ""
    assert "two columns are named 'a'" in one_line(err) and "AS a_2" in err
    # CSV and the table keep both columns, by position
    code, out, _ = cli(capsys, "query", dataset, "SELECT 1 AS a, 2 AS a", "--csv")
    assert code == 0 and out == "a,a\n1,2\n"
    code, out, _ = cli(capsys, "query", dataset, "SELECT 1 AS a, 2 AS a")
    assert code == 0 and "│ 1 │ 2 │" in out


def _readme_queries() -> list[str]:
    return [l for l in _example_lines() if l.startswith("mjsim query ")]


def test_the_readme_query_examples_run(dataset, capsys, monkeypatch, tmp_path):
    queries = _readme_queries()
    assert len(queries) >= 3
    monkeypatch.chdir(tmp_path)
    for line in queries:
        argv = shlex.split(line.split(" > ")[0].split("  #")[0])[1:]
        argv[1] = str(dataset)            # the README's directory names are examples
        code, out, err = cli(capsys, *argv)
        assert code == 0, (line, err)
        assert out.strip(), line


# ------------------------------------------------------------------------------------
# Huge and odd values at the command line


@pytest.mark.parametrize("extra, message", [
    (["--hands", str(10**20)], "--hands (number of hands) must be at most"),
    (["--seed", str(2**64)], "--seed must be at most 18,446,744,073,709,551,615"),
    (["--seed", "-1"], "--seed must be 0 or more"),
    (["--session-hands", "1000000000"], "--session-hands must be at most 100,000"),
    (["--session-hands", "1e9"], "Invalid value for '--session-hands'"),
    (["--chunk", str(10**12)], "--chunk must be at most 1,000,000"),
    (["--workers", "-1"], "--workers must be 0 (all cores) or more"),
    (["--out", ""], "--out is empty"),
    (["--rules", "/dev/zero"], "/dev/zero: cannot read rules file: larger than 1 MiB"),
    (["--scheduler-timeout", "0", "--backend", "dask"], "--scheduler-timeout must be"),
    (["--hands", "abc"], "Invalid value for '--hands'"),
])
def test_odd_simulate_values_are_one_line_and_write_nothing(capsys, tmp_path, monkeypatch, extra, message):
    monkeypatch.setattr(runner, "SIMULATOR", FAKE)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    args = ["simulate", "--hands", "800", "--out", out, "--no-progress"]
    code, _, err = cli(capsys, *args, *extra)
    assert code == 2
    assert message in one_line(err)
    assert list(tmp_path.iterdir()) == []


def test_a_huge_run_plans_its_chunks_lazily(tmp_path, monkeypatch, capsys):
    """--hands 10**15 starts at once, in bounded memory (the plan is never listed)."""
    import test_runner  # noqa: F401  (simulate_interrupted: Ctrl-C at hand 1600)

    monkeypatch.setattr(runner, "SIMULATOR", "test_runner:simulate_interrupted")
    tracemalloc.start()
    t = time.monotonic()
    code, _, err = cli(capsys, "simulate", "--hands", str(10**15), "--chunk", "800", "--workers", "1",
                       "--out", tmp_path / "run", "--no-progress")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert code == 130
    assert "interrupted: 2 of 1,250,000,000,000 chunks" in one_line(err)
    assert time.monotonic() - t < 60 and peak < 100 << 20
    assert not isinstance(runner.plan_chunks(runner.make_spec(WANZAI, hands=10**15)), list)


def test_more_workers_than_cores_are_capped_and_the_real_count_reported(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runner, "SIMULATOR", FAKE)
    monkeypatch.setattr(runner, "default_workers", lambda: 2)
    code, _, err = cli(capsys, "simulate", "--hands", "3200", "--chunk", "800", "--workers", "1000",
                       "--out", tmp_path / "run", "--no-progress")
    assert code == 0
    assert "--workers 1000 capped at 2" in err
    assert "2 local workers" in err and "1000" not in err.split("capped")[1]


def test_replay_and_hand_reject_odd_values(capsys):
    for argv, message in [
        (("replay", "--hand", "-1"), "--hand must be 0 or more"),
        (("replay", "--hand", str(2**63)), "--hand must be at most"),
        (("hand", "1" * 10_000 + "m"), "no hand has that many"),
    ]:
        code, _, err = cli(capsys, *argv)
        assert code == 2 and message in one_line(err)


# ------------------------------------------------------------------------------------
# The Python API: tile kinds are integers


@pytest.mark.parametrize("bad", [1.9, 3.0, math.inf, -math.inf, math.nan, True, "1", None, np.float64(2.0), 34, -1])
def test_a_tile_kind_must_be_an_integer_0_to_33(bad):
    hand = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, bad]
    with pytest.raises(mjsim.TileError):
        mjsim.shanten(WANZAI, hand)
    if bad is not None:                 # win_tile=None: no winning tile named
        with pytest.raises(mjsim.TileError):
            mjsim.evaluate(WANZAI, [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9], win_tile=bad)


def test_numpy_integer_kinds_are_fine():
    hand = list(np.array([0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8], dtype=np.int16))
    assert mjsim.evaluate(WANZAI, hand).win


@pytest.mark.parametrize("wild", [True, False, 3.7, 2.0, math.inf, 27, -1, "1z", "x"])
def test_an_odd_wild_is_refused(wild):
    with pytest.raises(mjsim.TileError, match="wild"):
        mjsim.shanten(ANHUA, "1112345678999m", wild=wild)


def test_a_huge_hand_is_refused_before_it_is_read():
    with pytest.raises(mjsim.TileError, match="no hand has that many"):
        mjsim.shanten(WANZAI, range(10**9))


# ------------------------------------------------------------------------------------
# The native wrappers: a bad argument is a ValueError, never a crash


NO_MELDS = (0, False, False, 0, [0] * 34)
HAND13 = [1, 1, 1, 1, 1, 1, 1, 1, 1, 4] + [0] * 24


@pytest.mark.parametrize("call", [
    lambda w, a: _core.evaluate_hand(w, HAND13[:9] + [5] + [0] * 24, NO_MELDS, -1, True, -1, 0),
    lambda w, a: _core.evaluate_hand(w, [4, 4, 4, 2] + [0] * 30, NO_MELDS, 1000, True, -1, 0),
    lambda w, a: _core.evaluate_hand(w, [4, 4, 4, 2] + [0] * 30, NO_MELDS, 20, True, -1, 0),
    lambda w, a: _core.evaluate_hand(w, [4, 4, 4, 2] + [0] * 30, NO_MELDS, -1, True, -1, 99),
    lambda w, a: _core.evaluate_hand(w, [4, 4, 4, 2] + [0] * 30, NO_MELDS, -1, True, 40, 0),
    lambda w, a: _core.evaluate_hand(a, [4, 4, 4, 2] + [0] * 30, NO_MELDS, -1, True, 500, 0),
    lambda w, a: _core.evaluate_hand(w, [4] * 34, NO_MELDS, -1, True, -1, 0),
    lambda w, a: _core.shanten_hand(w, [1] * 10, NO_MELDS, -1),
    lambda w, a: _core.shanten_hand(w, HAND13, (9, False, False, 0, [0] * 34), -1),
    lambda w, a: _core.shanten_hand(w, HAND13, (-3, False, False, 0, [0] * 34), -1),
    lambda w, a: _core.shanten_hand(w, HAND13, (1, False, False, 99, [0] * 34), -1),
    lambda w, a: _core.shanten_hand(w, HAND13, (0, False, False, 0, [0] * 33), -1),
    lambda w, a: _core.shanten_neighbours_hand(w, HAND13, NO_MELDS, -1, 7),
    lambda w, a: _core.waits_hand(w, [0] * 34, NO_MELDS, -1),
    lambda w, a: _core.waits_hand(a, HAND13[:27] + [1] + [0] * 6, NO_MELDS, 3),   # an honor in Anhua
    lambda w, a: _core.find_bad_row(np.zeros((2, 34), np.uint8), 14, 14, 99, -1),
    lambda w, a: _core.find_bad_row(np.zeros((2, 34), np.uint8), 14, 14, 34, 500),
    lambda w, a: _core.evaluate_batch(w, np.full((3, 34), 9, np.uint8), True, -1),
    lambda w, a: _core.evaluate_batch(w, np.zeros((3, 34), np.uint8), True, -1),
    lambda w, a: _core.evaluate_batch(a, np.zeros((3, 34), np.uint8), True, 700),
    lambda w, a: _core.shanten_batch(w, np.full((3, 34), 255, np.uint8), -1),
    lambda w, a: _core.CoreConfig({"game": 0, "base": 1, "values": [(1, 1)] * 99}),
    lambda w, a: _core.CoreConfig({"game": 7, "base": 1}),
    lambda w, a: _core.CoreConfig({"game": 1, "base": 1, "discard_wilds": 7}),
    lambda w, a: _core.CoreConfig({"game": 1, "base": 1, "m_cat": [2] * 7}),
    lambda w, a: _core.CoreConfig({"game": 0, "chess": 1}),
    lambda w, a: _core.NativeGame(dict(native.native_config(WANZAI), birds=11), (1, 1, 1, 1)),
    lambda w, a: _core.NativeGame(dict(native.native_config(WANZAI), n_tiles=140), (1, 1, 1, 1)),
    lambda w, a: _core.NativeGame(dict(native.native_config(ANHUA), buzhang_tiles=7), (1, 1, 1, 1)),
    lambda w, a: _core.NativeGame(dict(native.native_config(ANHUA), game=0), (1, 1, 1, 1)),
    lambda w, a: _core.NativeGame(native.native_config(ANHUA), (1, 1, 1, 99)),
])
def test_core_wrappers_refuse_out_of_range_arguments(call):
    w, a = engine.core_config(WANZAI), engine.core_config(ANHUA)
    with pytest.raises((ValueError, OverflowError, TypeError)):
        call(w, a)


def test_core_wrappers_survive_random_arguments():
    """Random ints in every argument: an answer or an exception, never a crash."""
    rng = np.random.default_rng(11)
    cfgs = [engine.core_config(WANZAI), engine.core_config(ANHUA)]
    for _ in range(3000):
        cfg = cfgs[rng.integers(2)]
        counts = rng.integers(-1, 6, 34).tolist() if rng.random() < 0.5 else np.bincount(
            rng.integers(0, 34, rng.integers(0, 16)), minlength=34).tolist()
        melds = (int(rng.integers(-1, 6)), bool(rng.integers(2)), bool(rng.integers(2)),
                 int(rng.integers(-1, 17)), rng.integers(0, 3, 34).tolist())
        ind, tile, ctx = (int(rng.integers(-2, 40)) for _ in range(3))
        for f in (lambda: _core.evaluate_hand(cfg, counts, melds, tile, True, ind, ctx % 5),
                  lambda: _core.shanten_hand(cfg, counts, melds, ind),
                  lambda: _core.shanten_neighbours_hand(cfg, counts, melds, ind, int(rng.integers(-2, 3))),
                  lambda: _core.waits_hand(cfg, counts, melds, ind)):
            try:
                f()
            except (ValueError, OverflowError):
                pass


def test_a_symlink_inside_the_dataset_does_not_lead_outside(tmp_path, capsys):
    import fake_game

    data = fake_game.make_dataset(tmp_path / "data", hands=800, chunk=800)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("do not read")
    (data / "peek").symlink_to(secret)
    code, out, err = cli(capsys, "query", data, f"SELECT content FROM read_text('{data}/peek/key.txt')")
    assert code == 2 and "do not read" not in out and "Permission" in one_line(err)
