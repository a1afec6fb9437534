"""Summaries in bounded memory: per-chunk sufficient statistics merged (mjsim.chunkstats)
give what one pass over all rows gives, for one variant and for paired comparisons with
matching or different chunk plans; datasets under awkward directory names are read by every
command; failures of the machine exit 1, bad input exits 2. Datasets come from the FAKE
game loop (tests/fake_game.py)."""
from __future__ import annotations

import errno
import math
from pathlib import Path

import numpy as np
import pytest

import fake_game
import mjsim
from mjsim.analysis import chunkstats
from mjsim.run import runner
from mjsim.analysis import stats
from mjsim.cli import main

WANZAI = mjsim.Rules.load("wanzai")
ANHUA = mjsim.Rules.load("anhua")
FAKE = "fake_game:simulate_chunk"


def _measures(s: stats.VariantStats) -> dict:
    out = {}
    for r in s.rates:
        out[r.key] = (r.count, r.n, r.se)
    for m in s.means:
        out[m.key] = (m.n, m.mean, m.sd, m.min, m.max, m.se, m.df)
    return out


def _assert_same_stats(a: stats.VariantStats, b: stats.VariantStats) -> None:
    ma, mb = _measures(a), _measures(b)
    assert list(ma) == list(mb)
    for key in ma:
        for x, y in zip(ma[key], mb[key]):
            if isinstance(x, float) and math.isnan(x):
                assert math.isnan(y), key
            else:
                assert y == pytest.approx(x, rel=1e-9, abs=1e-12), key
    assert (a.hands, a.wins, a.sessions) == (b.hands, b.wins, b.sessions)
    for name in a.histograms:
        for group, (x, c) in a.histograms[name].items():
            y, d = b.histograms[name][group]
            assert x.tolist() == y.tolist() and c.tolist() == d.tolist(), (name, group)
    for ra, rb in zip(a.session_spread, b.session_spread):
        assert ra.keys() == rb.keys()
        for k in ra:
            assert rb[k] == (pytest.approx(ra[k], rel=1e-9) if isinstance(ra[k], float) else ra[k]), k


@pytest.fixture(scope="module")
def plans(tmp_path_factory):
    """The same hands written with three chunk plans (sessions of 16 hands)."""
    base = tmp_path_factory.mktemp("plans")
    return {chunk: fake_game.make_dataset(base / f"c{chunk}", hands=6400, chunk=chunk, seed=4)
            for chunk in (6400, 1600, 640)}


def test_merged_chunks_equal_one_pass_over_all_rows(plans):
    """One chunk is one pass over every row; four and ten chunks merge to the same numbers."""
    whole = stats.variant_stats(plans[6400])
    for chunk in (1600, 640):
        _assert_same_stats(whole, stats.variant_stats(plans[chunk]))


def test_merged_anhua_with_wild_categories_and_birds(tmp_path):
    one = stats.variant_stats(fake_game.make_dataset(tmp_path / "one", rules=ANHUA, hands=3200, chunk=3200))
    many = stats.variant_stats(fake_game.make_dataset(tmp_path / "many", rules=ANHUA, hands=3200, chunk=320))
    _assert_same_stats(one, many)
    assert {"wild category", "birds", "property money"} <= {r.section for r in many.rates}


def test_the_clustered_variance_merge_is_exact_on_a_large_ratio():
    """Centring each chunk on its own ratio keeps Σ(Y_g - R N_g)² exact when R is large and
    the spread small (the plain Σ Y_g² - 2R Σ Y_g N_g + R² Σ N_g² would cancel)."""
    rng = np.random.default_rng(0)
    y = 1e7 + rng.normal(0, 1, 4000)
    session = np.arange(4000) // 4
    yg = np.add.reduceat(y, np.arange(0, 4000, 4))
    ng = np.full(1000, 4.0)
    R = yg.sum() / ng.sum()
    want = float(((yg - R * ng) ** 2).sum())
    parts = []
    for lo in range(0, 1000, 250):
        ys, ns = yg[lo:lo + 250], ng[lo:lo + 250]
        r = ys.sum() / ns.sum()
        e = ys - r * ns
        parts.append((r, e @ e, e @ ns, ns @ ns))
    got = sum(ee - 2 * (R - r) * en + (R - r) ** 2 * nn for r, ee, en, nn in parts)
    assert got == pytest.approx(want, rel=1e-9)
    assert len(np.unique(session)) == 1000


