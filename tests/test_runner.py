"""The runner's mechanics: chunking, workers, Dask, resume, interruption, Parquet layout.

Most tests use the FAKE game loop of tests/fake_game.py (deterministic pseudo-data with the
contract's columns). The `real_game` tests at the end run the native game loop once
`mjsim.game.simulate_chunk` exists, and skip until then.
"""
from __future__ import annotations

import glob
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import mjsim
from mjsim.run import runner
from mjsim.cli import main

FAKE = "fake_game:simulate_chunk"
TESTS = Path(__file__).parent
WANZAI = mjsim.Rules.load("wanzai")


@pytest.fixture
def fake(monkeypatch):
    """Every run in the test uses the fake game loop."""
    monkeypatch.setattr(runner, "SIMULATOR", FAKE)


def spec(hands=3200, chunk=800, session_hands=16, seed=7, rules=WANZAI, **kw):
    return runner.make_spec(rules, hands=hands, chunk=chunk, session_hands=session_hands, seed=seed, **kw)


def table(out: Path, name: str) -> pa.Table:
    """One dataset table, in a canonical row order (files arrive in any order)."""
    t = ds.dataset(out / name, format="parquet", partitioning="hive").to_table()
    keys = [("variant", "ascending"), ("hand_index", "ascending")]
    if name == "wins":
        keys.append(("winner", "ascending"))
    return t.sort_by(keys)


def files(out: Path, pattern: str = "**/*") -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.glob(pattern) if p.is_file())


# ------------------------------------------------------------------------------------
# Same rows whatever the workers, chunks and backend


