"""FAKE game loop for tests of the runner's mechanics ONLY (chunking, workers, Dask, resume,
Parquet layout, statistics plumbing). It plays no mahjong.

It honours the contract of `mjsim.game.simulate_chunk` (same signature, same column names
and dtypes) and returns deterministic pseudo-data that depends only on (rules, seed,
hand_index) plus, within a session, on the earlier hands of that session (the dealer
passes to the first winner, as RULES §2.6 does), so chunking and worker count cannot
change it. Deltas are zero-sum, some hands have two winners, Anhua rules get wild
indicators, wild categories and birds.

Selected by tests through `mjsim.runner.SIMULATOR = "fake_game:simulate_chunk"`
(`fake_game:simulate_chunk_few_wins` gives a clearly lower win rate).
"""
from __future__ import annotations

import numpy as np

PLAYERS = ("random", "greedy", "ev")   # it plays none of them: any name runs the same
WIN_KINDS = ("self_draw", "discard", "rob_kong", "gangshanghua", "gangshangpao", "instant")
PAY_REASONS = ("win", "kong_added", "kong_exposed", "kong_concealed", "kong_refund", "instant")

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a well-mixed 64-bit word per input word (vectorised)."""
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x + np.uint64(0x9E3779B97F4A7C15)) & _M64
        x = ((x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _M64
        x = ((x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _M64
    return x ^ (x >> np.uint64(31))


def _uniform(seed: int, idx: np.ndarray, stream: int) -> np.ndarray:
    """A uniform [0, 1) per hand index, independent per `stream`."""
    with np.errstate(over="ignore"):
        key = _mix(np.full(idx.shape, seed, np.uint64) ^ np.uint64(stream * 0x632BE59BD9B4E019 & 0xFFFFFFFFFFFFFFFF))
        word = _mix(key ^ idx.astype(np.uint64))
    return (word >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def _simulate(rules, players, seed, start, count, session_hands, win_rate):
    if len(players) != 4 or any(p not in PLAYERS for p in players):
        raise ValueError(f"fake game: players must be 4 of {PLAYERS}, got {players!r}")
    if start % session_hands or count % session_hands:
        raise ValueError("fake game: a chunk must hold whole sessions")
    anhua = rules.game == "anhua"
    base = int(rules["base"]) if "base" in rules else 1
    idx = np.arange(start, start + count, dtype=np.int64)
    u = [_uniform(seed, idx, k) for k in range(8)]
    n = count

    win = u[0] < win_rate
    two = win & (u[1] < 0.05)
    n_winners = (win.astype(np.int8) + two.astype(np.int8)).astype(np.int8)
    self_draw = win & ~two & (u[2] < 0.4)
    discarder = (u[3] * 4).astype(np.int8)
    r = (u[4] * 3).astype(np.int8)                   # which of the three others wins first
    first = ((discarder + 1 + r) % 4).astype(np.int8)
    second = ((discarder + 1 + (r + 1) % 3) % 4).astype(np.int8)
    first = np.where(self_draw, (u[4] * 4).astype(np.int8), first).astype(np.int8)
    n_patterns = 2 if anhua else 15
    pattern_code = (np.floor(u[5] ** 3 * n_patterns)).astype(np.int8)  # skewed: pinghu most often
    if anhua:
        pattern_code = np.where(pattern_code == 0, 15, 0).astype(np.int8)  # yingzhuang / pinghu
    points = ((1 + (u[6] * 4).astype(np.int32)) * base).astype(np.int32)

    # dealer: seat 0 opens each session; the first winner deals next, a draw keeps the dealer
    dealer = np.zeros(n, np.int8)
    for i in range(n):
        if (start + i) % session_hands == 0:
            dealer[i] = 0
        else:
            dealer[i] = first[i - 1] if win[i - 1] else dealer[i - 1]

    deltas = np.zeros((n, 4), np.int64)
    rows = np.arange(n)
    sd = self_draw
    deltas[rows[sd], first[sd]] += 3 * points[sd]
    for s in range(4):
        pays = sd & (first != s)
        deltas[pays, s] -= points[pays]
    ron = win & ~sd
    deltas[rows[ron], first[ron]] += points[ron]
    deltas[rows[ron], discarder[ron]] -= points[ron]
    deltas[rows[two], second[two]] += points[two]
    deltas[rows[two], discarder[two]] -= points[two]

    kong_u = u[7]
    hands = {
        "hand_index": idx,
        "session": (idx // session_hands).astype(np.int64),
        "hand_in_session": (idx % session_hands).astype(np.int32),
        "dealer": dealer,
        "dice": (2 + (u[1] * 11).astype(np.int8)).astype(np.int8),
        "wild_indicator": ((u[2] * 27).astype(np.int8) if anhua else np.full(n, -1, np.int8)),
        "end": win.astype(np.uint8),
        "draws": (20 + (u[3] * 60).astype(np.int16)).astype(np.int16),
        "wall_left": (np.where(win, (u[4] * 30).astype(np.int16), 0)).astype(np.int16),
        "n_winners": n_winners,
        "kongs_exposed": (kong_u < 0.10).astype(np.int8),
        "kongs_added": (kong_u > 0.95).astype(np.int8),
        "kongs_concealed": ((kong_u > 0.5) & (kong_u < 0.53)).astype(np.int8),
        **{f"delta_{s}": deltas[:, s].copy() for s in range(4)},
        **{f"fire_{s}": np.zeros(n, np.int8) for s in range(4)},
        **{f"piao_{s}": np.zeros(n, np.int8) for s in range(4)},
        **{f"claims_{s}": ((u[(s + 3) % 8] * 7).astype(np.int16) % 3).astype(np.int16) for s in range(4)},
    }

    # wins: one row per winner, ordered by hand index then winner order
    w_rows = np.concatenate([rows[win], rows[two]])
    w_first = np.concatenate([np.ones(win.sum(), bool), np.zeros(two.sum(), bool)])
    order = np.lexsort((~w_first, w_rows))
    w_rows, w_first = w_rows[order], w_first[order]
    winner = np.where(w_first, first[w_rows], second[w_rows]).astype(np.int8)
    w_self = self_draw[w_rows]
    kind = np.where(w_self, 0, 1).astype(np.uint8)
    kind = np.where(w_self & (u[6][w_rows] > 0.9), 3, kind).astype(np.uint8)   # some 槓上花
    props = (np.uint32(1) << pattern_code[w_rows].clip(0, 8).astype(np.uint32)).astype(np.uint32)
    props |= np.where(u[5][w_rows] > 0.8, np.uint32(1 << 9), np.uint32(0)).astype(np.uint32)  # qingyise
    wpoints = points[w_rows]
    wins = {
        "hand_index": idx[w_rows],
        "winner": winner,
        "discarder": np.where(w_self, -1, discarder[w_rows]).astype(np.int8),
        "win_kind": kind,
        "pattern": pattern_code[w_rows],
        "props": props,
        "category": ((1 + (u[7][w_rows] * 5).astype(np.int8)) if anhua else np.zeros(len(w_rows), np.int8)).astype(np.int8),
        "points": wpoints,
        "birds_hit": ((u[2][w_rows] < 0.25).astype(np.int8) if anhua else np.zeros(len(w_rows), np.int8)),
        "received": np.where(w_self, 3 * wpoints, wpoints).astype(np.int64),
        "turn": (1 + (u[3][w_rows] * 12).astype(np.int16)).astype(np.int16),
    }
    # payments: each payer of a win pays its points to the winner (reason "win", the
    # win's pattern); a concealed kong is paid 1 by each other seat before it
    p_hand, p_payer, p_recv, p_amt, p_reason, p_pat = [], [], [], [], [], []
    conc = hands["kongs_concealed"] > 0
    for i in np.nonzero(conc)[0]:
        kong_seat = int(discarder[i])
        for s in range(4):
            if s != kong_seat:
                p_hand.append(idx[i]); p_payer.append(s); p_recv.append(kong_seat)
                p_amt.append(base); p_reason.append(3); p_pat.append(-1)
                deltas[i, s] -= base
                deltas[i, kong_seat] += base
    for j, i in enumerate(w_rows):
        payers = [s for s in range(4) if s != winner[j]] if w_self[j] else [int(discarder[i])]
        for s in payers:
            p_hand.append(idx[i]); p_payer.append(s); p_recv.append(int(winner[j]))
            p_amt.append(int(wpoints[j])); p_reason.append(0); p_pat.append(int(pattern_code[i]))
    for s in range(4):
        hands[f"delta_{s}"] = deltas[:, s].copy()
    order = np.argsort(np.asarray(p_hand, np.int64), kind="stable")
    pays = {
        "hand_index": np.asarray(p_hand, np.int64)[order],
        "payer": np.asarray(p_payer, np.int8)[order],
        "receiver": np.asarray(p_recv, np.int8)[order],
        "amount": np.asarray(p_amt, np.int64)[order],
        "reason": np.asarray(p_reason, np.int8)[order],
        "pattern": np.asarray(p_pat, np.int16)[order],
    }
    return hands, wins, pays


def _result(out, payments: bool):
    return out if payments else out[:2]


def simulate_chunk(rules, players, seed, start, count, session_hands, payments=False):
    """FAKE: about 70 % of hands won, 5 % of those by two players."""
    return _result(_simulate(rules, players, seed, start, count, session_hands, win_rate=0.70), payments)


def simulate_chunk_few_wins(rules, players, seed, start, count, session_hands, payments=False):
    """FAKE: a clearly different game, about 40 % of hands won."""
    return _result(_simulate(rules, players, seed, start, count, session_hands, win_rate=0.40), payments)


def simulate_chunk_slow(rules, players, seed, start, count, session_hands, payments=False):
    """FAKE: as simulate_chunk, 0.3 s per chunk, so that a test can interrupt a run midway."""
    import time

    time.sleep(0.3)
    return simulate_chunk(rules, players, seed, start, count, session_hands, payments)


def make_dataset(root, simulator: str = "fake_game:simulate_chunk", seed: int = 1, hands: int = 8000,
                 rules=None, chunk: int = 4000):
    """Run the real runner over this FAKE game into `root` (for stats and report tests)."""
    from mjsim import Rules
    from mjsim.run import runner

    spec = runner.make_spec(rules or Rules.load("wanzai"), hands=hands, chunk=chunk, session_hands=16, seed=seed)
    runner.run(spec, root, workers=1, progress=False, simulator=simulator)
    return root


def simulate_chunk_fire(rules, players, seed, start, count, session_hands, payments=False):
    """FAKE: as simulate_chunk, and a seat is on fire for a whole session (probability 0.3
    per seat and session), a measure that carries over: its design effect is large."""
    out = simulate_chunk(rules, players, seed, start, count, session_hands, payments=True)
    session = out[0]["session"]
    for s in range(4):
        out[0][f"fire_{s}"] = (_uniform(seed + 1000 + s, session, 9) < 0.3).astype(np.int8)
    return _result(out, payments)
