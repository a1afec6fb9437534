"""The search player `search` (issue 19): its names and options, the legality and
determinism of its play, and the native entries it is built on -- the sampler of the hidden
tiles and play_on, which continues a copy of a hand (tile conservation in both).

The test suite runs the debug build (MJSIM_DEBUG=1), where the hand loop checks every seat
cache at every use, also inside the search's rollouts on sampled states, and search_turn
aborts on an action the loop did not offer.  The arena strength is a slow test."""

import pytest

from mjsim.run import arena
from mjsim.players import ev as evplayer
from mjsim.players import options as player_options
from mjsim.play import game
from mjsim.run import runner
from mjsim.players import search as searchplayer
from mjsim.players import Player
from mjsim.rulesets.rules import Rules

import reference

# small, every turn searched and any gain taken, so the few hands here exercise it often
QUICK = "search:samples=3,melds=0,width=4,margin=0,calls=1"
GAMES = ("wanzai", "anhua")
# search's own slots of a player_opts row (_search.pxd): 64..71, then 78.. after ev's 72..77
SEARCH_SLOTS = {*range(searchplayer.OPT_S_SAMPLES, searchplayer.OPT_S_SAMPLES + 8),
                searchplayer.OPT_S_OWN, searchplayer.OPT_S_GUARD, searchplayer.OPT_S_CALLS,
                searchplayer.OPT_S_ORDER, searchplayer.OPT_S_WINS,
                searchplayer.OPT_S_PEEK, searchplayer.OPT_S_CLOSE}


def n_kinds(name):
    return 27 if name == "anhua" else 34


def all_there(counts, name):
    return counts == [4] * n_kinds(name) + [0] * (34 - n_kinds(name))


# ------------------------------------------------------------------ names and options

def test_search_is_a_player_with_canonical_options():
    assert "search" in game.PLAYERS
    assert runner.parse_players("search") == ("search",) * 4
    assert runner.parse_players("search:rollout=greedy,samples=8,ev,ev,ev") == (
        "search:samples=8,rollout=greedy", "ev", "ev", "ev")
    # ev's options set the ev inside it
    assert runner.parse_players("search:fold=2,read=1") == ("search:fold=2,read=1",) * 4


@pytest.mark.parametrize("text,fragment", [
    ("search:rollout=random", "rollout must be one of ev, greedy"),
    ("search:samples=2.5", "samples must be an integer"),
    ("search:width=1", "width must be an integer 2..20"),
    ("search:depth=3", "unknown option 'depth'"),
    ("search:own=random", "own must be one of ev, greedy, rollout"),
    ("search:guard=11", "guard must be a number -1..10"),
    ("search:calls=2", "calls must be an integer 0..1"),
    ("search:order=0.5", "order must be an integer 0..1"),
    ("search:wins=2", "wins must be an integer 0..1"),
    ("greedy:samples=3", "takes no options"),
])
def test_bad_search_options_name_the_problem(text, fragment):
    with pytest.raises(evplayer.PlayerOptionError, match=fragment):
        player_options.split_name(text)


