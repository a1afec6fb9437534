"""The duplicate arena: paired edges, their deal-clustered intervals, player options."""
import math

import numpy as np
import pytest

from mjsim import Rules
from mjsim.run import arena
from mjsim.play import game
from mjsim.players import options
from mjsim.cli import main

WANZAI = Rules.load("wanzai")
ANHUA = Rules.load("anhua")


@pytest.fixture(scope="module")
def random_vs_greedy():
    return arena.run_arena(WANZAI, "random", "greedy", deals=300, seed=5)


@pytest.mark.parametrize("rules", [WANZAI, ANHUA], ids=["wanzai", "anhua"])
def test_identical_players_have_zero_edge_and_zero_width(rules):
    r = arena.run_arena(rules, "greedy", "greedy", deals=200, seed=3)
    assert (r.edge.mean, r.edge.low, r.edge.high, r.edge.se) == (0.0, 0.0, 0.0, 0.0)
    assert all((iv.low, iv.high) == (0.0, 0.0) for iv in r.edge_by_seat)
    assert all((iv.mean, iv.low, iv.high) == (0.0, 0.0, 0.0) for iv in r.differences.values())
    # the same play, so the same figures for the challenger and the baseline table
    c, b = r.challenger_stats, r.baseline_stats
    assert (c.win_rate, c.deal_in_rate, c.patterns) == (b.win_rate, b.deal_in_rate, b.patterns)
    assert 0.1 < c.win_rate < 0.4


def test_random_loses_clearly_against_greedy(random_vs_greedy):
    r = random_vs_greedy
    assert r.edge.high < -0.5                     # about -0.95 points per seat-hand
    assert r.edge.low < r.edge.mean < r.edge.high
    assert r.differences["won"].high < 0
    assert r.challenger_stats.win_rate < r.baseline_stats.win_rate
    assert r.challenger_stats.deal_in_rate > r.baseline_stats.deal_in_rate
    # zero-sum tables: the three baselines win what the challenger loses
    assert r.opponents_stats.net * 3 == pytest.approx(-r.challenger_stats.net)
    assert r.challenger_stats.seat_hands == 4 * 300 and r.opponents_stats.seat_hands == 12 * 300
    assert sum(r.challenger_stats.patterns.values()) == pytest.approx(1.0)


def test_interval_recomputed_from_the_per_deal_differences(random_vs_greedy):
    """The edge and its interval from the raw tables, via the per-deal mean differences
    (with one regressor the deal-clustered OLS interval is their t interval)."""
    from statsmodels.stats.weightstats import DescrStatsW

    r, deals = random_vs_greedy, 300
    deltas = []
    for players in [("random", "greedy", "greedy", "greedy"), ("greedy", "random", "greedy", "greedy"),
                    ("greedy", "greedy", "random", "greedy"), ("greedy", "greedy", "greedy", "random"),
                    ("greedy",) * 4]:
        hands, _ = game.simulate_chunk(WANZAI, players, 5, 0, deals, 1)
        deltas.append(np.stack([hands[f"delta_{s}"] for s in range(4)], axis=1).astype(float))
    diff = np.stack([deltas[j][:, j] - deltas[4][:, j] for j in range(4)], axis=1)
    d = DescrStatsW(diff.mean(axis=1))
    low, high = d.tconfint_mean(alpha=0.05)
    assert r.edge.mean == pytest.approx(diff.mean(), rel=1e-12)
    assert (r.edge.low, r.edge.high) == (pytest.approx(low, rel=1e-9), pytest.approx(high, rel=1e-9))
    assert r.edge.se == pytest.approx(d.std_mean, rel=1e-9)
    seat2 = DescrStatsW(diff[:, 2]).tconfint_mean()
    assert (r.edge_by_seat[2].low, r.edge_by_seat[2].high) == (pytest.approx(seat2[0]), pytest.approx(seat2[1]))


def test_rates_from_the_wins_table(random_vs_greedy):
    hands, wins = game.simulate_chunk(WANZAI, ("greedy",) * 4, 5, 0, 300, 1)
    won = {(int(h), int(w)) for h, w in zip(wins["hand_index"], wins["winner"])}
    dealt = {(int(h), int(d)) for h, d in zip(wins["hand_index"], wins["discarder"]) if d >= 0}
    b = random_vs_greedy.baseline_stats
    assert b.win_rate == len(won) / 1200
    assert b.deal_in_rate == len(dealt) / 1200
    claims = sum(hands[f"claims_{s}"].astype(int) for s in range(4))
    assert b.claims_per_hand == pytest.approx(claims.sum() / 1200)
    assert b.win_turn == pytest.approx(wins["turn"].mean())
    table = random_vs_greedy.tables["4x greedy"]
    assert table["draw_rate"] == np.mean(hands["end"] == 0)
    assert table["turns_per_seat"] == pytest.approx((hands["draws"] + claims + 1).mean() / 4)
    # greedy claims more often than random does
    assert random_vs_greedy.differences["claims"].high < 0


