"""Statistics: Wilson intervals and tests against hand-computed values, aggregates against
direct computation on the Parquet files, and the significance flag on clearly different
and identical data. Datasets come from the FAKE game loop (tests/fake_game.py)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyarrow.dataset as ds
import pytest

import fake_game
import mjsim
from mjsim import stats

WANZAI = mjsim.Rules.load("wanzai")


def make_dataset(root: Path, **kw) -> Path:
    kw.setdefault("hands", 8000)
    kw.setdefault("chunk", 4000)
    return fake_game.make_dataset(root, **kw)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    base = tmp_path_factory.mktemp("stats")
    return {
        "a": make_dataset(base / "a"),
        "a_other_seed": make_dataset(base / "a2", seed=2),
        "few_wins": make_dataset(base / "b", simulator="fake_game:simulate_chunk_few_wins"),
        "anhua": make_dataset(base / "anhua", rules=mjsim.Rules.load("anhua"), hands=4000),
    }


# ------------------------------------------------------------------------------------
# Intervals and tests against hand-computed values


def test_wilson_interval_hand_computed():
    # k=10, n=100, z=1.959964: p=0.1, z²/n=0.0384146, denominator 1.0384146;
    # centre=(0.1+0.0192073)/1.0384146=0.1147967;
    # half=1.959964*sqrt(0.0009+0.0000960)/1.0384146=0.0595690 -> [0.0552277, 0.1743657]
    lo, hi = stats.wilson(10, 100)
    assert lo == pytest.approx(0.0552277, abs=2e-6)
    assert hi == pytest.approx(0.1743657, abs=2e-6)
    # k=0, n=10: centre=half=0.1920937/1.3841459/2... the interval is [0, z²/(n+z²)] = [0, 0.2775328]
    assert stats.wilson(0, 10) == (0.0, pytest.approx(3.8414588 / 13.8414588, abs=1e-7))
    # k=n: the mirror image
    lo, hi = stats.wilson(10, 10)
    assert (lo, hi) == (pytest.approx(10 / 13.8414588, abs=1e-7), 1.0)
    assert all(math.isnan(x) for x in stats.wilson(0, 0))
    lo, hi = stats.wilson([10, 0], [100, 10])               # vectorised
    assert lo[0] == pytest.approx(0.0552277, abs=2e-6) and hi[1] == pytest.approx(0.2775328, abs=1e-6)


def test_two_proportion_z_test_hand_computed():
    # 50/100 vs 70/100: pooled 0.6, se=sqrt(0.6*0.4*(1/100+1/100))=0.0692820, z=0.2/0.0692820=2.886751
    z, p = stats.two_proportion_z_test(50, 100, 70, 100)
    assert z == pytest.approx(2.886751, abs=1e-6)
    assert p == pytest.approx(0.0038924, abs=1e-6)   # 2*(1-Phi(2.886751))
    assert stats.two_proportion_z_test(0, 50, 0, 80) == (0.0, 1.0)


def test_newcombe_interval_published_example():
    # Newcombe (1998), Stat Med 17:873, example (a): 56/70 - 48/80 = 0.2, method 10: 0.0524 to 0.3339
    lo, hi = stats.newcombe_interval(48, 80, 56, 70)
    assert (lo, hi) == (pytest.approx(0.0524, abs=1e-4), pytest.approx(0.3339, abs=1e-4))


def test_welch_t_test_matches_scipy_on_raw_samples():
    from scipy.stats import ttest_ind

    rng = np.random.default_rng(5)
    x, y = rng.normal(0, 1, 200), rng.normal(0.3, 2, 300)
    t, p, lo, hi = stats.welch_t_test(x.mean(), x.std(ddof=1), len(x), y.mean(), y.std(ddof=1), len(y))
    ref = ttest_ind(y, x, equal_var=False)
    assert t == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)
    ci = ref.confidence_interval(0.95)
    assert (lo, hi) == (pytest.approx(ci.low), pytest.approx(ci.high))


# ------------------------------------------------------------------------------------
# Aggregates against the files


def _table(root: Path, name: str):
    return ds.dataset(root / name, format="parquet", partitioning="hive").to_table().to_pylist()


def test_summary_counts_match_a_direct_count(data):
    root = data["a"]
    s = stats.summarize(root)
    hands, wins = _table(root, "hands"), _table(root, "wins")
    rate = {r.key: r for r in s.rates}
    mean = {m.key: m for m in s.means}

    assert (s.variant, s.game, s.hands, s.wins) == ("wanzai", "wanzai", 8000, len(wins))
    assert rate["outcome", "win"].count == sum(h["end"] == "win" for h in hands)
    assert rate["outcome", "draw"].count == sum(h["end"] == "draw" for h in hands)
    # a pattern counts hands, not winners
    pinghu = {w["hand_index"] for w in wins if w["pattern"] == "pinghu"}
    assert rate["pattern", "pinghu"].count == len(pinghu)
    qys = {w["hand_index"] for w in wins if "qingyise" in w["properties"]}
    assert rate["property", "qingyise"].count == len(qys) > 0
    assert rate["pattern", "qingyise_san_haohua_qixiaodui"].n == 8000   # listed even if rare
    assert rate["win kind", "rob_kong"].count == 0                       # never happens in the fake
    assert rate["kongs", "hands with exposed kong"].count == sum(h["kongs_exposed"] > 0 for h in hands)

    d0 = np.array([h["delta_0"] for h in hands], float)
    assert mean["score", "seat 0"].mean == pytest.approx(d0.mean())
    assert mean["score", "seat 0"].sd == pytest.approx(d0.std(ddof=1))
    dealer = np.array([h[f"delta_{h['dealer']}"] for h in hands], float)
    others = np.array([h[f"delta_{s}"] for h in hands for s in range(4) if s != h["dealer"]], float)
    assert mean["score", "dealer"].mean == pytest.approx(dealer.mean())
    assert mean["score", "non-dealer"].n == len(others) == 24000
    assert mean["score", "non-dealer"].mean == pytest.approx(others.mean(), abs=1e-9)
    assert mean["score", "non-dealer"].sd == pytest.approx(others.std(ddof=1))
    assert mean["hand", "live tiles drawn"].max == max(h["draws"] for h in hands)

    lo, hi = rate["outcome", "win"].ci
    assert (lo, hi) == stats.wilson(rate["outcome", "win"].count, 8000)
    x, c = s.histograms["score per hand"]["dealer"]
    assert c.sum() == 8000 and dict(zip(x.tolist(), c.tolist()))[0] == int((dealer == 0).sum())


def test_anhua_summary_has_wild_categories_and_birds(data):
    s = stats.summarize(data["anhua"])
    sections = {r.section for r in s.rates}
    assert {"wild category", "birds"} <= sections
    birds = next(r for r in s.rates if r.section == "birds")
    wins = _table(data["anhua"], "wins")
    assert (birds.count, birds.n, birds.unit) == (sum(w["birds_hit"] > 0 for w in wins), len(wins), "wins")


# ------------------------------------------------------------------------------------
# Comparisons


def test_clearly_different_pair_is_flagged(data):
    a, b = stats.summarize(data["a"]), stats.summarize(data["few_wins"])
    by_key = {(c.section, c.name): c for c in stats.compare(a, b)}
    win = by_key["outcome", "win"]
    assert win.test == stats.RATE_TEST and win.significant and win.p < 1e-12
    assert win.diff == pytest.approx(b.rates[0].freq - a.rates[0].freq)
    assert win.ci[0] < win.diff < win.ci[1] < 0       # fewer wins, the whole interval below 0
    draw = by_key["outcome", "draw"]
    assert draw.significant and draw.diff > 0
    assert by_key["score", "seat 0"].test == stats.MEAN_TEST


def test_identical_data_is_never_flagged(data):
    a = stats.summarize(data["a"])
    comps = stats.compare(a, a)
    assert comps and not any(c.significant for c in comps)
    assert all(c.diff == 0 for c in comps)


def test_same_game_other_seed_is_not_flagged_on_the_win_rate(data):
    a, b = stats.summarize(data["a"]), stats.summarize(data["a_other_seed"])
    win = next(c for c in stats.compare(a, b) if (c.section, c.name) == ("outcome", "win"))
    assert win.p > 0.05 and win.ci[0] < 0 < win.ci[1]


# ------------------------------------------------------------------------------------
# SQL


def test_query_and_errors(data, tmp_path):
    columns, rows = stats.query(data["a"], 'SELECT "end", count(*) FROM hands GROUP BY 1 ORDER BY 1')
    assert columns[0] == "end" and sum(r[1] for r in rows) == 8000
    _, [(n,)] = stats.query(data["a"], "SELECT count(*) FROM wins JOIN hands USING (variant, seed, hand_index)")
    assert n == stats.summarize(data["a"]).wins
    with pytest.raises(ValueError, match="query failed"):
        stats.query(data["a"], "SELECT * FROM nowhere")
    with pytest.raises(ValueError, match="holds no mjsim dataset"):
        stats.query(tmp_path, "SELECT 1")
    with pytest.raises(OSError, match="no such dataset directory"):
        stats.summarize(tmp_path / "missing")


def test_several_variants_must_be_named(tmp_path):
    root = tmp_path / "two"
    make_dataset(root, hands=1600)
    make_dataset(root, hands=1600, rules=WANZAI.with_overrides(base=2))
    assert stats.variants(root)[0] == "wanzai" and len(stats.variants(root)) == 2
    with pytest.raises(ValueError, match="holds 2 variants"):
        stats.summarize(root)
    other = stats.variants(root)[1]
    assert stats.summarize(root, other).variant == other
    assert [s.variant for s in stats.summarize_all(root)] == stats.variants(root)
