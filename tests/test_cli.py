"""The `mjsim` command: output for a person, and one-line errors with exit status 2."""
import json

import pytest

from mjsim.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_hand_shows_evaluation_shanten_and_waits(capsys):
    code, out, _ = run(capsys, "hand", "147m258p9s1234567z")
    assert code == 0 and "qixing_shisanlan" in out and "4 per payer" in out
    code, out, _ = run(capsys, "hand", "1112345678999m")
    assert code == 0 and "waits" in out and "123456789m" in out
    code, out, _ = run(capsys, "hand", "--rules", "anhua", "--wild", "1p", "--chinese", "22335566778899m")
    assert code == 0 and "yingzhuang" in out and "16" in out and "二萬" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (("hand", "11x2m"), "unknown tile character 'x'"),
        (("hand", "--rules", "wanzaii", "123m"), "did you mean 'wanzai'"),
        (("hand", "--set", "brids=2", "123m"), "unknown key 'brids'"),
        (("hand", "1111m"), "must have 13 or 14"),
        (("hand", "--rules", "anhua", "123456789m12345p"), "indicator"),
        (("replay", "--players", "greedy,foo"), "exactly 4"),
        (("replay", "--players", "greedy,greedy,smart,greedy"), "unknown player 'smart'"),
        (("hand", "--set", "honor_chow=false", "--melds", "chow:1z2z3z", "1234567m23p45s"),
         "meld #1: 123z is an honor chow, and honor_chow = false: honor runs may not be chowed"),
        (("hand", "--set", "honor_chow=false", "--melds", "pung:111m,chow:東南西", "--discard", "--win-tile", "1p",
          "11p2345s"), "meld #2: 123z is an honor chow"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_replay_prints_every_event_and_explains_payments(capsys):
    code, out, _ = run(capsys, "replay", "--seed", "3", "--hand", "5", "--set", "piao=[1,2,1,0]", "--players", "greedy")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("wanzai hand 5")
    assert any("WINS" in l for l in lines)
    # every win payment line carries an explanation whose total is the amount paid
    from mjsim import Rules
    from mjsim.play import game

    record = game.play(Rules.load("wanzai", piao=[1, 2, 1, 0]), seed=3, hand_index=5, session_hands=16)
    paid = [l for l in lines if "(win)" in l]
    assert len(paid) == sum(1 for e in record.events if e.kind == "payment" and e.reason == "win") > 0
    for l in paid:
        amount = int(l.split(" pays seat ")[1].split()[1])
        assert "+ piao" in l and l.rstrip().endswith(f"= {amount}]")
    assert lines[-2] == f"result: {record.end}; score " + " ".join(f"{d:+d}" for d in record.deltas)


def test_replay_anhua_shows_wilds_birds_and_factor_products(capsys):
    from mjsim import Rules
    from mjsim.play import game

    rules = Rules.load("anhua")
    for hand in range(40):
        code, out, _ = run(capsys, "replay", "--rules", "anhua", "--seed", "2", "--hand", str(hand), "--players", "greedy")
        assert code == 0
        record = game.play(rules, seed=2, hand_index=hand, session_hands=16)
        assert f"turned-up tile {record.wild_indicator}" in out
        for w in record.wins:
            for payer, amount, factor in w.payments:
                # each win payment line shows a factor product equal to the amount paid
                line = next(l for l in out.splitlines() if f"seat {payer} pays seat {w.winner} {amount} (win)" in l)
                assert line.rstrip().endswith(f"= {amount}]") or "capped" in line
                assert ("bird" in line) == (factor > 1)
        birds = [e for e in record.events if e.kind == "bird"]
        assert out.count(" points at seat ") == len(birds)


def test_replay_defaults_to_row_n_of_a_default_simulate_run(capsys):
    """`replay --seed 7 --hand 12` is row 12 of `simulate --seed 7` (both: 16 hands a session)."""
    from mjsim import Rules
    from mjsim.play import game
    from mjsim.run import runner

    assert runner.DEFAULT_SESSION_HANDS == 16
    assert runner.DEFAULT_PLAYERS == "ev"
    hands, _ = game.simulate_chunk(Rules.load("wanzai"), (runner.DEFAULT_PLAYERS,) * 4, 7, 0, 16,
                                   runner.DEFAULT_SESSION_HANDS)
    code, out, _ = run(capsys, "replay", "--seed", "7", "--hand", "12")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "wanzai hand 12 (rules wanzai, session of 16)"
    assert lines[1].startswith(f"dealer seat {hands['dealer'][12]}; dice ") and lines[1].endswith(f"= {hands['dice'][12]}")
    score = " ".join(f"{int(hands[f'delta_{s}'][12]):+d}" for s in range(4))
    assert lines[-2].endswith(f"score {score}")
    # and the session length 1 of the old default gives another hand here
    one = game.play(Rules.load("wanzai"), seed=7, hand_index=12, session_hands=1, players=("ev",) * 4)
    assert tuple(int(hands[f"delta_{s}"][12]) for s in range(4)) != one.deltas or \
        int(hands["dealer"][12]) != one.dealer


def test_replay_takes_every_64_bit_seed_and_refuses_beyond(capsys):
    code, out, _ = run(capsys, "replay", "--seed", str(2**64 - 1), "--hand", "3")
    assert code == 0 and out.startswith("wanzai hand 3")
    for argv, message in [
        (("replay", "--seed", str(2**64)), "--seed must be at most 18,446,744,073,709,551,615"),
        (("replay", "--seed", "-1"), "--seed must be 0 or more"),
        (("replay", "--session-hands", "1000000000"), "--session-hands must be at most 100,000"),
    ]:
        code, _, err = run(capsys, *argv)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_scheduler_timeout_help_states_the_default_the_runner_uses():
    from mjsim.cli.common import _RUN_HELP
    from mjsim.run.backends.dask import DASK_CONNECT_SECONDS

    assert f"(default {DASK_CONNECT_SECONDS:g})" in _RUN_HELP["scheduler_timeout"]


def test_hand_without_the_anhua_indicator_names_the_option(capsys):
    from cli_helpers import cli, one_line

    code, _, err = cli(capsys, "hand", "--rules", "anhua", "22335566778899m")
    assert code == 2
    assert one_line(err) == "error: anhua needs the turned-up wild indicator tile: give it as --wild, e.g. --wild 3s"


@pytest.mark.parametrize("argv, line", [
    (("--wild", "1p"), "wanzai has no wilds: leave out --wild"),
    (("--context", ""), "--context must be one of gangshanghua, qiangganghu, gangshangpao, got ''"),
    (("--context", "gangshanghua", "--discard"),
     "--context gangshanghua is a win on one's own draw after a kong: leave out --discard"),
    (("--context", "qiangganghu"), "--context qiangganghu is a win on another player's tile: add --discard"),
    (("--win-tile", "9z"), "--win-tile: honor 'z' rank 9 at position 0 of '9z' is not 1..7"),
    (("--rules", "anhua", "--wild", "9z"), "--wild: honor 'z' rank 9 at position 0 of '9z' is not 1..7"),
    (("--rules", "anhua", "--wild", "1z"), "--wild: the wild indicator must be a suited tile, got 1z"),
    (("--melds", "pung:111m"), "hand has 14 concealed tiles; with 1 meld it must have 10 or 11"),
])
def test_hand_errors_name_the_option_typed(capsys, argv, line):
    """Not the Python API's keywords (wild=, context=, self_draw=)."""
    from cli_helpers import cli, one_line

    code, _, err = cli(capsys, "hand", "123456789m123p11s", *argv)
    assert code == 2 and one_line(err) == f"error: {line}"


def test_hand_too_many_copies_reads_as_english(capsys):
    from cli_helpers import cli, one_line

    code, _, err = cli(capsys, "hand", "1111111111m", "--melds", "pung:111m")
    assert code == 2 and one_line(err) == "error: the hand with its melds holds 13 copies of 1m; only 4 exist"


def test_mjsim_alone_prints_the_help_and_no_empty_error(capsys):
    code, out, err = run(capsys)
    assert code == 2
    assert "Usage:" in out and "simulate" in out and "query" in out
    assert err == ""


@pytest.mark.parametrize("argv, line", [
    # click's own suggestion counted the shared dashes: --nosuch got "(Possible options: --out)"
    (("simulate", "--nosuch"), "no such option --nosuch (see "),
    (("simulate", "--hand", "3"), "no such option --hand: did you mean --hands or --max-hands? (see "),
    (("query", "--lmit", "3", "d", "SELECT 1"), "no such option --lmit: did you mean --limit? (see "),
])
def test_an_unknown_option_is_named_with_only_close_suggestions(capsys, argv, line):
    from cli_helpers import one_line

    code, _, err = run(capsys, *argv)
    assert code == 2
    got = one_line(err)
    assert got.startswith(f"error: {line}") and got.endswith(f" {argv[0]} --help)")


def test_replay_chinese_shows_the_final_melds_in_chinese(capsys):
    """--chinese: "Show tiles with Chinese names"; the final melds' tiles too (were pung:111p)."""
    import re

    code, out, _ = run(capsys, "replay", "--seed", "7", "--hand", "12", "--session-hands", "1", "--chinese")
    assert code == 0
    melds = [m for line in out.splitlines() if "   melds " in line for m in line.split("   melds ")[1].split()]
    assert "pung:一筒一筒一筒" in melds and "chow:南西北" in melds
    assert not [m for m in melds if re.search(r"\d[mpsz]", m)]
    code, out, _ = run(capsys, "replay", "--seed", "7", "--hand", "12", "--session-hands", "1")
    assert "pung:111p" in out and "chow:234z" in out      # without --chinese, as before


def test_hand_of_13_with_a_win_tile_is_the_win_it_makes(capsys):
    """13 tiles and --win-tile: the 14-tile win is evaluated (it used to be ignored in silence);
    --discard without the tile is refused rather than ignored."""
    code, out, _ = run(capsys, "hand", "1112345678999m", "--win-tile", "5m", "--discard", "--json")
    assert code == 0
    got = json.loads(out)
    assert got["win"] is True and got["pattern"] == "qingyise_pinghu" and got["points"] == 5
    assert got["win_tile"] == "5m (added to the 13)" and got["waits"] == "123456789m"
    code, _, err = run(capsys, "hand", "1112345678999m", "--discard")
    assert code == 2
    assert err.strip().splitlines() == ["error: a hand of 13 tiles is evaluated as a win only with the tile it "
                                        "wins on: give --win-tile"]


def test_an_argument_starting_with_a_dash_is_pointed_to_the_separator(capsys, tmp_path):
    """SQL that opens with a -- comment is read by click as an option: say to put -- first."""
    code, _, err = run(capsys, "query", str(tmp_path), "-- the dealer's seat\nSELECT 1")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "starts with '-', so it was read as an option: put -- before it" in lines[0]


def test_a_long_search_run_says_what_it_will_cost_before_it_starts(capsys, monkeypatch, tmp_path):
    """A search seat plays about 9 hands a second: `simulate --players search` at the default
    100,000 hands is hours. The run says so in one line before it starts; fast players and
    short search runs print nothing extra."""
    from mjsim.run import runner

    played = []

    def fake_run(specs, out, **kw):
        played.append(specs)
        raise runner.GameUnavailable("stopped by the test")

    monkeypatch.setattr(runner, "run", fake_run)
    assert main(["simulate", "--players", "search", "--workers", "2", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    note = [line for line in err.splitlines() if line.startswith("note: search players")]
    assert len(note) == 1 and "for these 100,000 hands" in note[0] and "hours of CPU" in note[0]
    assert "on 2 workers" in note[0] and "Ctrl-C keeps every finished chunk" in note[0]
    for argv in (["--players", "ev"], ["--players", "search,ev,ev,ev", "--hands", "992"]):
        assert main(["simulate", *argv, "--out", str(tmp_path / "b")]) == 2
        assert "note:" not in capsys.readouterr().err
    assert len(played) == 3
    # balance: per candidate, before the search starts
    assert main(["balance", "--players", "search", "--vary", "values.qixiaodui=4..10", "--target",
                 "pattern money:qixiaodui = 0.05", "--hands", "8000", "--workers", "2",
                 "--out", str(tmp_path / "c")]) == 2
    note = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: search players")]
    assert len(note) == 1 and "for each candidate's 8,000 hands at most" in note[0] and "on 2 workers" in note[0]
    # arena: five tables of the deals, four of them with a search seat
    from mjsim.run import arena

    def fake_arena(*a, **kw):
        raise ValueError("stopped by the test")

    monkeypatch.setattr(arena, "run_arena", fake_arena)
    assert main(["arena", "search", "--rules", "anhua", "--workers", "1"]) == 2
    note = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: search players")]
    assert len(note) == 1 and "for these 2,000 deals at five tables, about" in note[0] and "on 1 worker " in note[0]
    assert main(["arena", "greedy", "--workers", "1"]) == 2
    assert "note:" not in capsys.readouterr().err
    # the workers the pool will use: --workers capped at the cores, as the runner caps them
    monkeypatch.setattr(runner, "default_workers", lambda: 2)
    assert main(["simulate", "--players", "search", "--workers", "64", "--out", str(tmp_path / "d")]) == 2
    note = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: search players")]
    assert len(note) == 1 and "hours on 2 workers" in note[0]


def test_durations_read_as_a_person_says_them():
    from mjsim.cli.common import _duration

    assert [_duration(s) for s in (45, 89, 90, 700, 5399, 5400, 44_000)] == [
        "45 seconds", "89 seconds", "2 minutes", "12 minutes", "90 minutes", "1.5 hours", "12.2 hours"]
