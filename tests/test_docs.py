"""Issue 22: the documentation. README is a front page (at most 300 lines, the two set-up
commands kept); the rest is a MkDocs site under docs/ that builds with --strict (offline);
the example notebook answering the three questions runs."""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
NOTEBOOK = ROOT / "docs" / "examples" / "three-questions.ipynb"
# pages other issues write; the lead links them into the nav when they land
OTHER_ISSUES_PAGES = {"guide/balance.md", "players/search.md", "players/ev.md", "testing/mutants.md",
                      "performance/datasets.md"}


def test_readme_is_a_front_page_with_the_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    assert blocks[0].strip() == "pip install . && mjsim simulate"
    assert blocks[1].strip() == 'MJSIM_DEBUG=1 pip install -e ".[test]" && pytest'
    for question in ("How often?", "What changes?", "What should the rules be?"):
        assert question in text
    assert "mjsim balance" in text and "docs/guide/balance.md" in text


def test_readme_links_lead_to_pages_that_exist():
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    assert len(links) > 10
    for link in links:
        page = link.removeprefix("docs/")
        assert (ROOT / link).exists() or page in OTHER_ISSUES_PAGES, link


def test_the_docs_extra_pins_mkdocs_and_the_test_extra_has_what_the_tests_run():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(d.startswith("mkdocs==") for d in extras["docs"])
    assert any(d.startswith("mkdocs-material==") for d in extras["docs"])
    assert set(extras["docs"]) <= set(extras["test"])
    assert {"nbclient", "nbformat", "ipykernel"} <= {re.split(r"[<>=]", d)[0] for d in extras["test"]}


def test_mkdocs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs and mkdocs-material are not installed (pip install -e '.[docs]')")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                          "-d", str(tmp_path / "site")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "guide" / "cli" / "index.html").is_file()
    assert (tmp_path / "site" / "examples" / "three-questions.ipynb").is_file()


def test_the_example_notebook_answers_the_three_questions(tmp_path):
    if importlib.util.find_spec("nbclient") is None or importlib.util.find_spec("ipykernel") is None:
        pytest.skip("nbclient and ipykernel are not installed (pip install -e '.[test]')")
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:          # run what the cells say, not what was saved
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, errors

    def text(cell) -> str:
        return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.outputs)

    assert "pinghu" in text(code[1]) and "平胡" in text(code[1])                 # 1. how often
    assert "dealer − non-dealer" in text(code[3])                              # 2. what changes
    verdicts = text(code[4]).strip().splitlines()                              # 3. what should it be
    assert [v.split(":")[0] for v in verdicts] == ["birds=0", "birds=1", "birds=2"]
    assert all(re.search(r"-> (meets it|misses it|undecided)", v) for v in verdicts)
    assert any("mjsim balance" in c.source for c in nb.cells if c.cell_type == "markdown")


def test_every_python_name_the_docs_quote_exists():
    """A name such as `mjsim.analysis.stats.query` or `mjsim.evaluate(` in README or the guides
    imports (the dataset guide's file-metadata keys, `mjsim.seed` and the rest, are not
    Python names)."""
    import importlib

    pages = [README, *sorted((ROOT / "docs").rglob("*.md"))]
    missing = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        if page.name == "dataset.md":
            before, _, after = text.partition("Every file's metadata holds")
            text = before + after.split("```python", 1)[-1]
        for name in sorted(set(re.findall(r"`(mjsim(?:\.\w+)+)[`(]", text))):
            parts = name.split(".")
            for i in range(len(parts), 0, -1):
                try:
                    obj = importlib.import_module(".".join(parts[:i]))
                except ImportError:
                    continue
                try:
                    for part in parts[i:]:
                        obj = getattr(obj, part)
                except AttributeError:
                    missing.append(f"{page.relative_to(ROOT)}: {name}")
                break
    assert not missing, missing


def test_the_rules_specification_copy_is_the_shared_one():
    """docs/rules-spec.md is RULES.md as shipped with the repository; where the shared
    original sits beside the repository (the development machines), they must match."""
    copy = ROOT / "docs" / "rules-spec.md"
    assert copy.read_text(encoding="utf-8").startswith("# mjsim rules specification")
    shared = ROOT.parent / "shared" / "RULES.md"
    if not shared.is_file():
        pytest.skip("no shared RULES.md beside the repository (a clean clone)")
    assert copy.read_bytes() == shared.read_bytes(), "docs/rules-spec.md is stale: copy ../shared/RULES.md over it"


def test_every_repository_path_the_docs_name_exists():
    """A file path in README or the docs (src/..., tests/..., bench/..., tools/...) names a
    file that exists: moved files left stale paths behind before."""
    pattern = re.compile(r"\b(?:src|tests|bench|tools)/[A-Za-z0-9_/.-]*\.(?:h|pyx|pxd|pxi|py|toml|json|ipynb)\b")
    pages = [README, *sorted((ROOT / "docs").rglob("*.md"))]
    missing = sorted({(p.relative_to(ROOT).as_posix(), path) for p in pages
                      for path in pattern.findall(p.read_text(encoding="utf-8")) if not (ROOT / path).exists()})
    assert not missing, missing


def test_the_replay_payment_example_is_what_replay_prints(capsys):
    """python-api.md quotes a payment line of a replay command: the command prints it, whole."""
    import shlex

    from cli_helpers import cli

    text = (ROOT / "docs" / "guide" / "python-api.md").read_text(encoding="utf-8")
    command, quoted = re.search(r"```sh\n(mjsim replay [^\n]*fire=[^\n]*)\n```\s*\n"
                                r"prints, among its events,\s*\n\s*```text\n([^\n]*)\n```", text).groups()
    code, out, err = cli(capsys, *shlex.split(command)[1:])
    assert code == 0, err
    assert quoted in out.splitlines()


def test_the_dataset_guide_names_every_metadata_key_of_a_chunk_file(tmp_path):
    import fake_game
    import pyarrow.parquet as pq

    root = fake_game.make_dataset(tmp_path / "d", hands=32, chunk=16)
    text = (ROOT / "docs" / "guide" / "dataset.md").read_text(encoding="utf-8")
    paragraph = text.split("Every file's metadata holds", 1)[1].split("```python", 1)[0]
    named = set(re.findall(r"`(mjsim\.\w+|ARROW:schema)`", paragraph))
    for path in sorted(root.rglob("*.parquet")):
        assert {k.decode() for k in pq.read_metadata(path).metadata} == named, path