def test_search_row_holds_evs_numbers_then_its_own():
    ev_row = evplayer.player_opts("wanzai", {"fold": 2.0})
    row = searchplayer.player_opts("wanzai", {"fold": 2.0, "samples": 7, "rollout": "greedy"})
    assert len(row) == searchplayer.N_PLAYER_OPTS
    # ev's numbers everywhere but search's own slots
    own = SEARCH_SLOTS
    assert len(ev_row) == len(row)
    assert [x for i, x in enumerate(row) if i not in own] == [x for i, x in enumerate(ev_row) if i not in own]
    assert all(ev_row[i] == 0 for i in own)
    assert row[searchplayer.OPT_S_SAMPLES] == 7
    assert row[searchplayer.OPT_S_ROLLOUT] == searchplayer.ROLLOUT_CODES["greedy"]
    assert row[searchplayer.OPT_S_WIDTH] == searchplayer.DEFAULTS["width"]
    assert row[searchplayer.OPT_S_GUARD] == searchplayer.DEFAULTS["guard"]
    assert row[searchplayer.OPT_S_OWN] == -1          # own=rollout in Wanzai: the rollout player's
    anhua = searchplayer.player_opts("anhua")
    assert anhua[searchplayer.OPT_S_OWN] == searchplayer.ROLLOUT_CODES["ev"]   # Anhua's defaults
    assert anhua[searchplayer.OPT_S_ROLLOUT] == searchplayer.ROLLOUT_CODES["ev"]
    assert (anhua[searchplayer.OPT_S_WINS], row[searchplayer.OPT_S_WINS]) == (0, 1)   # Wanzai weighs wins
    assert searchplayer.player_opts("anhua", {"rollout": "greedy"})[searchplayer.OPT_S_ROLLOUT] == \
        searchplayer.ROLLOUT_CODES["greedy"]
    assert searchplayer.player_opts("anhua", {"own": "rollout"})[searchplayer.OPT_S_OWN] == -1
    mine = searchplayer.player_opts("wanzai", {"own": "ev", "guard": 0.25})
    assert mine[searchplayer.OPT_S_OWN] == searchplayer.ROLLOUT_CODES["ev"]
    assert mine[searchplayer.OPT_S_GUARD] == 0.25


def test_guard_drops_only_discards_riskier_than_evs_choice():
    """Candidate 0 is ev's choice and always stays; a discard goes when its risk exceeds
    candidate 0's by more than the guard; a kong (action 1 here) is never dropped."""
    from mjsim import vocab
    from mjsim.players import _search
    ACT_DISCARD, kong = vocab.TURN_NAMES.index("discard"), vocab.TURN_NAMES.index("concealed_kong")
    risk = [0.0] * 34
    risk[1], risk[2], risk[3], risk[4] = 0.05, 0.02, 0.08, 0.30
    cands = [(ACT_DISCARD, 1), (ACT_DISCARD, 2), (ACT_DISCARD, 3), (kong, 4), (ACT_DISCARD, 4)]
    assert _search.drop_riskier(risk, cands, 0.0) == [(ACT_DISCARD, 1), (ACT_DISCARD, 2), (kong, 4)]
    assert _search.drop_riskier(risk, cands, 0.03) == cands[:4]
    assert _search.drop_riskier(risk, cands, 1.0) == cands
    # ev's choice riskier than all: nothing is dropped at guard 0
    assert _search.drop_riskier(risk, cands[::-1][:1] + cands[:3], 0.0) == cands[::-1][:1] + cands[:3]
    with pytest.raises(ValueError, match="34 numbers"):
        _search.drop_riskier(risk[:5], cands, 0.0)


def test_order_ranks_discards_by_evs_scores():
    """order=1: after ev's choice (and kongs) the discards ev scores best, held kinds only,
    never one ev does not weigh or one already listed, up to the width."""
    from mjsim import vocab
    from mjsim.players import _search
    D = vocab.TURN_NAMES.index("discard")
    scores = [None] * 34
    hand = [0] * 34
    for k, v in {3: 1.5, 7: 2.5, 9: 0.5, 20: 2.0, 30: -0.25}.items():
        scores[k], hand[k] = v, 1
    scores[11] = 9.0                                  # scored but not held
    hand[12] = 1                                      # held, not weighed
    assert _search.add_by_score(scores, hand, [(D, 7)], 4) == [(D, 7), (D, 20), (D, 3), (D, 9)]
    assert _search.add_by_score(scores, hand, [(D, 9)], 20) == [
        (D, 9), (D, 7), (D, 20), (D, 3), (D, 30)]
    assert _search.add_by_score(scores, hand, [(D, 9)], 1) == [(D, 9)]


