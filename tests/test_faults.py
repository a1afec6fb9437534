"""Fault injection: interrupts, a killed process group, damaged and misnamed chunks, a second
seed without the manifest, concurrent runs, a full disk, another mjsim version, a lost or
fake Dask scheduler, and progress that moves within chunks.

Every case ends with one line on stderr and a non-zero exit, and a dataset that is either
unchanged or, after the rerun, row for row the dataset of an undisturbed run. The game is
the FAKE loop of tests/fake_game.py (the mechanics under test do not depend on mahjong).
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.dataset as ds
import pytest

import mjsim
import mjsim.version
from mjsim.dataset import storage
from mjsim.run import chunks, runner
from cli_helpers import cli, one_line

FAKE = "fake_game:simulate_chunk"
TESTS = Path(__file__).parent
WANZAI = mjsim.Rules.load("wanzai")
PART = "hands/variant=wanzai"


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(runner, "SIMULATOR", FAKE)


def spec(hands=3200, chunk=800, seed=7, **kw):
    return runner.make_spec(WANZAI, hands=hands, chunk=chunk, session_hands=16, seed=seed, **kw)


def rows(out: Path, name: str):
    t = ds.dataset(out / name, format="parquet", partitioning="hive").to_table()
    keys = [("variant", "ascending"), ("hand_index", "ascending")] + ([("winner", "ascending")] if name == "wins" else [])
    return t.sort_by(keys)


def same_rows(a: Path, b: Path) -> bool:
    return all(rows(a, n).equals(rows(b, n)) for n in ("hands", "wins"))


def snapshot(out: Path) -> dict[str, str]:
    """Every file of a directory with a hash of its content (the lock file aside)."""
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and p.name != runner.LOCK_NAME}




def simulate_args(out: Path, hands=3200, chunk=800, seed=7, *extra):
    return ["simulate", "--hands", hands, "--chunk", chunk, "--seed", seed, "--workers", 1,
            "--out", out, "--no-progress", *extra]


@pytest.fixture
def clean(fake, tmp_path) -> Path:
    """The undisturbed dataset every damaged one must end up equal to."""
    out = tmp_path / "clean"
    runner.run(spec(), out, workers=1, progress=False)
    return out


# ------------------------------------------------------------------------------------
# A killed process group (SIGKILL: no handler runs), then a rerun


CLI_WITH_SIMULATOR = (
    "import os, sys\n"
    "import mjsim.run.runner as r\n"
    "r.SIMULATOR = os.environ['MJSIM_TEST_SIMULATOR']\n"
    "from mjsim.cli import main\n"
    "if __name__ == '__main__':\n"
    "    sys.exit(main(sys.argv[1:]))\n"
)


def _script(tmp_path: Path) -> Path:
    script = tmp_path / "mjsim_cli.py"
    script.write_text(CLI_WITH_SIMULATOR)
    return script


def _env(simulator: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(TESTS)           # the fake game; mjsim is the installed package
    env["MJSIM_TEST_SIMULATOR"] = simulator
    return env


def _wait_for_chunks(out: Path, n: int, proc, timeout=60.0) -> None:
    t = time.monotonic()
    while len(list((out / PART).glob("*.parquet"))) < n:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() - t < timeout
        time.sleep(0.05)


def test_killed_process_group_loses_nothing_and_the_rerun_completes(clean, tmp_path):
    out = tmp_path / "run"
    args = [sys.executable, str(_script(tmp_path)), "simulate", "--hands", "3200", "--chunk", "800",
            "--seed", "7", "--workers", "2", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(args, env=_env("fake_game:simulate_chunk_slow"), cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    _wait_for_chunks(out, 1, proc)
    os.killpg(proc.pid, signal.SIGKILL)       # driver and pool workers at once
    proc.wait(timeout=30)
    kept = len(list((out / PART).glob("*.parquet")))
    assert 1 <= kept < 4
    rerun = subprocess.run(args, env=_env(FAKE), cwd=tmp_path, capture_output=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert not list(out.rglob("*.tmp"))        # the killed run's half-written files are gone
    assert same_rows(out, clean)


def _workers_of(pid: int) -> list[int]:
    """The pool workers (spawned processes) whose parent is `pid`, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmd = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and b"spawn_main" in cmd:
            found.append(int(stat.parent.name))
    return found


