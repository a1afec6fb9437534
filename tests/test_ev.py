"""The expected-value player `ev`: legal, deterministic play in both games, its options, its
per-form hand statistics, the self-play fit, and (slow) its response to the rules' values
and its strength in the duplicate arena."""
from collections import Counter
from itertools import combinations
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjsim import Rules
from mjsim.play.engine import PATTERNS
from mjsim.play import engine
from mjsim.run import evfit
from mjsim.players import ev as evplayer
from mjsim.play import game
from mjsim.run import runner
from mjsim.players import _ev
from mjsim.cli import main
from mjsim.players import Player
from mjsim.rulesets.rules import WANZAI_VALUE_IDS
from mjsim.tiles import kind_name, parse_tile, parse_tiles, to_counts
from walls import flat_wall
from cli_helpers import cli, one_line

EV4 = ("ev",) * 4


def tile_count(text):
    return Counter(parse_tiles(text)) if text else Counter()


# ------------------------------------------------------------------ legal, deterministic play

@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_same_seed_same_hands(rules_name):
    rules = Rules.load(rules_name)
    a, wa = game.simulate_chunk(rules, EV4, 5, 0, 300, 4)
    b, wb = game.simulate_chunk(rules, EV4, 5, 0, 300, 4)
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    for k in wa:
        assert np.array_equal(wa[k], wb[k]), k
    # play() replays exactly what the batch recorded
    for i in (0, 7, 123, 299):
        h = game.play(rules, seed=5, hand_index=i, players=EV4, session_hands=4)
        assert h.deltas == tuple(a[f"delta_{s}"][i] for s in range(4))


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_tiles_conserved_and_zero_sum(rules_name):
    rules = Rules.load(rules_name)
    n_kinds = 34 if rules_name == "wanzai" else 27
    players = ("ev", "greedy", "ev:fold=0,claim=2", "ev:value=2,fold=3")
    for i in range(150):
        h = game.play(rules, seed=3, hand_index=i, players=players)
        total = Counter()
        for s in range(4):
            total += tile_count(h.final[s]) + tile_count(h.discards[s])
            for m in h.melds[s]:
                total += tile_count(m.split(":")[1])
        total += tile_count(h.wall)
        if rules_name == "anhua":
            total += tile_count(h.set_aside) + Counter(parse_tiles("".join(h.birds)))
            total[parse_tile(h.wild_indicator)] += 1
        assert all(total[k] == 4 for k in range(n_kinds)) and len(total) == n_kinds, (i, total)
        assert sum(h.deltas) == 0


class Recorder(Player):
    """Plays exactly like the native ev (view.builtin) and records what it was asked."""

    def __init__(self):
        self.wins_offered = []

    def turn(self, view, options):
        return view.builtin("ev")

    def claim(self, view, tile, options):
        return view.builtin("ev")

    def win(self, view, tile, kind):
        take = view.builtin("ev")
        self.wins_offered.append((kind, take))
        return take


@pytest.mark.parametrize("rules_name", ["wanzai", "anhua"])
def test_takes_every_win_but_held_discards_and_matches_the_protocol(rules_name):
    rules = Rules.load(rules_name)
    rec = Recorder()
    a, wa = game.simulate_chunk(rules, (rec, "ev", "ev", "ev"), 9, 0, 200, 1)
    b, wb = game.simulate_chunk(rules, EV4, 9, 0, 200, 1)
    assert np.array_equal(a["delta_0"], b["delta_0"]) and np.array_equal(wa["winner"], wb["winner"])
    offered = [(kind, take) for kind, take in rec.wins_offered if kind != "instant"]
    # every complete hand is won, but a Wanzai win on a discard may be held for more (`hold`)
    assert offered and all(take for kind, take in offered if kind != "discard" or rules_name == "anhua")
    assert (wb["winner"] == 0).sum() == sum(take for _, take in offered)


# seat 0 (the dealer) throws its lone 中 (7z) first; seat 1 is ready on it
DEALER_THROWS_7Z = "123m456m789m11p23p7z"


def first_answer(seat1, player, base=1):
    """What seat 1 does with the dealer's opening 7z: ("win" | "pass_win", seat, tile)."""
    rules = Rules.load("wanzai", wall_model="flat", base=base)
    wall = flat_wall([DEALER_THROWS_7Z, seat1, None, None])
    h = game.play(rules, players=("ev", player, "ev", "ev"), wall=wall, dealer=0)
    assert (h.events[0].kind, h.events[0].seat, h.events[0].tile) == ("discard", 0, "7z")
    return h.events[1].kind, h.events[1].seat, h.events[1].tile


def test_holds_a_many_way_shisanlan_for_the_self_draw():
    """`hold` (Wanzai style 1.1): a 十三爛 ready on all three dragons (ten live copies) is worth
    more kept than a win on a discard (2 from the discarder; a self-draw is 2 from each of
    three).  ev passes it, whatever the base; with hold 0 and as ev_v1 it takes it."""
    shisanlan = "147m258p369s1234z"
    assert first_answer(shisanlan, "ev") == ("pass_win", 1, "7z")
    assert first_answer(shisanlan, "ev", base=3) == ("pass_win", 1, "7z")
    assert first_answer(shisanlan, "ev:hold=0") == ("win", 1, "7z")
    assert first_answer(shisanlan, "ev_v1") == ("win", 1, "7z")


def test_takes_a_single_wait_pinghu_on_a_discard():
    """A 平胡 on a single wait (two live copies) is worth less than the win in hand: taken."""
    assert first_answer("123s456s789s1117z", "ev") == ("win", 1, "7z")


def test_dealer_wins_a_complete_opening_hand():
    # the flat wall deals the dealer its 14 tiles first: a complete hand is won at once
    rules = Rules.load("wanzai", wall_model="flat")
    dealer = parse_tiles("123m456m789m123p11s")
    rest = Counter({k: 4 for k in range(34)}) - Counter(dealer)
    wall = dealer + [k for k in range(34) for _ in range(rest[k])]
    h = game.play(rules, players=EV4, wall=wall, dealer=0)
    assert h.end == "self_draw" and h.wins[0].winner == 0 and h.wins[0].pattern == "pinghu"


def test_claim_zero_never_claims():
    rules = Rules.load("wanzai")
    for i in range(60):
        h = game.play(rules, seed=2, hand_index=i, players=("ev:claim=0", "greedy", "greedy", "greedy"))
        assert not [e for e in h.events if e.kind in ("pung", "chow") and e.seat == 0]
        assert not [e for e in h.events if e.kind == "kong" and e.seat == 0 and e.kong == "exposed"]


def test_options_change_play_and_defaults_are_the_plain_name():
    rules = Rules.load("wanzai")
    plain, _ = game.simulate_chunk(rules, EV4, 1, 0, 300, 1)
    assert evplayer.load_model("wanzai")["style"] == {"claim": 0.9, "value": 0.7, "fold": 0.2, "race": 0.8,
                                                      "mix": 0.6, "passed": 1, "keep": 0.7, "stretch": 1,
                                                      "hold": 1.1, "kongs": 0.25}
    same, _ = game.simulate_chunk(rules, ("ev:claim=0.9,value=0.7,fold=0.2,race=0.8,mix=0.6,passed=1,keep=0.7,stretch=1,"
                                          "hold=1.1,kongs=0.25",) * 4,
                                  1, 0, 300, 1)
    bold, _ = game.simulate_chunk(rules, ("ev:fold=0,value=2",) * 4, 1, 0, 300, 1)
    assert np.array_equal(plain["delta_0"], same["delta_0"])
    assert not np.array_equal(plain["delta_0"], bold["delta_0"])


# ------------------------------------------------------------------ options