def test_same_result_for_any_workers_and_chunks(random_vs_greedy):
    two = arena.run_arena(WANZAI, "random", "greedy", deals=300, seed=5, workers=2, chunk=70)
    a, b = random_vs_greedy, two
    assert (a.edge, a.edge_by_seat, a.differences) == (b.edge, b.edge_by_seat, b.differences)
    assert (a.challenger_stats, a.baseline_stats, a.opponents_stats) == (b.challenger_stats, b.baseline_stats,
                                                                         b.opponents_stats)


def test_search_arenas_come_in_short_chunks():
    """A search table plays ~9 deals a second: its tasks hold about SLOW_CHUNK_SECONDS of
    work, so progress moves and Ctrl-C is seen within seconds (the result does not depend
    on the chunk, above)."""
    from mjsim.run import spec as runspec

    fast = arena._tables(arena.parse_player("random"), arena.parse_player("greedy"))
    assert arena._default_chunk(WANZAI, fast, 600) == 600
    assert arena._default_chunk(WANZAI, fast, 10_000) == arena.DEFAULT_CHUNK
    slow = arena._tables(arena.parse_player("search"), arena.parse_player("ev"))
    chunk = arena._default_chunk(WANZAI, slow, 600)
    assert 1 <= chunk < 600
    assert chunk == int(runspec.SLOW_CHUNK_SECONDS / runspec.table_seconds_per_hand(WANZAI, slow[0]))
    # a search baseline: its all-baseline table is the slowest
    assert arena._default_chunk(WANZAI, arena._tables(arena.parse_player("ev"), arena.parse_player("search")),
                                600) < chunk


def test_in_this_process_a_search_task_is_played_in_short_slices():
    """With one worker the tasks play in this process, where Ctrl-C is seen only when a
    native call returns: a search table's ~20 s task is played ~2 s at a time (Ctrl-C took
    17 s), with the same rows as in one call."""
    from mjsim.run import spec as runspec

    search_table = ("search", "ev", "ev", "ev")
    task = (1, WANZAI, search_table, 5, 40, 180)
    slice_deals = arena._slice_deals(task)
    assert slice_deals == int(runspec.SLOW_SLICE_SECONDS / runspec.table_seconds_per_hand(WANZAI, search_table))
    assert arena._slice_deals((0, WANZAI, ("greedy",) * 4, 5, 0, 5000)) == 5000     # fast: one call
    fast = (2, WANZAI, ("random", "greedy", "greedy", "greedy"), 5, 10, 30)
    whole, sliced = arena._play_chunk(fast), arena._play_chunk(fast, 7)
    assert whole[:2] == sliced[:2] == (2, 10) and whole[2].keys() == sliced[2].keys()
    for k in whole[2]:
        assert np.array_equal(whole[2][k], sliced[2][k]), k


def test_progress_counts_every_hand():
    seen = []
    arena.run_arena(WANZAI, "random", "random", deals=30, chunk=7, progress=lambda d, t: seen.append((d, t)))
    # a first report at 0 (progress shows from the start), then one per task
    assert seen[0] == (0, 150) and seen[-1] == (150, 150) and len(seen) == 1 + 5 * 5
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_parse_player_names_and_options():
    """The arena reads a player's options as every other command does
    (mjsim.players.options.split_name): the same keys, ranges and messages."""
    assert arena.parse_player("greedy") == arena.PlayerSpec("greedy")
    assert str(arena.parse_player(" random ")) == "random"
    for text, message in [("rando", "unknown player 'rando'"), ("", "a player is a name"),
                          ("greedy:fold=1", "player 'greedy' takes no options (only ev, ev_v1 and search do)"),
                          ("greedy,ev", "names several players where one is expected")]:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            arena.parse_player(text)
    spec = arena.parse_player("ev:fold=0.5, claim=2")
    assert spec.options == (("claim", 2.0), ("fold", 0.5))
    assert str(spec) == "ev:claim=2,fold=0.5"
    assert arena.parse_player(str(spec)) == spec
    for text, message in [("ev:fold=x", "fold must be a number 0..10, got 'x'"), ("ev:fold=1,fold=2", "given twice"),
                          ("ev:chase=1", "unknown option 'chase'"), ("ev:fold=nan", "fold must be a number"),
                          ("ev:fold=99", "fold must be a number 0..10, got '99'"),
                          ("ev:fold", "options are key=value pairs"), ("ev:", "options are key=value pairs"),
                          ("search:rollout=foo", "rollout must be one of ev, greedy, got 'foo'")]:
        with pytest.raises(ValueError, match=message):
            arena.parse_player(text)
        # the same words as simulate's (one parser)
        with pytest.raises(ValueError, match=message):
            options.split_name(text)


def test_ev_takes_a_model_file(tmp_path):
    """ev:model=FILE (a `mjsim fit-ev` file) is judged in the arena like any option, and
    reaches the players: the shipped model as a file plays exactly like plain ev."""
    from importlib import resources

    path = tmp_path / "m.json"
    path.write_text(resources.files("mjsim").joinpath("data/ev_model.json").read_text())
    spec = arena.parse_player(f"ev:model={path},fold=1.5")
    assert spec.options == (("fold", 1.5), ("model", str(path)))
    assert arena.parse_player(str(spec)) == spec
    with pytest.raises(ValueError, match="model file .* not found"):
        arena.parse_player(f"ev:model={tmp_path / 'none.json'}")
    same = arena.run_arena(WANZAI, f"ev:model={path}", "ev", deals=8, workers=1)
    assert same.edge.mean == 0 and same.edge.low == same.edge.high == 0