def test_dataset_does_not_depend_on_workers_or_chunk(fake, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    ra = runner.run(spec(hands=6400, chunk=800), a, workers=1, progress=False)
    rb = runner.run(spec(hands=6400, chunk=2400), b, workers=2, progress=False)
    assert (ra.chunks_done, rb.chunks_done) == (8, 3)   # 2400, 2400, 1600
    assert len(files(a, "hands/*/*.parquet")) == 8 and len(files(b, "hands/*/*.parquet")) == 3
    for name in ("hands", "wins"):
        ta, tb = table(a, name), table(b, name)
        assert ta.num_rows > 1000
        assert ta.equals(tb), f"{name} differs between 1 worker/chunk 800 and 2 workers/chunk 2400"
    assert table(a, "hands")["hand_index"].to_pylist() == list(range(6400))


def test_dask_local_cluster_gives_the_identical_dataset(fake, tmp_path):
    distributed = pytest.importorskip("distributed")
    local, viadask = tmp_path / "local", tmp_path / "dask"
    runner.run(spec(hands=3200, chunk=800), local, workers=1, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        result = runner.run(spec(hands=3200, chunk=1600), viadask, backend="dask",
                            scheduler=cluster.scheduler_address, progress=False)
    assert result.backend == "dask" and result.chunks_done == 2
    for name in ("hands", "wins"):
        assert table(local, name).equals(table(viadask, name))


# ------------------------------------------------------------------------------------
# Layout, schema, metadata


HANDS_COLUMNS = [
    "rules", "seed", "hand_index", "session", "hand_in_session", "dealer", "dice",
    "wild_indicator", "end", "draws", "wall_left", "n_winners", "kongs_exposed", "kongs_added",
    "kongs_concealed", *[f"delta_{s}" for s in range(4)], *[f"fire_{s}" for s in range(4)],
    *[f"piao_{s}" for s in range(4)], *[f"claims_{s}" for s in range(4)],
]
WINS_COLUMNS = ["seed", "hand_index", "winner", "discarder", "win_kind", "pattern",
                "properties", "category", "points", "birds_hit", "received", "turn"]


def test_layout_schema_and_metadata(fake, tmp_path):
    out = tmp_path / "run"
    s = spec(hands=1600, chunk=800)
    runner.run(s, out, workers=1, progress=False)
    assert files(out) == [
        ".mjsim.lock",
        "hands/variant=wanzai/chunk-s7-000000000000-800.parquet",
        "hands/variant=wanzai/chunk-s7-000000000800-800.parquet",
        "manifest.json",
        "payments/variant=wanzai/chunk-s7-000000000000-800.parquet",
        "payments/variant=wanzai/chunk-s7-000000000800-800.parquet",
        "wins/variant=wanzai/chunk-s7-000000000000-800.parquet",
        "wins/variant=wanzai/chunk-s7-000000000800-800.parquet",
    ]
    f = out / "hands/variant=wanzai/chunk-s7-000000000800-800.parquet"
    schema = pq.read_schema(f)
    assert schema.names == HANDS_COLUMNS
    assert pq.read_schema(out / "wins/variant=wanzai/chunk-s7-000000000800-800.parquet").names == WINS_COLUMNS
    meta = {k.decode(): v.decode() for k, v in schema.metadata.items()}
    assert mjsim.Rules.from_toml_text(meta["mjsim.rules"]) == WANZAI
    assert meta["mjsim.seed"] == "7"
    assert meta["mjsim.players"] == "ev,ev,ev,ev"      # the default population (runner.DEFAULT_PLAYERS)
    assert meta["mjsim.version"] == mjsim.__version__
    assert meta["mjsim.chunk"] == "800,800"
    assert meta["mjsim.schema_version"] == str(runner.SCHEMA_VERSION)

    hands = pq.read_table(f)
    assert hands["hand_index"].to_pylist() == list(range(800, 1600))
    assert set(hands["end"].to_pylist()) == {"win", "draw"}
    assert hands["wild_indicator"].null_count == 800           # Wanzai: no wilds
    assert set(hands["rules"].to_pylist()) == {"wanzai"}     # the variant is in the path only
    assert str(hands.schema.field("dealer").type) == "int8"
    assert str(hands.schema.field("delta_0").type) == "int64"
    wins = pq.read_table(out / "wins/variant=wanzai/chunk-s7-000000000800-800.parquet")
    self_draw = pc_equal(wins["win_kind"], "self_draw")
    assert wins.filter(self_draw)["discarder"].null_count == wins.filter(self_draw).num_rows > 0
    on_discard = pc_equal(wins["win_kind"], "discard")
    assert wins.filter(on_discard)["discarder"].null_count == 0 < wins.filter(on_discard).num_rows
    assert wins["category"].null_count == wins.num_rows        # Wanzai: no wild category
    props_type = wins.schema.field("properties").type
    assert pa.types.is_list(props_type) and props_type.value_type == pa.string()
    props = wins["properties"].to_pylist()
    assert all(set(p) <= set(mjsim.PROPERTIES) for p in props) and any(len(p) == 2 for p in props)
    assert set(wins["pattern"].to_pylist()) <= set(mjsim.PATTERNS)

    manifest = json.loads((out / "manifest.json").read_text())["variants"]["wanzai"]
    assert manifest["complete"] is True
    assert (manifest["seed"], manifest["chunk"], manifest["hands"], manifest["session_hands"]) == (7, 800, 1600, 16)


def pc_equal(arr, value):
    import pyarrow.compute as pc

    return pc.equal(arr, value)


def test_anhua_columns_and_nulls(fake, tmp_path):
    out = tmp_path / "anhua"
    runner.run(spec(hands=800, chunk=800, rules=mjsim.Rules.load("anhua")), out, workers=1, progress=False)
    hands, wins = table(out, "hands"), table(out, "wins")
    assert hands["wild_indicator"].null_count == 0
    assert set(hands["wild_indicator"].to_pylist()) <= {f"{d}{s}" for d in range(1, 10) for s in "mps"}
    assert set(wins["category"].to_pylist()) <= {"dan_wang", "san_wang", "si_wang", "liu_wang", "qi_wang"}
    assert set(wins["pattern"].to_pylist()) == {"yingzhuang", "pinghu"}
    assert wins["birds_hit"].to_numpy().max() == 1


def test_plan_chunks_keep_sessions_whole():
    s = spec(hands=4800, chunk=1600, session_hands=32)
    assert list(runner.plan_chunks(s)) == [(0, 1600), (1600, 1600), (3200, 1600)]
    s = spec(hands=4000, chunk=1600, session_hands=16)
    assert list(runner.plan_chunks(s)) == [(0, 1600), (1600, 1600), (3200, 800)]
    # the default chunk is a whole number of sessions and never more than the run
    assert runner.make_spec(WANZAI, hands=96_000, session_hands=48).chunk == 19_968
    assert runner.make_spec(WANZAI, hands=64, session_hands=16).chunk == 64


def test_search_players_get_chunks_of_seconds_not_hours():
    """A search seat plays ~9 hands a second: a 20,000-hand chunk would be half an hour that
    Ctrl-C waits for (one worker) and an interrupted run loses. Its chunks hold about
    SLOW_CHUNK_SECONDS of work, in whole sessions, and fewer hands the more search seats."""
    from mjsim.run import spec as runspec

    assert runner.make_spec(WANZAI, players="ev", hands=100_000).chunk == 20_000
    assert runner.make_spec(WANZAI, players="search:samples=0,ev,ev,ev", hands=100_000).chunk == 20_000
    chunks = {}
    for players in ("search,ev,ev,ev", "search,search,search,search", "search:samples=64,ev,ev,ev",
                    "search:rollout=ev,ev,ev,ev"):
        s = runner.make_spec(WANZAI, players=players, hands=100_000)
        cost = runspec.table_seconds_per_hand(WANZAI, s.players)
        assert s.chunk % 16 == 0 and 16 <= s.chunk <= runspec.SLOW_CHUNK_SECONDS / cost
        assert s.chunk > runspec.SLOW_CHUNK_SECONDS / cost - 16
        chunks[players] = s.chunk
    assert chunks["search,search,search,search"] < chunks["search,ev,ev,ev"] < chunks["search:samples=64,ev,ev,ev"]
    assert chunks["search:rollout=ev,ev,ev,ev"] < chunks["search,ev,ev,ev"]
    # at least one session, at most the run
    assert runner.make_spec(WANZAI, players="search", hands=2_000, session_hands=1_000).chunk == 1_000
    assert runner.make_spec(WANZAI, players="search", hands=32).chunk == 32


def test_search_chunks_report_progress_every_few_seconds(monkeypatch):
    """Within a chunk, a worker reports (and, with one worker, Ctrl-C is seen) after each
    slice: 2,000 hands of fast players, a session or a few of search."""
    from mjsim.run import chunks
    from mjsim.run import spec as runspec

    calls = []

    def simulate(rules, players, seed, start, count, session_hands, payments=True):
        calls.append(count)
        one = {"end": np.zeros(count)}
        return one, {"end": np.zeros(0)}, {"end": np.zeros(0)}

    counter = chunks._Counter()
    monkeypatch.setattr(chunks, "_PROGRESS_COUNTER", counter)
    s = runner.make_spec(WANZAI, players="search,ev,ev,ev", hands=1_600, chunk=800)
    chunks._simulate_in_slices(simulate, s, 0, 800)
    step = runspec.progress_slice(s.rules, s.players, chunks.PROGRESS_SLICE, s.session_hands)
    assert step % 16 == 0 and step * runspec.table_seconds_per_hand(WANZAI, s.players) <= max(
        runspec.SLOW_SLICE_SECONDS, 16 * runspec.table_seconds_per_hand(WANZAI, s.players))
    assert sum(calls) == 800 and len(calls) >= 800 // step and max(calls) == step and counter.value == 800
    calls.clear()
    chunks._simulate_in_slices(simulate, runner.make_spec(WANZAI, players="ev", hands=8_000, chunk=8_000), 0, 8_000)
    assert calls == [2_000] * 4


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _progress(monkeypatch, work, hands_skipped=0):
    """A run's progress state over `work` with a clock the test moves."""
    from mjsim.run import chunks

    clock = _Clock()
    monkeypatch.setattr(runner.time, "perf_counter", clock)
    result = runner.RunResult("out", [v for v, _, _ in work])
    result.hands_total = hands_skipped + sum(n for _, n, _ in work)
    result.hands_skipped = hands_skipped
    counter = chunks._Counter()
    return runner._Progress(result, counter, work), counter, clock


def test_time_left_weighs_a_slow_population_by_its_cost(monkeypatch):
    """A fast population played first must not promise the slow one at the fast one's rate:
    1,000 fast hands (0.1 ms each) in 0.1 s leave 1,000 slow ones (0.1 s each), about 100 s
    of work at the rate seen, where counting hands alone would say 0.1 s."""
    state, counter, clock = _progress(monkeypatch, [("ev", 1_000, 1e-4), ("search", 1_000, 0.1)])
    assert state.eta() is None                      # nothing done yet
    clock.now += 0.1
    counter.value = 1_000
    state.advance(1_000, "ev")
    assert state.eta() == pytest.approx(100.0)
    assert "ETA 100 s" in state.line("2 variants")
    # hands played but not stored yet count at the cost of the variant being played (search)
    clock.now += 10.0
    counter.value = 1_100
    eta = (1_000 * 0.1 - 100 * 0.1) / ((0.1 + 100 * 0.1) / 10.1)
    assert state.eta() == pytest.approx(eta)
    # stored chunks of the slow population count at its cost too
    state.advance(100, "search")
    assert state.eta() == pytest.approx(eta)


def test_time_left_of_one_cost_is_hands_left_at_the_rate(monkeypatch):
    """Tables of one cost (every single-population run): the time left is the hands left at
    the hands' rate, as the bar always said; resumed hands are neither done nor left."""
    state, counter, clock = _progress(monkeypatch, [("a", 3_000, 2e-4), ("b", 1_000, 2e-4)], hands_skipped=500)
    clock.now += 4.0
    counter.value = 800
    state.advance(600, "a")
    assert state.hands() == 1_300 and state.rate() == pytest.approx(200.0)
    assert state.eta() == pytest.approx((4_500 - 1_300) / 200.0)
    assert runner.progress_line("x", 1_300, 4_500, 200.0) == state.line("x")


def test_eta_cost_of_a_table_counts_every_seat():
    from mjsim.run import spec as runspec

    anhua = mjsim.Rules.load("anhua")
    for rules in (WANZAI, anhua):
        cost = {p: runspec.eta_seconds_per_hand(rules, (p,) * 4) for p in ("random", "greedy", "ev", "search")}
        assert 0 < cost["random"] < cost["greedy"] < cost["ev"] < cost["search"]
        mixed = runspec.eta_seconds_per_hand(rules, ("search", "ev", "ev", "ev"))
        assert mixed == pytest.approx(cost["search"] / 4 + 3 * cost["ev"] / 4)
        # the slow seats alone still size the chunks: fast players count 0 there
        assert runspec.table_seconds_per_hand(rules, ("ev",) * 4) == 0
    assert runspec.eta_seconds_per_hand(WANZAI, ("ev:fold=1",) * 4) == runspec.eta_seconds_per_hand(WANZAI, ("ev",) * 4)


def test_progress_callback_gets_hands_done_total_and_time_left(fake, tmp_path):
    """runner.run(progress=callable): RunProgress snapshots while the run plays and one at
    the end, with every hand done and none left; a resumed run counts its stored hands."""
    seen = []
    s = spec(hands=3200, chunk=800)
    runner.run(s, tmp_path / "run", workers=1, progress=seen.append, progress_every=0.1,
               simulator="fake_game:simulate_chunk_slow")
    assert len(seen) >= 3 and all(isinstance(p, runner.RunProgress) for p in seen)
    assert [p.done for p in seen] == sorted(p.done for p in seen) and seen[-1].done == seen[-1].total == 3200
    assert seen[-1].eta == 0 and seen[-1].rate > 0
    assert any(0 < p.done < 3200 and p.eta > 0 for p in seen)
    seen.clear()
    runner.run(s, tmp_path / "run", workers=1, progress=seen.append)     # all of it on disk already
    assert seen[-1].done == seen[-1].total == 3200 and seen[-1].eta is None


@pytest.mark.parametrize("progress, every, message", [
    ("yes", 10.0, "progress must be True, False or a callable"),
    (True, 0, "progress_every must be 0..3600 seconds"),
    (True, "1", "progress_every must be 0..3600 seconds"),
])
def test_bad_progress_arguments_are_refused_before_anything_is_written(fake, tmp_path, progress, every, message):
    with pytest.raises((TypeError, ValueError), match=message):
        runner.run(spec(), tmp_path / "run", workers=1, progress=progress, progress_every=every)
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------------------------
# Resume and interruption


def test_rerun_skips_completed_chunks_and_redoes_missing_ones(fake, tmp_path):
    out = tmp_path / "run"
    s = spec(hands=3200, chunk=800)
    runner.run(s, out, workers=1, progress=False)
    reference = {name: table(out, name) for name in ("hands", "wins")}
    kept = sorted((out / "hands/variant=wanzai").glob("*.parquet"))
    stamps = {p: p.stat().st_mtime_ns for p in kept}
    kept[2].unlink()                      # as if the run had stopped before this chunk
    time.sleep(0.01)

    result = runner.run(s, out, workers=1, progress=False)
    assert (result.chunks_done, result.chunks_skipped, result.hands_done) == (1, 3, 800)
    assert kept[2].exists()
    for p in kept[:2] + kept[3:]:
        assert p.stat().st_mtime_ns == stamps[p], f"{p.name} was rewritten"
    for name in ("hands", "wins"):
        assert table(out, name).equals(reference[name])

    again = runner.run(s, out, workers=1, progress=False)
    assert (again.chunks_done, again.chunks_skipped) == (0, 4)


def simulate_interrupted(rules, players, seed, start, count, session_hands, payments=False):
    """The fake, but Ctrl-C is pressed when the run reaches hand 1600."""
    if start >= 1600:
        raise KeyboardInterrupt
    import fake_game

    return fake_game.simulate_chunk(rules, players, seed, start, count, session_hands, payments)


def test_interruption_keeps_completed_chunks_and_resumes(fake, tmp_path):
    out = tmp_path / "run"
    s = spec(hands=3200, chunk=800)
    with pytest.raises(runner.RunInterrupted) as info:
        runner.run(s, out, workers=1, progress=False, simulator="test_runner:simulate_interrupted")
    assert (info.value.result.chunks_done, info.value.result.chunks_total) == (2, 4)
    assert "run the same command again to resume" in runner.interrupted_message(info.value.result)
    assert len(files(out, "hands/*/*.parquet")) == 2 and len(files(out, "wins/*/*.parquet")) == 2
    assert not files(out, "**/*.tmp")
    assert json.loads((out / "manifest.json").read_text())["variants"]["wanzai"]["complete"] is False

    result = runner.run(s, out, workers=1, progress=False)
    assert (result.chunks_done, result.chunks_skipped) == (2, 2)
    whole = tmp_path / "whole"
    runner.run(s, whole, workers=1, progress=False)
    for name in ("hands", "wins"):
        assert table(out, name).equals(table(whole, name))


def test_stale_tmp_files_are_removed(fake, tmp_path):
    out = tmp_path / "run"
    s = spec(hands=800, chunk=800)
    stale = out / "hands/variant=wanzai/chunk-s7-000000000000-800.parquet.tmp"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"half a file")
    runner.run(s, out, workers=1, progress=False)
    assert not files(out, "**/*.tmp")


def _cli_env(simulator: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(TESTS)      # the fake game; mjsim itself is the installed package
    env["MJSIM_TEST_SIMULATOR"] = simulator
    return env


CLI_WITH_SIMULATOR = (
    "import os, sys\n"
    "import mjsim.run.runner as r\n"
    "r.SIMULATOR = os.environ['MJSIM_TEST_SIMULATOR']\n"
    "from mjsim.cli import main\n"
    "if __name__ == '__main__':\n"
    "    sys.exit(main(sys.argv[1:]))\n"
)


def test_ctrl_c_on_a_process_pool_keeps_chunks_and_says_how_to_resume(tmp_path):
    """A real SIGINT to the whole process group, as a terminal's Ctrl-C sends it."""
    script = tmp_path / "mjsim_cli.py"
    script.write_text(CLI_WITH_SIMULATOR)
    out = tmp_path / "run"
    args = [sys.executable, str(script), "simulate", "--hands", "16000", "--chunk", "800",
            "--workers", "2", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(args, env=_cli_env("fake_game:simulate_chunk_slow"), cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            # a shell may start us with SIGINT ignored; a terminal would not
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while len(glob.glob(str(out / "hands/*/*.parquet"))) < 3:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err
    done = len(files(out, "hands/*/*.parquet"))
    assert 3 <= done < 20 and len(files(out, "wins/*/*.parquet")) >= done
    assert not files(out, "**/*.tmp")

    rerun = subprocess.run(args, env=_cli_env(FAKE), cwd=tmp_path, capture_output=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert f"({done * 800:,} already done)" in rerun.stderr.decode()
    assert len(files(out, "hands/*/*.parquet")) == 20
    assert table(out, "hands")["hand_index"].to_pylist() == list(range(16000))


def test_a_stopped_pool_has_closed_its_wakeup_pipe_before_python_exits():
    """After Ctrl-C the pool is stopped, and its manager thread must have closed its wake-up
    pipe before Python's exit hook for process pools runs: before 3.12 that hook checks the
    pipe and writes to it without a lock, and a close in between printed a traceback
    ("Bad file descriptor") under "interrupted: ..." now and then (CI, 2026-12-07). Reads
    the executor's private attributes: this is a workaround for CPython's own race."""
    import concurrent.futures as cf
    import multiprocessing

    from mjsim.run.backends import local

    pool = cf.ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"))
    futures = [pool.submit(time.sleep, 30) for _ in range(4)]
    manager, wakeup = pool._executor_manager_thread, pool._executor_manager_thread_wakeup
    t = time.monotonic()
    while not any(f.running() for f in futures) and time.monotonic() < t + 30:
        time.sleep(0.05)
    local._stop_pool(pool)
    assert not manager.is_alive() and wakeup._closed


# ------------------------------------------------------------------------------------
# Bad input: one clear error, nothing written


@pytest.mark.parametrize("kw, message", [
    (dict(hands=0), "--hands (number of hands) must be 1 or more, got 0"),
    (dict(hands=-5), "must be 1 or more, got -5"),
    (dict(hands=1000, session_hands=16), "not a whole number of 16-hand sessions"),
    (dict(hands=3200, chunk=1000, session_hands=16), "--chunk 1000 must be a multiple of --session-hands 16"),
    (dict(seed=-1), "--seed must be 0 or more"),
    (dict(seed=2**64), "--seed must be at most 18,446,744,073,709,551,615"),
    (dict(hands=10**20), "--hands (number of hands) must be at most 4,611,686,018,427,387,904"),
    (dict(session_hands=10**9), "--session-hands must be at most 100,000"),
    (dict(chunk=2 * 10**6), "--chunk must be at most 1,000,000"),
    (dict(players="greedy,greedy"), "exactly 4"),
])
def test_bad_spec_values(kw, message):
    args = dict(hands=3200, chunk=800, session_hands=16, seed=1) | kw
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        runner.make_spec(WANZAI, **args)


def test_unknown_player_is_refused_before_any_file(fake, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(ValueError, match="unknown player 'grandmaster' for seat 1"):
        runner.run(spec(players="greedy,grandmaster,greedy,greedy"), out, workers=1, progress=False)
    assert not out.exists()


def test_unwritable_out_is_refused_before_any_work(fake, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    for out in (blocker, blocker / "sub" / "dir"):
        with pytest.raises(OSError, match="is not a directory"):
            runner.run(spec(), out, workers=1, progress=False)
    assert blocker.read_text() == "not a directory"


def test_unreachable_scheduler_is_one_error_and_no_dataset(fake, tmp_path):
    out = tmp_path / "run"
    t = time.monotonic()
    with pytest.raises(OSError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        runner.run(spec(), out, backend="dask", scheduler="tcp://127.0.0.1:9", progress=False)
    assert time.monotonic() - t < 30
    assert not out.exists()


def test_rerun_with_other_settings_is_refused(fake, tmp_path):
    out = tmp_path / "run"
    runner.run(spec(hands=1600, chunk=800), out, workers=1, progress=False)
    before = files(out)
    with pytest.raises(ValueError, match=r"--chunk 800 \(now 1600\).*rerun with those settings to resume"):
        runner.run(spec(hands=1600, chunk=1600), out, workers=1, progress=False)
    with pytest.raises(ValueError, match=r"--seed 7 \(now 8\)"):
        runner.run(spec(hands=1600, chunk=800, seed=8), out, workers=1, progress=False)
    assert files(out) == before
    # other rules are another variant: a new partition beside the first
    runner.run(spec(hands=1600, chunk=800, rules=WANZAI.with_overrides(base=2)), out, workers=1, progress=False)
    assert len(list((out / "hands").glob("variant=*"))) == 2


def test_cli_bad_input_exits_non_zero_with_one_line(fake, tmp_path, capsys):
    out = tmp_path / "run"
    cases = [
        (["--hands", "0"], "--hands (number of hands) must be 1 or more"),
        (["--hands", "-3"], "must be 1 or more, got -3"),
        (["--rules", "wanzia"], "did you mean 'wanzai'?"),
        (["--set", "birdz=2"], "birdz"),
        (["--set", "fire_min_hands=0"], "fire_min_hands"),
        (["--players", "greedy,nobody,greedy,greedy"], "unknown player 'nobody'"),
        (["--backend", "spark"], "--backend must be 'local' or 'dask'"),
        (["--out", str(tmp_path / "f" / "x")], "is not a directory"),
    ]
    (tmp_path / "f").write_text("")
    for extra, message in cases:
        code = main(["simulate", "--out", str(out), "--hands", "800", "--no-progress", *extra])
        err = capsys.readouterr().err
        assert code == 2, (extra, err)
        assert message in err, (extra, err)
        assert len(err.strip().splitlines()) <= 2, err    # one message (rich may wrap it)
        assert "Traceback" not in err
        assert not out.exists()


def test_cli_simulate_prints_summary_and_query_reads_the_dataset(fake, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    out = tmp_path / "run"
    assert main(["simulate", "--hands", "1600", "--chunk", "800", "--seed", "3", "--workers", "1",
                 "--out", str(out), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "mjsim summary: wanzai" in captured.out and "pinghu" in captured.out
    assert "1,600 hands" in captured.err
    assert main(["query", str(out), 'SELECT count(*) AS n, count_if("end" = \'win\') AS w FROM hands']) == 0
    assert "1600" in capsys.readouterr().out
    assert main(["query", str(out), "SELECT nonsense FROM hands"]) == 2
    assert "query failed" in capsys.readouterr().err


# ------------------------------------------------------------------------------------
# The real game loop (skipped until mjsim.game.simulate_chunk exists)


def _real_game_available() -> bool:
    try:
        import mjsim.play.game as game
    except Exception:
        return False
    return hasattr(game, "simulate_chunk")


real_game = pytest.mark.skipif(not _real_game_available(), reason="mjsim.game.simulate_chunk not there yet")


@real_game
def test_real_game_dataset_does_not_depend_on_workers_or_chunk(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    runner.run(spec(hands=960, chunk=160), a, workers=1, progress=False)
    runner.run(spec(hands=960, chunk=480), b, workers=2, progress=False)
    for name in ("hands", "wins"):
        assert table(a, name).equals(table(b, name))


@real_game
def test_real_game_rows_are_consistent(tmp_path):
    out = tmp_path / "run"
    runner.run(spec(hands=640, chunk=320, session_hands=16), out, workers=1, progress=False)
    hands, wins = table(out, "hands").to_pylist(), table(out, "wins").to_pylist()
    per_hand: dict[int, int] = {}
    for w in wins:
        per_hand[w["hand_index"]] = per_hand.get(w["hand_index"], 0) + 1
    for h in hands:
        assert sum(h[f"delta_{s}"] for s in range(4)) == 0
        assert h["n_winners"] == per_hand.get(h["hand_index"], 0)
        assert (h["end"] == "win") == (h["n_winners"] > 0)
        assert (h["session"], h["hand_in_session"]) == divmod(h["hand_index"], 16)
    first = [h["dealer"] for h in hands if h["hand_in_session"] == 0]
    assert set(first) == {0, 1, 2, 3}    # RULES §1 first_dealer = "random": drawn per session


@real_game
@pytest.mark.parametrize("seat", [0, 3])
def test_real_game_first_dealer_fixed_deals_every_independent_hand(tmp_path, seat):
    out = tmp_path / "run"
    rules = WANZAI.with_overrides(first_dealer=seat)
    runner.run(spec(hands=320, chunk=160, session_hands=1, rules=rules), out, workers=1, progress=False)
    assert set(table(out, "hands")["dealer"].to_pylist()) == {seat}


@real_game
def test_real_game_independent_hands_draw_their_dealer(tmp_path):
    """first_dealer = "random" (the default): each one-hand session draws its dealer, so
    every seat deals about a quarter of the hands (binomial test, scipy)."""
    from scipy.stats import binomtest

    out = tmp_path / "run"
    runner.run(spec(hands=1600, chunk=800, session_hands=1), out, workers=1, progress=False)
    dealers = table(out, "hands")["dealer"].to_pylist()
    for seat in range(4):
        assert binomtest(dealers.count(seat), len(dealers), 0.25).pvalue > 1e-4


@pytest.mark.parametrize("players", [None, (None,) * 4, [1, 2, 3, 4], {"a": 1}])
def test_a_run_names_players_that_are_not_names(players):
    """make_spec once turned any object into a name ('None', '1', a Player's repr) for the
    runner to refuse as an unknown player, or raised a bare TypeError for None."""
    with pytest.raises(ValueError, match="players: a run takes player names"):
        runner.make_spec(WANZAI, players=players, hands=64, session_hands=16)


def test_a_python_player_in_a_run_is_pointed_to_game_play():
    from mjsim.players import Player

    with pytest.raises(ValueError, match="Python players play through mjsim.play.game.play and simulate_chunk"):
        runner.make_spec(WANZAI, players=(Player(), "ev", "ev", "ev"), hands=64, session_hands=16)