def test_close_reads_evs_two_best_scores_as_a_share_of_the_best():
    """close=X: a turn is close when ev's second-best discard (held, weighed kinds) scores
    within X x |best| of its best; a hand with one weighed kind is never close."""
    from mjsim.players import _search
    scores, hand = [None] * 34, [0] * 34
    for k, v in {3: 10.0, 7: 9.5, 9: 2.0}.items():
        scores[k], hand[k] = v, 1
    scores[11] = 9.99                                 # scored but not held
    hand[12] = 1                                      # held, not weighed
    assert _search.close_call(scores, hand, 0.05)     # 0.5 <= 0.05 x 10
    assert not _search.close_call(scores, hand, 0.04)
    assert not _search.close_call(scores, hand, 0.0)
    scores[7] = 10.0                                  # a tie is close at any share, 0 too
    assert _search.close_call(scores, hand, 0.0)
    neg = [None] * 34
    neg[3], neg[7] = -2.0, -2.09                      # folding hands: negative scores
    assert _search.close_call(neg, hand, 0.05) and not _search.close_call(neg, hand, 0.04)
    one = [None] * 34
    one[3] = 1.0
    assert not _search.close_call(one, hand, 10.0)


@pytest.mark.parametrize("name", GAMES)
def test_close_searches_the_turns_ev_finds_close(name):
    """With melds=4 and near=-1 (no threat or near-ready trigger on these turns) search plays
    as ev; close=-1 leaves it so, close=10 (every turn with two weighed discards is close)
    searches, and so decides otherwise somewhere."""
    rules = Rules.load(name)
    quiet = QUICK.replace("melds=0", "melds=4").replace("calls=1", "calls=0") + ",near=-1,rollout=greedy,own=greedy"

    def events(player, hands=range(4)):
        return [game.play(rules, seed=11, hand_index=h, players=(player, "ev", "ev", "ev")).events
                for h in hands]

    as_ev = events("ev")
    assert events(quiet) == as_ev and events(quiet + ",close=-1") == as_ev
    assert events(quiet + ",close=10") != as_ev


def test_search_options_never_set_evs():
    """search's own keys are not ev's, so a search option cannot change the ev inside it
    (search's `melds` was once named `threat`, which set ev's `threat` weight too)."""
    assert not set(searchplayer.KEYS) & set(evplayer.KEYS)
    ev_row = evplayer.player_opts("wanzai")
    row = searchplayer.player_opts("wanzai", {"melds": 2})
    assert row[searchplayer.OPT_S_MELDS] == 2
    assert [x for i, x in enumerate(row) if i not in SEARCH_SLOTS] == [
        x for i, x in enumerate(ev_row) if i not in SEARCH_SLOTS]
    assert runner.parse_players("search:melds=3") == ("search:melds=3",) * 4


def test_arena_parses_search_with_a_named_rollout():
    spec = arena.parse_player("search:rollout=greedy,samples=4")
    assert spec.name == "search" and dict(spec.options) == {"rollout": "greedy", "samples": 4.0}
    assert player_options.canonical(spec.arg) == "search:samples=4,rollout=greedy"
    with pytest.raises(ValueError, match="unknown option 'depth'"):
        arena.parse_player("search:depth=2")


# ------------------------------------------------------------------ legal, deterministic play

@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("rollout", ("ev", "greedy"))
def test_search_plays_legal_hands_and_differs_from_ev(name, rollout):
    """Every hand ends settled (the debug build checks each state and each action on the
    way), and searching changes some decision: the same deals with ev in seat 0 differ."""
    rules = Rules.load(name)
    player = f"{QUICK},rollout={rollout}"
    differ = 0
    for h in range(6):
        rec = game.play(rules, seed=3, hand_index=h, players=(player, "ev", "ev", "ev"))
        assert sum(rec.deltas) == 0
        assert rec.end in ("draw", "self_draw", "discard", "rob_kong", "instant")
        ev = game.play(rules, seed=3, hand_index=h, players=("ev",) * 4)
        differ += rec.events != ev.events
    assert differ >= 1


