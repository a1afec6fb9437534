"""`mjsim balance`: the search on synthetic responses with known roots (no simulation),
the `property money` section against the wins table, the exact greedy case (Anhua 清一色's
share is m·A/(m·A + B) when the play does not depend on the multiplier), refusals, resume
and workers-independence on small real runs."""
from __future__ import annotations

import json
import math

import pyarrow.dataset as ds
import pytest

import mjsim
from cli_helpers import cli, one_line
from mjsim.run import balance as bal
from mjsim.run import runner
from mjsim.analysis import stats

ANHUA = mjsim.Rules.load("anhua")
WANZAI = mjsim.Rules.load("wanzai")
Z = 1.959963984540054


def _target(value=0.10, op="=", name="qingyise", section="property money"):
    return bal.Target(f"{section}:{name}{op}{value}", section, name, op, value)


def noisy_share(a=0.0017, b=1.0, sd=0.5, offset=0.0):
    """A monotone response m·a/(m·a + b) with a 95 % half-width 1.96·sd/√n, and a bias
    `offset`/√n that changes with n (as an estimate does), so that more hands move it."""
    calls = []

    def f(pos, n):
        calls.append((pos, n))
        m = pos[0]
        s = m * a / (m * a + b) + offset / math.sqrt(n)
        h = Z * sd / math.sqrt(n)
        return [(s, s - h, s + h)]

    f.calls = calls
    return f


# ------------------------------------------------------------------------------------
# The search, on synthetic responses


def test_bisection_finds_the_known_root_and_its_range():
    f = noisy_share()
    root = 0.10 * 1.0 / (0.9 * 0.0017)          # 65.36
    r = bal.search_1d(f, _target(), 1, 200, start=20_000, cap=1_000_000, chunk=20_000, range_evals=12)
    assert r.status == "ok"
    assert r.best == (65,)                      # |share(65) - 0.1| < |share(66) - 0.1|
    assert r.hands == 1_000_000
    (lo, hi), = r.range
    assert lo <= root <= hi
    # the range is exactly the positions whose interval contains the target at 1M hands
    inside = [m for m in range(1, 201) if f((m,), 1_000_000)[0][1] <= 0.1 <= f((m,), 1_000_000)[0][2]]
    assert (lo, hi) == (min(inside), max(inside)) and r.range_exact
    # bisection: far fewer candidates than the 200 values
    assert len({c.pos for c in r.evaluations}) < 15
    # with the default budget the ends may be interpolated, and then they are said to be
    f2 = noisy_share(sd=2.4)
    r = bal.search_1d(f2, _target(), 1, 200, start=20_000, cap=1_000_000, chunk=20_000)
    (lo, hi), = r.range
    inside = [m for m in range(1, 201) if f2((m,), 1_000_000)[0][1] <= 0.1 <= f2((m,), 1_000_000)[0][2]]
    assert abs(lo - min(inside)) <= 1 and abs(hi - max(inside)) <= 1
    if (lo, hi) != (min(inside), max(inside)):
        assert not r.range_exact


def test_bisection_stops_growing_once_the_pair_is_resolved():
    f = noisy_share(sd=0.01)
    r = bal.search_1d(f, _target(), 1, 200, start=20_000, cap=1_000_000, chunk=20_000)
    assert r.resolved and r.hands == 20_000 and r.best == (65,)
    assert r.range == [(65, 65)]
    assert max(n for _, n in f.calls) == 20_000


def test_a_decreasing_response_and_a_moving_estimate():
    # decreasing in the position, and the estimate drifts with n: the bracket is redone
    def f(pos, n):
        m = pos[0]
        s = 1.0 - m / 100 + 3.0 / math.sqrt(n)
        h = Z * 0.3 / math.sqrt(n)
        return [(s, s - h, s + h)]

    r = bal.search_1d(f, _target(0.5), 0, 100, start=1_000, cap=64_000, chunk=1_000)
    # at 64,000 hands the response is 1 - m/100 + 0.01186: closest to 0.5 at m = 51
    assert r.best == (51,) and r.hands == 64_000


def test_unreachable_target_names_the_closest_value():
    r = bal.search_1d(noisy_share(sd=0.01), _target(0.6), 1, 200, start=1_000, cap=4_000, chunk=1_000)
    assert r.status == "unreachable" and r.best == (200,)
    assert "no value in 1..200 meets" in r.message and "closest is 200" in r.message


