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
from mjsim.analysis import stats

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
    s = stats.variant_stats(root)
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
    for seat in range(4):
        assert rate["seat", f"seat {seat} wins"].count == len({w["hand_index"] for w in wins if w["winner"] == seat})
        assert rate["seat", f"seat {seat} deals in"].count == len(
            {w["hand_index"] for w in wins if w["discarder"] == seat})

    d0 = np.array([h["delta_0"] for h in hands], float)
    assert mean["score", "seat 0"].mean == pytest.approx(d0.mean())
    assert mean["score", "seat 0"].sd == pytest.approx(d0.std(ddof=1))
    dealer = np.array([h[f"delta_{h['dealer']}"] for h in hands], float)
    others = np.array([[h[f"delta_{s}"] for s in range(4) if s != h["dealer"]] for h in hands], float)
    assert mean["score", "dealer"].mean == pytest.approx(dealer.mean())
    # one value per hand: the dealer minus the mean of the three others
    adv = dealer - others.mean(axis=1)
    m = mean["score", "dealer − non-dealer"]
    assert (m.n, m.mean, m.sd) == (8000, pytest.approx(adv.mean()), pytest.approx(adv.std(ddof=1)))
    assert ("score", "non-dealer") not in mean
    assert mean["hand", "live tiles drawn"].max == max(h["draws"] for h in hands)

    # per pattern: points per win and share of all win money
    pts = [w["points"] for w in wins if w["pattern"] == "pinghu"]
    assert mean["pattern points", "pinghu"].mean == pytest.approx(np.mean(pts))
    money = sum(w["received"] for w in wins if w["pattern"] == "pinghu") / sum(w["received"] for w in wins)
    assert rate["pattern money", "pinghu"].freq == pytest.approx(money)

    r = rate["outcome", "win"]
    assert r.df == s.sessions - 1
    assert r.deff >= 1 and r.ci == stats.wilson(r.count / r.deff, 8000 / r.deff)
    x, c = s.histograms["score per hand"]["dealer"]
    assert c.sum() == 8000 and dict(zip(x.tolist(), c.tolist()))[0] == int((dealer == 0).sum())
    spread = {d["seat"]: d for d in s.session_spread}
    per_session = {}
    for h in hands:
        per_session[h["session"]] = per_session.get(h["session"], 0) + h["delta_0"]
    assert spread["0"]["sd"] == pytest.approx(np.std(list(per_session.values()), ddof=1))
    assert spread["0"]["sessions"] == 500


def _frame(root: Path, table: str, variant: str | None = None):
    import pandas as pd

    df = pd.read_parquet(root / table)
    if variant is not None:
        df = df[df["variant"] == variant]
    return df.sort_values(["hand_index"] + (["winner"] if table == "wins" else [])).reset_index(drop=True)


def _ols_cluster(y, groups):
    """statsmodels: OLS of y on a constant, standard error clustered by `groups`, t with G-1 df."""
    import statsmodels.api as sm

    fit = sm.OLS(np.asarray(y, float), np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": np.asarray(groups)},
                                                             use_t=True)
    return fit.params[0], fit.bse[0], tuple(fit.conf_int()[0]), fit.pvalues[0]