class Searcher(Player):
    """The native search through the Python bridge (which rejects an action not offered),
    recording each turn's options and answer."""

    def __init__(self):
        self.turns = []

    def turn(self, view, options):
        choice = view.builtin("search")
        self.turns.append((options, choice))
        return choice

    def claim(self, view, tile, options):
        return view.builtin("search")

    def win(self, view, tile, kind):
        return view.builtin("search")


def test_search_through_the_bridge_is_legal_and_plays_as_native():
    """With the default options (a Python seat's row): one hand, the costliest test here."""
    rules = Rules.load("wanzai")
    for h in range(1):
        bot = Searcher()
        bridged = game.play(rules, seed=5, hand_index=h, players=(bot, "ev", "ev", "ev"))
        assert bot.turns and all(choice in options for options, choice in bot.turns)
        native = game.play(rules, seed=5, hand_index=h, players=("search", "ev", "ev", "ev"))
        assert bridged.events == native.events and bridged.deltas == native.deltas


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_decisions(name):
    rules = Rules.load(name)
    players = (QUICK, "ev", QUICK + ",rollout=greedy", "ev")
    for h in range(3):
        a = game.play(rules, seed=9, hand_index=h, players=players)
        b = game.play(rules, seed=9, hand_index=h, players=players)
        assert a.events == b.events and a.deltas == b.deltas


@pytest.mark.parametrize("name", GAMES)
def test_guard_and_own_reach_the_native_search(name):
    """A guard no risk can exceed (risks are chances, at most 1) plays as no guard; the seat's
    own rollout player named as the rollout player plays as own=rollout; and a tight guard
    changes some decision on these deals, as do a different own player, order and peek."""
    rules = Rules.load(name)
    base = QUICK + ",rollout=greedy,own=rollout"    # Anhua's own default is ev

    def events(player, hands=range(4)):
        return [game.play(rules, seed=11, hand_index=h, players=(player, "ev", "ev", "ev")).events
                for h in hands]

    loose = events(base + ",guard=10")
    assert loose == events(base + ",guard=-1")
    greedy_own = QUICK + ",rollout=greedy,own=greedy"
    assert events(greedy_own + ",guard=10") == loose
    assert events(base + ",guard=0") != loose
    assert events(QUICK + ",rollout=greedy,own=ev,guard=10") != loose
    # order=1 searches other discards than order=0
    assert events(base + ",guard=10,order=1") != loose
    # peek=1 searches on the true hidden hands, and so decides otherwise somewhere
    assert events(base + ",guard=10,peek=1") != loose


@pytest.mark.parametrize("name", GAMES)
def test_searched_wins_pass_some_win(name):
    """wins=1 weighs a win on a discard: on these deals search passes one ev takes, and the
    passed hands stay legal (the debug build checks every seat).  Greedy rollouts in both
    games: with Anhua's default ev rollouts no win is passed on these deals."""
    rules = Rules.load(name)
    passed = 0
    for h in range(120 if name == "wanzai" else 200):
        rec = game.play(rules, seed=3, hand_index=h,
                        players=("search:samples=16,wins=1,margin=0,rollout=greedy", "ev", "ev", "ev"))
        passed += sum(e.kind == "pass_win" and e.seat == 0 for e in rec.events)
    assert passed >= 1


@pytest.mark.parametrize("name", GAMES)
def test_searched_claims_change_some_claim(name):
    """calls=1 searches the claims: on these deals some claim differs from ev's."""
    rules = Rules.load(name)
    differ = 0
    for h in range(6):
        with_calls = game.play(rules, seed=3, hand_index=h, players=(QUICK, "ev", "ev", "ev"))
        without = game.play(rules, seed=3, hand_index=h,
                            players=(QUICK.replace("calls=1", "calls=0"), "ev", "ev", "ev"))
        differ += with_calls.events != without.events
    assert differ >= 1