def test_inequality_target_keeps_the_side():
    f = noisy_share(sd=0.01)
    r = bal.search_1d(f, _target(0.10, "<="), 1, 200, start=20_000, cap=20_000)
    assert r.best == (65,)          # share(65) < 0.1 < share(66)
    r = bal.search_1d(f, _target(0.10, ">="), 1, 200, start=20_000, cap=20_000)
    assert r.best == (66,)
    # every value meets it: the base value (preferred) is kept
    r = bal.search_1d(f, _target(0.9, "<="), 1, 200, start=20_000, cap=20_000, preferred=2)
    assert r.best == (2,) and r.status == "ok"


def test_optuna_two_parameters_two_targets():
    pytest.importorskip("optuna")
    # two shares, each set by its own parameter: the joint answer is (20, 40)
    def f(pos, n):
        h = Z * 0.05 / math.sqrt(n)
        return [(pos[0] / 200, pos[0] / 200 - h, pos[0] / 200 + h),
                (pos[1] / 400, pos[1] / 400 - h, pos[1] / 400 + h)]

    targets = [_target(0.10, name="a"), _target(0.10, name="b")]
    r = bal.search_optuna(f, targets, [("x", 1, 60), ("y", 1, 60)], hands=10_000, trials=60, seed=1)
    assert r.status == "ok"
    assert abs(r.best[0] - 20) <= 1 and abs(r.best[1] - 40) <= 1
    assert all(lo <= want <= hi for (lo, hi), want in zip(r.range, (20, 40)))


def test_optuna_names_a_conflict():
    pytest.importorskip("optuna")
    # both targets on one parameter, asking for two different values of it
    def f(pos, n):
        h = Z * 0.05 / math.sqrt(n)
        return [(pos[0] / 100, pos[0] / 100 - h, pos[0] / 100 + h)] * 2

    targets = [_target(0.10, name="a"), _target(0.50, name="b")]
    r = bal.search_optuna(f, targets, [("x", 1, 60)], hands=10_000, trials=60, seed=1)
    assert r.status == "conflict" and "may conflict" in r.message
    pareto = {p[0] for p in r.pareto}
    assert {10, 50} <= pareto          # both ends of the trade-off are on the Pareto set


# ------------------------------------------------------------------------------------
# Parsing


def test_parse_vary_and_targets():
    v = bal.parse_vary("values.qixiaodui=1..60", WANZAI)
    assert (v.kind, v.positions) == ("int", (1, 60))
    assert bal.apply(WANZAI, [v], [7])["values.qixiaodui"] == (7, 7)
    v1 = bal.parse_vary("values.qixiaodui[1]=2..9", WANZAI)
    assert bal.apply(WANZAI, [v1], [9])["values.qixiaodui"] == (5, 9)
    # two entries of one list varied together: both land (the second once replaced the first)
    v0 = bal.parse_vary("values.qixiaodui[0]=2..9", WANZAI)
    assert bal.apply(WANZAI, [v0, v1], [3, 9])["values.qixiaodui"] == (3, 9)
    with pytest.raises(ValueError, match="--vary values.qixiaodui and --vary values.qixiaodui\\[1\\] both set"):
        bal.apply(WANZAI, [v, v1], [3, 9])
    f = bal.parse_vary("fire=0..0.5", WANZAI)
    assert f.kind == "float" and f.value(500) == 0.25
    assert bal.apply(WANZAI, [f], [0.25])["fire"] == (0.25,) * 4
    t = bal.parse_targets(["score:dealer - non-dealer<=0", "pattern money:qixiaodui=6%"], "wanzai")
    assert t[0].key == ("score", "dealer − non-dealer") and t[0].op == "<="
    assert t[1].value == pytest.approx(0.06)
    assert bal.parse_targets(["property money:qingyise>=0.1"], "anhua")[0].key == ("property money", "qingyise")
    # a malformed choice names the key varied, not a placeholder
    with pytest.raises(ValueError, match="key 'wall_model': '\"flat,table' is not a valid TOML value"):
        bal.parse_vary('wall_model="flat,table', WANZAI)


# ------------------------------------------------------------------------------------
# Real runs (small)


def _wins(root):
    return ds.dataset(root / "wins", format="parquet", partitioning="hive").to_table().to_pylist()


@pytest.fixture(scope="module")
def anhua_greedy(tmp_path_factory):
    root = tmp_path_factory.mktemp("anhua_greedy") / "d"
    spec = runner.make_spec(ANHUA, players="greedy", hands=1600, session_hands=16, seed=5, chunk=1600)
    runner.run(spec, root, workers=1, progress=False)
    return root


