"""What to run: the run spec (rules, players, seed, hands, sessions, chunking), parsing of
players and sweep grids, the variants of a sweep, and the plan of chunks."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mjsim.dataset.schema import hands_schema, jsonable
from mjsim.players import options as player_options
from mjsim.players import search as searchplayer
from mjsim.rulesets.rules import Rules


#: between a population's name and a variant's in the labels of a multi-population sweep
SEPARATOR = " / "
DEFAULT_HANDS = 100_000
#: Who plays when a run names nobody: ev reads the rules' values, so a changed value changes
#: play ("what if 七小對 pays 10?" gets an answer); greedy is the fast value-blind baseline.
DEFAULT_PLAYERS = "ev"
DEFAULT_SESSION_HANDS = 16     # four rounds of four deals: long enough for fire and dealer runs
DEFAULT_CHUNK = 20_000         # ~1-2 s of work per chunk: smooth progress, cheap files
DEFAULT_OUT = "mjsim-results"
MAX_SEED = 2**64 - 1           # the game's seed is a 64-bit word (replay takes the same range)
#: Upper bounds that keep one request from exhausting memory or time. hand_index is int64
#: and the game takes chunk starts up to 2**62; chunks are planned lazily, so a run of up to
#: MAX_HANDS hands costs memory for the chunks in flight only.
MAX_HANDS = 2**62
MAX_SESSION_HANDS = 100_000    # a session lives inside one chunk
MAX_CHUNK = 1_000_000          # ~100 MB of arrays per chunk in flight
#: seconds of work in a default chunk of slow players (search): a chunk is the unit a run
#: resumes from, and Ctrl-C drops the chunks in progress, so it stays short. It decides
#: default chunk sizes, which manifests record (see players.search)
SLOW_CHUNK_SECONDS = 20.0
#: ... and between two progress reports (with one worker, also the wait for Ctrl-C)
SLOW_SLICE_SECONDS = 2.0


# ------------------------------------------------------------------------------------
# What to run


@dataclass(frozen=True)
class RunSpec:
    """One variant of a run: everything that determines its rows."""

    rules: Rules
    players: tuple[str, ...]
    hands: int
    session_hands: int
    seed: int
    chunk: int
    label: str = ""   # how a sweep names the variant, e.g. "birds=2"
    swept: tuple = ()  # ((key, value), ...): a sweep's grid values, written as columns of hands
    population: str = ""  # with several --players: the population's name, which leads the label

    @property
    def variant(self) -> str:
        """The partition name: a sweep's label ("birds=2"), else the rules' variant."""
        return self.label or self.rules.variant

    def manifest_entry(self) -> dict:
        """The settings a resumed run must repeat exactly (plus descriptive fields)."""
        from mjsim.version import __version__

        return {
            "game": self.rules.game,
            "rules_hash": self.rules.hash,
            "seed": self.seed,
            "players": list(self.players),
            "session_hands": self.session_hands,
            "chunk": self.chunk,
            "hands": self.hands,
            "label": self.label,
            "swept": {k: jsonable(v) for k, v in self.swept},
            **({"population": self.population} if self.population else {}),
            "changes": {k: jsonable(v) for k, v in self.rules.changes().items()},
            "mjsim_version": __version__,
        }


#: manifest fields that shape the data; a mismatch on resume is an error


def _positive_int(name: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        hi = f"..{maximum}" if maximum is not None and maximum < 2**31 else " or more"
        raise ValueError(f"{name} must be {minimum}{hi}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {value:,}")
    return value


def worker_count(value, cores: int) -> int:
    """--workers: 0 (or None) means every core this process may use."""
    if value is None:
        return cores
    if not isinstance(value, bool) and isinstance(value, (int, np.integer)) and value < 0:
        raise ValueError(f"--workers must be 0 (all cores) or more, got {value}")
    return _positive_int("--workers", value, minimum=0) or cores


def parse_players(text: str | Sequence[str]) -> tuple[str, ...]:
    """'greedy' -> 4 x greedy; 'greedy,random,greedy,random' -> one per seat.  A name may
    carry ev options, whose commas stay with it: 'ev:fold=0.5,claim=2,greedy,greedy,greedy'
    (mjsim.players.options); names are returned in canonical spelling."""
    if isinstance(text, str):
        names = [p.strip() for p in text.split(",")]
    elif isinstance(text, Sequence) and all(isinstance(p, str) for p in text):
        names = [p.strip() for p in text]
    else:   # a Python player object plays only through game.play and simulate_chunk
        raise ValueError(f"players: a run takes player names ('ev' or 4 comma-separated names); Python "
                         f"players play through mjsim.play.game.play and simulate_chunk, got {text!r:.80}")
    names = player_options.join_names(names)
    if len(names) == 1 and names[0]:
        names = names * 4
    if len(names) != 4 or not all(names):
        raise ValueError(f"players: give one name for all seats or exactly 4 comma-separated names, got {text!r}")
    return tuple(player_options.canonical(n) for n in names)


def _not_whole_sessions(hands: int, session_hands: int, option: str = "--hands") -> str:
    """The refusal of a run that would end inside a session, with the nearest counts that work.
    (Refused, not shortened: a shorter last session would make the dataset of --hands N differ
    from the first N hands of a longer run, which resume and --precision rely on.)"""
    below = hands // session_hands * session_hands
    options = [f"{option} {n:,}" for n in (below, below + session_hands) if 0 < n <= MAX_HANDS]
    lengths = [k for k in range(min(hands, MAX_SESSION_HANDS), 0, -1) if hands % k == 0]
    nearest = min(lengths, key=lambda k: (abs(k - session_hands), -k))
    options.append(f"--session-hands {nearest}")
    return (f"{option} {hands:,} is not a whole number of {session_hands}-hand sessions (--session-hands "
            f"{session_hands}); the nearest that work: {' or '.join(options)}")


def check_sizes(hands: int, session_hands: int, option: str = "--hands") -> tuple[int, int]:
    """(hands, session_hands) as a run takes them: positive and the hands in whole sessions.
    `option` is the flag the user gave the hands with (--precision's cap is --max-hands), so
    the refusal names what they typed."""
    hands = _positive_int(f"{option} (number of hands)", hands, maximum=MAX_HANDS)
    session_hands = _positive_int("--session-hands", session_hands, maximum=MAX_SESSION_HANDS)
    if hands % session_hands:
        raise ValueError(_not_whole_sessions(hands, session_hands, option))
    return hands, session_hands


def check_chunk(chunk: int, session_hands: int) -> int:
    """--chunk, for a checked --session-hands: 1..MAX_CHUNK hands, in whole sessions."""
    chunk = _positive_int("--chunk", chunk, maximum=max(MAX_CHUNK, session_hands))
    if chunk % session_hands:
        raise ValueError(f"--chunk {chunk} must be a multiple of --session-hands {session_hands} (a chunk never splits a session)")
    return chunk


def table_seconds_per_hand(rules: Rules, players: Sequence[str]) -> float:
    """A rough CPU cost per hand of a table, summed over the seats whose cost matters
    (search; ev and greedy play thousands of hands a second and count as 0)."""
    total = 0.0
    for name in players:
        base, options = player_options.split_name(name)
        if base == "search":
            total += searchplayer.seconds_per_hand(rules.game, options)
    return total


#: rough CPU seconds a hand of one fast seat adds to its table (Wanzai / Anhua, the hand
#: loop's share included), measured with game.simulate_chunk: only for estimating how long
#: a run of tables with different players will take (chunk sizes use the slow seats alone)
FAST_SEAT_SECONDS = {"random": (1e-6, 1.5e-6), "greedy": (5e-6, 6e-6), "greedy_v1": (6.5e-6, 6e-6),
                     "ev": (6e-5, 2.8e-5), "ev_v1": (6.5e-5, 2.5e-5)}


def eta_seconds_per_hand(rules: Rules, players: Sequence[str]) -> float:
    """A rough CPU cost per hand of a whole table, every seat counted: what weighs the hands
    of tables with different players against each other in a run's time estimate."""
    column = 1 if rules.game == "anhua" else 0
    fast = sum(FAST_SEAT_SECONDS.get(player_options.split_name(name)[0], (0.0, 0.0))[column]
               for name in players)
    return fast + table_seconds_per_hand(rules, players)


def work_limited(hands: int, cost: float, seconds: float, session_hands: int) -> int:
    """`hands`, or as many as take `seconds` of work at `cost` seconds a hand when that is
    fewer, in whole sessions (at least one): the size of a chunk or a progress slice."""
    if cost > 0:
        hands = min(hands, seconds / cost)
    return max(session_hands, int(hands) // session_hands * session_hands)


def default_chunk(rules: Rules, players: Sequence[str], hands: int, session_hands: int) -> int:
    """A whole number of sessions, never more than the run: about DEFAULT_CHUNK hands, or
    SLOW_CHUNK_SECONDS of work when slow players sit at the table (a search seat plays
    about 9 hands a second: a chunk of 20,000 would be half an hour that Ctrl-C waits for
    and an interrupted run loses)."""
    cost = table_seconds_per_hand(rules, players)
    return min(hands, work_limited(DEFAULT_CHUNK, cost, SLOW_CHUNK_SECONDS, session_hands))


def progress_slice(rules: Rules, players: Sequence[str], fast_slice: int, session_hands: int) -> int:
    """Hands played in one native call between two progress reports (or two chances for
    Ctrl-C), in whole sessions: `fast_slice` hands, or SLOW_SLICE_SECONDS of work when that
    is fewer (at least one session)."""
    return work_limited(fast_slice, table_seconds_per_hand(rules, players), SLOW_SLICE_SECONDS, session_hands)


def make_spec(rules: Rules, *, players=DEFAULT_PLAYERS, hands: int = DEFAULT_HANDS,
              session_hands: int = DEFAULT_SESSION_HANDS, seed: int = 0, chunk: int | None = None,
              label: str = "", swept: Sequence[tuple[str, object]] = (), population: str = "") -> RunSpec:
    """A validated RunSpec; every bad value raises ValueError naming it. Player names are
    checked for their form and options here, and for being known by `runner.run`, which
    asks the game that will play them (a test's fake game knows other names)."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a mjsim.Rules, got {type(rules).__name__}")
    players = parse_players(players)
    hands, session_hands = check_sizes(hands, session_hands)
    seed = _positive_int("--seed", seed, minimum=0, maximum=MAX_SEED)
    if chunk is None:
        chunk = default_chunk(rules, players, hands, session_hands)
    chunk = check_chunk(chunk, session_hands)
    swept = tuple((str(k), v) for k, v in swept)
    clash = [k for k, _ in swept if k in hands_schema().names]
    if clash:
        raise ValueError(f"--grid key {clash[0]!r} has the name of a hands column")
    return RunSpec(rules, players, hands, session_hands, seed, chunk, label, swept, population)


def _split_top_level(text: str) -> list[str]:
    """'1,2' -> ['1', '2']; '[3,1],[2,1]' -> ['[3,1]', '[2,1]'] (commas inside [] or quotes stay)."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def parse_grid(texts: Sequence[str]) -> list[tuple[str, list[str]]]:
    """['birds=1,2', 'values.pinghu=[2,1],[3,1]'] -> [('birds', ['1', '2']), ...] (raw values)."""
    if not texts:
        raise ValueError("a sweep needs at least one --grid key=v1,v2")
    grid = []
    for text in texts:
        key, sep, raw = text.partition("=")
        key = key.strip()
        values = _split_top_level(raw) if sep else []
        if not key or not values or not all(values):
            raise ValueError(f"--grid {text!r}: expected key=v1,v2,... (e.g. birds=1,2)")
        if key in (k for k, _ in grid):
            raise ValueError(f"--grid: key {key!r} given twice")
        grid.append((key, values))
    return grid


def grid_variants(base: Rules, grid: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[str, Rules]]:
    """Every combination of the grid applied to `base`, first values first: [(label, rules)].

    The first combination is the sweep's baseline. Combinations that give identical rules
    are kept once. Bad keys and values raise RulesError naming them.
    """
    import itertools

    from mjsim.rulesets.rules import command_line_overrides, parse_override

    out: list[tuple[str, Rules]] = []
    for combo in itertools.product(*[[(k, v) for v in values] for k, values in grid]):
        overrides = command_line_overrides(base, [parse_override(f"{k}={v}") for k, v in combo], "--grid")
        rules = base.with_overrides(**overrides)
        label = " ".join(f"{k}={v}" for k, v in combo)
        if all(rules != r for _, r in out):
            out.append((label, rules))
    return out


def sweep_specs(base: Rules, grid: Sequence[tuple[str, Sequence[str]]], *, population: str = "",
                **spec_options) -> list[RunSpec]:
    """One RunSpec per grid combination (see grid_variants), labelled "key=value ..." and
    carrying the swept values, which become columns of its hands table.  With a
    `population` name (a sweep under several --players) the label starts with it:
    "greedy / key=value ...".

    The values of one key get one type across the sweep (ints become floats beside a float),
    so the columns of every variant line up for any reader.
    """
    variants = grid_variants(base, grid)
    keys = [k for k, _ in grid]
    values = {k: [_plain(r[k]) for _, r in variants] for k in keys}
    for k, vs in values.items():
        if any(isinstance(v, float) for v in vs) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vs):
            values[k] = [float(v) for v in vs]
    prefix = population + SEPARATOR if population else ""
    return [make_spec(r, label=prefix + label, swept=[(k, values[k][i]) for k in keys], population=population,
                      **spec_options)
            for i, (label, r) in enumerate(variants)]


def _plain(v):
    """A rules value as plain Python (frozen tuples and mappings thawed)."""
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "items"):
        return {k: _plain(x) for k, x in v.items()}
    return v