def test_arena_result_does_not_depend_on_workers():
    rules = Rules.load("wanzai")
    one = arena.run_arena(rules, QUICK, "ev", deals=4, seed=2, workers=1, chunk=2)
    two = arena.run_arena(rules, QUICK, "ev", deals=4, seed=2, workers=2, chunk=2)
    assert one.edge == two.edge and one.challenger_stats == two.challenger_stats


@pytest.mark.parametrize("name", GAMES)
def test_search_rows_do_not_depend_on_the_chunking(name, tmp_path):
    """Search seats get chunks of a few seconds (runner.make_spec); a hand's search draws its
    samples from the seed, the hand and the decision only, so a run cut into one-session
    chunks writes the rows of one chunk."""
    import pyarrow.dataset as ds

    rules = Rules.load(name)
    players = QUICK + ",ev,ev,ev"
    tables = []
    for chunk in (64, 16):
        out = tmp_path / f"c{chunk}"
        runner.run(runner.make_spec(rules, players=players, hands=64, seed=9, chunk=chunk), out, workers=1,
                   progress=False)
        tables.append({t: ds.dataset(out / t, partitioning="hive").to_table().sort_by(
            [("hand_index", "ascending")] + ([("winner", "ascending")] if t == "wins" else [])).drop(["variant"])
            for t in ("hands", "wins")})
    assert tables[0]["hands"].equals(tables[1]["hands"]) and tables[0]["wins"].equals(tables[1]["wins"])


def test_arena_says_when_a_player_peeks():
    rules = Rules.load("wanzai")
    cheat = arena.run_arena(rules, QUICK + ",peek=1", "ev", deals=2, seed=2, workers=1)
    fair = arena.run_arena(rules, QUICK, "ev", deals=2, seed=2, workers=1)
    notes = [[line for line in arena.format_lines(r) if line.startswith("note:")] for r in (cheat, fair)]
    assert len(notes[0]) == 1 and "concealed hands" in notes[0][0] and notes[1] == []


def test_arena_says_what_a_peeking_player_sees():
    """peek=2 reads only how ready the other seats are; the note says so, not 'hands'."""
    rules = Rules.load("wanzai")
    ready = arena.run_arena(rules, QUICK + ",peek=2", "ev", deals=2, seed=2, workers=1)
    notes = [line for line in arena.format_lines(ready) if line.startswith("note:")]
    assert len(notes) == 1 and "how ready" in notes[0] and "peek=2" in notes[0]


class ReadinessProbe(Player):
    """Plays as ev; at each Wanzai turn compares, per other seat, its true shanten with the
    shanten of its hand in a readiness-peeking sample (peek=2) and in a uniform one."""

    def __init__(self):
        self.pairs = []

    def turn(self, view, options):
        truth = view._readiness()
        melds = view.melds
        peeked = view._sample_hidden(3, 0.0, 1000, 2)
        uniform = view._sample_hidden(3, 0.0, 0, 0)
        assert all_there(peeked[2], "wanzai")
        for q in range(4):
            if q != view.seat:
                self.pairs.append((max(truth[q][2], 0), reference.wanzai_shanten(peeked[0][q], melds[q]),
                                   reference.wanzai_shanten(uniform[0][q], melds[q])))
        return view.builtin("ev")

    def claim(self, view, tile, options):
        return view.builtin("ev")

    def win(self, view, tile, kind):
        return view.builtin("ev")


def test_readiness_peek_deals_hands_as_ready_as_the_true_ones():
    """peek=2 (a diagnostic) climbs each other seat's fresh hand to that seat's true shanten:
    with room to climb nearly every sampled hand lands on it, where uniform draws mostly
    do not."""
    rules = Rules.load("wanzai")
    probe = ReadinessProbe()
    for h in range(3):
        game.play(rules, seed=5, hand_index=h, players=(probe, "ev", "ev", "ev"))
    n = len(probe.pairs)
    peek_hit = sum(t == p for t, p, _ in probe.pairs) / n
    uniform_hit = sum(t == u for t, _, u in probe.pairs) / n
    assert n > 50 and peek_hit >= 0.9 and uniform_hit < 0.6