def test_property_money_share_of_qingyise_matches_the_wins_table(anhua_greedy):
    s = stats.variant_stats(anhua_greedy)
    r = next(r for r in s.rates if r.key == ("property money", "qingyise"))
    wins = _wins(anhua_greedy)
    qys = sum(w["received"] for w in wins if "qingyise" in (w["properties"] or []))
    total = sum(w["received"] for w in wins)
    assert qys > 0
    assert r.count == qys and r.n == total
    assert r.freq == pytest.approx(qys / total)
    lo, hi = r.ci
    assert lo < r.freq < hi
    # the report shows the section (terminal and HTML)
    from rich.console import Console

    from mjsim.analysis import report

    console = Console(record=True, width=200)
    report.print_report([s], console)
    assert "Share of win money, by property" in console.export_text()
    assert "Share of win money, by property" in report.html_report([s])


def test_exact_greedy_case(anhua_greedy, tmp_path):
    """Under greedy the play does not depend on the 清一色 multiplier: with the same seed
    and hands, the share at m is m·A/(m·A + B), A = 清一色 money per unit of multiplier and
    B = the rest (from the dataset at the default ×2). The search must pick the integer
    whose exact share is closest to the target, and report that share."""
    wins = _wins(anhua_greedy)
    m0 = ANHUA["multipliers.qingyise"]
    A = sum(w["received"] for w in wins if "qingyise" in (w["properties"] or [])) / m0
    B = sum(w["received"] for w in wins if "qingyise" not in (w["properties"] or []))
    exact = lambda m: m * A / (m * A + B)  # noqa: E731
    want = min(range(1, 201), key=lambda m: abs(exact(m) - 0.10))
    v = bal.parse_vary("multipliers.qingyise=1..200", ANHUA)
    t = bal.parse_targets(["property money:qingyise=0.10"], "anhua")
    a = bal.balance(ANHUA, [v], t, players="greedy", out=tmp_path / "b", hands=1600, seed=5,
                    session_hands=16, chunk=1600, workers=1)
    assert a.best == {"multipliers.qingyise": want}
    est, lo, hi = a.best_estimates[0]
    assert est == pytest.approx(exact(want), rel=1e-9)
    # every evaluated candidate lies on the exact curve
    for c in a.result.evaluations:
        assert c.est[0][0] == pytest.approx(exact(c.pos[0]), rel=1e-9)
    rng = a.range["multipliers.qingyise"]
    assert rng[0] <= want <= rng[1]


def test_search_players_get_short_chunks_and_the_same_first_step():
    """With search seats (about 9 Wanzai hands a second each) a chunk of thousands of hands
    is minutes that Ctrl-C waits for and loses: the default chunk is about
    SLOW_CHUNK_SECONDS of work, as in simulate, while the first step keeps its size (in
    whole chunks) and --hands is the cap in whole chunks."""
    from mjsim.run.spec import SLOW_CHUNK_SECONDS

    cost = 0.11                                     # one Wanzai search seat (players.search)
    fast_chunk, fast_start, _ = bal.hands_plan(400_000, 16)
    chunk, start, cap = bal.hands_plan(400_000, 16, cost=cost)
    assert chunk == int(SLOW_CHUNK_SECONDS / cost) // 16 * 16 < fast_chunk
    assert start % chunk == 0 and fast_start <= start < fast_start + chunk
    assert cap == 400_000 // chunk * chunk
    # a first step of all of --hands stays within --hands
    chunk, start, cap = bal.hands_plan(1_600, 16, cost=cost)
    assert start == cap == 1_600 // chunk * chunk
    # --chunk given wins over the cost: it is the step, as before
    assert bal.hands_plan(400_000, 16, 800, cost=cost)[:2] == (800, 800)


def test_balance_plays_a_search_population_in_short_chunks(tmp_path):
    """balance() sizes the chunks from the population it plays (a search seat's cost)."""
    from mjsim.players import search as searchplayer
    from mjsim.rulesets.rules import Rules

    seen = []

    class Stop(Exception):
        pass

    def run_step(spec):
        seen.append(spec)
        raise Stop

    base = Rules.load("wanzai")
    v = bal.parse_vary("values.qixiaodui=1..60", base)
    t = bal.parse_targets(["pattern money:qixiaodui=0.06"], "wanzai")
    with pytest.raises(Stop):
        bal.balance(base, [v], t, players="search,greedy,greedy,greedy", out=tmp_path / "b", hands=64_000,
                    run_step=run_step)
    spec, = seen
    chunk, start, _ = bal.hands_plan(64_000, 16, cost=searchplayer.seconds_per_hand("wanzai", {}))
    assert spec.chunk == chunk < 1_000 and spec.hands == start >= 4_000


def _balance_args(out, *extra):
    return ["balance", "--rules", "anhua", "--vary", "multipliers.qingyise=30..150",
            "--target", "property money:qingyise=0.10", "--hands", "1600", "--chunk", "800",
            "--seed", "5", "--out", out, "--no-progress", "--players", "greedy", *extra]


