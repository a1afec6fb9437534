"""Packaging: `mjsim --version`, the py.typed marker, Dask as an optional extra."""
from __future__ import annotations

import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest

import mjsim
from mjsim.run import runner
from mjsim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_version_option(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"mjsim {mjsim.__version__}"


def test_py_typed_ships_and_dask_is_an_extra():
    assert resources.files("mjsim").joinpath("py.typed").is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = project["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["mjsim"] and "report_template.html" in data["mjsim.analysis"]   # the HTML report's template
    assert "*.toml" in data["mjsim.rulesets"]                                                   # the shipped rule sets
    assert resources.files("mjsim.analysis").joinpath("report_template.html").is_file()
    assert resources.files("mjsim.rulesets").joinpath("wanzai.toml").is_file()
    deps = " ".join(project["project"]["dependencies"])
    assert "dask" not in deps and "distributed" not in deps
    assert any("dask[distributed]" in d for d in project["project"]["optional-dependencies"]["dask"])


def test_missing_dask_is_one_line_naming_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)     # import distributed -> ImportError
    monkeypatch.setattr(runner, "SIMULATOR", "fake_game:simulate_chunk")
    out = tmp_path / "d"
    with pytest.raises(ValueError, match=r'pip install "mjsim\[dask\]"'):
        runner.run(runner.make_spec(mjsim.Rules.load("wanzai"), hands=800, chunk=800), out,
                   backend="dask", progress=False)
    assert main(["simulate", "--hands", "800", "--backend", "dask", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'mjsim[dask]' in err[0]
    assert not list(out.glob("**/*.parquet"))
