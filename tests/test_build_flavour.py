"""Issue 22: README's test command must not leave `mjsim` on the slow build. An in-place or
editable build with MJSIM_DEBUG=1 puts the bounds-checked modules in mjsim/_debug_build
beside the release ones; `import mjsim` loads them only with MJSIM_BUILD=debug (which
tests/conftest.py sets), and a debug build nobody asked for says so on stderr."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import mjsim
from mjsim import _core
from mjsim.cli import app as cli

ROOT = Path(__file__).resolve().parents[1]
PROBE = "import mjsim._core as c, mjsim.core._loop as g; print(c.DEBUG_BUILD, c.__file__, g.__file__)"


def _probe(build: str | None) -> tuple[bool, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MJSIM_BUILD"}
    if build is not None:
        env["MJSIM_BUILD"] = build
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True)
    debug, core, game = out.stdout.split()
    return debug == "True", core, game


def test_the_suite_runs_against_the_build_it_asked_for():
    """The default test run is the bounds-checked build (MJSIM_BUILD=release opts out)."""
    assert _core.DEBUG_BUILD is (os.environ["MJSIM_BUILD"] == "debug")


def test_without_mjsim_build_the_release_modules_load():
    if not mjsim._buildpath._has_build(Path(mjsim.__file__).parent):
        pytest.skip("no release modules beside the package (a debug-only build): nothing to prefer")
    debug, core, game = _probe(None)
    assert not debug
    assert "_debug_build" not in core and "_debug_build" not in game


def test_mjsim_build_debug_loads_every_module_from_the_debug_build():
    if not mjsim._buildpath._has_build(mjsim.DEBUG_BUILD_DIR):
        pytest.skip("no debug modules in mjsim/_debug_build (a release or wheel install)")
    debug, core, game = _probe("debug")
    assert debug
    assert Path(core).parent == mjsim.DEBUG_BUILD_DIR and Path(game).parent == mjsim.DEBUG_BUILD_DIR / "core"


def test_debug_notice_only_for_a_debug_build_nobody_asked_for(monkeypatch):
    monkeypatch.setattr(_core, "DEBUG_BUILD", True)
    monkeypatch.delenv("MJSIM_BUILD", raising=False)
    assert cli.debug_notice() == cli.DEBUG_NOTICE
    monkeypatch.setenv("MJSIM_BUILD", "debug")          # asked for: the tests, a developer
    assert cli.debug_notice() is None
    monkeypatch.setattr(_core, "DEBUG_BUILD", False)
    monkeypatch.delenv("MJSIM_BUILD", raising=False)
    assert cli.debug_notice() is None


def test_every_command_on_an_unasked_debug_build_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(_core, "DEBUG_BUILD", True)
    monkeypatch.delenv("MJSIM_BUILD", raising=False)
    for argv in (["--version"], ["hand", "147m258p9s1234567z"], ["hand", "11x"]):
        cli.main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert err[0] == cli.DEBUG_NOTICE
        assert len(err) == (2 if argv == ["hand", "11x"] else 1)   # the notice, then the one error line


def test_the_debug_notice_in_a_real_process():
    """A subprocess on the debug build with MJSIM_BUILD unset at the time main() runs."""
    if not mjsim._buildpath._has_build(mjsim.DEBUG_BUILD_DIR):
        pytest.skip("no debug modules in mjsim/_debug_build")
    code = ("import os, sys, mjsim.cli as c; os.environ.pop('MJSIM_BUILD'); "
            "sys.exit(c.main(['--version']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, MJSIM_BUILD="debug"))
    assert out.returncode == 0 and out.stdout.strip() == f"mjsim {mjsim.__version__}"
    assert out.stderr.strip().splitlines() == [cli.DEBUG_NOTICE]


def test_setup_builds_both_flavours_in_place_and_ci_runs_the_readme_command():
    """setup.py: MJSIM_DEBUG=1 in place or editable builds release + debug; the CI script
    runs README's test command and treats 'no tests' (exit 5) as a failure."""
    setup = (ROOT / "setup.py").read_text()
    assert 'DEBUG_DIR = Path("src/mjsim/_debug_build")' in setup
    assert "_extensions(False) + _extensions(True)" in setup
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'MJSIM_DEBUG=1 pip install -e ".[test]" && pytest' in readme
    assert 'MJSIM_DEBUG=1 python -m pip install -e ".[test]"' in ci and '"$rc" -eq 5' in ci
    assert "src/mjsim/_debug_build/" in (ROOT / ".gitignore").read_text()