def test_cli_outputs_resume_and_workers(capsys, tmp_path):
    out1, out2 = tmp_path / "w1", tmp_path / "w2"
    code, stdout, err = cli(capsys, *_balance_args(out1, "-w", "1", "--json", tmp_path / "a.json",
                                                   "--write", tmp_path / "chosen.toml"))
    assert code == 0, err
    first = json.loads((tmp_path / "a.json").read_text())
    m = first["best"]["multipliers.qingyise"]
    assert 30 <= m <= 150
    assert first["targets"][0]["interval"][0] <= first["targets"][0]["estimate"] <= first["targets"][0]["interval"][1]
    assert "multipliers.qingyise = " in stdout and "at 95%" in stdout
    html = (out1 / "balance.html").read_text()
    assert "data:image/png;base64," in html
    # the written rules load with --rules and hold the chosen value
    assert mjsim.Rules.load(tmp_path / "chosen.toml")["multipliers.qingyise"] == m
    # resume: the same command plays nothing new and gives the same answer
    before = sorted(p.name for p in (out1 / "hands").rglob("*.parquet"))
    code, _, err = cli(capsys, *_balance_args(out1, "-w", "1", "--json", tmp_path / "b.json"))
    assert code == 0, err
    assert json.loads((tmp_path / "b.json").read_text())["populations"] == first["populations"]
    assert sorted(p.name for p in (out1 / "hands").rglob("*.parquet")) == before
    # without the search's state the data is read back: still the same answer
    (out1 / bal.STATE_FILE).unlink()
    code, _, err = cli(capsys, *_balance_args(out1, "-w", "1", "--json", tmp_path / "c.json"))
    assert code == 0, err
    assert json.loads((tmp_path / "c.json").read_text())["populations"] == first["populations"]
    # two workers: the same answer to the last digit
    code, _, err = cli(capsys, *_balance_args(out2, "-w", "2", "--json", tmp_path / "d.json"))
    assert code == 0, err
    assert json.loads((tmp_path / "d.json").read_text())["populations"] == first["populations"]


def _rerun(capsys, tmp_path, out, *, seed="5", players="greedy", extra=()):
    args = ["balance", "--rules", "anhua", "--vary", "multipliers.qingyise=30..150",
            "--target", "property money:qingyise=0.10", "--hands", "1600", "--chunk", "800",
            "--seed", seed, "--out", out, "--no-progress", "--players", players, "-w", "1", *extra]
    return cli(capsys, *args)


@pytest.mark.parametrize("change, message", [
    ({"seed": "6"}, "--seed 5 (now 6)"),
    ({"players": "random"}, "--players"),
    ({"extra": ("--set", "birds=2")}, "--rules/--set"),
])
def test_a_rerun_made_otherwise_is_refused_not_read_from_the_cache(capsys, tmp_path, change, message):
    """The search's state keeps estimates per candidate and step; a rerun with another
    seed, players or rules must not read them back as its own answer (it once printed the
    first run's answer and wrote it into --write's rules)."""
    out = tmp_path / "b"
    code, _, err = _rerun(capsys, tmp_path, out)
    assert code == 0, err
    before = sorted(p.name for p in out.rglob("*.parquet"))
    code, stdout, err = _rerun(capsys, tmp_path, out, **change)
    assert code == 2, stdout
    assert "already holds variant" in one_line(err) and message in one_line(err)
    assert sorted(p.name for p in out.rglob("*.parquet")) == before


def _qxd(out, *sizes):
    """A Wanzai search with progress on (the default), as a user runs it."""
    return ["balance", "--vary", "values.qixiaodui=1..60", "--target", "pattern money:qixiaodui=0.06",
            "--players", "greedy", "-w", "1", "--out", out, *sizes]


def test_a_rerun_with_another_chunk_is_one_line_in_balance_terms(capsys, tmp_path, monkeypatch):
    """Another --chunk: one line naming it with the user's numbers, not a blank line (the
    progress display closing off a terminal) and not '--hands 1600 (now 400)', the search's
    own step sizes; another --hands with the same --chunk resumes."""
    monkeypatch.setattr(runner, "SIMULATOR", "fake_game:simulate_chunk")
    out = tmp_path / "b"
    code, _, err = cli(capsys, *_qxd(out, "--hands", "1600", "--chunk", "800"))
    assert code == 0 and "\n\n" not in "\n" + err, err
    before = sorted(p.name for p in out.rglob("*.parquet"))
    code, _, err = cli(capsys, *_qxd(out, "--hands", "1600", "--chunk", "400"))
    assert code == 2
    assert one_line(err) == (f"error: {out} already holds variant values.qixiaodui=1 made with --chunk 800 (now "
                             f"400): rerun with those settings to resume, or choose another --out")
    assert sorted(p.name for p in out.rglob("*.parquet")) == before
    code, _, err = cli(capsys, *_qxd(out, "--hands", "3200", "--chunk", "800"))
    assert code == 0, err