def test_session_spread_quantiles_equal_numpy_on_per_session_results(plans):
    import pandas as pd

    s = stats.variant_stats(plans[640])
    hands = pd.read_parquet(plans[640] / "hands")
    per_session = hands.groupby("session")[[f"delta_{k}" for k in range(4)]].sum()
    rows = {r["seat"]: r for r in s.session_spread}
    pooled = per_session.to_numpy().ravel()
    for seat, values in [*((str(k), per_session[f"delta_{k}"].to_numpy()) for k in range(4)), ("all", pooled)]:
        row = rows[seat]
        assert row["sessions"] == len(values)
        assert row["mean"] == pytest.approx(values.mean())
        assert row["sd"] == pytest.approx(values.std(ddof=1))
        for q in stats.SPREAD_QUANTILES:
            assert row[f"q{round(100 * q)}"] == pytest.approx(float(np.quantile(values, q))), (seat, q)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """Two variants on the same walls, written once with one chunk and once with small chunks."""
    base = tmp_path_factory.mktemp("swept")
    out = {}
    for chunk in (4800, 960):
        specs = runner.sweep_specs(WANZAI, [("base", ["1", "2"])], hands=4800, chunk=chunk, seed=3)
        runner.run(specs, base / f"c{chunk}", workers=1, progress=False, simulator=FAKE)
        out[chunk] = base / f"c{chunk}"
    return out


def _comparisons(a, b) -> dict:
    [(pair, comps)] = stats.compare_all(a, [b])
    return pair, {(c.section, c.name): (c.diff, c.ci, c.p, c.test) for c in comps}


def test_paired_merge_equals_one_pass(swept):
    pair1, whole = _comparisons(*stats.summarize_all(swept[4800]))
    pair5, merged = _comparisons(*stats.summarize_all(swept[960]))
    assert pair1.paired and pair5.paired and pair1.identical == pair5.identical == 4800
    assert whole.keys() == merged.keys()
    for key, (diff, ci, p, test) in whole.items():
        d2, ci2, p2, t2 = merged[key]
        assert (d2, t2) == (pytest.approx(diff, rel=1e-9, abs=1e-12), test), key
        assert ci2 == (pytest.approx(ci[0], rel=1e-9, abs=1e-12), pytest.approx(ci[1], rel=1e-9, abs=1e-12)), key
        assert (p2 is None) == (p is None) and (p is None or p2 == pytest.approx(p, rel=1e-7, abs=1e-300)), key


def test_paired_across_different_chunk_plans(swept):
    """Baseline from the one-chunk dataset, the other variant from the five-chunk one: the
    chunk groups end on common hands, and the answer is the one-plan answer."""
    a1, b1 = stats.summarize_all(swept[4800])
    a5, b5 = stats.summarize_all(swept[960])
    _, same_plan = _comparisons(a1, b1)
    pair, cross = _comparisons(a1, b5)
    assert pair.paired and pair.hands == 4800
    for key, (diff, ci, _, _) in same_plan.items():
        assert cross[key][0] == pytest.approx(diff, rel=1e-9, abs=1e-12), key
        assert cross[key][1] == (pytest.approx(ci[0], rel=1e-9, abs=1e-12), pytest.approx(ci[1], rel=1e-9, abs=1e-12))