def _gone(pids: list[int], timeout=20.0) -> bool:
    t = time.monotonic()
    while time.monotonic() - t < timeout:
        if not any(Path(f"/proc/{p}").exists() and "Z" not in _state(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "X"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_driver_leaves_no_worker_computing(tmp_path, sig):
    """SIGTERM to the driver alone (kill, a batch system's limit) ends the run as Ctrl-C
    does: exit 130, the resume line, no half-written file, workers stopped.  After SIGKILL
    no handler runs, but the workers die with their parent all the same."""
    out = tmp_path / "run"
    args = [sys.executable, str(_script(tmp_path)), "simulate", "--hands", "32000", "--chunk", "800",
            "--seed", "7", "--workers", "2", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(args, env=_env("fake_game:simulate_chunk_slow"), cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _wait_for_chunks(out, 1, proc)
        workers = _workers_of(proc.pid)
        assert len(workers) == 2
        proc.send_signal(sig)
        proc.wait(timeout=60)
        assert _gone(workers), "a worker outlived its driver"
        if sig == signal.SIGTERM:
            assert proc.returncode == 130
            assert "interrupted" in one_line(proc.stderr.read().decode())
            assert not list(out.rglob("*.tmp"))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    rerun = subprocess.run(args, env=_env(FAKE), cwd=tmp_path, capture_output=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr.decode()


def test_ctrl_c_keeps_chunks_exit_130_and_one_line(fake, clean, tmp_path, capsys, monkeypatch):
    import test_runner  # noqa: F401  (its simulate_interrupted presses Ctrl-C at hand 1600)

    out = tmp_path / "run"
    monkeypatch.setattr(runner, "SIMULATOR", "test_runner:simulate_interrupted")
    code, _, err = cli(capsys, *simulate_args(out))
    assert code == 130
    assert "run the same command again to resume" in one_line(err)
    assert len(list((out / PART).glob("*.parquet"))) == 2
    monkeypatch.setattr(runner, "SIMULATOR", FAKE)
    assert cli(capsys, *simulate_args(out))[0] == 0
    assert same_rows(out, clean)


# ------------------------------------------------------------------------------------
# Damaged chunks: resume checks content, report/query name the file


def _damage(out: Path, how: str) -> Path:
    files = sorted((out / PART).glob("*.parquet"))
    victim = files[1]
    if how == "truncated":
        data = victim.read_bytes()
        victim.write_bytes(data[: len(data) // 2])
    elif how == "garbage":
        victim.write_bytes(os.urandom(5000))
    elif how == "empty":
        victim.write_bytes(b"")
    elif how == "misnamed":          # a valid chunk copied over another chunk's name
        shutil.copyfile(files[0], victim)
    elif how == "wins-truncated":
        victim = sorted((out / "wins/variant=wanzai").glob("*.parquet"))[2]
        victim.write_bytes(victim.read_bytes()[:100])
    elif how == "foreign":           # a Parquet file that is no mjsim chunk, under a chunk's name
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.table({"x": [1]}), victim)
    elif how == "hands-missing":     # cut off between the wins and the hands renames
        victim.unlink()
    elif how == "chunk-missing":     # every table's file of one chunk gone
        for table in ("hands", "wins", "payments"):
            (out / table / "variant=wanzai" / victim.name).unlink()
    return victim


@pytest.mark.parametrize("column, where", [("hand_index", 0.5), ("delta_0", 0.2), ("delta_0", 0.8),
                                           ("session", 0.5)])
def test_a_damaged_page_is_named_and_redone_once_deleted(clean, tmp_path, capsys, column, where):
    """Bytes flipped inside a page the report reads, framing and footer intact: the cheap
    checks pass, so the reader must catch it (page checksums) and name the file; deleting
    the file and resuming redoes its chunk."""
    import pyarrow.parquet as pq

    out = tmp_path / "run"
    shutil.copytree(clean, out)
    victim = sorted((out / PART).glob("*.parquet"))[1]
    rg = pq.ParquetFile(victim).metadata.row_group(0)
    meta = next(rg.column(i) for i in range(rg.num_columns) if rg.column(i).path_in_schema == column)
    data = bytearray(victim.read_bytes())
    at = meta.data_page_offset + int((meta.total_compressed_size - 8) * where)
    data[at:at + 8] = bytes(b ^ 0x5A for b in data[at:at + 8])
    victim.write_bytes(bytes(data))
    assert storage.chunk_file_problem(victim) is None          # the framing looks whole
    code, _, err = cli(capsys, "report", out, "--no-html")
    assert code == 2
    assert str(victim) in one_line(err) and "is damaged" in one_line(err) and "delete it" in one_line(err)
    victim.unlink()
    assert cli(capsys, *simulate_args(out))[0] == 0
    assert same_rows(out, clean)


def test_query_verify_names_a_damaged_page(clean, tmp_path, capsys):
    """DuckDB reads a page whose bytes were flipped without a word; --verify checks every
    page's checksum first and names the file."""
    import pyarrow.parquet as pq

    out = tmp_path / "run"
    shutil.copytree(clean, out)
    sql = "SELECT sum(delta_0) FROM hands"
    assert cli(capsys, "query", out, sql, "--verify", "--csv")[0] == 0
    victim = sorted((out / PART).glob("*.parquet"))[1]
    rg = pq.ParquetFile(victim).metadata.row_group(0)
    meta = next(rg.column(i) for i in range(rg.num_columns) if rg.column(i).path_in_schema == "session")
    data = bytearray(victim.read_bytes())
    at = meta.data_page_offset + int((meta.total_compressed_size - 8) * 0.5)
    data[at:at + 8] = bytes(b ^ 0x5A for b in data[at:at + 8])
    victim.write_bytes(bytes(data))
    code, _, err = cli(capsys, "query", out, sql, "--verify")
    assert code == 2
    assert str(victim) in one_line(err) and "is damaged" in one_line(err)


@pytest.mark.parametrize("how", ["hands-missing", "chunk-missing"])
def test_resume_redoes_a_missing_chunk(clean, tmp_path, capsys, how):
    out = tmp_path / "run"
    shutil.copytree(clean, out)
    _damage(out, how)
    code, _, err = cli(capsys, *simulate_args(out))
    assert code == 0, err
    assert "800 hands (2,400 already done)" in err
    assert same_rows(out, clean)


@pytest.mark.parametrize("how", ["truncated", "garbage", "empty", "misnamed", "wins-truncated", "foreign"])
def test_resume_moves_a_bad_chunk_aside_and_redoes_it(clean, tmp_path, capsys, how):
    out = tmp_path / "run"
    shutil.copytree(clean, out)
    victim = _damage(out, how)
    code, _, err = cli(capsys, *simulate_args(out))
    assert code == 0
    moved = [line for line in err.splitlines() if "moved to" in line]
    assert len(moved) == 1 and str(victim) in moved[0] and "quarantine" in moved[0]
    table = victim.parent.parent.name
    assert (out / "quarantine" / table / "variant=wanzai" / victim.name).exists()
    assert "800 hands (2,400 already done)" in err
    assert same_rows(out, clean)


def _report_and_query_refuse(out: Path, capsys, *names: str, says: str) -> None:
    """report and query exit 2 with one line naming every file in `names` and saying `says`."""
    before = snapshot(out)
    for argv in (["report", out, "--no-html"], ["query", out, "SELECT count(*) FROM hands"]):
        code, _, err = cli(capsys, *argv)
        assert code == 2
        line = one_line(err)
        assert says in line and all(name in line for name in names), line
    assert snapshot(out) == before


def test_quarantine_keeps_the_variant_folder_encoded(fake, tmp_path, capsys):
    rules = WANZAI.with_overrides(base=2)
    rules = type(rules).from_toml_text(rules.to_toml(), name="a=b [x]")
    run_spec = runner.make_spec(rules, hands=1600, chunk=800, session_hands=16, seed=7)
    out = tmp_path / "run"
    runner.run(run_spec, out, workers=1, progress=False)
    folder = runner.partition(out, "hands", run_spec.variant).name
    assert "%3D" in folder and "=b" not in folder
    victim = sorted((out / "hands" / folder).glob("*.parquet"))[1]
    victim.write_bytes(b"")
    runner.run(run_spec, out, workers=1, progress=False)
    assert (out / "quarantine" / "hands" / folder / victim.name).exists()
    assert victim.stat().st_size > 0


@pytest.mark.parametrize("how,says", [("truncated", "damaged"), ("garbage", "damaged"), ("empty", "damaged"),
                                      ("wins-truncated", "damaged"),
                                      ("misnamed", "not the chunk its name says"),
                                      ("foreign", "not an mjsim chunk"),
                                      ("hands-missing", "has no hands file beside it"),
                                      ("chunk-missing", "lacks hands 800..1599 (1 chunk) of the 3,200")])
def test_report_and_query_on_a_broken_file_give_one_line_naming_it(clean, tmp_path, capsys, how, says):
    out = tmp_path / "run"
    shutil.copytree(clean, out)
    victim = _damage(out, how)
    # a missing file is named by the chunk (its twin in another table) or by the hands it lacks
    names = {"hands-missing": (victim.name,), "chunk-missing": (str(out / PART),)}.get(how, (str(victim),))
    _report_and_query_refuse(out, capsys, *names, says=says)


def test_report_and_query_refuse_a_variant_without_its_wins_folder(fake, tmp_path, capsys):
    """Two variants, one of them without any wins file (its folder gone): named in one
    line, not a KeyError while the other variant keeps the wins table alive."""
    out = tmp_path / "run"
    other = runner.make_spec(WANZAI.with_overrides(base=2), hands=1600, chunk=800, session_hands=16, seed=7)
    runner.run([spec(hands=1600), other], out, workers=1, progress=False)
    shutil.rmtree(runner.partition(out, "wins", other.variant))
    _report_and_query_refuse(out, capsys, str(runner.partition(out, "hands", other.variant)),
                             says="has no wins file beside it")


def test_report_and_query_refuse_a_chunk_of_another_run_in_a_variant(clean, fake, tmp_path, capsys):
    other = tmp_path / "other"
    runner.run(spec(seed=8), other, workers=1, progress=False)
    out = tmp_path / "run"
    shutil.copytree(clean, out)
    stray = sorted((other / PART).glob("*.parquet"))[0]
    shutil.copy(stray, out / PART / stray.name)
    _report_and_query_refuse(out, capsys, stray.name, says="chunks of two different runs")


def test_report_and_query_refuse_overlapping_chunks(clean, fake, tmp_path, capsys):
    """Same run identity, another chunk size: each file is what its name says, but hands
    800..2399 would be counted twice."""
    other = tmp_path / "other"
    runner.run(spec(chunk=1600), other, workers=1, progress=False)
    out = tmp_path / "run"
    shutil.copytree(clean, out)
    wide = sorted((other / PART).glob("*.parquet"))[1]      # hands 1600..3199
    shutil.copy(wide, out / PART / wide.name)
    _report_and_query_refuse(out, capsys, wide.name, says="overlaps")


def test_a_second_seed_without_the_manifest_is_refused_not_mixed(clean, tmp_path, capsys):
    out = tmp_path / "run"
    shutil.copytree(clean, out)
    (out / "manifest.json").unlink()
    before = snapshot(out)
    code, _, err = cli(capsys, *simulate_args(out, seed=8))
    assert code == 2
    line = one_line(err)
    assert "belongs to another run" in line and "--seed 7 (now 8)" in line
    assert snapshot(out) == before
    # the same seed resumes (the chunks' own metadata says they are this run's)
    assert cli(capsys, *simulate_args(out))[0] == 0
    assert same_rows(out, clean)


def test_a_chunk_of_another_chunking_without_the_manifest_is_refused(clean, tmp_path, capsys):
    out = tmp_path / "run"
    shutil.copytree(clean, out)
    (out / "manifest.json").unlink()
    code, _, err = cli(capsys, *simulate_args(out, chunk=1600))
    assert code == 2 and "another plan" in one_line(err)


# ------------------------------------------------------------------------------------
# One writer per dataset


def test_a_second_run_into_a_locked_directory_is_refused(fake, tmp_path, capsys):
    import fcntl

    out = tmp_path / "run"
    out.mkdir()
    with open(out / runner.LOCK_NAME, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write("pid 4242\n")
        held.flush()
        code, _, err = cli(capsys, *simulate_args(out))
    assert code == 2
    line = one_line(err)
    assert "being written by another mjsim run (pid 4242)" in line
    assert snapshot(out) == {}


def _hold_lock(out: Path, holder: str):
    """This process holds DIR's lock through a descriptor of its own, as another run would
    (flock locks of two open files conflict within one process too)."""
    import fcntl

    held = open(out / runner.LOCK_NAME, "a+")
    fcntl.flock(held, fcntl.LOCK_EX)
    held.truncate(0)
    held.write(holder + "\n")
    held.flush()
    return held


def test_readers_refuse_a_dataset_a_run_is_writing(fake, tmp_path, capsys):
    """A run writes each chunk's payments, wins, then hands: report and query listing the
    files meanwhile failed on most tries (wins without hands), telling the user to resume
    a run that was still going. They now say at once that a run is writing it."""
    out = tmp_path / "run"
    assert cli(capsys, *simulate_args(out))[0] == 0
    expected = (f"error: {out} is being written by a running mjsim (pid 4242): read it when that run has "
                "finished, or stop it (a stopped run keeps its complete chunks)")
    with _hold_lock(out, "pid 4242"):
        for argv in (("report", out, "--no-html"), ("query", out, "SELECT count(*) FROM hands")):
            code, _, err = cli(capsys, *argv)
            assert code == 2 and one_line(err) == expected
    assert cli(capsys, "query", out, "SELECT count(*) FROM hands")[0] == 0     # released: read again
    # a lock this process holds (a balance step reading what it wrote) is no other writer
    with storage.directory_lock(out):
        assert storage.live_writer(out) is None
    with _hold_lock(out, f"pid {os.getpid() + 1}"):
        assert storage.live_writer(out) == f"pid {os.getpid() + 1}"


def _other_writer_refused(out: Path) -> bool:
    """Can another process take DIR's lock now? (It is refused while a run holds it.)"""
    code = "import sys\nfrom mjsim.dataset.storage import directory_lock\nwith directory_lock(sys.argv[1]):\n    pass"
    env = {**os.environ, "PYTHONPATH": str(Path(mjsim.__file__).parent.parent)}
    done = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0 or "being written by another mjsim run" in done.stderr, done.stderr
    return done.returncode != 0


@pytest.mark.parametrize("search", ["precision", "balance"])
def test_a_search_keeps_its_directory_between_steps(fake, tmp_path, search):
    """balance and --precision run one step after another into DIR. The lock was taken
    per step, so another run could take the directory between two steps and the search
    was refused halfway (an interrupt-and-rerun audit saw it). The first step's lock is now
    kept until the search ends, and released then."""
    from mjsim.run import balance, precision

    out = tmp_path / "run"
    refused = []

    def step(s):
        result = runner.run(s, out, workers=1, progress=False)
        refused.append(_other_writer_refused(out))
        return result

    if search == "precision":
        targets = precision.parse_targets(["win=0.0001"], "wanzai")
        precision.run_to_precision(spec(hands=3200, chunk=800), out, targets, max_hands=2400, run_step=step)
    else:
        varies = [balance.parse_vary("values.qixiaodui=1..60", WANZAI)]
        targets = balance.parse_targets(["pattern money:qixiaodui=0.06"], "wanzai")
        balance.balance(WANZAI, varies, targets, players="greedy", out=out, hands=3200, chunk=800,
                        run_step=step)
    assert len(refused) >= 2 and all(refused)
    assert not _other_writer_refused(out)


def test_concurrent_runs_one_writes_the_others_are_refused(clean, tmp_path):
    out = tmp_path / "run"
    script = _script(tmp_path)
    args = [sys.executable, str(script), *map(str, simulate_args(out, 3200, 16))]
    procs = [subprocess.Popen(args, env=_env("fake_game:simulate_chunk"), cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    results = [(p.wait(timeout=300), p.stderr.read().decode()) for p in procs]
    refused = [err for code, err in results if code == 2]
    assert all(code in (0, 2) for code, _ in results), results
    assert any(code == 0 for code, _ in results)
    for err in refused:
        assert "being written by another mjsim run" in one_line(err)
    # whoever got the lock first wrote it all, or a later one resumed it: the rows are right
    assert not list(out.rglob("*.tmp"))
    clean16 = tmp_path / "clean16"
    runner.run(runner.make_spec(WANZAI, hands=3200, chunk=16, session_hands=16, seed=7), clean16,
               workers=1, progress=False, simulator=FAKE)
    assert same_rows(out, clean16)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_files_get_the_mode_the_umask_allows(fake, tmp_path, umask, mode):
    """Not mkstemp's private 0600: a shared dataset or report must be readable as any file
    the user makes (the chunks, the manifest, an --html page, overwritten ones too)."""
    old = os.umask(umask)
    try:
        out = tmp_path / "run"
        runner.run(spec(hands=1600), out, workers=1, progress=False)
        page = storage.write_output(tmp_path / "r" / "page.html", b"x")
        storage.write_output(page, b"y")                 # an overwrite keeps the rule
    finally:
        os.umask(old)
    files = [*out.rglob("*.parquet"), out / "manifest.json", page]
    assert len(files) > 3 and {f.stat().st_mode & 0o777 for f in files} == {mode}


def test_an_interrupt_outside_a_run_says_so(capsys, monkeypatch):
    """Ctrl-C in a command without a chunk loop (here `hand`; the arena has a line of its
    own) ends with exit 130 and a line saying so; typer's own handling prints nothing."""
    from mjsim.cli import evaluate

    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate, "_hand_facts", interrupted)
    code, _, err = cli(capsys, "hand", "11m")
    assert code == 130
    from mjsim.cli.app import INTERRUPTED_OUTSIDE_A_RUN

    assert one_line(err) == INTERRUPTED_OUTSIDE_A_RUN


def test_an_interrupt_while_loading_says_so(capsys, monkeypatch):
    """Ctrl-C while the command's modules load (before typer runs) ends with one line and
    exit 130, not a traceback."""
    import importlib.abc

    import mjsim.cli

    class InterruptTheApp(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "mjsim.cli.app":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "mjsim.cli.app", raising=False)
    monkeypatch.setattr(sys, "meta_path", [InterruptTheApp(), *sys.meta_path])
    try:
        code = mjsim.cli.main(["--help"])
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped as a traceback")
    assert code == 130
    out, err = capsys.readouterr()
    assert out == "" and err == mjsim.cli.INTERRUPTED_WHILE_LOADING + "\n"


def test_sigterm_while_loading_says_so_too(tmp_path):
    """SIGTERM (kill, a batch system) while the modules load ended mjsim at once, exit 143
    with no line; it now ends as Ctrl-C does there, and the handler before is restored.
    In a subprocess: a regression must fail this test, not terminate pytest."""
    script = tmp_path / "term.py"
    script.write_text(
        "import importlib.abc, os, signal, sys\n"
        "import mjsim.cli\n"
        "class TerminateTheApp(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mjsim.cli.app':\n"
        "            os.kill(os.getpid(), signal.SIGTERM)\n"
        "        return None\n"
        "sys.meta_path.insert(0, TerminateTheApp())\n"
        "code = mjsim.cli.main(['--help'])\n"
        "assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL\n"
        "sys.exit(code)\n")
    env = {**os.environ, "PYTHONPATH": str(Path(mjsim.__file__).parent.parent)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stdout == "" and done.stderr == mjsim.cli.INTERRUPTED_WHILE_LOADING + "\n"


def test_an_interrupted_arena_says_it_keeps_nothing(capsys, monkeypatch):
    """The arena keeps no chunks on disk: its interrupt line says to run it again, not the
    generic line about simulate, sweep and balance resuming."""
    from mjsim.cli import players as players_cli
    from mjsim.run import arena

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena, "run_arena", interrupted)
    code, _, err = cli(capsys, "arena", "greedy", "--deals", 4, "--workers", 1, "--no-progress")
    assert code == 130 and one_line(err) == players_cli.ARENA_INTERRUPTED


def test_the_command_loads_its_modules_where_an_interrupt_is_caught():
    """What runs before mjsim.cli.main's guard (the package and its __init__) stays cheap,
    and the installed `mjsim` command enters through that guard."""
    from importlib.metadata import entry_points

    code = "import sys, mjsim.cli; print(sorted(m for m in ('numpy', 'pyarrow', 'typer', 'mjsim.play.engine') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
    assert [e.value for e in entry_points(group="console_scripts") if e.name == "mjsim"] == ["mjsim.cli:main"]


def test_after_an_interrupt_the_command_ignores_another_ctrl_c():
    """A second Ctrl-C while the worker pool shuts down once printed a traceback from
    Python's exit hooks: once the command (its own process: argv None) has said it was
    interrupted, further SIGINT/SIGTERM are ignored; an in-process call (argv given, as
    the tests make) leaves the handlers alone."""
    code = ("import signal, mjsim.cli, mjsim.cli.app as app; app.main = lambda argv=None: 130; "
            "before = signal.getsignal(signal.SIGINT); "
            "a = mjsim.cli.main(['simulate']); kept = signal.getsignal(signal.SIGINT) is before; "
            "b = mjsim.cli.main(); print(a, b, kept, signal.getsignal(signal.SIGINT) is signal.SIG_IGN, "
            "signal.getsignal(signal.SIGTERM) is signal.SIG_IGN)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.split() == ["130", "130", "True", "True", "True"]


def test_import_mjsim_still_reaches_every_module_it_did():
    """The lazy package gives what the eager one gave: its names and, after any attribute,
    the modules they live in (mjsim.play.engine after a bare `import mjsim`)."""
    code = ("import mjsim; print(mjsim.play.engine.PATTERNS[0], mjsim.Rules.__name__, "
            "mjsim.rulesets.rules.Rules is mjsim.Rules, sorted(set(mjsim.__all__) - set(dir(mjsim))))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.split() == ["pinghu", "Rules", "True", "[]"]
    # and dir() lists the public names, not the loader's helpers
    code = "import mjsim; print(sorted(n for n in dir(mjsim) if not n.startswith('__')) == sorted(mjsim.__all__))"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "True"


def test_a_dangling_link_as_out_is_named(capsys, tmp_path):
    link = tmp_path / "dl"
    link.symlink_to(tmp_path / "gone")
    code, _, err = cli(capsys, *simulate_args(link, hands=800))
    assert code == 2
    assert f"--out {link}: a symbolic link to {tmp_path / 'gone'}, which does not exist" in one_line(err)


def test_out_among_other_files_is_refused(capsys, tmp_path):
    """A --out holding files of its own and no dataset (`-o .` in a project) is refused
    before anything is written; an empty directory and a dataset are not."""
    own = tmp_path / "project"
    own.mkdir()
    (own / "notes.txt").write_text("mine")
    (own / "src").mkdir()
    code, _, err = cli(capsys, *simulate_args(own, hands=800))
    assert code == 2
    assert one_line(err) == (f"error: --out {own} holds other files ('notes.txt', 'src') and no mjsim dataset: "
                             f"a run would write its tables among them; choose a new or empty directory")
    assert sorted(p.name for p in own.iterdir()) == ["notes.txt", "src"]

    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli(capsys, *simulate_args(empty, hands=800))[0] == 0
    (empty / "notes.txt").write_text("beside the dataset")   # a dataset may hold a note
    code, _, err = cli(capsys, *simulate_args(empty, hands=800))
    assert code == 0 and "were already in" in err


def test_temporary_names_are_unique(tmp_path):
    target = tmp_path / "f.bin"
    errors = []

    def write(i: int):
        try:
            for _ in range(20):
                runner.write_atomic(target, bytes([i]) * 1000)
        except Exception as e:   # a shared temporary name fails here (FileNotFoundError)
            errors.append(e)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(target.read_bytes())) == 1 and not list(tmp_path.glob("*.tmp"))


# ------------------------------------------------------------------------------------
# A full disk mid-run


def test_a_full_disk_mid_run_is_one_line_and_keeps_completed_chunks(fake, clean, tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    real = storage.write_atomic
    calls = {"n": 0}

    def full_disk(path, data):
        calls["n"] += 1
        if calls["n"] > 1 + 2 * len(runner.TABLES):   # manifest, then two chunks (a file per table each) fit
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data)

    monkeypatch.setattr(storage, "write_atomic", full_disk)
    code, _, err = cli(capsys, *simulate_args(out))
    assert code == 1
    line = one_line(err)
    assert "No space left on device" in line and "2 of 4 chunks" in line and "run the same command again" in line
    assert not list(out.rglob("*.tmp"))
    monkeypatch.setattr(storage, "write_atomic", real)
    assert cli(capsys, *simulate_args(out))[0] == 0
    assert same_rows(out, clean)


@pytest.mark.parametrize("stop", [OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), KeyboardInterrupt()],
                         ids=["full-disk", "ctrl-c"])
def test_a_run_stopped_between_a_chunks_files_leaves_whole_chunks(fake, clean, tmp_path, capsys, monkeypatch, stop):
    """Stopped at the third chunk's hands file, after its payments and wins were renamed: the
    run takes those back, so report and query read the stopped dataset at once (an
    incomplete one) instead of naming a wins file without its hands."""
    out = tmp_path / "run"
    real = storage.write_atomic
    calls = {"n": 0}

    def fails_at_the_third_hands_file(path, data):
        if Path(path).parent.parent.name == "hands" and Path(path).suffix == ".parquet":
            calls["n"] += 1
            if calls["n"] == 3:
                raise stop
        real(path, data)

    monkeypatch.setattr(storage, "write_atomic", fails_at_the_third_hands_file)
    code, _, err = cli(capsys, *simulate_args(out))
    assert code in (1, 130)
    assert "2 of 4 chunks" in one_line(err)
    names = {t: sorted(p.name for p in (out / t / "variant=wanzai").glob("*.parquet")) for t in runner.TABLES}
    assert names["payments"] == names["wins"] == names["hands"] and len(names["hands"]) == 2
    monkeypatch.setattr(storage, "write_atomic", real)
    code, _, err = cli(capsys, "query", out, "SELECT count(*) FROM hands", "--csv")
    assert code == 0, err
    assert cli(capsys, *simulate_args(out))[0] == 0
    assert same_rows(out, clean)


# ------------------------------------------------------------------------------------
# Another mjsim version


def test_resume_across_versions_is_refused_unless_allowed(fake, clean, tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    monkeypatch.setattr(mjsim.version, "__version__", "0.0.9")
    runner.run(spec(hands=1600), out, workers=1, progress=False)   # half of the run, old version
    monkeypatch.undo()
    monkeypatch.setattr(runner, "SIMULATOR", FAKE)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["variants"]["wanzai"]["hands"] = 3200                   # as if it had been stopped
    (out / "manifest.json").write_text(json.dumps(manifest))
    before = snapshot(out)
    code, _, err = cli(capsys, *simulate_args(out))
    assert code == 2
    line = one_line(err)
    assert "mjsim 0.0.9" in line and f"mjsim {mjsim.__version__}" in line and "--allow-version-mix" in line
    assert snapshot(out) == before
    (out / "manifest.json").unlink()          # the chunks' own metadata tells as well
    code, _, err = cli(capsys, *simulate_args(out))
    assert code == 2 and "mjsim 0.0.9" in one_line(err)
    code, _, err = cli(capsys, *simulate_args(out), "--allow-version-mix")
    assert code == 0
    assert same_rows(out, clean)


# ------------------------------------------------------------------------------------
# Dask: a scheduler that is not Dask, and one that dies mid-run


def _server(reply: bytes | None) -> tuple[socket.socket, str]:
    """A TCP server that answers every connection with `reply` (None: says nothing)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()

    def serve():
        conns = []
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            conns.append(conn)
            if reply is not None:
                with __import__("contextlib").suppress(OSError):
                    conn.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    return srv, f"tcp://127.0.0.1:{srv.getsockname()[1]}"


@pytest.mark.parametrize("reply, message", [
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "answers, but not as a Dask scheduler does"),
    (b"\xff" * 64, "answers, but not as a Dask scheduler does"),
    (None, "did not answer like a Dask scheduler within 1 s"),
])
def test_a_scheduler_that_is_not_dask_is_a_bounded_wait_and_one_line(fake, tmp_path, capsys, reply, message):
    srv, address = _server(reply)
    out = tmp_path / "run"
    try:
        t = time.monotonic()
        code, _, err = cli(capsys, *simulate_args(out), "--backend", "dask", "--scheduler", address,
                           "--scheduler-timeout", "1")
        assert time.monotonic() - t < 10
    finally:
        srv.close()
    assert code == 2
    assert message in one_line(err)
    assert not out.exists()


def _start(args, env, ready: str, timeout=60):
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    t = time.monotonic()
    lines = []
    while time.monotonic() - t < timeout:
        line = proc.stderr.readline()
        lines.append(line)
        if ready in line:
            threading.Thread(target=proc.stderr.read, daemon=True).start()   # keep draining
            return proc
        if proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError("".join(lines))


def test_a_scheduler_killed_mid_run_is_one_line_and_completed_chunks_stay(clean, tmp_path):
    pytest.importorskip("distributed")
    port = _free_port()
    env = _env(FAKE)
    scheduler = _start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                        "--port", str(port), "--no-dashboard"], env, "Scheduler at")
    worker = _start([sys.executable, "-m", "distributed.cli.dask_worker", f"tcp://127.0.0.1:{port}",
                     "--nworkers", "1", "--nthreads", "1", "--no-dashboard"], env, "Starting established connection")
    out = tmp_path / "run"
    args = [sys.executable, str(_script(tmp_path)), *map(str, simulate_args(out)), "--backend", "dask",
            "--scheduler", f"tcp://127.0.0.1:{port}"]
    try:
        proc = subprocess.Popen(args, env=_env("fake_game:simulate_chunk_slow"), cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_for_chunks(out, 1, proc)
        os.killpg(scheduler.pid, signal.SIGKILL)
        proc.wait(timeout=120)
        err = proc.stderr.read().decode()
    finally:
        for p in (scheduler, worker):
            with __import__("contextlib").suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
    assert proc.returncode == 1, err
    line = one_line(err)
    assert "lost the Dask scheduler" in line and "chunks" in line and "run the same command again" in line
    kept = len(list((out / PART).glob("*.parquet")))
    assert kept >= 1
    assert not list(out.rglob("*.tmp"))
    # a local rerun finishes the dataset
    rerun = subprocess.run([sys.executable, str(_script(tmp_path)), *map(str, simulate_args(out))],
                           env=_env(FAKE), cwd=tmp_path, capture_output=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert same_rows(out, clean)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------------------------
# Progress within chunks, and the same rows whatever the slices


def test_progress_moves_within_a_chunk_in_plain_lines(fake, tmp_path, monkeypatch):
    from rich.console import Console

    monkeypatch.setattr(chunks, "PROGRESS_SLICE", 160)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False, width=200)
    result = runner.run(spec(hands=1600, chunk=1600), tmp_path / "run", workers=1, progress=True,
                        console=console, simulator="fake_game:simulate_chunk_slow", progress_every=0.25)
    lines = [line for line in buf.getvalue().splitlines() if line.startswith("wanzai: ")]
    done = [int(line.split()[1].split("/")[0].replace(",", "")) for line in lines]
    assert len(lines) >= 5 and done == sorted(done) and done[-1] == 1600
    assert any(0 < d < 1600 for d in done)           # moved before the only chunk was stored
    # the last line's rate is the final line's (hands done / run time), within rounding
    rate = int(lines[-1].split(", ")[1].split()[0].replace(",", ""))
    assert abs(rate - result.hands_done / result.seconds) <= 0.05 * rate + 1


def test_progress_moves_within_a_chunk_on_dask_too(fake, tmp_path, monkeypatch):
    """Dask workers report each slice as an event the client adds up (an in-process
    cluster here, so the smaller slice reaches its workers)."""
    distributed = pytest.importorskip("distributed")
    from rich.console import Console

    monkeypatch.setattr(chunks, "PROGRESS_SLICE", 160)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False, width=200)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        result = runner.run(spec(hands=1600, chunk=1600), tmp_path / "run", backend="dask",
                            scheduler=cluster.scheduler_address, progress=True, console=console,
                            simulator="fake_game:simulate_chunk_slow", progress_every=0.25)
    lines = [line for line in buf.getvalue().splitlines() if line.startswith("wanzai: ")]
    done = [int(line.split()[1].split("/")[0].replace(",", "")) for line in lines]
    assert result.chunks_done == 1 and done == sorted(done) and done[-1] == 1600
    assert any(0 < d < 1600 for d in done)           # moved before the only chunk was stored


def test_slices_do_not_change_the_rows(fake, tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    runner.run(spec(hands=3200, chunk=3200), a, workers=1, progress=False)
    monkeypatch.setattr(chunks, "PROGRESS_SLICE", 48)     # slices of 3 sessions
    runner.run(spec(hands=3200, chunk=3200), b, workers=1, progress=True, console=None,
               progress_every=100)
    assert same_rows(a, b)
    data_a, data_b = snapshot(a), snapshot(b)
    del data_a["manifest.json"], data_b["manifest.json"]
    assert data_a == data_b                    # every data file byte for byte
    # the manifests differ only in the log of runs (times, command line)
    man_a, man_b = (json.loads((d / "manifest.json").read_text()) for d in (a, b))
    assert man_a.pop("runs") and man_b.pop("runs")
    assert man_a == man_b


def test_the_terminal_bar_moves_within_a_chunk_and_ends_at_the_final_rate(fake, tmp_path, monkeypatch):
    import re

    from rich.console import Console

    monkeypatch.setattr(chunks, "PROGRESS_SLICE", 160)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=160)
    result = runner.run(spec(hands=1600, chunk=1600), tmp_path / "run", workers=1, progress=True,
                        console=console, simulator="fake_game:simulate_chunk_slow")
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", buf.getvalue()).replace("\r", "\n")
    frames = re.findall(r"(\d+)/1600 hands ([\d,]+) hands/s", text)
    done = [int(d) for d, _ in frames]
    assert any(0 < d < 1600 for d in done) and done[-1] == 1600
    final = int(frames[-1][1].replace(",", ""))
    assert abs(final - result.hands_done / result.seconds) <= 0.05 * final + 1