def test_another_hands_without_chunk_names_the_chunk_it_gave(capsys, tmp_path, monkeypatch):
    """Without --chunk the chunk follows --hands: a rerun with another --hands is refused
    naming that, and resumes with the first run's chunk."""
    monkeypatch.setattr(runner, "SIMULATOR", "fake_game:simulate_chunk")
    out = tmp_path / "b"
    assert cli(capsys, *_qxd(out, "--hands", "1600"))[0] == 0
    code, _, err = cli(capsys, *_qxd(out, "--hands", "3200"))
    assert code == 2
    assert one_line(err) == (f"error: {out} already holds variant values.qixiaodui=1 made with --chunk 1600 (now "
                             f"3200, the default for --hands 3200): rerun with --chunk 1600 to resume with this "
                             f"--hands, or choose another --out")
    code, _, err = cli(capsys, *_qxd(out, "--hands", "3200", "--chunk", "1600"))
    assert code == 0, err


def test_progress_off_a_terminal_is_plain_lines(capsys):
    """Off a terminal the search's progress is a plain line (at most every 10 s), never a
    rich bar, which left an empty line behind when it stopped."""
    from mjsim.cli.balance import _progress_lines

    say = _progress_lines(every=0)
    say("values.qixiaodui=1", 800, 0)
    say("values.qixiaodui=60", 800, 800)
    assert capsys.readouterr().err == ("candidate 1: values.qixiaodui=1, 800 hands (0 played so far)\n"
                                       "candidate 2: values.qixiaodui=60, 800 hands (800 played so far)\n")
    quiet = _progress_lines()
    quiet("values.qixiaodui=1", 800, 0)          # the first candidate is said at once (a search
    quiet("values.qixiaodui=60", 800, 800)       # step can take minutes), the next within 10 s not
    assert capsys.readouterr().err == "candidate 1: values.qixiaodui=1, 800 hands (0 played so far)\n"


def test_search_steps_off_a_terminal_print_the_runners_lines(monkeypatch):
    """A step of search players takes minutes: off a terminal it prints the runner's lines
    every 10 s; a step of fast players (seconds) does not add lines."""
    from mjsim.cli import balance as cli_balance

    base = mjsim.Rules.load("wanzai")
    slow = runner.make_spec(base, players="search,ev,ev,ev", hands=4000, chunk=176 * 2, session_hands=16)
    fast = runner.make_spec(base, players="ev", hands=400_000)
    assert cli_balance._step_lines(slow) and not cli_balance._step_lines(fast)


def test_the_cost_note_counts_the_candidates_a_search_plays(capsys, monkeypatch):
    """One candidate of 4,000 search hands is about 7 CPU-minutes, under the 10-minute
    threshold, but a search plays at least ten: the note is printed."""
    from mjsim.cli import common

    common._note_slow_work(440.0, "each candidate's 4,000 hands at most", 1, "local", "(...)", times=10)
    assert "note: search players need about 7 minutes of CPU for each candidate" in capsys.readouterr().err
    common._note_slow_work(440.0, "these hands", 1, "local", "(...)")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("state", ["[]", '{"multipliers.qingyise=90": 5}', '{"x": {"1600": [1, 2]}}',
                                   "not json"])
def test_a_malformed_state_file_is_rebuilt_from_the_data(capsys, tmp_path, state):
    out = tmp_path / "b"
    code, _, err = _rerun(capsys, tmp_path, out, extra=("--json", tmp_path / "a.json"))
    assert code == 0, err
    (out / bal.STATE_FILE).write_text(state)
    code, _, err = _rerun(capsys, tmp_path, out, extra=("--json", tmp_path / "b.json"))
    assert code == 0, err
    first, again = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert again["populations"] == first["populations"]
    assert json.loads((out / bal.STATE_FILE).read_text())     # rewritten as a state again


def simulate_interrupted_at_150(rules, players, seed, start, count, session_hands, payments=False):
    """The FAKE game, but Ctrl-C is pressed when the search plays its second candidate."""
    import fake_game

    if rules["multipliers.qingyise"] == 150 and count > 0:     # not the zero-hand contract check
        raise KeyboardInterrupt
    return fake_game.simulate_chunk(rules, players, seed, start, count, session_hands, payments)