# ------------------------------------------------------------------ the native entries

class Probe(Player):
    """Plays as ev; at each turn checks tile conservation in the live hand and in samples of
    its hidden tiles, and continues copies of the hand to their end with play_on."""

    def __init__(self, name):
        self.name = name
        self.continued = []
        self.claimed = []
        self.lone_passes = []
        self.won = []
        self.resampled = 0
        self.peek_walls_differ = self.peek_hands_differ = 0

    def turn(self, view, options):
        choice = view.builtin("ev")
        assert all_there(view._tile_counts(), self.name)
        melds = view.melds
        first = None
        for j in range(3):
            hands, wall, counts = view._sample_hidden(j, 0.5 * j, 32 * j)
            assert all_there(counts, self.name)
            assert hands[view.seat] == view.hand
            assert len(wall) == view.wall_left
            for q in range(4):
                if q != view.seat:     # a seat waiting for its turn holds 3n+1 tiles
                    assert sum(hands[q]) == 13 - 3 * len(melds[q])
            again = view._sample_hidden(j, 0.5 * j, 32 * j)
            assert again == (hands, wall, counts)      # a stream of its own, reproducible
            if first is None:
                first = (hands, wall)
            self.resampled += (hands, wall) != first
        # peek (a diagnostic) keeps the hidden hands as they are and deals only the wall
        peeks = [view._sample_hidden(j, 1.0, 64, True) for j in (7, 8)]
        assert all(all_there(counts, self.name) for _, _, counts in peeks)
        assert peeks[0][0] == peeks[1][0] and peeks[0][0][view.seat] == view.hand
        self.peek_walls_differ += peeks[0][1] != peeks[1][1]
        self.peek_hands_differ += peeks[0][0] != view._sample_hidden(7, 1.0, 64)[0]
        if len(self.continued) < 6:
            self.continued.append(view._continue_as("ev", choice))
        return choice

    def claim(self, view, tile, options):
        choice = view.builtin("ev")
        assert all_there(view._tile_counts(), self.name)
        if len(self.claimed) < 6:
            # a call is taken as given; after a pass the seats asked later are asked as in
            # the hand, so either must end as the hand did
            self.claimed.append((choice is not None, view._continue_as("ev", choice)))
        if choice is None:
            # the same pass with nobody else asked: where it ends otherwise, another seat
            # claimed the tile after this one passed
            self.lone_passes.append(view._continue_as("ev", None, others_claim=False))
        return choice

    def win(self, view, tile, kind):
        choice = view.builtin("ev")
        if kind == "discard":
            # taken or passed as given: the seats after it answer theirs, then play goes on
            self.won.append((choice, view._continue_as("ev", choice),
                             view._continue_as("ev", not choice)))
        return choice


@pytest.mark.parametrize("name", GAMES)
def test_samples_conserve_tiles_and_copies_continue_to_the_same_end(name):
    """A copy continued from any turn, or from a claim (taken or passed), with the answer
    the seat then gives ends exactly as the hand did (everyone plays ev), every tile
    accounted for; each sample keeps what the seat sees and deals the rest afresh."""
    rules = Rules.load(name)
    resampled = calls_taken = passes = peek_walls = peek_hands = 0
    for h in range(4):
        probe = Probe(name)
        rec = game.play(rules, seed=11, hand_index=h, players=(probe, "ev", "ev", "ev"))
        assert rec == game.play(rules, seed=11, hand_index=h, players=("ev",) * 4)
        winners = [w.winner for w in rec.wins]
        for deltas, end, won, counts in probe.continued:
            assert list(rec.deltas) == deltas and won == winners
            assert all_there(counts, name)
        for taken, (deltas, end, won, counts) in probe.claimed:
            assert all_there(counts, name)
            assert list(rec.deltas) == deltas and won == winners
            calls_taken += taken
        passes += sum(not taken for taken, _ in probe.claimed)
        resampled += probe.resampled
        peek_walls += probe.peek_walls_differ
        peek_hands += probe.peek_hands_differ
    assert resampled > 0
    assert peek_walls > 0 and peek_hands > 0   # peeked samples differ only in the wall
    assert calls_taken > 0 and passes > 0       # both kinds of claim continued