def test_chunk_groups_end_on_common_hands():
    def files(size, total):
        return [chunkstats.ChunkFiles(s, min(size, total - s), Path(f"h{s}"), Path(f"w{s}"), None)
                for s in range(0, total, size)]

    groups = chunkstats.chunk_groups(files(20, 100), files(30, 100))
    ends = [(ga[-1].start + ga[-1].count, gb[-1].start + gb[-1].count) for ga, gb in groups]
    assert ends == [(60, 60), (100, 100)]
    assert sum(len(ga) for ga, _ in groups) == 5 and sum(len(gb) for _, gb in groups) == 4
    same = chunkstats.chunk_groups(files(25, 100), files(25, 100))
    assert [(len(ga), len(gb)) for ga, gb in same] == [(1, 1)] * 4


# ------------------------------------------------------------------------------------
# Directory names and exit codes


ODD_NAMES = ["runs [x]", "a*b?c it's \"q\" 萬載 [1-2]"]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_every_command_reads_a_dataset_under_an_odd_name(name, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(runner, "SIMULATOR", FAKE)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / name
    assert main(["simulate", "--hands", "640", "--chunk", "320", "--out", str(out), "--no-progress",
                 "--players", "random"]) == 0
    assert main(["report", str(out), "--no-html"]) == 0
    assert main(["query", str(out), "SELECT count(*) AS n FROM hands"]) == 0
    assert "640" in capsys.readouterr().out
    assert main(["compare", str(out), str(out), "--html", str(tmp_path / "c.html")]) == 0
    sweep_out = tmp_path / f"{name} sweep"
    assert main(["sweep", "--grid", "base=1,2", "--hands", "320", "--out", str(sweep_out), "--no-progress",
                 "--players", "random", "--html", str(tmp_path / "s.html")]) == 0
    assert [v.hands for v in stats.summarize_all(sweep_out)] == [320, 320]


def test_a_failure_of_the_machine_exits_1_with_what_to_try(tmp_path, capsys, monkeypatch):
    root = fake_game.make_dataset(tmp_path / "d", hands=320, chunk=320)

    def raising(exc):
        def f(*a, **k):
            raise exc
        return f

    cases = [MemoryError(), OSError(errno.ENOSPC, "No space left on device"), ConnectionResetError("reset by peer")]
    try:
        import duckdb
        cases.append(duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block"))
    except (ImportError, AttributeError):
        pass
    for exc in cases:
        monkeypatch.setattr(stats, "summarize_all", raising(exc))
        assert main(["report", str(root), "--no-html"]) == 1, exc
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and err.startswith("error:") and "again" in err, err


def test_bad_input_still_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert "no such dataset" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2


def test_a_rewritten_chunk_is_read_again(tmp_path):
    """Chunk parts are kept for the process (a precision run or a balance search summarises
    a growing dataset again and again), keyed by each file's size and modification time."""
    import shutil

    root = tmp_path / "d"
    fake_game.make_dataset(root, hands=640, chunk=320)
    first = stats.variant_stats(root)
    assert stats.variant_stats(root).rates == first.rates      # from the kept parts
    shutil.rmtree(root)
    fake_game.make_dataset(root, hands=640, chunk=320, simulator="fake_game:simulate_chunk_few_wins")
    again = stats.variant_stats(root)
    win = {r.key: r.count for r in again.rates}["outcome", "win"]
    assert win < {r.key: r.count for r in first.rates}["outcome", "win"]


def test_slices_of_a_chunk_merge_to_the_whole_chunk(plans, monkeypatch):
    """A chunk is read in slices of whole sessions (memory bounded whatever --chunk is):
    slices of about 100 hands give what one slice per chunk gives, paired included."""
    whole = stats.variant_stats(plans[6400])
    monkeypatch.setattr(chunkstats, "SLICE_HANDS", 100)
    chunkstats._cached_parts.cache_clear()
    sliced = stats.variant_stats(plans[6400])
    _assert_same_stats(whole, sliced)
    comps = stats.compare(sliced, stats.variant_stats(plans[640]))
    assert all(c.diff == pytest.approx(0, abs=1e-12) for c in comps)