def test_an_interrupted_search_says_which_step_and_resumes(capsys, tmp_path, monkeypatch):
    """Ctrl-C within a step: one line naming the candidate of the step and saying the
    finished steps are kept; the same command then gives the uninterrupted answer (the
    FAKE game throughout: the mechanics under test do not depend on mahjong)."""
    monkeypatch.setattr(runner, "SIMULATOR", "test_balance:simulate_interrupted_at_150")
    out = tmp_path / "b"
    code, _, err = _rerun(capsys, tmp_path, out)
    assert code == 130
    line = one_line(err)
    assert line.startswith("interrupted in the step of multipliers.qingyise=150 (0 of 1 of its chunks")
    assert "every finished step of the search is kept" in line
    monkeypatch.setattr(runner, "SIMULATOR", "fake_game:simulate_chunk")
    code, _, err = _rerun(capsys, tmp_path, out, extra=("--json", tmp_path / "a.json"))
    assert code == 0, err
    code, _, err = _rerun(capsys, tmp_path, tmp_path / "fresh", extra=("--json", tmp_path / "b.json"))
    assert code == 0, err
    first, fresh = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert first["populations"] == fresh["populations"]


def test_unreachable_target_is_one_flagged_line_and_exit_0(capsys, tmp_path):
    code, stdout, err = cli(capsys, "balance", "--rules", "anhua", "--vary", "multipliers.qingyise=1..3",
                            "--target", "property money:qingyise=0.9", "--hands", "800", "--seed", "5",
                            "--out", tmp_path / "u", "--no-progress", "--json", tmp_path / "u.json")
    assert code == 0, err
    assert "UNREACHABLE" in stdout and "no value in 1..3 meets" in stdout
    data = json.loads((tmp_path / "u.json").read_text())
    assert data["status"] == "unreachable" and data["best"] == {"multipliers.qingyise": 3}


@pytest.mark.parametrize("args, message", [
    (["--vary", "nosuch=1..3"], "nosuch"),
    (["--vary", "multipliers.qingyise=5"], "give a range LO..HI or at least two choices"),
    (["--vary", "multipliers.qingyise"], "expected KEY=LO..HI"),
    (["--vary", "multipliers.qingyise=9..3"], "LO < HI"),
    (["--vary", "multipliers.qingyise=-4..3"], "multipliers.qingyise"),
    (["--vary", "multipliers.qingyise[1]=1..3"], "not a list"),
    (["--vary", "multipliers.qingyise=1..100000000"], "does not fit in a signed 32-bit integer"),
    (["--target", "property money:nosuch=0.1"], "unknown measure 'nosuch'"),
    (["--target", "nosection:qingyise=0.1"], "unknown section"),
    (["--target", "property money qingyise 0.1"], "expected \"SECTION:MEASURE OP VALUE\""),
    (["--target", "property money:qingyise=ten"], "is not a number"),
])
def test_refusals_are_one_line_and_exit_2(capsys, tmp_path, args, message):
    base = {"--vary": "multipliers.qingyise=1..200", "--target": "property money:qingyise=0.1"}
    base[args[0]] = args[1]
    code, _, err = cli(capsys, "balance", "--rules", "anhua", "--vary", base["--vary"], "--target",
                       base["--target"], "--hands", "800", "--out", tmp_path / "r", "--no-progress")
    assert code == 2
    assert message in one_line(err)
    assert not (tmp_path / "r").exists()      # refused before any work


@pytest.mark.parametrize("option, value", [("--chunk", "0"), ("--chunk", "-16"), ("--chunk", "24"),
                                           ("--chunk", "2000000"), ("--session-hands", "0"),
                                           ("--session-hands", "200000"), ("--hands", "0"),
                                           ("--hands", "100")])
def test_sizes_are_refused_as_simulate_refuses_them(capsys, tmp_path, option, value):
    sizes = {"--hands": "1600", "--session-hands": "16", option: value}
    sizes = [x for kv in sizes.items() for x in kv]
    code, _, err = cli(capsys, "simulate", *sizes, "--out", tmp_path / "s", "--no-progress")
    assert code == 2
    simulate_line = one_line(err)
    assert simulate_line.startswith(f"error: {option}")
    code, _, err = cli(capsys, "balance", "--rules", "anhua", "--vary", "multipliers.qingyise=1..200",
                       "--target", "property money:qingyise=0.1", *sizes, "--out", tmp_path / "r",
                       "--no-progress")
    assert code == 2
    assert one_line(err) == simulate_line
    assert not (tmp_path / "r").exists()      # refused before any work


