"""The package's layers and the absence of import cycles (pyproject.toml's import-linter
contracts: cli -> run -> analysis -> play | dataset -> players | rulesets -> core ->
vocab | tiles; no cycle between the modules of any package, lazy imports included)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _lint(config: Path):
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    return subprocess.run([exe, "--config", str(config), "--no-cache"], capture_output=True, text=True)


def test_the_layer_contracts_are_kept():
    proc = _lint(PYPROJECT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_a_layer_breach_would_be_caught(tmp_path):
    """The same contracts with the layers reversed must fail: the check is live."""
    text = PYPROJECT.read_text(encoding="utf-8")
    start = text.index("layers = [")
    end = text.index("]", start)
    layers = [line for line in text[start:end].splitlines()[1:] if line.strip()]
    flipped = text[:start] + "layers = [\n" + "\n".join(reversed(layers)) + "\n" + text[end:]
    config = tmp_path / "pyproject.toml"
    config.write_text(flipped, encoding="utf-8")
    proc = _lint(config)
    assert proc.returncode != 0 and "BROKEN" in proc.stdout, proc.stdout[-2000:]


def test_the_old_module_paths_are_the_new_modules():
    """mjsim.game, mjsim.runner, ... (before the packages) still import, as the same objects."""
    import importlib

    from mjsim import _aliases

    for old, new in _aliases.OLD_PATHS.items():
        assert importlib.import_module(old) is importlib.import_module(new), old
    assert sys.modules["mjsim.game"] is sys.modules["mjsim.play.game"]
