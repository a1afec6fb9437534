"""The dataset as other tools see it: pandas, pyarrow, DuckDB and polars read DIR/hands
(the variant from the hive path only), variant names that are not plain path segments
(a=b.toml, br[ack]et.toml, sweep labels), swept values as columns, the manifest's record of
what made the data. Datasets come from the FAKE game loop (tests/fake_game.py)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import fake_game
import mjsim
from mjsim.run import runner
from mjsim.analysis import stats
from mjsim.cli import main

WANZAI = mjsim.Rules.load("wanzai")
FAKE = "fake_game:simulate_chunk"


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(runner, "SIMULATOR", FAKE)


def _rules_file(tmp_path: Path, stem: str) -> Path:
    path = tmp_path / f"{stem}.toml"
    path.write_text('rules = "wanzai"\nbase = 2\n', encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def odd(tmp_path_factory):
    """One dataset holding three variants with awkward names."""
    base = tmp_path_factory.mktemp("odd")
    root = base / "data"
    names = []
    for stem in ("a=b", "br[ack]et", "萬載 50%"):
        rules = mjsim.Rules.load(_rules_file(base, stem))
        fake_game.make_dataset(root, hands=1600, chunk=800, rules=rules)
        names.append(rules.variant)
    return root, names


def test_variant_names_are_encoded_path_segments(odd):
    root, names = odd
    assert names[0].startswith("a=b-") and names[1].startswith("br[ack]et-")
    folders = sorted(p.name for p in (root / "hands").iterdir())
    assert all(re.fullmatch(r"variant=([^%\[\] =/*?]|%[0-9A-F]{2})+", f) for f in folders), folders
    assert sorted(runner.decode_variant(f.split("=", 1)[1]) for f in folders) == sorted(names)
    for name in names:
        assert runner.decode_variant(runner.encode_variant(name)) == name
    assert runner.encode_variant("萬載") == "萬載" and runner.encode_variant("birds=2") == "birds%3D2"


def _expected(root: Path) -> dict[str, int]:
    return {v: stats.variant_stats(root, v).hands for v in stats.variants(root)}


def test_four_readers_agree(odd):
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow.parquet as pq

    root, names = odd
    want = {n: 1600 for n in names}
    assert _expected(root) == want
    for table in ("hands", "wins"):
        df = pd.read_parquet(root / table)
        got_pd = df.groupby("variant", observed=True).size().to_dict()
        t = pq.read_table(root / table)
        got_pa = {}
        for v in t.column("variant").to_pylist():
            got_pa[v] = got_pa.get(v, 0) + 1
        got_duck = dict(duckdb.sql(
            f"SELECT variant, count(*) FROM read_parquet('{root / table}/*/*.parquet', hive_partitioning=true) "
            "GROUP BY 1").fetchall())
        got_pl = dict(pl.scan_parquet(root / table, hive_partitioning=True).group_by("variant").len().collect().iter_rows())
        assert got_pd == got_pa == got_duck == got_pl
        if table == "hands":
            assert got_pd == want
    assert "variant" not in pq.read_schema(next((root / "hands").glob("*/*.parquet"))).names


def test_reports_and_queries_work_on_odd_names(odd, capsys):
    root, names = odd
    assert main(["report", str(root), "--no-html", "--variant", names[1]]) == 0
    assert "br[ack]et" in capsys.readouterr().out           # shown as text, not read as markup
    cols, rows = stats.query(root, "SELECT variant, count(*) FROM hands GROUP BY 1 ORDER BY 1")
    assert sorted(r[0] for r in rows) == sorted(names)


def test_sweep_labels_are_variants_with_swept_columns(fake, tmp_path, capsys):
    import pandas as pd

    out = tmp_path / "sweep"
    code = main(["sweep", "--grid", "base=1,2", "--grid", "fire=[0,0,0,0],[0.5,0,0,0]", "--hands", "800",
                 "--chunk", "800", "--workers", "1", "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    labels = stats.variants(out)
    assert labels[0] == "base=1 fire=[0,0,0,0]" and len(labels) == 4
    df = pd.read_parquet(out / "hands")
    got = df.groupby("variant", observed=True)[["base"]].first()["base"].to_dict()
    assert got == {"base=1 fire=[0,0,0,0]": 1, "base=1 fire=[0.5,0,0,0]": 1,
                   "base=2 fire=[0,0,0,0]": 2, "base=2 fire=[0.5,0,0,0]": 2}
    fire = df.groupby("variant", observed=True)["fire"].first().to_dict()
    assert list(fire["base=2 fire=[0.5,0,0,0]"]) == [0.5, 0.0, 0.0, 0.0]
    assert list(fire["base=2 fire=[0,0,0,0]"]) == [0.0, 0.0, 0.0, 0.0]   # one type across the sweep
    # a label is accepted wherever a variant name is
    assert main(["report", str(out), "--no-html", "--variant", "base=2 fire=[0,0,0,0]"]) == 0
    assert "base=2" in capsys.readouterr().out


def test_sweep_of_a_list_key_by_one_value_or_by_entry(fake, tmp_path, capsys):
    """--grid reads a key as --set and --vary do: one value for a list sets every entry,
    key[i] one entry; the swept column holds what the variant's rules hold for it."""
    import pandas as pd

    out = tmp_path / "sweep"
    code = main(["sweep", "--grid", "values.qixiaodui=5,10", "--grid", "fire[0]=0,0.5", "--set", "fire[1]=0.25",
                 "--hands", "800", "--chunk", "800", "--workers", "1", "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    labels = stats.variants(out)
    assert labels[0] == "values.qixiaodui=5 fire[0]=0" and len(labels) == 4
    df = pd.read_parquet(out / "hands")
    first = df.groupby("variant", observed=True)[["values.qixiaodui", "fire[0]"]].first()
    assert list(first.loc["values.qixiaodui=10 fire[0]=0.5", "values.qixiaodui"]) == [10, 10]
    assert first.loc["values.qixiaodui=10 fire[0]=0.5", "fire[0]"] == 0.5
    assert list(first.loc["values.qixiaodui=5 fire[0]=0", "values.qixiaodui"]) == [5, 5]
    changes = {v["label"]: v["changes"] for v in json.loads((out / "manifest.json").read_text())["variants"].values()}
    assert changes["values.qixiaodui=5 fire[0]=0.5"]["fire"] == [0.5, 0.25, 0.0, 0.0]    # --set's entry kept
    assert changes["values.qixiaodui=10 fire[0]=0"] == {"fire": [0.0, 0.25, 0.0, 0.0], "values.qixiaodui": [10, 10]}
    # the same entry in --set and --grid is refused, as a whole key is
    code = main(["sweep", "--grid", "fire[0]=0,0.5", "--set", "fire[0]=0.25", "--hands", "800",
                 "--out", str(tmp_path / "x"), "--no-progress"])
    assert code == 2 and "--set fire[0] and --grid fire[0]: --grid gives it its values" in capsys.readouterr().err


def test_manifest_records_what_made_the_data(fake, tmp_path, monkeypatch):
    import numpy
    import platform

    out = tmp_path / "m"
    monkeypatch.setattr(sys, "argv", ["mjsim", "simulate", "--hands", "800"])
    runner.run(runner.make_spec(WANZAI, hands=800, chunk=800), out, workers=1, progress=False)
    m = json.loads((out / "manifest.json").read_text())
    [run] = m["runs"]
    assert run["command"] == ["mjsim", "simulate", "--hands", "800"]
    assert run["mjsim_version"] == mjsim.__version__ and run["python"] == platform.python_version()
    assert run["dependencies"]["numpy"] == numpy.__version__ and "pyarrow" in run["dependencies"]
    assert run["platform"] and run["variants"] == ["wanzai"]
    assert run["started"] <= run["finished"]
    runner.run(runner.make_spec(WANZAI, hands=800, chunk=800), out, workers=1, progress=False)
    assert len(json.loads((out / "manifest.json").read_text())["runs"]) == 2   # a resume is a run too


@pytest.mark.parametrize("manifest, problem", [
    ([], "a JSON list, not an object"),
    ({}, "no object 'variants'"),
    ({"variants": 5}, "no object 'variants'"),
    ({"variants": {"wanzai": 3}}, "variant 'wanzai' is not an object"),
    ({"variants": {}, "runs": 5}, "'runs' is not a list of objects"),
])
def test_a_manifest_of_the_wrong_shape_is_one_line(fake, tmp_path, capsys, manifest, problem):
    out = tmp_path / "m"
    runner.run(runner.make_spec(WANZAI, hands=800, chunk=800), out, workers=1, progress=False)
    (out / "manifest.json").write_text(json.dumps(manifest))
    want = f"error: {out / 'manifest.json'}: not an mjsim manifest ({problem})"
    for argv in (["report", out, "--no-html"], ["compare", out, out, "--html", tmp_path / "c.html"],
                 ["simulate", "--hands", "800", "--chunk", "800", "--workers", "1", "--out", out, "--no-progress"]):
        assert main([str(a) for a in argv]) == 2
        err = capsys.readouterr().err
        assert err.strip().splitlines() == [want] and "Traceback" not in err, argv
    assert not (tmp_path / "c.html").exists()