def test_several_populations_side_by_side(capsys, tmp_path):
    code, stdout, err = cli(capsys, "balance", "--rules", "anhua", "--vary", "multipliers.qingyise=30..150",
                            "--target", "property money:qingyise=0.10", "--hands", "800", "--seed", "5",
                            "--players", "greedy", "--players", "random", "--out", tmp_path / "p",
                            "--no-progress", "--json", tmp_path / "p.json")
    assert code == 0, err
    assert "answers side by side" in stdout
    data = json.loads((tmp_path / "p.json").read_text())
    assert [p["players"] for p in data["populations"]] == [["greedy"] * 4, ["random"] * 4]
    # one dataset: each population's candidates are variants of their own
    variants = stats.variants(tmp_path / "p")
    assert any(v.endswith("[greedy,greedy,greedy,greedy]") for v in variants)
    assert any(v.endswith("[random,random,random,random]") for v in variants)
    assert data["best"] == data["populations"][0]["best"]


def test_a_measure_without_estimate_is_flagged_not_guessed():
    def f(pos, n):
        return [(math.nan, math.nan, math.nan)]

    r = bal.search_1d(f, _target(), 1, 200, start=1_000, cap=4_000, chunk=1_000)
    assert r.status == "unreachable" and "has no estimate" in r.message and r.hands == 4_000


def test_json_best_is_the_value_written_into_the_rules(tmp_path):
    from types import SimpleNamespace

    v, v1 = bal.parse_vary("values.qixiaodui=1..60", WANZAI), bal.parse_vary("values.daqidui[0]=1..9", WANZAI)
    t = bal.parse_targets(["pattern money:qixiaodui=0.06"], "wanzai")
    result = bal.SearchResult((11, 4), 4000, [bal.Candidate((11, 4), 4000, [(0.06, 0.05, 0.07)])], [(10, 12), (4, 4)])
    a = bal.Balance(("greedy",) * 4, [v, v1], t, result, SimpleNamespace(base=WANZAI))
    data = json.loads(bal.write_json(tmp_path / "a.json", [a]).read_text())
    assert data["best"] == {"values.qixiaodui": [11, 11], "values.daqidui[0]": 4}
    rules = mjsim.Rules.load(bal.write_rules(tmp_path / "r.toml", a.rules(WANZAI)))
    assert list(rules["values.qixiaodui"]) == data["best"]["values.qixiaodui"]
    assert rules["values.daqidui"][0] == 4 and rules["values.daqidui"][1] == WANZAI["values.daqidui"][1]
    assert data["targets"][0]["estimate"] == 0.06 and data["targets"][0]["interval"] == [0.05, 0.07]


def test_summary_claims_a_resolved_answer_only_when_it_is():
    """The summary line says the neighbours are told apart from the target at 95% only when
    the search resolved them: not at the end of the range (where the chosen value's own
    interval holds the target) and not when --hands ran out first."""
    from types import SimpleNamespace

    from mjsim.run.balance.output import summary_line

    v = bal.parse_vary("multipliers.qingyise=1..200", ANHUA)

    def line(f, target, cap):
        r = bal.search_1d(f, target, 1, 200, start=1_000, cap=cap, chunk=1_000)
        return r, summary_line(bal.Balance(("greedy",) * 4, [v], [target], r, SimpleNamespace(base=ANHUA)))

    # the end of the range: 1's interval contains the target, which lies beyond the range
    r, text = line(noisy_share(sd=0.5), _target(0.0016, "<="), 4_000)
    assert r.status == "undecided" and "end of the range" in r.message and not r.resolved
    assert "told apart" not in text
    # --hands runs out before the pair either side of the answer is resolved
    r, text = line(noisy_share(sd=3.0), _target(0.10, "<="), 2_000)
    assert r.status == "ok" and not r.resolved and not r.message
    assert "not resolved" in text and "are told apart" not in text and "each told apart" not in text
    # resolved: then it says so
    r, text = line(noisy_share(sd=0.01), _target(0.10, "<="), 20_000)
    assert r.resolved and "(the values either side are told apart from the target at 95%)" in text


def test_an_inequality_not_met_at_the_end_of_the_range_is_undecided():
    """'>= 0.2' where the best value's estimate is below 0.2 but its interval holds it: not
    'ok' (the target is not met), not 'unreachable' (not ruled out): undecided, flagged."""
    from types import SimpleNamespace

    from mjsim.run.balance.output import summary_line

    v = bal.parse_vary("multipliers.qingyise=1..200", ANHUA)
    target = _target(0.2, ">=")
    r = bal.search_1d(noisy_share(a=0.001, sd=2.0), target, 1, 200, start=1_000, cap=2_000, chunk=1_000)
    est = max((c for c in r.evaluations if c.pos == r.best), key=lambda c: c.hands).est[0]
    assert est[0] < 0.2 <= est[2] and r.best == (200,)
    assert r.status == "undecided" and "neither met nor ruled out" in r.message
    line = summary_line(bal.Balance(("greedy",) * 4, [v], [target], r, SimpleNamespace(base=ANHUA)))
    assert line.startswith("UNDECIDED: ")
    # every value meets '<= 0.5': the summary says so, not that they cannot be told apart
    t2 = _target(0.5, "<=")
    r2 = bal.search_1d(noisy_share(sd=0.01), t2, 1, 200, start=1_000, cap=2_000, chunk=1_000, preferred=2)
    line = summary_line(bal.Balance(("greedy",) * 4, [v], [t2], r2, SimpleNamespace(base=ANHUA)))
    assert "(every value of multipliers.qingyise 1..200 meets the target)" in line and "told apart" not in line