def test_clustered_errors_match_statsmodels(data):
    root = data["a"]
    s = stats.variant_stats(root)
    h, w = _frame(root, "hands"), _frame(root, "wins")
    mean = {m.key: m for m in s.means}
    rate = {r.key: r for r in s.rates}
    deltas = h[[f"delta_{k}" for k in range(4)]].to_numpy()
    dealer = deltas[np.arange(len(h)), h["dealer"].to_numpy()]
    b, se, ci, _ = _ols_cluster(dealer, h["session"])
    m = mean["score", "dealer"]
    assert (m.mean, m.se) == (pytest.approx(b), pytest.approx(se, rel=1e-9))
    assert m.ci == (pytest.approx(ci[0], rel=1e-9), pytest.approx(ci[1], rel=1e-9))
    # a mean per win: the wins are the units, clustered by their session
    b, se, ci, _ = _ols_cluster(w["points"], w["hand_index"] // 16)
    m = mean["win", "points per win"]
    assert (m.mean, m.se, m.ci[0]) == (pytest.approx(b), pytest.approx(se, rel=1e-9), pytest.approx(ci[0], rel=1e-9))
    b, se, _, _ = _ols_cluster(h["end"] == "win", h["session"])
    assert rate["outcome", "win"].se == pytest.approx(se, rel=1e-9)


def test_fire_carries_over_and_its_interval_widens(tmp_path):
    root = make_dataset(tmp_path / "fire", simulator="fake_game:simulate_chunk_fire")
    s = stats.variant_stats(root)
    fire = next(r for r in s.rates if r.key == ("fire", "seat 0 on fire"))
    h = _frame(root, "hands")
    _, se, _, _ = _ols_cluster(h["fire_0"] > 0, h["session"])
    assert fire.se == pytest.approx(se, rel=1e-9)
    # a whole session on fire or not: design effect near the session length
    assert fire.deff > 8
    lo, hi = fire.ci
    plain = stats.wilson(fire.count, fire.n)
    assert hi - lo > 2.5 * (plain[1] - plain[0])
    assert lo < fire.freq < hi


def test_anhua_summary_has_wild_categories_and_birds(data):
    s = stats.variant_stats(data["anhua"])
    sections = {r.section for r in s.rates}
    assert {"wild category", "birds"} <= sections
    birds = next(r for r in s.rates if r.section == "birds")
    wins = _table(data["anhua"], "wins")
    assert (birds.count, birds.n, birds.unit) == (sum(w["birds_hit"] > 0 for w in wins), len(wins), "wins")


# ------------------------------------------------------------------------------------
# Comparisons


def test_clearly_different_pair_is_flagged(data):
    a, b = stats.variant_stats(data["a"]), stats.variant_stats(data["few_wins"])
    by_key = {(c.section, c.name): c for c in stats.compare(a, b, paired=False)}
    win = by_key["outcome", "win"]
    assert win.test == stats.RATE_TEST and win.significant and win.p < 1e-12 and not win.paired
    assert win.diff == pytest.approx(b.rates[0].freq - a.rates[0].freq)
    assert win.ci[0] < win.diff < win.ci[1] < 0       # fewer wins, the whole interval below 0
    draw = by_key["outcome", "draw"]
    assert draw.significant and draw.diff > 0
    assert by_key["score", "seat 0"].test == stats.MEAN_TEST


def test_identical_data_is_never_flagged(data):
    a = stats.variant_stats(data["a"])
    for paired in (False, True):
        comps = stats.compare(a, a, paired=paired)
        assert comps and not any(c.significant for c in comps)
        assert all(c.diff == 0 for c in comps)
    # paired with itself: every hand identical, nothing to test
    assert all(not c.tested for c in stats.compare(a, a))


def test_welch_without_a_variance_is_no_test():
    """A standard error that cannot be estimated (one session: df 0, or NaN), or that is 0
    on both sides (two wins of 5 against two of 10), is no test and no interval, not an
    exact difference with p = 0."""
    for se1, df1, se2 in ((math.nan, 5, 0.1), (0.1, 0, 0.1), (0.1, math.nan, 0.1), (0.0, 5, 0.0)):
        assert all(math.isnan(x) for x in stats.welch_from_se(1.0, se1, df1, 2.0, se2, 5))


@pytest.mark.parametrize("simulator", ["fake_game:simulate_chunk", "fake_game:simulate_chunk_few_wins"])
def test_one_session_differences_are_not_called_exact(tmp_path, simulator):
    """Two runs of a single session each: a difference whose variance needs two sessions is
    shown without interval and not tested (it once came out as [d, d] with p = 0, flagged);
    paired (same seed, another simulator) and unpaired (another seed) alike."""
    a = stats.variant_stats(make_dataset(tmp_path / "a", hands=16, chunk=16))
    b = stats.variant_stats(make_dataset(tmp_path / "b", hands=16, chunk=16, simulator=simulator, seed=3))
    c = stats.variant_stats(make_dataset(tmp_path / "c", hands=16, chunk=16, simulator="fake_game:simulate_chunk_few_wins"))
    assert a.sessions == b.sessions == c.sessions == 1
    for other, paired in ((b, False), (c, True)):
        comps = stats.compare(a, other)
        assert comps and all(x.paired == paired for x in comps)
        untested = [x for x in comps if x.note == stats.NO_VARIANCE]
        assert untested and all(not x.tested and not x.significant for x in untested)
        assert all(math.isnan(x.ci[0]) and math.isnan(x.ci[1]) for x in untested)
        for x in comps:      # whatever is tested has a real interval around its difference
            if x.tested and x.diff != 0:
                assert x.ci[0] < x.diff < x.ci[1], (x.section, x.name, x.ci)


def test_same_game_other_seed_is_unpaired_and_not_flagged_on_the_win_rate(data):
    a, b = stats.variant_stats(data["a"]), stats.variant_stats(data["a_other_seed"])
    pair = stats.pairing(a, b)
    assert not pair.paired and "seed" in pair.reason
    win = next(c for c in stats.compare(a, b) if (c.section, c.name) == ("outcome", "win"))
    assert not win.paired and win.p > 0.05 and win.ci[0] < 0 < win.ci[1]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """Two variants on the same walls: the fake scales every score with `base`."""
    from mjsim.run import runner

    root = tmp_path_factory.mktemp("sweep") / "s"
    specs = runner.sweep_specs(WANZAI, [("base", ["1", "2"])], hands=8000, chunk=4000, seed=3)
    runner.run(specs, root, workers=1, progress=False, simulator="fake_game:simulate_chunk")
    return root


def test_paired_differences_match_statsmodels(sweep):
    a, b = stats.summarize_all(sweep)
    [(pair, comps)] = stats.compare_all(a, [b])
    assert pair.paired and pair.hands == 8000 and pair.identical == 8000    # scoring-only change
    by_key = {(c.section, c.name): c for c in comps}
    ha, hb = _frame(sweep, "hands", "base=1"), _frame(sweep, "hands", "base=2")
    assert (ha["hand_index"] == hb["hand_index"]).all()
    for seat in range(4):
        d = hb[f"delta_{seat}"] - ha[f"delta_{seat}"]
        est, se, ci, p = _ols_cluster(d, ha["session"])
        c = by_key["score", f"seat {seat}"]
        assert c.paired and c.test == stats.PAIRED_TEST
        assert c.diff == pytest.approx(est)
        assert c.ci == (pytest.approx(ci[0], rel=1e-9), pytest.approx(ci[1], rel=1e-9))
        assert c.p == pytest.approx(p, rel=1e-6)
    # the unpaired interval of the same difference is much wider (same walls, correlated)
    unpaired = {(c.section, c.name): c for c in stats.compare(a, b, paired=False)}
    for key in (("score", "dealer"), ("win", "points per win")):
        width = by_key[key].ci[1] - by_key[key].ci[0]
        assert unpaired[key].ci[1] - unpaired[key].ci[0] > 1.2 * width
    # play is identical: pattern rates are identical in every hand and not tested
    assert not by_key["pattern", "pinghu"].tested and by_key["pattern", "pinghu"].diff == 0
    assert by_key["win", "points per win"].significant


def test_adjusted_p_is_holm_over_every_tested_comparison(sweep):
    from statsmodels.stats.multitest import multipletests

    a, b = stats.summarize_all(sweep)
    for method in ("holm", "fdr_bh"):
        [(_, comps)] = stats.compare_all(a, [b], paired=False, adjust=method)
        tested = [c for c in comps if c.tested]
        want = multipletests([c.p for c in tested], alpha=0.05, method=method)[1]
        assert [c.p_adj for c in tested] == pytest.approx(list(want))
        assert all(c.significant == (c.p_adj < 0.05) for c in tested)
        assert all(c.p_adj is None and not c.significant for c in comps if not c.tested)


def _stats_with(rate: stats.Rate, *, hands: int, game="wanzai", **info) -> stats.VariantStats:
    return stats.VariantStats("v", game, hands, 0, rates=[rate], info=info)


def test_rare_counts_use_exact_tests():
    from scipy.stats import fisher_exact

    a = _stats_with(stats.Rate("pattern", "qixiaodui", 0, 1000), hands=1000)
    b = _stats_with(stats.Rate("pattern", "qixiaodui", 4, 1000), hands=1000)
    [c] = stats.compare(a, b, adjust="none")
    assert c.test == stats.FISHER_TEST and c.p == pytest.approx(0.125, abs=1e-3)   # z-test: 0.046
    assert c.p == pytest.approx(fisher_exact([[0, 1000], [4, 996]])[1])


def test_paired_rare_events_use_exact_mcnemar(tmp_path):
    from statsmodels.stats.contingency_tables import mcnemar

    from mjsim.run import runner

    root = tmp_path / "r"
    specs = [runner.make_spec(WANZAI, hands=1600, chunk=800, seed=5, label=v) for v in ("one", "few")]
    runner.run(specs[0], root, workers=1, progress=False, simulator="fake_game:simulate_chunk")
    specs[1] = runner.make_spec(WANZAI.with_overrides(base=2), hands=1600, chunk=800, seed=5, label="few")
    runner.run(specs[1], root, workers=1, progress=False, simulator="fake_game:simulate_chunk_few_wins")
    a, b = stats.summarize_all(root)
    by_key = {(c.section, c.name): c for c in stats.compare(a, b, adjust="none")}
    ha, hb = _frame(root, "hands", "one"), _frame(root, "hands", "few")
    wa, wb = _frame(root, "wins", "one"), _frame(root, "wins", "few")
    exact = 0
    for pattern in mjsim.PATTERNS[:15]:
        ia = ha["hand_index"].isin(wa[wa["pattern"] == pattern]["hand_index"])
        ib = hb["hand_index"].isin(wb[wb["pattern"] == pattern]["hand_index"])
        up, down = int((ib & ~ia).sum()), int((ia & ~ib).sum())
        c = by_key["pattern", pattern]
        assert c.diff == pytest.approx(ib.mean() - ia.mean())
        if 0 < up + down < stats.EXACT_BELOW:
            assert c.test == stats.MCNEMAR_TEST
            assert c.p == pytest.approx(mcnemar([[0, down], [up, 0]], exact=True).pvalue)
            exact += 1
        else:
            assert c.test == stats.PAIRED_TEST
    assert exact > 0


def test_wanzai_and_anhua_are_not_compared(data, capsys):
    from mjsim.cli import main

    a, b = stats.variant_stats(data["a"]), stats.variant_stats(data["anhua"])
    with pytest.raises(ValueError, match="cannot compare a wanzai dataset with an anhua one"):
        stats.compare(a, b)
    assert main(["compare", str(data["a"]), str(data["anhua"]), "--html", "/dev/null"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot compare a wanzai dataset with an anhua one" in err[0]


def test_measures_the_change_defines_are_not_tested(tmp_path):
    from mjsim.run import runner

    root = tmp_path / "birds"
    specs = runner.sweep_specs(mjsim.Rules.load("anhua"), [("birds", ["0", "2"])], hands=1600, chunk=800, seed=2)
    runner.run(specs, root, workers=1, progress=False, simulator="fake_game:simulate_chunk")
    a, b = stats.summarize_all(root)
    comps = {(c.section, c.name): c for c in stats.compare(a, b)}
    bird = comps["birds", "wins with a bird hit"]
    assert not bird.tested and not bird.significant and "birds" in bird.note
    assert comps["outcome", "win"].note == "not tested: identical in every hand"


def test_summaries_are_dataframes(data):
    import pandas as pd

    df = stats.summarize(data["a"])
    assert isinstance(df, pd.DataFrame) and {"measure", "chinese", "estimate", "ci_low", "ci_high"} <= set(df.columns)
    row = df[(df["section"] == "pattern") & (df["measure"] == "qixiaodui")].iloc[0]
    assert row["chinese"] == "七小對" and row["ci_low"] <= row["estimate"] <= row["ci_high"]
    assert "<table" in stats.variant_stats(data["a"])._repr_html_()
    q = stats.query_frame(data["a"], 'SELECT "end", count(*) AS n FROM hands GROUP BY 1 ORDER BY 1')
    assert isinstance(q, pd.DataFrame) and list(q.columns) == ["end", "n"] and q["n"].sum() == 8000


# ------------------------------------------------------------------------------------
# SQL


def test_query_and_errors(data, tmp_path):
    columns, rows = stats.query(data["a"], 'SELECT "end", count(*) FROM hands GROUP BY 1 ORDER BY 1')
    assert columns[0] == "end" and sum(r[1] for r in rows) == 8000
    _, [(n,)] = stats.query(data["a"], "SELECT count(*) FROM wins JOIN hands USING (variant, seed, hand_index)")
    assert n == stats.variant_stats(data["a"]).wins
    with pytest.raises(ValueError, match="query failed"):
        stats.query(data["a"], "SELECT * FROM nowhere")
    # a column named by an SQL keyword, unquoted: the error says how to write it
    with pytest.raises(ValueError, match='end is a reserved SQL word: write the column as "end"'):
        stats.query(data["a"], "SELECT end FROM hands")
    # a typo the parser happens to notice at an ordinary column: no advice to quote it
    for typo in ("SELEC 1", "SELECT * FROM wins WHERE winner = 1 points > 2", "SELECT * FROM hands ORDER seed"):
        with pytest.raises(ValueError, match="query failed") as bad:
            stats.query(data["a"], typo)
        assert "reserved" not in str(bad.value)
    with pytest.raises(ValueError, match="holds no mjsim dataset"):
        stats.query(tmp_path, "SELECT 1")
    with pytest.raises(OSError, match="no such dataset directory"):
        stats.variant_stats(tmp_path / "missing")


def test_several_variants_must_be_named(tmp_path):
    root = tmp_path / "two"
    make_dataset(root, hands=1600)
    make_dataset(root, hands=1600, rules=WANZAI.with_overrides(base=2))
    assert stats.variants(root)[0] == "wanzai" and len(stats.variants(root)) == 2
    with pytest.raises(ValueError, match="holds 2 variants"):
        stats.variant_stats(root)
    other = stats.variants(root)[1]
    assert stats.variant_stats(root, other).variant == other
    assert [s.variant for s in stats.summarize_all(root)] == stats.variants(root)


def test_turn_claims_and_money_measures(data):
    root = data["a"]
    s = stats.variant_stats(root)
    mean = {m.key: m for m in s.means}
    rate = {r.key: r for r in s.rates}
    h, w, p = _frame(root, "hands"), _frame(root, "wins"), _frame(root, "payments")
    assert mean["win", "winning turn"].mean == pytest.approx(w["turn"].mean())
    claims = h[[f"claims_{k}" for k in range(4)]].sum(axis=1)
    assert mean["hand", "claims per hand"].mean == pytest.approx(claims.mean())
    assert mean["seat", "seat 2 claims per hand"].mean == pytest.approx(h["claims_2"].mean())
    total = p["amount"].sum()
    for reason in ("win", "kong_concealed"):
        r = rate["money", reason]
        assert r.freq == pytest.approx(p.loc[p["reason"] == reason, "amount"].sum() / total)
        assert r.unit == "points"


def _variant(name, rates=(), means=(), hands=320, wins=10, sessions=20):
    return stats.VariantStats(name, "wanzai", hands, wins, rates=list(rates), means=list(means), sessions=sessions)


def replace_n(rate, count, n):
    from dataclasses import replace

    return replace(rate, count=count, n=n)


@pytest.mark.parametrize("sessions", [2, 5, 40, 5000])
def test_rate_deff_carries_korn_graubard_df_factor(sessions):
    """With G sessions the effective n is n p(1-p) / var times (z / t(G-1))^2 (Korn and
    Graubard 1998), so few sessions widen a rate's interval as t(G-1) widens a mean's."""
    from scipy.stats import norm, t

    p, n, deff = 0.2, 8000, 2.5
    se = math.sqrt(deff * p * (1 - p) / n)
    r = stats.Rate("outcome", "win", p * n, n, se=se, df=sessions - 1)
    factor = (t.ppf(0.975, sessions - 1) / norm.ppf(0.975)) ** 2
    assert r.deff == pytest.approx(deff * factor)
    lo, hi = r.ci
    z_lo, z_hi = stats.wilson(p * n / deff, n / deff)
    assert lo < z_lo and hi > z_hi                     # wider than the normal-theory interval
    assert (hi - lo) / (z_hi - z_lo) == pytest.approx(math.sqrt(factor), rel=0.02 if sessions > 2 else 0.3)
    # without sessions to count (one session) the factor is not applied
    assert stats.Rate("outcome", "win", p * n, n, se=se).deff == pytest.approx(deff)


def test_unpaired_fisher_counts_a_carried_over_rate_by_its_effective_n():
    """0 of 320 against 19 of 320 hands with a seat on fire, which carries over within a
    session (design effect 5.83): Fisher's test on the effective counts (0/55 against
    3/55, as the interval and the z-test use), not on the raw hands."""
    from scipy.stats import fisher_exact

    deff = 5.83
    p = 19 / 320
    on = stats.Rate("fire", "seat 3 on fire", 19, 320, se=math.sqrt(deff * p * (1 - p) / 320))
    off = stats.Rate("fire", "seat 3 on fire", 0, 320, se=0.0)
    c, = stats.compare(_variant("a", [off]), _variant("b", [on]), paired=False, adjust="none")
    assert c.test == stats.FISHER_TEST
    want = fisher_exact([[0, round(320 / 1)], [round(19 / on.deff), round((320 - 19) / on.deff)]])[1]
    assert on.deff == pytest.approx(deff) and c.p == pytest.approx(want) and c.p > 0.001
    assert c.p != pytest.approx(fisher_exact([[0, 320], [19, 301]])[1])


def test_a_share_one_side_never_had_is_zero_of_its_own_money():
    """A money share missing on one side is 0 of that side's own money in that section; a
    side with no such money (no win at all) leaves the row out instead of inventing it."""
    kong = stats.Rate("money", "kong_exposed", 6, 12, unit="points", se=0.1)
    other = stats.Rate("money", "pinghu", 90, 120, unit="points", se=0.02)
    a = _variant("a", [other])                     # no kong money on this side
    b = _variant("b", [kong, replace_n(other, 6, 12)])
    by = {c.name: c for c in stats.compare(a, b, paired=False, adjust="none")}
    assert by["kong_exposed"].a.n == 120 and by["kong_exposed"].a.count == 0 and by["kong_exposed"].diff == 0.5
    empty = _variant("c", [], wins=0)              # no money at all: nothing to compare the share with
    assert "kong_exposed" not in {c.name for c in stats.compare(empty, b, paired=False, adjust="none")}


def test_a_run_without_a_win_keeps_its_kong_money_shares(tmp_path):
    """16 hands of random players, seed 12: no win, but 12 points of kong money, half from
    exposed and half from concealed kongs; those shares stay (they were dropped with the
    per-win measures, and a comparison then showed them as 0 %)."""
    from mjsim.cli import main

    assert main(["simulate", "--players", "random", "--hands", "16", "--session-hands", "8", "--seed", "12",
                 "--workers", "1", "--no-progress", "--out", str(tmp_path / "r")]) == 0
    s = stats.variant_stats(tmp_path / "r")
    money = {r.name: r for r in s.rates if r.section == "money"}
    assert s.wins == 0 and money["kong_exposed"].freq == 0.5 and money["kong_concealed"].freq == 0.5


def test_constant_alike_on_both_sides_is_not_tested():
    every = stats.Rate("outcome", "win", 320, 320, se=0.0)
    flat = stats.Mean("pattern points", "pinghu", 10, 2.0, 0.0, se=0.0, df=19)
    comps = stats.compare(_variant("a", [every], [flat]), _variant("b", [every], [flat]), paired=False)
    assert comps and all(not c.tested and "the same on both sides" in c.note for c in comps)


def test_a_zero_spread_money_share_has_no_wilson_interval():
    """A share of money of 0 (or all of it): points are not independent trials, so no
    Wilson bound on them (it was [0, 0.08 %] for a pattern whose one win would be 0.8 %)."""
    none = stats.Rate("pattern money", "san_haohua_qixiaodui", 0, 4835, unit="points", se=0.0)
    assert all(math.isnan(x) for x in none.ci)
    assert all(math.isnan(x) for x in stats.Rate("money", "all", 10, 10, unit="points", se=0.0).ci)
    lo, hi = stats.Rate("pattern", "qixiaodui", 0, 4835, se=0.0).ci          # hands are trials
    assert lo == 0 and 0 < hi < 0.001


def test_two_sessions_that_differ_alike_are_no_exact_difference(tmp_path):
    """A paired difference whose two sessions differ by the same amount has a clustered
    variance of 0: that is no evidence of an exact difference (it was [d, d], p = 0,
    flagged); it is not tested, and nothing is flagged without an interval around it."""
    from mjsim.cli import main

    assert main(["sweep", "--grid", "honor_chow=true,false", "--players", "greedy", "--hands", "32",
                 "--session-hands", "16", "--workers", "1", "--no-progress", "--out", str(tmp_path / "s"),
                 "--html", str(tmp_path / "c.html")]) == 0
    base, other = (stats.variant_stats(tmp_path / "s", v) for v in stats.variants(tmp_path / "s"))
    comps = stats.compare(base, other)
    assert base.sessions == 2 and any(c.note == stats.NO_VARIANCE for c in comps)
    for c in comps:
        if c.significant:
            assert c.ci[0] < c.diff < c.ci[1], (c.section, c.name, c.ci)
        if c.tested and c.diff != 0:
            assert c.ci[0] < c.ci[1], (c.section, c.name, c.ci)


def _fake_sessions(root: Path, simulator: str, seed: int, session_hands: int) -> Path:
    """Two sessions of the fake game, `session_hands` hands each."""
    from mjsim.run import runner

    spec = runner.make_spec(WANZAI, hands=2 * session_hands, chunk=2 * session_hands, session_hands=session_hands,
                            seed=seed)
    runner.run(spec, root, workers=1, progress=False, simulator=simulator)
    return root


def _won_per_session(root: Path) -> list[int]:
    table = ds.dataset(root / "hands", partitioning="hive").to_table(columns=["session", "n_winners"]).to_pandas()
    return (table["n_winners"] > 0).groupby(table["session"]).sum().tolist()


def test_sessions_that_differ_alike_by_rounding_are_no_exact_difference(tmp_path):
    """Two sessions of 30 hands won 24 and 21 times on one side, 17 and 14 on the other: they
    differ alike (7 each), so the paired difference has no variance between sessions. The
    residuals e = y - r n left about 1e-15 each (r = 45/60 and 31/60 are no binary fractions),
    and the difference was tested against that rounding error and flagged; it is 'no
    variance between sessions', not tested."""
    a = _fake_sessions(tmp_path / "a", "fake_game:simulate_chunk", 157, 30)
    b = _fake_sessions(tmp_path / "b", "fake_game:simulate_chunk_few_wins", 157, 30)
    assert _won_per_session(a) == [24, 21] and _won_per_session(b) == [17, 14]
    win = next(c for c in stats.compare(stats.variant_stats(a), stats.variant_stats(b))
               if (c.section, c.name) == ("outcome", "win"))
    assert win.paired and win.diff == pytest.approx(-7 / 30)
    assert win.note == stats.NO_VARIANCE and not win.tested and not win.significant
    assert all(math.isnan(x) for x in win.ci)


def test_sessions_that_share_one_ratio_have_no_clustered_variance(tmp_path):
    """Two sessions of 70 hands with 47 wins each: the clustered variance of the win rate is 0
    exactly (its standard error was 1e-16, from rounding of 47 - (94/140) x 70)."""
    a = _fake_sessions(tmp_path / "a", "fake_game:simulate_chunk", 60, 70)
    assert _won_per_session(a) == [47, 47]
    win = next(r for r in stats.variant_stats(a).rates if r.key == ("outcome", "win"))
    assert win.se == 0.0


def test_a_mean_whose_sessions_agree_has_no_interval():
    """A mean whose units vary but whose sessions all agree (two sessions of 64 hands with two
    concealed kongs each) has a clustered standard error of 0: that is no exact mean, so no
    interval (it was [m, m], which bench/interval_coverage.py found missing the truth in 30
    of 100 runs of two sessions). A mean without spread (every unit alike) keeps [m, m]; so
    does one whose spread is not recorded (pattern points)."""
    varied = stats.Mean("kongs", "concealed kongs per hand", 128, 2 / 64, 0.18, 0.0, 1.0, se=0.0, df=1)
    assert all(math.isnan(x) for x in varied.ci)
    assert stats.Mean("pattern points", "shisanlan", 9, 2.0, 0.0, se=0.0, df=1).ci == (2.0, 2.0)
    assert stats.Mean("pattern points", "pinghu", 9, 1.5, math.nan, se=0.0, df=1).ci == (1.5, 1.5)
    row = _variant("v", means=[varied], sessions=2).frame().iloc[0]
    assert math.isnan(row["ci_low"]) and row["method"] == "none: no spread between sessions"
    spread = stats.Mean("kongs", "concealed kongs per hand", 128, 2 / 64, 0.18, se=0.01, df=1)
    assert spread.ci[0] < spread.mean < spread.ci[1]


def test_compare_all_names_an_unknown_adjust(tmp_path):
    """adjust="foo" failed inside statsmodels ("method not recognized"), or not at all when
    nothing was tested."""
    from mjsim.analysis import stats

    with pytest.raises(ValueError, match=r"adjust must be one of holm, fdr_bh, none, got 'foo'"):
        stats.compare_all(None, [], adjust="foo")
