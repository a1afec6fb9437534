"""Bad input that a CLI audit (2026-12-06) found answered badly: each case is one line
naming the problem and a non-zero exit, or (arena with one deal) a result that says
plainly what it cannot give."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from cli_helpers import cli, one_line
from mjsim.run import runner


def _bounded(argv: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    """A subprocess with 8 GiB of address space and a time limit: a regression here ate
    memory without end, and must fail this test rather than the machine."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limit, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_arena_refuses_more_deals_than_hand_indices():
    done = _bounded(["-m", "mjsim.cli", "arena", "random", "--baseline", "greedy", "--deals", str(10**20),
                     "--no-progress"], timeout=60)
    assert done.returncode == 2
    assert one_line(done.stderr) == (f"error: --deals must be at most {runner.MAX_HANDS // 5:,}, "
                                     f"got {10**20:,}")


def test_arena_plans_its_deals_lazily(tmp_path):
    """A huge --deals starts playing at once in small memory (it used to list every task
    first: 2 GB in 12 s without playing a hand). The run is stopped after its first chunk."""
    code = ("import sys, mjsim\n"
            "from mjsim.run import arena\n"
            "def stop(done, total):\n"
            "    if done:  # after the report at 0\n"
            "        print(done, total, flush=True); raise SystemExit(0)\n"
            "arena.run_arena(mjsim.Rules.load('wanzai'), 'random', 'greedy', deals=10**17, workers=1,\n"
            "                chunk=10, progress=stop)\n")
    t0 = time.perf_counter()
    done = _bounded(["-c", code])
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.split() == ["10", str(5 * 10**17)]
    assert time.perf_counter() - t0 < 100       # generous: it takes about a second


def test_arena_with_one_deal_says_it_has_no_interval(capsys):
    code, out, _ = cli(capsys, "arena", "random", "--baseline", "greedy", "--deals", 1, "--workers", 1,
                       "--no-progress")
    assert code == 0
    assert "nan" not in out
    assert "1 deal x 4 seats" in out
    assert "(no interval)" in out.splitlines()[1]
    assert "no interval: fewer than two deals" in out


def test_arena_baseline_takes_one_player(capsys):
    code, _, err = cli(capsys, "arena", "ev", "--baseline", "ev,greedy,ev,ev", "--deals", 2, "--no-progress")
    assert code == 2
    assert "names several players where one is expected" in one_line(err)


@pytest.mark.parametrize("command", [
    ("arena", "random", "--baseline", "greedy", "--deals", 2, "--no-progress"),
    ("balance", "--vary", "values.qixiaodui=1..60", "--target", "pattern money:qixiaodui=0.06", "--hands", 1600,
     "--players", "greedy", "--no-progress"),
])
def test_json_name_must_end_in_json(capsys, tmp_path, command):
    extra = ("--out", tmp_path / "b") if command[0] == "balance" else ()
    code, _, err = cli(capsys, *command, *extra, "--json", tmp_path / "x.csv")
    assert code == 2
    assert "--json writes JSON, so the file name must end with .json" in one_line(err)
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("argv", [
    ("arena", "random", "--baseline", "greedy", "--deals", 2, "--no-progress", "--workers", -1),
    ("simulate", "--hands", 16, "--no-progress", "--workers", -2),
])
def test_negative_workers_name_zero_as_valid(capsys, tmp_path, argv):
    code, _, err = cli(capsys, *argv, *(("--out", tmp_path / "d") if argv[0] == "simulate" else ()))
    assert code == 2
    assert one_line(err) == f"error: --workers must be 0 (all cores) or more, got {argv[-1]}"


@pytest.mark.parametrize("rules", ["", "  "])
def test_empty_rules_are_named(capsys, rules):
    code, _, err = cli(capsys, "hand", "11m", "--rules", rules)
    assert code == 2
    assert one_line(err) == "error: --rules is empty: give a shipped rule set (wanzai, anhua) or a TOML file"


def test_a_pipe_as_rules_file_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "mjsim.cli", "hand", "11m", "--rules", str(fifo)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert one_line(done.stderr) == f"error: {fifo}: cannot read rules file: it is a pipe or socket, not a file"


def test_report_and_query_on_a_file_say_it_is_a_file(capsys, tmp_path):
    path = tmp_path / "afile"
    path.write_text("x")
    for argv in (("report", path), ("report", path, "--no-html"), ("query", path, "SELECT 1")):
        code, _, err = cli(capsys, *argv)
        assert code == 2, argv
        assert one_line(err) == f"error: {path} is a file, not a dataset directory", argv