def test_no_interval_at_the_end_of_the_range_is_said_so():
    """Too few hands leave the interval's ends NaN (a share with no win of the pattern): the
    answer is undecided and the line says there is no interval yet, not that one contains
    the target."""
    def f(pos, n):
        return [(0.0, math.nan, math.nan)]

    r = bal.search_1d(f, _target(0.06, "=", "qixiaodui", "pattern money"), 1, 60, start=96, cap=96, chunk=96)
    assert r.status == "undecided" and r.best == (1,)
    assert "1 gives 0 with no 95% interval yet (96 hands are too few)" in r.message
    assert "more --hands may decide it" in r.message and "interval contains" not in r.message


def test_no_interval_inside_the_range_is_undecided_not_contained():
    """The estimates cross the target inside the range, but the pair either side has no
    interval even at the last --hands (NaN ends: too few wins of the pattern). Bisection
    used to read such a pair as "contains the target" and report an ok range of values that
    "cannot be told apart"; an interval that does not exist contains nothing."""
    def f(pos, n):
        p = pos[0]
        return [(p / 100, math.nan, math.nan) if 40 <= p <= 45 else (p / 100, p / 100 - 0.001, p / 100 + 0.001)]

    r = bal.search_1d(f, _target(0.425, "=", "qixiaodui", "pattern money"), 1, 60, start=96, cap=192, chunk=96)
    assert r.status == "undecided" and not r.resolved and not r.range_exact
    assert r.best in ((42,), (43,)) and r.range == [(42, 43)]
    assert "no 95% interval yet (192 hands are too few)" in r.message and "contains" not in r.message
    # with intervals everywhere the same search is decided, and the range is exact
    def g(pos, n):
        p = pos[0]
        return [(p / 100, p / 100 - 0.001, p / 100 + 0.001)]

    r = bal.search_1d(g, _target(0.425, "=", "qixiaodui", "pattern money"), 1, 60, start=96, cap=192, chunk=96)
    assert r.status == "ok" and r.resolved and r.range in ([(42, 42)], [(43, 43)])


def test_a_range_edge_stops_at_a_value_with_no_interval():
    """Walking out from the answer to find the values whose interval contains the target, a
    value with no interval is not counted as containing it: the walk stops there, and the
    range is marked as not exact."""
    def f(pos, n):
        p = pos[0]
        if p >= 46:
            return [(p / 100, math.nan, math.nan)]
        return [(p / 100, p / 100 - 0.05, p / 100 + 0.05)]

    r = bal.search_1d(f, _target(0.425, "=", "qixiaodui", "pattern money"), 1, 60, start=96, cap=96, chunk=96)
    assert r.status == "ok"
    (low, high), = r.range
    assert high < 46 and not r.range_exact


def test_the_first_step_is_as_the_help_and_the_guide_say(capsys):
    """The first step is one chunk: --chunk, else --hands/64, at least 4,000 (all of --hands
    if fewer), at most 20,000; the guide once gave the default as every first step and the
    help left out the 4,000."""
    from pathlib import Path

    assert bal.hands_plan(400_000, 16, 800)[1] == 800                  # --chunk given: one chunk
    assert bal.hands_plan(64_000, 16)[1] == 4_000                      # /64 is 1,000: at least 4,000
    assert bal.hands_plan(1_600, 16)[1] == 1_600                       # all of --hands if fewer
    assert bal.hands_plan(6_400_000, 16)[1] == 20_000                  # /64 is 100,000: at most 20,000
    assert bal.hands_plan(512_000, 16)[1] == 8_000                     # /64 exactly
    code, out, _ = cli(capsys, "balance", "--help")
    help_text = " ".join(out.replace("│", " ").split())
    guide = " ".join((Path(__file__).resolve().parents[1] / "docs" / "guide" / "balance.md").read_text().split())
    assert code == 0
    assert ("first step is one chunk" in help_text and "--hands/64, at least 4,000 (all of --hands if fewer), "
            "at most 20,000" in help_text)
    assert "step: one chunk, `--chunk` hands, by default `--hands`/64, at least 4,000, at most 20,000" in guide