def test_bad_arguments():
    with pytest.raises(ValueError, match="--deals"):
        arena.run_arena(WANZAI, "greedy", deals=0)
    with pytest.raises(ValueError, match="rules must be"):
        arena.run_arena("wanzai", "greedy")
    with pytest.raises(ValueError, match="--workers"):
        arena.run_arena(WANZAI, "greedy", workers=-1)


def test_cli_arena(capsys):
    assert main(["arena", "random", "--deals", "40", "--no-progress", "--rules", "anhua", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "arena: random vs 3x ev, anhua" in out      # ev: the default baseline, as of simulate
    assert "edge (points per seat-hand): -" in out
    assert "cov_type='cluster' by deal" in out


def test_cli_arena_progress_off_a_terminal_is_plain_lines(capsys, monkeypatch):
    """Off a terminal (a log, a pipe) a rich bar showed nothing but an empty line: plain
    lines instead, every PROGRESS_EVERY seconds and one at the end, as simulate prints."""
    from mjsim.run import runner

    monkeypatch.setattr(runner, "PROGRESS_EVERY", 0.01)
    assert main(["arena", "random", "--baseline", "greedy", "--deals", "400", "--chunk", "20", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines and all(line.startswith("random vs 3x greedy: ") and "hands/s" in line for line in lines)
    assert lines[-1].startswith("random vs 3x greedy: 2,000/2,000 hands (100%)")


def test_slow_rates_keep_a_decimal():
    from mjsim.run import runner

    assert [runner.rate_text(r) for r in (0, 0.04, 3.14, 9.96, 12.4, 38046.2)] == [
        "0", "0.04", "3.1", "10.0", "12", "38,046"]


@pytest.mark.parametrize("args, message", [
    (["arena", "rando"], "unknown player 'rando'"),
    (["arena", "greedy", "--baseline", "greedy:fold=1"], "player 'greedy' takes no options"),
    (["arena", "[bold]x"], "unknown player '[bold]x'"),      # user text is never markup
    (["arena", "greedy", "--deals", "0"], "--deals must be 1 or more"),
    (["arena", "greedy", "--set", "birds=2"], "birds"),
])
def test_cli_arena_errors(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cluster_sums_equal_statsmodels_in_any_order():
    """The arena's exact per-deal sums give statsmodels' deal-clustered interval, whatever
    the order and cut of the deals they are added in."""
    rng = np.random.default_rng(11)
    diff = rng.integers(-40, 41, size=(500, 4)) * (rng.random((500, 4)) < 0.3)
    want = arena.clustered_mean(diff.astype(float))
    sums = arena._ClusterSums(4)
    for part in np.array_split(diff[rng.permutation(500)], 7):
        sums.add(part)
    got = sums.interval()
    assert got.mean == pytest.approx(want.mean, rel=1e-12)
    assert (got.low, got.high, got.se) == (pytest.approx(want.low, rel=1e-9), pytest.approx(want.high, rel=1e-9),
                                           pytest.approx(want.se, rel=1e-9))


def test_finished_chunks_are_reduced_and_dropped(monkeypatch):
    """Memory is bounded by the chunks in flight: a chunk's rows are reduced as soon as its
    five tables are in, never kept for the end."""
    held = []
    real = arena._Reducer.take

    def take(self, result):
        real(self, result)
        held.append(len(self.waiting))

    monkeypatch.setattr(arena._Reducer, "take", take)
    r = arena.run_arena(WANZAI, "random", "greedy", deals=120, seed=2, chunk=10, workers=1)
    assert len(held) == 5 * 12 and max(held) == 1 and held[-1] == 0
    assert r.challenger_stats.seat_hands == 480


def test_deals_that_all_differ_alike_have_no_interval():
    """Two deals that each moved by the same amount have no spread between deals: the
    difference gets no interval (it was [d, d]); an exact 0 keeps its zero-width one."""
    alike = np.array([[1, 0, 0, -2], [0, -1, 0, 0]])        # every deal sums to -1
    for got in (arena.clustered_mean(alike.astype(float)), _sums(alike).interval()):
        assert got.mean == -0.25 and math.isnan(got.low) and math.isnan(got.high)
    zero = np.array([[1, -1, 0, 0], [0, 0, 2, -2]])
    got = _sums(zero).interval()
    assert (got.mean, got.low, got.high) == (0.0, 0.0, 0.0)


def _sums(diff):
    sums = arena._ClusterSums(diff.shape[1])
    sums.add(diff)
    return sums


def test_a_player_without_a_win_has_no_self_draw_share():
    """A share of its wins is undefined without a win: NaN, printed n/a (it was 0.00%)."""
    sums = arena._PlayerSums(seat_hands=8, sums={"net": -9, "won": 0, "dealt_in": 2})
    assert math.isnan(sums.stats("random").self_draw_share)