@pytest.mark.parametrize("where", ["arena", "simulate"])
def test_a_model_file_that_is_no_file_is_named(capsys, tmp_path, where):
    for model, problem in ((tmp_path, "is a directory, not a file"),
                           ("/dev/zero", "is not a regular file (a device or pipe)"),
                           (tmp_path / "gone.json", "not found")):
        player = f"ev:model={model}"
        argv = (("arena", player, "--deals", 2, "--no-progress") if where == "arena" else
                ("simulate", "--players", player, "--hands", 16, "--no-progress", "--out", tmp_path / "d"))
        code, _, err = cli(capsys, *argv)
        assert code == 2
        assert one_line(err) == f"error: player {player!r}: model file '{model}' {problem}"


@pytest.mark.parametrize("argv, line", [
    (("sweep", "--rules", "anhua", "--grid", "birds=0,1", "--set", "birds=2", "--hands", 16, "--no-progress"),
     "error: --set birds and --grid birds: --grid gives it its values, so --set's would be ignored; "
     "give the key in one of them"),
    (("balance", "--vary", "values.qixiaodui=1..60", "--set", "values.qixiaodui=[5,5]", "--target",
      "pattern money:qixiaodui=0.06", "--hands", 1600, "--no-progress"),
     "error: --set values.qixiaodui and --vary values.qixiaodui: --vary gives it its values, so --set's would "
     "be ignored; give the key in one of them"),
    (("hand", "11m", "--set", "values.pinghu=[2,1]", "--set", "values.pinghu=[3,1]"),
     "error: --set values.pinghu given twice ([2, 1] and [3, 1]): give it once"),
])
def test_a_value_given_twice_is_refused_not_overridden(capsys, tmp_path, argv, line):
    extra = ("--out", tmp_path / "d") if argv[0] in ("sweep", "balance") else ()
    code, _, err = cli(capsys, *argv, *extra)
    assert code == 2
    assert one_line(err) == line
    assert not (tmp_path / "d").exists()


def test_a_vary_of_one_position_keeps_set_for_the_rest(capsys, tmp_path):
    """--vary values.pinghu[1] changes the self-draw value only and --set values.pinghu is its
    base: not refused. (A bad --target, checked next, stops the run before any work.)"""
    code, _, err = cli(capsys, "balance", "--vary", "values.pinghu[1]=1..3", "--set", "values.pinghu=[3,1]",
                       "--target", "no such measure=1", "--out", tmp_path / "d", "--no-progress")
    assert code == 2
    assert "--vary" not in one_line(err) and "target" in one_line(err)


@pytest.mark.parametrize("argv, name", [
    (("report", ""), "DIR"),
    (("query", "", "SELECT 1"), "DIR"),
    (("compare", "", "elsewhere"), "DIR_A"),
    (("compare", "elsewhere", ""), "DIR_B"),
])
def test_an_empty_dataset_directory_is_refused_not_read_as_the_current_one(capsys, tmp_path, monkeypatch, argv, name):
    """An empty argument (an unset shell variable: `mjsim report "$OUT"`) used to become "."
    in typer's path conversion, so the command read, and report wrote into, the current
    directory."""
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(capsys, *argv)
    assert code == 2
    assert one_line(err).startswith(f"error: Invalid value for '{name}': an empty path names no directory; "
                                    "give the dataset directory")
    assert list(tmp_path.iterdir()) == []


def test_api_inputs_an_audit_found_read_loosely():
    """Python API input a 2026-12-06 audit found answered by a stray TypeError or read by
    truth: self_draw="no" was a self-draw; melds=None failed inside the parser;
    runner.run("wanzai", ...) failed on an attribute."""
    import numpy as np

    import mjsim
    from mjsim.run import runner

    w = mjsim.Rules.load("wanzai")
    hand = "123m456m789m123p55s"
    with pytest.raises(TypeError, match=r"self_draw must be True or False, got 'no'"):
        mjsim.evaluate(w, hand, self_draw="no")
    with pytest.raises(TypeError, match=r"self_draw must be True or False, got 1"):
        mjsim.evaluate(w, hand, self_draw=1)
    assert mjsim.evaluate(w, hand, self_draw=np.bool_(False)) == mjsim.evaluate(w, hand, self_draw=False)
    assert mjsim.evaluate(w, hand, melds=None) == mjsim.evaluate(w, hand)
    with pytest.raises(TypeError, match=r"runner.run takes RunSpecs .* got str 'wanzai'"):
        runner.run("wanzai", "never-made")
    with pytest.raises(TypeError, match=r"got str 'greedy'"):
        runner.run([runner.make_spec(w, hands=16), "greedy"], "never-made")
    assert not os.path.exists("never-made")