def test_parse_players_keeps_option_commas():
    assert runner.parse_players("ev:fold=0.5,claim=2") == ("ev:fold=0.5,claim=2",) * 4
    assert runner.parse_players("ev:claim=2,fold=0.50,greedy,greedy,random") == (
        "ev:fold=0.5,claim=2", "greedy", "greedy", "random")
    assert runner.parse_players("greedy") == ("greedy",) * 4


@pytest.mark.parametrize("text, message", [
    ("ev:bogus=1", "unknown option 'bogus'"),
    ("ev:fold=x", "fold must be a number 0..10"),
    ("ev:fold=-1", "fold must be a number 0..10"),
    ("ev:value=nan", "value must be a number 0..4"),
    ("ev:fold", "options are key=value pairs"),
    ("ev:fold=1,fold=2", "given twice"),
    ("greedy:fold=1", "takes no options"),
    ("ev:model=/no/such/file.json", "not found"),
])
def test_bad_options_are_one_clear_error(text, message):
    with pytest.raises(ValueError, match=message):
        runner.parse_players(text)
    with pytest.raises(ValueError, match=message):
        game.simulate_chunk(Rules.load("wanzai"), (text, "greedy", "greedy", "greedy"), 0, 0, 1)


def test_cli_reports_bad_options_in_one_line(capsys, tmp_path):
    assert main(["simulate", "--players", "ev:claim=[red]x", "--hands", "16", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "claim must be a number" in err and "[red]x" in err and err.count("\n") == 1


def _shipped_with(change):
    """The shipped model file's data with change(data) applied."""
    from importlib import resources

    data = json.loads(resources.files("mjsim").joinpath("data/ev_model.json").read_text())
    change(data)
    return data


@pytest.mark.parametrize("content, message", [
    ({"wanzai": 1}, "'wanzai' must be an object of model fields, got 1"),
    ([1, 2], "must hold a JSON object (game -> model), got list"),
    (_shipped_with(lambda d: d["wanzai"]["tenpai"].__setitem__(0, float("nan"))),
     "wanzai.tenpai[0] must be a finite number, got NaN"),
    (_shipped_with(lambda d: d["wanzai"]["win"][2].__setitem__(1, float("inf"))),
     "wanzai.win[2][1] must be a finite number, got Infinity"),
    (_shipped_with(lambda d: d["wanzai"].update(loss="abc")), 'wanzai.loss must be a finite number, got "abc"'),
    (_shipped_with(lambda d: d["wanzai"].update(self_share=1.5)), "wanzai.self_share must be a finite number 0..1, got 1.5"),
    (_shipped_with(lambda d: d["wanzai"]["style"].update(fold=11)), "wanzai.style.fold must be a finite number 0..10, got 11"),
    (_shipped_with(lambda d: d["wanzai"]["style"].update(bogus=1)), "wanzai.style has unknown key 'bogus' (expected fold, claim, value, mix, threat, stretch, kong, passed, "
     "keep, hold, kongs, race)"),
    (_shipped_with(lambda d: d["wanzai"]["forms"].update(sanyuan=[0, 1])), "wanzai.forms has unknown key 'sanyuan' (expected standard, pairs, shisanlan, "
     "qingyise, daqidui)"),
    (_shipped_with(lambda d: d["wanzai"].update(win=5)), "wanzai.win must be 6 rows of 3 numbers, got 5"),
    (_shipped_with(lambda d: d["wanzai"].update(wiat_class=[1, 1, 1])), "wanzai has unknown key 'wiat_class' "
     "(expected self_share, loss, win, self_only, tenpai, wait, forms, style, form_shift, danger_model, wait_class, "
     "note, fitted_on, danger_fitted_on)"),
    (_shipped_with(lambda d: d.update(anhau=d["anhua"])), "unknown game 'anhau' (expected wanzai or anhua)"),
    (b"\xff\xfe{}", "not UTF-8 text (invalid start byte at byte 0)"),
])
def test_bad_model_file_is_one_line_naming_file_and_key(capsys, tmp_path, content, message):
    path = tmp_path / "m.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(json.dumps(content))
    code, _, err = cli(capsys, "simulate", "--workers", "1", "--hands", "16", "--no-progress",
                       "--players", f"ev:model={path}", "--out", tmp_path / "o")
    assert code == 2
    assert one_line(err) == f"error: model file {str(path)!r}: {message}"
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").rglob("*.parquet"))


def test_model_path_that_is_a_directory_says_so(capsys, tmp_path):
    code, _, err = cli(capsys, "simulate", "--workers", "1", "--hands", "16", "--no-progress",
                       "--players", f"ev:model={tmp_path}", "--out", tmp_path / "o")
    assert code == 2 and one_line(err).endswith(f"model file {str(tmp_path)!r} is a directory, not a file")


def test_shipped_model_files_pass_the_checks():
    for player in evplayer.EV_NAMES:
        for g in ("wanzai", "anhua"):
            assert evplayer._model_problem(g, evplayer._read_model(None, player)[g]) is None


def test_player_opts_layout():
    row = evplayer.player_opts("wanzai", {"fold": 0.5, "value": 2})
    model = evplayer.load_model("wanzai")
    assert len(row) == evplayer.N_PLAYER_OPTS
    assert row[evplayer.OPT_FOLD] == 0.5 and row[evplayer.OPT_VALUE] == 2
    assert row[evplayer.OPT_CLAIM] == model["style"]["claim"]
    assert row[evplayer.OPT_WIN: evplayer.OPT_WIN + 3] == model["win"][0]
    assert row[evplayer.OPT_WAIT: evplayer.OPT_WAIT + evplayer.N_WAIT] == model["wait"]
    for i, name in enumerate(evplayer.FITTED_FORMS):
        at = evplayer.OPT_FORM + 2 * i
        intercept, slope = model["forms"][name]
        assert row[at: at + 2] == pytest.approx([intercept + model["form_shift"].get(name, 0), slope]), name
    # the form numbers end where the model-1 tenpai numbers begin
    assert evplayer.OPT_FORM + 2 * len(evplayer.FITTED_FORMS) == evplayer.OPT_TENPAI_HI
    assert set(evplayer.FORMS) - set(evplayer.FITTED_FORMS) == {"standard", "quanqiuren"}


def test_player_opts_refuse_a_shifted_standard_form(monkeypatch):
    shipped = evplayer.load_model("wanzai")
    model = dict(shipped, forms=dict(shipped["forms"], standard=[0.5, 1.0]))
    monkeypatch.setattr(evplayer, "_read_model", lambda path=None, player="ev": {"wanzai": model})
    with pytest.raises(evplayer.PlayerOptionError, match="standard form is the base"):
        evplayer.player_opts("wanzai")
    model = dict(shipped, forms={k: v for k, v in shipped["forms"].items() if k != "daqidui"})
    row = evplayer.player_opts("wanzai")       # an older fit without 大七對: the base model
    at = evplayer.OPT_FORM + 2 * evplayer.FITTED_FORMS.index("daqidui")
    assert row[at: at + 2] == [0.0, 1.0]


# ------------------------------------------------------------------ per-form statistics

def features(hand, melds=(), game_code=0, indicator=-1, seen=None):
    counts = to_counts(parse_tiles(hand))
    ms = engine.parse_melds("wanzai" if game_code == 0 else "anhua", list(melds))
    info = engine.meld_info(ms)
    seen = seen or [0] * 34
    return _ev.form_features(game_code, True, counts, info, seen, [0] * 34, indicator)


def test_form_features_wanzai():
    forms, jokers = features("123456789m1122z5p")
    assert len(forms) == len(evplayer.FORMS)
    (std_ok, std_d, std_u), (p_ok, p_d, p_u), (l_ok, _, _), (q_ok, q_d, q_u), dqd, qqr = forms
    assert jokers == 0 and std_ok and std_d == 0
    # waits 1z / 2z (two copies each unseen) and nothing else: 5p needs a partner first
    assert std_u == 4
    assert p_ok and p_d == engine_pairs_shanten("123456789m1122z5p")
    assert q_ok and q_d == 4 and not l_ok
    # tiles already seen are not useful
    seen = [0] * 34
    seen[parse_tile("1z")] = 2
    assert features("123456789m1122z5p", seen=seen)[0][0][2] == 2
    # 十三爛 distance and 七小對 tenpai
    forms, _ = features("147m258p369s1234z")
    assert forms[2] == (True, 0, 3 * 4)          # waits 5z 6z 7z, none seen
    forms, _ = features("1122m3344p5566s7z")
    assert forms[1] == (True, 0, 3)
    # melds close the concealed forms
    forms, _ = features("123456789m5p", melds=[("pung", "111z")])
    assert not forms[1][0] and not forms[2][0]


def engine_pairs_shanten(hand):
    c = Counter(parse_tiles(hand))
    pairs = sum(v // 2 for v in c.values())
    return 6 - pairs


def test_form_features_anhua_wilds_are_jokers():
    # indicator 1p: wilds 1p (type A) and 2p (type B)
    forms, jokers = features("123m456m789m25s1p2p", game_code=1, indicator=parse_tile("1p"))
    assert jokers == 2
    std = forms[0]
    assert std[0] and std[1] == engine.shanten(Rules.load("anhua"), "123m456m789m25s1p2p", wild="1p")
    assert not forms[2][0]                          # no 十三爛 in Anhua


F_DQD, F_QQR = evplayer.FORMS.index("daqidui"), evplayer.FORMS.index("quanqiuren")


def dqd_missing(counts, m):
    """Brute force: fewest tiles a 大七對 of m triplets and a pair (distinct kinds) still
    lacks, over every choice of kinds (kinds not held are interchangeable: m + 1 of them
    stand for all)."""
    held = [k for k in range(34) if counts[k]]
    cand = held + [k for k in range(34) if not counts[k]][:m + 1]
    best = 99
    for trips in combinations(cand, m):
        lack = sum(3 - min(counts[k], 3) for k in trips)
        for pair in cand:
            if pair not in trips:
                best = min(best, lack + 2 - min(counts[pair], 2))
    return best


def dqd_twin(counts, seen, m):
    """(shanten, useful tiles) of the 大七對 form by brute force, None when the player leaves
    it closed (more than four tiles missing)."""
    miss = dqd_missing(counts, m)
    if miss > 4:
        return None
    useful = 0
    for k in range(34):
        counts[k] += 1
        if dqd_missing(counts, m) < miss:
            useful += max(0, 4 - (counts[k] - 1) - seen[k])
        counts[k] -= 1
    return miss - 1, useful


@st.composite
def dqd_hands(draw, near):
    """A 3m+1 concealed part (m = 4 - melds) with 0..4 exposed pungs or kongs (sometimes a
    chow, which closes the form) and some tiles seen; `near`: a 大七對 short of a tile or two."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    left = [4] * 34
    n_melds = draw(st.integers(0, 4))
    melds = []
    for _ in range(n_melds):
        if rng.random() < 0.15:
            if rng.random() < 0.3:      # an honour run 東南西 or 中發白
                ks = rng.choice([[27, 28, 29], [31, 32, 33]])
            else:
                low = 9 * rng.randrange(3) + rng.randrange(7)
                ks = [low, low + 1, low + 2]
            if all(left[k] for k in ks):
                for k in ks:
                    left[k] -= 1
                melds.append(("chow", "".join(kind_name(k) for k in ks)))
                continue
        k = rng.choice([k for k in range(34) if left[k] == 4])
        kind = rng.choice(["pung", "pung", "kong", "concealed_kong"])
        left[k] -= 3 if kind == "pung" else 4
        melds.append((kind, kind_name(k) * (3 if kind == "pung" else 4)))
    m = 4 - len(melds)
    counts = [0] * 34
    if near:
        groups = rng.sample([k for k in range(34) if left[k] >= 3], m + 1)
        for i, k in enumerate(groups):
            counts[k] = 2 if i == m else 3
        for _ in range(rng.randrange(1, 3)):        # take one or two tiles away, add others
            counts[rng.choice([k for k in range(34) if counts[k]])] -= 1
        while sum(counts) < 3 * m + 1:
            k = rng.randrange(34)
            if counts[k] < left[k]:
                counts[k] += 1
        while sum(counts) > 3 * m + 1:
            counts[rng.choice([k for k in range(34) if counts[k]])] -= 1
    else:
        pool = [k for k in range(34) for _ in range(left[k])]
        # few kinds make pairs and pungs common enough for the form to be open
        kinds_ = rng.sample(range(34), rng.randrange(4, 12))
        pool = [k for k in pool if k in kinds_] or pool
        for k in rng.sample(pool, min(3 * m + 1, len(pool))):
            counts[k] += 1
        while sum(counts) < 3 * m + 1:
            k = rng.randrange(34)
            if counts[k] < left[k]:
                counts[k] += 1
    seen = [rng.randrange(0, left[k] - counts[k] + 1) if rng.random() < 0.3 else 0 for k in range(34)]
    return counts, melds, seen


def check_dqd(counts, melds, seen):
    ms = engine.parse_melds("wanzai", list(melds))
    info = engine.meld_info(ms)
    # exposed melds are on the table, a concealed kong is hidden: neither is unseen
    hidden = [0] * 34
    seen = list(seen)
    for m in ms:
        for k in m.tiles:
            (hidden if m.kind == "concealed_kong" else seen)[k] += 1
    forms, _ = _ev.form_features(0, False, counts, info, seen, hidden, -1)
    ok, d, u = forms[F_DQD]
    if info[1]:
        assert not ok                                 # a chow (or honour run) rules it out
        return
    want = dqd_twin(list(counts), [a + b for a, b in zip(seen, hidden)], 4 - len(melds))
    assert (want is not None) == ok, (counts, melds)
    if ok:
        assert (d, u) == want, (counts, melds)


@settings(max_examples=60, deadline=None)
@given(dqd_hands(near=False))
def test_daqidui_form_matches_brute_force_on_random_hands(case):
    check_dqd(*case)


@settings(max_examples=60, deadline=None)
@given(dqd_hands(near=True))
def test_daqidui_form_matches_brute_force_near_complete(case):
    check_dqd(*case)


def test_daqidui_and_quanqiuren_forms_on_known_hands():
    # two pungs and three pairs: two tiles short of 大七對; the pairs' 6 copies help
    forms, _ = features("555p99s44s88m5m", melds=[("pung", "111m")])
    assert forms[F_DQD] == (True, 1, 6) and not forms[F_QQR][0]
    # 大七對 tenpai on two pairs (four tiles), melds included; far from it, the form is closed
    forms, _ = features("147m258p369s1234z", melds=[])
    assert not forms[F_DQD][0]
    forms, _ = features("99s44s555p", melds=[("pung", "111m"), ("kong", "2222p")])
    assert forms[F_DQD] == (True, 0, 4)
    # a chow or an honour run closes it; a concealed kong keeps it
    forms, _ = features("99s44s555p", melds=[("chow", "123m"), ("kong", "2222p")])
    assert not forms[F_DQD][0]
    forms, _ = features("99s44s555p", melds=[("chow", "567z"), ("kong", "2222p")])
    assert not forms[F_DQD][0]
    forms, _ = features("99s44s555p", melds=[("concealed_kong", "1111m"), ("kong", "2222p")])
    assert forms[F_DQD] == (True, 0, 4)
    # four exposed melds: 全求人 is the standard form's single wait, which it replaces
    forms, _ = features("7s", melds=[("chow", "123m"), ("pung", "555p"), ("kong", "2222p"), ("pung", "999s")])
    assert forms[F_QQR] == (True, 0, 3) and not forms[0][0] and not forms[F_DQD][0]
    forms, _ = features("7s", melds=[("pung", "111m"), ("pung", "555p"), ("kong", "2222p"), ("pung", "999s")])
    assert forms[F_QQR] == (True, 0, 3) and forms[F_DQD] == (True, 0, 3)
    # a concealed kong breaks 全求人: the standard form stays
    forms, _ = features("7s", melds=[("concealed_kong", "1111m"), ("pung", "555p"), ("kong", "2222p"),
                                     ("pung", "999s")])
    assert not forms[F_QQR][0] and forms[0] == (True, 0, 3)


class ScriptedDealer(Player):
    """Discards `tile` first, then plays greedy; never claims or wins."""

    def __init__(self, tile):
        self.tile = parse_tile(tile)

    def turn(self, view, options):
        return ("discard", self.tile) if ("discard", self.tile) in options else view.builtin("greedy")

    def claim(self, view, tile, options):
        return None

    def win(self, view, tile, kind):
        return False


class PungThenAsk(Player):
    """Pungs the first tile it can, then plays (and records) what the built-in ev does."""

    def __init__(self):
        self.turns = []

    def claim(self, view, tile, options):
        return options.index(("pung",)) if ("pung",) in options and not self.turns else None

    def turn(self, view, options):
        choice = view.builtin("ev")
        self.turns.append((list(view.hand), choice))
        return choice

    def win(self, view, tile, kind):
        return True


def first_discard_after_pung(hand1, **overrides):
    """Seat 1 holds `hand1`, pungs the dealer's first discard (1m) and is asked for a discard:
    ev's answer (flat wall: the dealer's 14 tiles, then 13 for each seat, then the draws)."""
    rules = Rules.load("wanzai", wall_model="flat", **overrides)
    hands = [parse_tiles(t) for t in ("1m2p3p6p7p1z2z3z4z5z6z7z7z7z", hand1,
                                      "2s3s6s7s9s1p2p3p4p8p9p1s2s", "3s5s6s7s8s9p1p2p3p4p4s5s6p")]
    used = Counter(k for h in hands for k in h)
    wall = [k for h in hands for k in h] + [k for k in range(34) for _ in range(4 - used[k])]
    seat = PungThenAsk()
    game.play(rules, players=(ScriptedDealer("1m"), seat, "greedy", "greedy"), wall=wall, dealer=0)
    hand, (action, kind) = seat.turns[0]
    assert action == "discard" and sum(hand) == 11      # the turn right after the pung
    return kind_name(kind)


def test_ev_keeps_the_pungs_when_daqidui_pays():
    # after punging 1m: 555p 99s 44s 88m 45m.  Dropping a pair (9s) or the run (4m/5m) keep
    # the same standard shanten (1); the run is worth more there (3m 6m), the pairs keep
    # 大七對 a tile closer.  At the default 大七對 [3,3] ev breaks a pair, at [12,12] the run.
    hand = "11m555p99s44s88m45m"
    assert first_discard_after_pung(hand) in ("9s", "4s", "8m")
    assert first_discard_after_pung(hand, **{"values.daqidui": [12, 12]}) in ("4m", "5m")
    # all in 萬 (pung included) a 大七對 is worth 清一色大七對, and that value decides: 2m keeps
    # 555m 66m 88m (大七對 two from ready), 8m leaves it three away
    one_suit = "11m23455566788m"
    assert first_discard_after_pung(one_suit, **{"values.qingyise_daqidui": [60, 60]}) == "2m"
    low = {"values.qingyise_daqidui": [5, 5]}
    assert first_discard_after_pung(one_suit, **low) == "8m"
    assert first_discard_after_pung(one_suit, **low, **{"values.daqidui": [60, 60]}) == "8m"


@pytest.mark.parametrize("self_scoring, reaches_play", [("pinghu", False), ("quanqiuren", True)])
def test_ev_reads_the_quanqiuren_self_value_only_under_the_house_variant(self_scoring, reaches_play):
    # RULES §2.2: a self-drawn 全求人 is 平胡 by default, so values.quanqiuren[1] is unused
    # and cannot change a single decision; under quanqiuren_self = "quanqiuren" it is the
    # self-draw value, and ev's claims toward the form follow it
    def digest(self_value):
        rules = Rules.load("wanzai", quanqiuren_self=self_scoring,
                           **{"values.quanqiuren": [2, self_value]})
        return game.chunk_digest(rules, ("ev",) * 4, 5, 0, 600)

    assert (digest(1) != digest(20)) == reaches_play


# ------------------------------------------------------------------ the danger model

def kinds(text):
    return to_counts(parse_tiles(text))


def test_danger_features_read_the_opponents_pool():
    hand = kinds("1m4m9m5p8s1z5z")
    seen = kinds("1m5z5z5z")
    pool = parse_tiles("7m2z6z3s")       # 7m: 4m's suji; 2z: a wind, 6z: a dragon
    tx, wx = _ev.danger_features(hand, seen, [0] * 34, pool, 6, 1, 0b0010, 40)
    assert tx == pytest.approx([1, 0.6, 1, 0.4, 1, 2, 0, 0.36])   # last 3: 2z 6z 3s, one middle
    assert sorted(wx) == sorted(parse_tiles("1m4m9m5p8s1z5z"))
    one_m, four_m, nine_m = (wx[parse_tile(t)] for t in ("1m", "4m", "9m"))
    assert one_m[3] == 1 and one_m[4] == 0 and four_m[3] == four_m[4] == 0 and nine_m[3] == 1
    assert one_m[6] == pytest.approx(2 / 4)          # one in hand, one seen
    assert four_m[10] == 1 and four_m[8] == four_m[9] == 0   # 7m is three away
    assert one_m[8] == one_m[9] == one_m[10] == 0
    assert four_m[12] == pytest.approx(1 / 4) and four_m[18] == 0 and four_m[11] == 0
    five_p = wx[parse_tile("5p")]
    assert five_p[11] == 1 and five_p[18] == 1 and five_p[12] == 0   # melds in 筒, none discarded
    east, red = wx[parse_tile("1z")], wx[parse_tile("5z")]
    assert east[1] == 1 and east[2] == 0 and east[13] == 1     # one wind in its pool
    assert red[2] == 1 and red[13] == 1 and red[7] == 1          # 5z: all four in sight
    assert east[19] == 0 and red[19] == 0 and red[5] == 0
    assert wx[parse_tile("8s")][4] == 1 and wx[parse_tile("8s")][12] == pytest.approx(1 / 4)


def _danger_row(seed):
    """A model-1 danger row with random tenpai and wait weights (fold 1), and a function
    giving each opponent's share of the risk of each kind: P(tenpai) x P(waits on it), each
    the model's logistic of the features the player computes."""
    rng = np.random.default_rng(seed)
    row = [0.0] * evplayer.N_PLAYER_OPTS
    row[evplayer.OPT_FOLD], row[evplayer.OPT_DANGER] = 1.0, 1.0
    tw = rng.normal(0, 0.5, evplayer.N_TEN_F)
    ww = rng.normal(0, 0.5, evplayer.N_WAIT_F)
    row[evplayer.OPT_TENPAI: evplayer.OPT_TENPAI + 4] = tw[:4]
    row[evplayer.OPT_TENPAI_HI: evplayer.OPT_TENPAI_HI + 4] = tw[4:]
    row[evplayer.OPT_WAIT: evplayer.OPT_WAIT + evplayer.N_WAIT_F] = ww
    sig = lambda z: 1 / (1 + np.exp(-z))

    def shares(hand, opp, live=40, seen=(0,) * 34):
        tx, wx = _ev.danger_features(hand, list(seen), [0] * 34, *opp, live)
        return {k: sig(tw @ tx) * sig(ww @ np.array(x)) for k, x in wx.items()}
    return row, shares


def _random_table(rng, min_live=0):
    """A random 14-tile hand, tiles in sight, three opponents (pool, discards, melds, suit
    mask) and a live wall, as the danger shims take them."""
    wall = rng.permutation(np.repeat(np.arange(34), 4))
    hand = np.bincount(wall[:14], minlength=34).tolist()
    seen = np.bincount(wall[14:14 + int(rng.integers(0, 30))], minlength=34).tolist()
    opps = [(list(wall[60 + 10 * i: 60 + 10 * i + int(rng.integers(0, 10))]), int(rng.integers(0, 15)),
             int(rng.integers(0, 4)), int(rng.integers(0, 16))) for i in range(3)]
    return hand, seen, opps, int(rng.integers(min_live, 80))


def test_seat_risk_is_tenpai_times_wait_summed_over_opponents():
    row, shares = _danger_row(4)
    rng = np.random.default_rng(4)
    for trial in range(20):
        hand, seen, opps, live = _random_table(rng)
        risk = _ev.seat_risk(row, hand, seen, [0] * 34, opps, live)
        want = np.zeros(34)
        for opp in opps:
            for k, share in shares(hand, opp, live, seen).items():
                want[k] += share
        assert risk == pytest.approx(want.tolist(), abs=1e-12), trial
        assert all(risk[k] == 0 for k in range(34) if not hand[k])


def test_player_opts_danger_model_layout(monkeypatch):
    shipped = evplayer.load_model("wanzai")
    model = dict(shipped, danger_model=1, tenpai=[0.5 + i for i in range(evplayer.N_TEN_F)],
                 wait=[-0.25 * i for i in range(evplayer.N_WAIT_F)])
    monkeypatch.setattr(evplayer, "_read_model", lambda path=None, player="ev": {"wanzai": model})
    row = evplayer.player_opts("wanzai")
    assert row[evplayer.OPT_DANGER] == 1
    assert row[evplayer.OPT_TENPAI: evplayer.OPT_TENPAI + 4] + row[evplayer.OPT_TENPAI_HI:
                                                                   evplayer.OPT_TENPAI_HI + 4] == model["tenpai"]
    assert row[evplayer.OPT_WAIT: evplayer.OPT_WAIT + evplayer.N_WAIT_F] == model["wait"]
    model["tenpai"] = model["tenpai"][:3]
    with pytest.raises(evplayer.PlayerOptionError, match="danger model 1"):
        evplayer.player_opts("wanzai")
    model["danger_model"] = 2
    with pytest.raises(evplayer.PlayerOptionError, match="danger_model must be 0 or 1"):
        evplayer.player_opts("wanzai")
    monkeypatch.undo()
    assert evplayer.player_opts("anhua")[evplayer.OPT_DANGER] == 0


def test_fit_danger_learns_what_greedy_shows():
    entry = evfit.fit_danger(Rules.load("wanzai"), hands=150, seed=8)
    assert entry["danger_model"] == 1
    t, w = entry["tenpai"], entry["wait"]
    assert len(t) == evplayer.N_TEN_F and len(w) == evplayer.N_WAIT_F
    # later in the hand and with more melds a greedy seat is more often ready; a tile in
    # its own pool is one it let go, so seldom its wait
    assert t[1] + 2 * t[7] * 0.6 > 0 and t[2] > 0
    assert w[5] < -1
    assert entry["danger_fitted_on"]["wait_samples"] > 1000


# ------------------------------------------------------------------ the fit

def test_fit_entry_and_write_keep_tuned_parts(tmp_path):
    rules = Rules.load("anhua", birds=2)
    entry = evfit.fit(rules, hands=120, seed=1, players=("greedy",) * 4)
    assert len(entry["win"]) == evplayer.N_WIN_D and all(len(w) == 3 for w in entry["win"])
    assert len(entry["wait"]) == evplayer.N_WAIT and all(0 <= x <= 1 for x in entry["wait"])
    assert 0 < entry["self_share"] <= 1 and entry["fitted_on"]["rules_hash"] == rules.hash
    # P(win) rises with useful tiles and falls with distance, at mid-hand
    w = entry["win"]
    lp = [w[d][0] + w[d][1] * np.log1p(8) + w[d][2] * 0.4 for d in range(3)]
    assert lp[0] > lp[1] > lp[2]
    path = tmp_path / "m.json"
    evfit.write(path, "anhua", entry)
    data = json.loads(path.read_text())
    assert data["anhua"]["style"] == evplayer.load_model("anhua")["style"]
    row = evplayer.player_opts("anhua", {"model": str(path)})
    assert row[evplayer.OPT_WIN] == entry["win"][0][0]
    h, _ = game.simulate_chunk(rules, (f"ev:model={path}",) * 4, 0, 0, 50, 1)
    assert len(h["delta_0"]) == 50


def test_fit_ev_cli(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["fit-ev", "--rules", "wanzai", "--set", "values.qixiaodui=[20,20]", "--hands", "100",
                 "--players", "greedy", "--out", str(out), "--no-progress"]) == 0
    entry = json.loads(out.read_text())["wanzai"]
    assert set(entry["forms"]) == {"standard", *evplayer.FITTED_FORMS}     # 大七對 included
    assert main(["fit-ev", "--hands", "5", "--out", str(out)]) == 2
    assert "at least 100" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed must be 0 or more, got -1"),
    (["--seed", str(2**64)], "--seed must be at most 18,446,744,073,709,551,615, got 18,446,744,073,709,551,616"),
    (["--hands", "99999999999999999999"],
     "--hands (number of hands) must be at most 4,611,686,018,427,387,904, got 99,999,999,999,999,999,999"),
])
def test_fit_ev_refuses_seeds_and_hands_as_simulate_does(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(evfit, "fit", lambda *a, **k: pytest.fail("the fit started"))
    code, _, err = cli(capsys, "fit-ev", *argv, "--out", tmp_path / "m.json", "--no-progress")
    assert code == 2 and one_line(err) == f"error: {message}"


@pytest.mark.parametrize("content, message", [
    ("[1, 2]", "exists and is not a model file (it holds a JSON list, not an object of games)"),
    ('{"wanzai": 3}', "its 'wanzai' entry is not an object of model fields"),
    ("{bad", "exists and is not a model file (not JSON: Expecting property name enclosed in double quotes: "
             "line 1 column 2 (char 1))"),
    (None, "is a directory, not a file"),
])
def test_fit_ev_out_is_checked_before_the_fit(tmp_path, capsys, monkeypatch, content, message):
    monkeypatch.setattr(evfit, "fit", lambda *a, **k: pytest.fail("the fit started"))
    out = tmp_path / "m.json"
    if content is None:
        out.mkdir()
    else:
        out.write_text(content)
    code, _, err = cli(capsys, "fit-ev", "--players", "greedy", "--out", out, "--no-progress")
    assert code == 2 and one_line(err) == f"error: --out {out}: {message}"
    assert content is None or out.read_text() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def test_fit_takes_the_largest_seed(monkeypatch):
    """Wanzai's danger model is fitted on seed + 1: after 2^64 - 1 comes 0."""
    seeds = []
    monkeypatch.setattr(evfit, "fit_danger", lambda rules, hands, seed, progress=None: seeds.append(seed) or {})
    evfit.fit(Rules.load("wanzai"), hands=20, seed=runner.MAX_SEED, players=("greedy",) * 4)
    assert seeds == [0]


# ------------------------------------------------------------------ slow: value response, strength

def rate(rules, predicate, n=20_000, seed=11):
    _, wins = game.simulate_chunk(rules, EV4, seed, 0, n, 1)
    hit = predicate(wins)
    return len(np.unique(wins["hand_index"][hit])) / n


def qixiaodui(wins):
    codes = [i for i, p in enumerate(PATTERNS) if "qixiaodui" in p]
    return np.isin(wins["pattern"], codes)


def qingyise(wins):
    return ((wins["props"] >> 9) & 1) == 1


@pytest.mark.slow
def test_wanzai_qixiaodui_rate_follows_its_value():
    base = rate(Rules.load("wanzai"), qixiaodui)
    high = rate(Rules.load("wanzai", **{"values.qixiaodui": [20, 20]}), qixiaodui)
    low = rate(Rules.load("wanzai", **{"values.qixiaodui": [2, 2]}), qixiaodui)
    assert high >= 1.5 * base and low < base, (low, base, high)


def daqidui(wins):
    return np.isin(wins["pattern"], [PATTERNS.index("daqidui"), PATTERNS.index("qingyise_daqidui")])


def quanqiuren(wins):
    # the property, so that a 全求人 scored as a higher id (大七對, 清一色) still counts
    return ((wins["props"] >> PATTERNS.index("quanqiuren")) & 1) == 1


@pytest.mark.slow
def test_wanzai_daqidui_rate_follows_its_value():
    base = rate(Rules.load("wanzai"), daqidui)
    high = rate(Rules.load("wanzai", **{"values.daqidui": [12, 12]}), daqidui)
    # [2, 2] still scores a 大七對 as one (below 平胡's 2 on a discard it would score as 平胡,
    # which would lower the count without any change of play)
    low = rate(Rules.load("wanzai", **{"values.daqidui": [2, 2]}), daqidui)
    assert high >= 1.5 * base and low < base, (low, base, high)


@pytest.mark.slow
def test_wanzai_quanqiuren_rate_follows_its_value():
    # at the default [2, 1] 全求人 is worth what 平胡 is; raising the discard value makes
    # ev claim toward it, and lowering it back lowers the rate again
    base = rate(Rules.load("wanzai"), quanqiuren)
    mid = rate(Rules.load("wanzai", **{"values.quanqiuren": [4, 1]}), quanqiuren)
    high = rate(Rules.load("wanzai", **{"values.quanqiuren": [8, 1]}), quanqiuren)
    assert high >= 1.5 * base and base < mid < high, (base, mid, high)


@pytest.mark.slow
def test_anhua_qingyise_rate_follows_its_multiplier():
    base = rate(Rules.load("anhua"), qingyise)
    high = rate(Rules.load("anhua", multipliers={"qingyise": 8}), qingyise)
    low = rate(Rules.load("anhua", multipliers={"qingyise": 1}), qingyise)
    assert high >= 1.5 * base and low < base, (low, base, high)


@pytest.mark.slow
def test_ev_beats_greedy_in_the_anhua_arena():
    # duplicate arena, deal-clustered 95% interval (mjsim.arena.METHOD); fixed seeds make
    # this deterministic.
    from mjsim.run.arena import run_arena

    result = run_arena(Rules.load("anhua"), "ev", "greedy", deals=4_000, seed=3, workers=1)
    assert result.edge.low > 0, str(result.edge)


@pytest.mark.slow
def test_ev_beats_greedy_in_the_wanzai_arena():
    # issue 9's Wanzai target on the README's command (seed 0, 20,000 deals; the style
    # was tuned on seed 99); the edge's sd is about 0.0055, so fewer deals cannot show it
    from mjsim.run.arena import run_arena

    result = run_arena(Rules.load("wanzai"), "ev", "greedy", deals=20_000, seed=0, workers=1)
    assert result.edge.mean >= 0.05 and result.edge.low > 0, str(result.edge)


# ------------------------------------------------------------------ issue 19: ev_v1, threat, stretch

def test_ev_v1_is_ev_as_shipped_before():
    """ev_v1 keeps the model and style ev had before issue 19 (as greedy_v1 keeps greedy's
    old rules): the same native player with the old numbers and the new options at 0."""
    assert "ev_v1" in game.PLAYERS and "ev_v1" in game.PLAYER_OPTIONS
    assert evplayer.load_model("anhua", player="ev_v1")["style"] == {"claim": 0.75}
    assert evplayer.load_model("anhua")["style"] == {"claim": 0.75, "value": 0.7, "mix": 0.5}
    old = evplayer.player_opts("anhua", player="ev_v1")
    new = evplayer.player_opts("anhua")
    assert old[evplayer.OPT_VALUE] == 1 and old[evplayer.OPT_MIX] == 0
    assert new[evplayer.OPT_VALUE] == 0.7 and new[evplayer.OPT_MIX] == 0.5
    differ = [i for i in range(evplayer.N_PLAYER_OPTS) if old[i] != new[i]]
    assert differ == [evplayer.OPT_VALUE, evplayer.OPT_MIX]
    old, new = evplayer.player_opts("wanzai", player="ev_v1"), evplayer.player_opts("wanzai")
    assert [i for i in range(evplayer.N_PLAYER_OPTS) if old[i] != new[i]] == [
        evplayer.OPT_FOLD, evplayer.OPT_STRETCH, evplayer.OPT_PASSED, evplayer.OPT_KEEP, evplayer.OPT_HOLD,
        evplayer.OPT_KONGS, evplayer.OPT_RACE]
    assert old[evplayer.OPT_PASSED] == old[evplayer.OPT_KEEP] == old[evplayer.OPT_STRETCH] == 0
    assert old[evplayer.OPT_HOLD] == old[evplayer.OPT_KONGS] == old[evplayer.OPT_RACE] == 0
    assert old[evplayer.OPT_FOLD] == 1 and new[evplayer.OPT_FOLD] == 0.2 and new[evplayer.OPT_RACE] == 0.8
    assert new[evplayer.OPT_PASSED] == 1 and new[evplayer.OPT_KEEP] == 0.7 and new[evplayer.OPT_STRETCH] == 1
    assert new[evplayer.OPT_HOLD] == 1.1 and new[evplayer.OPT_KONGS] == 0.25
    for name in ("ev", "ev_v1"):
        row = evplayer.player_opts("wanzai", player=name)
        assert row[evplayer.OPT_THREAT] == 0
    # options work for ev_v1 as for ev; in Anhua ev is ev_v1 with the new style
    assert runner.parse_players("ev_v1:fold=2") == ("ev_v1:fold=2",) * 4
    anhua = Rules.load("anhua")
    a, _ = game.simulate_chunk(anhua, ("ev_v1",) * 4, 3, 0, 200, 1)
    b, _ = game.simulate_chunk(anhua, ("ev_v1:value=0.7,mix=0.5",) * 4, 3, 0, 200, 1)
    c, _ = game.simulate_chunk(anhua, EV4, 3, 0, 200, 1)
    assert np.array_equal(b["delta_0"], c["delta_0"]) and not np.array_equal(a["delta_0"], c["delta_0"])


@pytest.mark.parametrize("text, message", [
    ("ev:threat=3", "threat must be a number 0..2"),
    ("ev:stretch=1.5", "stretch must be a number 0..1"),
    ("ev_v1:bogus=1", "unknown option 'bogus'"),
    ("ev:kong=11", "kong must be a number -10..10"),
    ("ev:passed=-1", "passed must be a number 0..1"),
    ("ev:keep=1.5", "keep must be a number 0..1"),
])
def test_new_options_are_checked(text, message):
    with pytest.raises(ValueError, match=message):
        runner.parse_players(text)


def test_threat_prices_a_deal_in_by_what_the_melds_show():
    """With threat t, the loss of dealing into an opponent whose two or more melds are all in
    one suit and all pungs is 1 + t x (清一色大七對's discard value / 平胡's - 1) times the
    constant loss; one suit with a chow: 清一色平胡; mixed suits, pungs only: 大七對;
    fewer than two melds, or mixed suits with a chow: unchanged."""
    rules = Rules.load("wanzai")
    vals = [tuple(rules["values"][name]) for name in WANZAI_VALUE_IDS]
    row = evplayer.player_opts("wanzai")
    hand = to_counts(parse_tiles("123456789m1234p5s"))
    seen, hidden = [0] * 34, [0] * 34
    # opponents: (pool, discarded, melds, meld suit mask); a long pool makes each look ready
    pool = list(range(27, 34)) * 2
    opps = [(pool, 14, 2, 0b001), (pool, 14, 3, 0b011), (pool, 14, 1, 0b100)]
    v = rules["values"]
    pinghu = v["pinghu"][0]
    for chows, values in [((False, False, False), (v["qingyise_daqidui"][0], v["daqidui"][0], pinghu)),
                          ((True, True, False), (v["qingyise_pinghu"][0], pinghu, pinghu))]:
        for i in range(3):
            one = [opps[j] if j == i else ([], 0, 0, 0) for j in range(3)]
            base = _ev.seat_cost(row, hand, seen, hidden, one, 40, vals, chows)
            assert sum(base) > 0
            for t in (0.5, 1.0):
                r = list(row)
                r[evplayer.OPT_THREAT] = t
                got = _ev.seat_cost(r, hand, seen, hidden, one, 40, vals, chows)
                want = 1 + t * (values[i] / pinghu - 1)
                assert got == pytest.approx([want * x for x in base], rel=1e-12), (chows, i, t)


def test_stretch_adds_wanzai_claims_only():
    wanzai, anhua = Rules.load("wanzai"), Rules.load("anhua")

    def claims(rules, players):
        h, _ = game.simulate_chunk(rules, players, 1, 0, 400, 1)
        return h, sum(int(h[f"claims_{s}"].sum()) for s in range(4))

    # keep 0: with keep's folds the 400 hands take a different course, and one claim fewer
    # in all (1,641 against 1,642) says nothing about stretch
    plain, n_plain = claims(wanzai, ("ev:keep=0,stretch=0",) * 4)
    stretched, n_stretched = claims(wanzai, ("ev:keep=0,stretch=1",) * 4)
    assert n_stretched > n_plain and not np.array_equal(plain["delta_0"], stretched["delta_0"])
    a, _ = claims(anhua, EV4)
    b, _ = claims(anhua, ("ev:stretch=1",) * 4)
    assert evplayer.player_opts("anhua")[evplayer.OPT_STRETCH] == 0
    assert all(np.array_equal(a[k], b[k]) for k in a)      # Anhua has no such claims to weigh


# ------------------------------------------------------------------ kong, passed, wait_class



def test_passed_clears_a_passed_kind_against_the_seats_that_let_it_pass():
    """After a draw from the wall, 上家's (seat 3's) last discard was let pass by seats 1
    and 2, so it carries only seat 3's danger; after a pung from seat 2, the punged kind
    carries only seat 2's; weighing a claim of seat 3's discard, that kind only seat 3's;
    when 上家 shows no meld, 對家's last discard was let pass by seat 1 as well.  Other
    kinds, and passed 0, are untouched."""
    row, shares = _danger_row(7)
    on = list(row)
    on[evplayer.OPT_PASSED] = 1.0
    hand = to_counts(parse_tiles("2345m3467p1188s1z"))
    k, p, q = parse_tile("4p"), parse_tile("8s"), parse_tile("3p")

    def risk(r, opps_, **kw):
        return _ev.seat_risk(r, hand, [0] * 34, [0] * 34, opps_, 40, **kw)

    def check(got, full, opps_, cleared):
        """cleared: {kind: seats (1..3) whose share is gone}"""
        for j in range(34):
            want = full[j] - sum(shares(hand, opps_[i - 1])[j] for i in cleared.get(j, ()))
            assert got[j] == pytest.approx(want, rel=1e-12, abs=1e-15), kind_name(j)
        for j, seats in cleared.items():
            assert got[j] < full[j] and seats

    opps = [([27, 31, 0, 9], 9, 1, 0b001), ([28, 8, q], 8, 0, 0), ([32, 26, 5, k], 10, 1, 0b010)]
    full = risk(row, opps)
    assert risk(row, opps, drawn=5) == full                # passed 0: nothing changes
    assert risk(on, opps) == full                          # not a turn: nothing is known
    check(risk(on, opps, drawn=5), full, opps, {k: (1, 2)})
    check(risk(on, opps, drawn=-1, pung=(p, 2)), full, opps, {p: (1, 3)})
    check(risk(on, opps, claimed=k), full, opps, {k: (1, 2)})
    # a chow's tile is not known, so a turn after a chow (no pung) clears nothing; nor does
    # a claimed kind that tops two pools (no sure discarder)
    assert risk(on, opps, drawn=-1) == full
    two = [opps[0], ([28, 8, k], 8, 0, 0), opps[2]]
    assert risk(on, two, claimed=k) == risk(row, two)
    # 上家 without a meld drew its tile, so 對家's last discard (3p) was let pass by 下家 too
    chain = [opps[0], opps[1], ([32, 26, 5, k], 10, 0, 0)]
    check(risk(on, chain, drawn=5), risk(row, chain), chain, {k: (1, 2), q: (1,)})


def test_wait_class_scales_the_danger_of_suited_ranks():
    row, _ = _danger_row(8)
    hand = to_counts(parse_tiles("123456789m19p5s1z"))
    opps = [([27, 31, 0, 9], 9, 1, 0b001), ([28, 8, 17], 8, 0, 0), ([32, 26, 5], 10, 1, 0b010)]
    base = _ev.seat_risk(row, hand, [0] * 34, [0] * 34, opps, 40)
    scaled = list(row)
    scaled[evplayer.OPT_WAIT_CLASS: evplayer.OPT_WAIT_CLASS + 3] = [1.5, 1.3, 1.1]
    got = _ev.seat_risk(scaled, hand, [0] * 34, [0] * 34, opps, 40)
    factor = {0: 1, 1: 1.1, 2: 1.3, 3: 1.5, 4: 1.5, 5: 1.5, 6: 1.3, 7: 1.1, 8: 1}
    for k in range(34):
        want = base[k] * (factor[k % 9] if k < 27 else 1)
        assert got[k] == pytest.approx(want, rel=1e-12), kind_name(k)
    assert sum(base) > 0


def test_new_slots_layout_and_ev_v1_keeps_them_off(monkeypatch):
    for name in ("ev", "ev_v1"):
        for g in ("wanzai", "anhua"):
            assert len(evplayer.player_opts(g, player=name)) == evplayer.N_PLAYER_OPTS == 87     # 84: search took 80 (calls), 81 (order), 82 (wins), 83 (peek); ev's hold 84, kongs 85, race 86
    v1 = evplayer.player_opts("wanzai", player="ev_v1")
    assert v1[evplayer.OPT_KONG: evplayer.OPT_KEEP + 1] == [0.0] * 6
    assert v1[evplayer.OPT_HOLD: evplayer.OPT_RACE + 1] == [0.0] * 3 and v1[evplayer.OPT_FOLD] == 1.0
    row = evplayer.player_opts("wanzai", {"kong": -0.5, "passed": 1})
    assert row[evplayer.OPT_KONG] == -0.5 and row[evplayer.OPT_PASSED] == 1
    model = dict(evplayer.load_model("wanzai"), wait_class=[1.4, 1.2, 1.05])
    monkeypatch.setattr(evplayer, "_read_model", lambda path=None, player="ev": {"wanzai": model})
    assert evplayer.player_opts("wanzai")[evplayer.OPT_WAIT_CLASS: evplayer.OPT_WAIT_CLASS + 3] == [1.4, 1.2, 1.05]
    model["wait_class"] = [1.4, 0]
    with pytest.raises(evplayer.PlayerOptionError, match="wait_class"):
        evplayer.player_opts("wanzai")


def test_kong_moves_wanzai_kong_decisions_only():
    """Each Wanzai kong is weighed with its payment (2 to 6 base, more on fire) on top of
    the hand's EV, so a small `kong` changes nothing, and -10 outweighs the payment and
    declines most kongs; Anhua's kongs do not read it."""
    wanzai, anhua = Rules.load("wanzai"), Rules.load("anhua")

    def kongs(rules, players):
        h, _ = game.simulate_chunk(rules, players, 2, 0, 600, 1)
        return h, sum(int(h[c].sum()) for c in ("kongs_exposed", "kongs_added", "kongs_concealed"))

    plain, n_plain = kongs(wanzai, EV4)
    small, n_small = kongs(wanzai, ("ev:kong=0.01",) * 4)
    fewer, n_fewer = kongs(wanzai, ("ev:kong=-10",) * 4)
    assert np.array_equal(plain["delta_0"], small["delta_0"]) and n_small == n_plain
    assert n_plain > 50 and n_fewer < n_plain / 2
    a, _ = kongs(anhua, EV4)
    b, _ = kongs(anhua, ("ev:kong=-10",) * 4)
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_keep_values_a_folding_discard_at_a_share_of_its_ev():
    """Facing a threat, the discards that cost shanten are candidates too: with keep 0 each
    scores only -fold x its cost; with keep λ its score rises by λ x EV(hand after it) x
    (1 - risk), linear in λ; the discards that keep the best shanten score as before."""
    rules = Rules.load("wanzai")
    vals = [tuple(rules["values"][name]) for name in WANZAI_VALUE_IDS]
    row = evplayer.player_opts("wanzai", {"passed": 0, "race": 0})
    hand = to_counts(parse_tiles("123m456p789s1379m5z"))
    pool = list(range(27, 34)) * 2          # long pools: every opponent looks ready
    opps = [(pool, 14, 1, 0b001), (pool, 14, 1, 0b010), (pool, 14, 0, 0)]

    def scores(keep):
        r = list(row)
        r[evplayer.OPT_KEEP] = keep
        return _ev.discard_scores(r, hand, [0] * 34, [0] * 34, opps, 40, vals)

    _, s0, risk, cost = scores(0.0)
    _, s1, _, _ = scores(0.35)
    _, s2, _, _ = scores(0.7)
    assert s0.keys() == s1.keys() == s2.keys()
    # folding candidates score -fold x cost at keep 0 and move with keep; the others do not
    folding = [k for k in s0 if s0[k] == pytest.approx(-row[evplayer.OPT_FOLD] * cost[k], abs=1e-12)
               and s2[k] != s0[k]]
    kept = [k for k in s0 if s2[k] == s0[k]]
    assert folding and kept and set(folding) | set(kept) == set(s0)
    for k in folding:
        assert s2[k] > s0[k]
        assert s2[k] - s0[k] == pytest.approx(2 * (s1[k] - s0[k]), rel=1e-9)


def test_race_adds_the_opponents_summed_tenpai_chance_to_fold():
    """race r: a discard's danger is weighed by fold + r x T, T the opponents' summed tenpai
    chance (the danger model's logistic of each one's features; those under 2% are left out,
    as the model leaves them), so every candidate's score moves by -r x T x its cost,
    linearly in r; with fold 0 a positive race still defends."""
    rules = Rules.load("wanzai")
    vals = [tuple(rules["values"][name]) for name in WANZAI_VALUE_IDS]
    row, _ = _danger_row(7)
    row[evplayer.OPT_LOSS] = evplayer.load_model("wanzai")["loss"]     # a deal-in costs something
    tw = np.array(row[evplayer.OPT_TENPAI: evplayer.OPT_TENPAI + 4]
                  + row[evplayer.OPT_TENPAI_HI: evplayer.OPT_TENPAI_HI + 4])
    rng = np.random.default_rng(7)

    def scores(fold, race, *state):
        r = list(row)
        r[evplayer.OPT_FOLD], r[evplayer.OPT_RACE] = fold, race
        return _ev.discard_scores(r, *state, vals)

    moved = 0
    for trial in range(20):
        hand, seen, opps, live = _random_table(rng, min_live=1)
        tenpai = [1 / (1 + np.exp(-tw @ _ev.danger_features(hand, seen, [0] * 34, *opp, live)[0])) for opp in opps]
        total = sum(t for t in tenpai if t >= 0.02)
        state = (hand, seen, [0] * 34, opps, live)
        _, s0, _, cost = scores(1.0, 0.0, *state)
        _, s1, _, _ = scores(1.0, 0.5, *state)
        _, s2, _, _ = scores(1.0, 1.0, *state)
        assert s0.keys() == s1.keys() == s2.keys(), trial
        for k in s0:
            assert s1[k] - s0[k] == pytest.approx(-0.5 * total * cost[k], abs=1e-9), (trial, k)
            assert s2[k] - s0[k] == pytest.approx(-1.0 * total * cost[k], abs=1e-9), (trial, k)
        moved += any(s2[k] != s0[k] for k in s0)
        _, _, risk_r, cost_r = scores(0.0, 1.0, *state)
        _, _, risk_none, _ = scores(0.0, 0.0, *state)
        assert cost_r == pytest.approx(cost, abs=1e-12) and not any(risk_none)
    assert moved == 20


def test_kongs_values_a_triplet_whose_last_copy_is_unseen():
    """kongs (Wanzai style 0.25): with no threat on the table, every discard that keeps the
    concealed 555m scores w x (the concealed kong's 2 from each of three) x the chance of
    drawing the last 5m (a quarter of the live wall over the live wall and three hands) more
    than without it, and the discard that breaks the triplet scores the same.  With the last
    5m in sight, or with kongs unpaid, nothing changes."""
    rules = Rules.load("wanzai")
    vals = [tuple(rules["values"][name]) for name in WANZAI_VALUE_IDS]
    hand = to_counts(parse_tiles("555m123p789s1379m5z"))
    opps = [([], 0, 0, 0)] * 3
    five = parse_tile("5m")
    live, paid = 40, (1, 2, 2)                  # added, exposed, concealed (RULES §2.4)

    def scores(kongs, seen=None, kong_values=paid):
        row = evplayer.player_opts("wanzai", {"kongs": kongs})
        return _ev.discard_scores(row, hand, seen or [0] * 34, [0] * 34, opps, live, vals, kong_values)[1]

    s0, s1 = scores(0), scores(0.25)
    bonus = 0.25 * 2 * 3 * (live * 0.25 / (live + 39))
    assert s0.keys() == s1.keys() and five in s0
    for k in s0:
        assert s1[k] - s0[k] == pytest.approx(0 if k == five else bonus, abs=1e-12), kind_name(k)
    last_in_sight = [1 if k == five else 0 for k in range(34)]
    assert scores(0.25, last_in_sight) == pytest.approx(scores(0, last_in_sight), abs=1e-12)
    assert scores(0.25, kong_values=None) == pytest.approx(scores(0, kong_values=None), abs=1e-12)