@pytest.mark.parametrize("name", GAMES)
def test_a_passed_claim_continues_with_the_seats_asked_after_it(name):
    """After a seat passes a discard, play_on_discard asks the seats the loop asks after it
    (下家's chow after a pung seat's pass), so the copy ends as the hand did; with nobody
    else asked, some of these copies end otherwise (the case occurs in the sample)."""
    rules = Rules.load(name)
    lone_differ = lone = 0
    for h in range(150):       # ev seldom passes a tile another seat then takes
        probe = Probe(name)
        rec = game.play(rules, seed=5, hand_index=h, players=(probe, "ev", "ev", "ev"))
        outcome = (list(rec.deltas), [w.winner for w in rec.wins])
        for taken, (deltas, end, won, counts) in probe.claimed:
            assert (deltas, won) == outcome
        for deltas, end, won, counts in probe.lone_passes:
            assert all_there(counts, name)
            lone_differ += (deltas, won) != outcome
        lone += len(probe.lone_passes)
    assert lone > lone_differ >= 1


@pytest.mark.parametrize("name", GAMES)
def test_a_win_on_a_discard_continues_taken_or_passed(name):
    """play_on_win: a copy continued from a win on a discard with the answer the seat gave
    ends as the hand did (ev takes it, or holds it for more); answered the other way, the
    hand goes on with every tile accounted for, and (on most deals) it ends otherwise."""
    rules = Rules.load(name)
    seen = differ = 0
    for h in range(80 if name == "wanzai" else 300):
        probe = Probe(name)
        rec = game.play(rules, seed=5, hand_index=h, players=(probe, "ev", "ev", "ev"))
        for took, (deltas, end, won, counts), (p_deltas, p_end, p_won, p_counts) in probe.won:
            assert (deltas, won) == (list(rec.deltas), [w.winner for w in rec.wins])   # taken, or held (ev's hold)
            assert all_there(counts, name) and all_there(p_counts, name)
            differ += (p_deltas, p_won) != (deltas, won)
            seen += 1
    assert seen >= 3 and differ >= seen / 2


# ------------------------------------------------------------------ slow: strength

@pytest.mark.slow
@pytest.mark.xfail(reason="issue 19's targets are not met yet: 600 deals x 4 seats vs 3 x ev, "
                          "seed 1: Wanzai +0.046 [-0.001, +0.093], Anhua +0.185 [+0.071, +0.299]; "
                          "pooled over seeds 0-5: Wanzai +0.041, Anhua +0.100; over the fresh seeds "
                          "6-9: Wanzai +0.025, Anhua +0.073 (docs/players/search.md)",
                   strict=True)   # meeting the target fails this mark: remove it then
@pytest.mark.parametrize("name,target", [("wanzai", 0.10), ("anhua", 0.20)])
def test_search_beats_ev_in_the_arena(name, target):
    """Issue 19's target: search vs 3 x ev, 600 deals x 4 seats, an edge of at least
    `target` points per seat-hand with its interval above zero (bench/bench_search.py)."""
    result = arena.run_arena(Rules.load(name), "search", "ev", deals=600, seed=1, workers=None)
    assert result.edge.low > 0 and result.edge.mean >= target, str(result.edge)
