"""Slow, deliberately simple pure-Python reference evaluator for mjsim (RULES.md §2, §3).

This module is written independently of the engine's table-based core: every question
("is this a winning hand?", "how far from winning is it?") is answered by an explicit
recursive search over blocks (melds, pairs) taken from the hand.  The test suite uses it
to cross-check the native core on large numbers of random hands.  Stdlib only; it never
imports ``mjsim``.

Tile kinds are ints 0..33: 0-8 = 1m..9m, 9-17 = 1p..9p, 18-26 = 1s..9s,
27-33 = 東 南 西 北 中 發 白.  A hand is a 34-length sequence of counts.  A declared meld is
``(kind, tiles)`` with kind one of "chow", "pung", "kong", "added_kong", "concealed_kong".

Two search procedures are used, on purpose not sharing code paths beyond the list of
blocks, so that the tests can check them against each other:

* ``_can_form``: can *all* natural tiles, plus exactly the given number of jokers, be
  split into ``melds`` melds and ``pair`` pairs?  (Used by the evaluators.)
* ``_min_add``: the minimum number of tiles that must be added to some sub-multiset of
  the natural tiles so that it becomes exactly ``melds`` melds and ``pair`` pairs.
  (Used by shanten: shanten = X - jokers - 1.)

Both look at the lowest kind ``i`` that still has a tile.  Every block that uses that
tile contains ``i``; kinds below ``i`` have no tiles left, so any block position below
``i`` is filled by a joker / an added tile.  Inside one block, a natural tile is always
used where one is available (exchange argument: if a solution fills a position of kind x
with a joker/added tile while a natural x is used elsewhere or left over, swapping them
gives a solution that is at least as good).
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations

N_KINDS = 34
N_SUITED = 27
WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)

MELD_KINDS = ("chow", "pung", "kong", "added_kong", "concealed_kong")

# RULES §2.3, in table order (this order decides ties: the id further down wins).
WANZAI_IDS = (
    "pinghu",
    "shisanlan",
    "qixing_shisanlan",
    "quanqiuren",
    "daqidui",
    "qixiaodui",
    "haohua_qixiaodui",
    "shuang_haohua_qixiaodui",
    "san_haohua_qixiaodui",
    "qingyise_pinghu",
    "qingyise_daqidui",
    "qingyise_qixiaodui",
    "qingyise_haohua_qixiaodui",
    "qingyise_shuang_haohua_qixiaodui",
    "qingyise_san_haohua_qixiaodui",
)
WANZAI_ORDER = {name: n for n, name in enumerate(WANZAI_IDS)}

# 清一色 replaces an id by its 清一色 row (the 十三爛 family cannot be one suit).
WANZAI_QINGYISE = {
    "pinghu": "qingyise_pinghu",
    "quanqiuren": "qingyise_pinghu",
    "daqidui": "qingyise_daqidui",
    "qixiaodui": "qingyise_qixiaodui",
    "haohua_qixiaodui": "qingyise_haohua_qixiaodui",
    "shuang_haohua_qixiaodui": "qingyise_shuang_haohua_qixiaodui",
    "san_haohua_qixiaodui": "qingyise_san_haohua_qixiaodui",
}

QIXIAODUI_BY_QUADS = (
    "qixiaodui",
    "haohua_qixiaodui",
    "shuang_haohua_qixiaodui",
    "san_haohua_qixiaodui",
)

# Default parameter sets, copied from RULES.md §2.3 and §3 (handy for tests).
WANZAI_DEFAULT_VALUES = {
    "pinghu": (2, 1),
    "shisanlan": (2, 2),
    "qixing_shisanlan": (4, 4),
    "quanqiuren": (2, 1),
    "daqidui": (3, 3),
    "qixiaodui": (5, 5),
    "haohua_qixiaodui": (10, 10),
    "shuang_haohua_qixiaodui": (20, 20),
    "san_haohua_qixiaodui": (40, 40),
    "qingyise_pinghu": (5, 5),
    "qingyise_daqidui": (10, 10),
    "qingyise_qixiaodui": (10, 10),
    "qingyise_haohua_qixiaodui": (20, 20),
    "qingyise_shuang_haohua_qixiaodui": (40, 40),
    "qingyise_san_haohua_qixiaodui": (40, 40),
}

ANHUA_DEFAULT_PARAMS = {
    "pair_258": True,
    "hard_if_natural": True,
    "discard_win_wilds": "dan_wang_face_value",
    "base": 1,
    "score_cap": 0,
    "multipliers": {
        "yingzhuang": 4,
        "pinghu": 1,
        "dan_wang": 2,
        "san_wang": 4,
        "si_wang": 8,
        "liu_wang": 8,
        "qi_wang": 16,
        "qingyise": 2,
        "xiaoqidui": 2,
        "gangshanghua": 2,
        "qiangganghu": 2,
        "gangshangpao": 2,
    },
}

ANHUA_CONTEXTS = (None, "qiangganghu", "gangshangpao", "gangshanghua")

NO_WIN = (False, None, frozenset(), 0)


# ---------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------

def suit_of(kind: int) -> int:
    """0 = m, 1 = p, 2 = s, 3 = honors."""
    return kind // 9 if kind < N_SUITED else 3


def rank_of(kind: int) -> int:
    """1..9 for suited kinds, 0 for honors."""
    return kind % 9 + 1 if kind < N_SUITED else 0


def parse_hand(text: str) -> list[int]:
    """'123m456p1z1z' -> 34 counts.  Digits wait for their suit letter m/p/s/z."""
    counts = [0] * N_KINDS
    pending: list[int] = []
    for ch in text:
        if ch.isspace():
            continue
        if ch.isdigit():
            pending.append(int(ch))
        elif ch in "mpsz":
            if not pending:
                raise ValueError(f"suit {ch!r} without digits in {text!r}")
            for r in pending:
                if ch == "z":
                    if not 1 <= r <= 7:
                        raise ValueError(f"bad honor {r}z in {text!r}")
                    counts[26 + r] += 1
                else:
                    if not 1 <= r <= 9:
                        raise ValueError(f"bad rank {r}{ch} in {text!r}")
                    counts["mps".index(ch) * 9 + r - 1] += 1
            pending = []
        else:
            raise ValueError(f"bad character {ch!r} in {text!r}")
    if pending:
        raise ValueError(f"digits without a suit at the end of {text!r}")
    return counts


def parse_kinds(text: str) -> list[int]:
    """'123m' -> [0, 1, 2] (kinds in order, for building meld tile lists)."""
    kinds = []
    for k, c in enumerate(parse_hand(text)):
        kinds.extend([k] * c)
    return kinds


def _as_counts(counts, expected_total: int | None = None, n_kinds: int = N_KINDS) -> tuple:
    counts = tuple(int(c) for c in counts)
    if len(counts) == N_SUITED and n_kinds == N_SUITED:
        counts = counts + (0,) * (N_KINDS - N_SUITED)
    if len(counts) != N_KINDS:
        raise ValueError(f"counts must have {N_KINDS} entries, got {len(counts)}")
    if any(c < 0 for c in counts):
        raise ValueError("negative count")
    if n_kinds == N_SUITED and any(counts[N_SUITED:]):
        raise ValueError("Anhua hands contain only suited tiles (kinds 0..26)")
    if expected_total is not None and sum(counts) != expected_total:
        raise ValueError(f"concealed part must have {expected_total} tiles, got {sum(counts)}")
    return counts


def _check_melds(melds) -> list[tuple[str, list[int]]]:
    out = []
    for kind, tiles in melds:
        tiles = list(tiles)
        if kind not in MELD_KINDS:
            raise ValueError(f"unknown meld kind {kind!r}")
        size = 3 if kind in ("chow", "pung") else 4
        if len(tiles) != size:
            raise ValueError(f"{kind} needs {size} tiles, got {tiles}")
        out.append((kind, tiles))
    if len(out) > 4:
        raise ValueError("more than 4 declared melds")
    return out


def _meld_tiles(melds) -> list[int]:
    return [t for _, tiles in melds for t in tiles]


def _one_numbered_suit(kinds) -> bool:
    """True if all the given tile kinds are from one numbered suit (m, p or s)."""
    suits = {suit_of(k) for k in kinds}
    return len(suits) == 1 and 3 not in suits


# ---------------------------------------------------------------------------------------
# Blocks
# ---------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _melds_containing(i: int, honor_runs: bool, runs: bool) -> tuple:
    """Every meld (a tuple of 3 kinds) that contains kind i.

    Triplet iii; suited runs (i-2,i-1,i), (i-1,i,i+1), (i,i+1,i+2) inside one suit;
    with honor_runs (Wanzai): any three different winds containing i, and 中發白.
    runs=False leaves only the triplet (大七對 check).
    """
    blocks = [(i, i, i)]
    if not runs:
        return tuple(blocks)
    if i < N_SUITED:
        r = rank_of(i)
        for start in (i - 2, i - 1, i):
            lo = start - i + r  # rank of the run's lowest tile
            if 1 <= lo and lo + 2 <= 9:
                blocks.append((start, start + 1, start + 2))
    elif honor_runs:
        if i in WINDS:
            others = [w for w in WINDS if w != i]
            for j, k in combinations(others, 2):
                blocks.append((i, j, k))
        else:
            blocks.append(DRAGONS)
    return tuple(blocks)


def _pair_ok(i: int, pair_258: bool) -> bool:
    return not pair_258 or (i < N_SUITED and rank_of(i) in (2, 5, 8))


def _take(counts: tuple, block) -> tuple[tuple, int]:
    """Take the block's tiles from counts, naturals first; return (rest, #missing)."""
    rest = list(counts)
    missing = 0
    for k in block:
        if rest[k] > 0:
            rest[k] -= 1
        else:
            missing += 1
    return tuple(rest), missing


def _first(counts: tuple) -> int | None:
    for i, c in enumerate(counts):
        if c:
            return i
    return None


# ---------------------------------------------------------------------------------------
# Exact decomposition (evaluators)
# ---------------------------------------------------------------------------------------

@lru_cache(maxsize=1 << 17)
def _can_form(counts: tuple, melds: int, pair: int, jokers: int,
              honor_runs: bool, pair_258: bool, runs: bool = True) -> bool:
    """Can all tiles of counts plus exactly `jokers` jokers make `melds` melds + `pair` pairs?

    Jokers stand for any kind (no four-copies cap).  An all-joker pair is always possible
    (any 2/5/8 kind), so is an all-joker meld.
    """
    i = _first(counts)
    if i is None:
        return jokers == 3 * melds + 2 * pair
    if pair and _pair_ok(i, pair_258):
        rest, need = _take(counts, (i, i))
        if need <= jokers and _can_form(rest, melds, pair - 1, jokers - need,
                                        honor_runs, pair_258, runs):
            return True
    if melds:
        for block in _melds_containing(i, honor_runs, runs):
            rest, need = _take(counts, block)
            if need <= jokers and _can_form(rest, melds - 1, pair, jokers - need,
                                            honor_runs, pair_258, runs):
                return True
    return False


# ---------------------------------------------------------------------------------------
# Minimum tiles to add (shanten)
# ---------------------------------------------------------------------------------------

@lru_cache(maxsize=1 << 17)
def _min_add(counts: tuple, melds: int, pair: int, honor_runs: bool, pair_258: bool) -> int:
    """Minimum number of tiles to add to a sub-multiset of counts to get exactly
    `melds` melds + `pair` pairs (no four-copies cap on added tiles)."""
    if melds == 0 and pair == 0:
        return 0  # everything left over is simply not used
    i = _first(counts)
    if i is None:
        return 3 * melds + 2 * pair  # blocks made only of added tiles
    # Option 1: one copy of kind i is not used at all.
    rest = list(counts)
    rest[i] -= 1
    best = _min_add(tuple(rest), melds, pair, honor_runs, pair_258)
    # Option 2: a block containing (a copy of) kind i.
    if pair and _pair_ok(i, pair_258):
        rest, need = _take(counts, (i, i))
        best = min(best, need + _min_add(rest, melds, pair - 1, honor_runs, pair_258))
    if melds:
        for block in _melds_containing(i, honor_runs, True):
            rest, need = _take(counts, block)
            if need >= best:
                continue
            best = min(best, need + _min_add(rest, melds - 1, pair, honor_runs, pair_258))
    return best


def _pairs_x(counts: tuple) -> int:
    """Seven pairs: tiles to add (RULES: four of a kind counts as two pairs)."""
    p = sum(c // 2 for c in counts)
    s = sum(1 for c in counts if c % 2)
    need = max(0, 7 - p)
    return need + max(0, need - s)


def _shisanlan_subset(counts: tuple) -> int:
    """Size of the largest sub-multiset that is a valid 十三爛 subset."""
    total = 0
    for suit in range(3):
        ranks = [r for r in range(1, 10) if counts[suit * 9 + r - 1] > 0]
        best = 0
        for size in range(len(ranks), 0, -1):
            if any(all(b - a >= 3 for a, b in zip(sub, sub[1:]))
                   for sub in combinations(ranks, size)):
                best = size
                break
        total += best
    total += sum(1 for k in range(27, 34) if counts[k] > 0)
    return total


def _is_shisanlan(counts: tuple) -> bool:
    return sum(counts) == 14 and all(c <= 1 for c in counts) and _shisanlan_subset(counts) == 14


# ---------------------------------------------------------------------------------------
# Wanzai
# ---------------------------------------------------------------------------------------

def _wanzai_candidates(counts: tuple, melds) -> list[str]:
    m = 4 - len(melds)
    cands = []
    standard = _can_form(counts, m, 1, 0, True, False, True)
    if standard:
        cands.append("pinghu")
        if (all(kind != "chow" for kind, _ in melds)
                and _can_form(counts, m, 1, 0, True, False, False)):
            cands.append("daqidui")
        if (len(melds) == 4 and all(kind != "concealed_kong" for kind, _ in melds)):
            cands.append("quanqiuren")  # standard with m=0 means the concealed part is a pair
    if not melds:
        if all(c % 2 == 0 for c in counts):
            quads = sum(1 for c in counts if c == 4)
            cands.append(QIXIAODUI_BY_QUADS[quads])
        if _is_shisanlan(counts):
            cands.append("shisanlan")
            if all(counts[k] for k in range(27, 34)):
                cands.append("qixing_shisanlan")
    return cands


def wanzai_evaluate(counts, melds, win_tile, self_draw, context, values, quanqiuren_self="pinghu"):
    """Wanzai (RULES §2.2-2.3): (win, pattern, properties, points).

    A 全求人 won by self-draw (a robbed kong counts as one, §2.5) is a 平胡 self-draw: it is
    no candidate then, unless quanqiuren_self = "quanqiuren" (house variant)."""
    melds = _check_melds(melds)
    counts = _as_counts(counts, 14 - 3 * len(melds))
    if not 0 <= win_tile < N_KINDS or counts[win_tile] == 0:
        raise ValueError(f"win tile {win_tile} is not in the concealed hand")
    column = 1 if (self_draw or context == "qiangganghu") else 0
    cands = _wanzai_candidates(counts, melds)
    if column == 1 and quanqiuren_self == "pinghu":
        cands = [c for c in cands if c != "quanqiuren"]
    if not cands:
        return NO_WIN
    all_tiles = [k for k in range(N_KINDS) for _ in range(counts[k])] + _meld_tiles(melds)
    qingyise = _one_numbered_suit(all_tiles)
    best = None  # (value, table position of the original id, mapped id)
    for orig in cands:
        mapped = WANZAI_QINGYISE.get(orig, orig) if qingyise else orig
        key = (values[mapped][column], WANZAI_ORDER[orig], mapped)
        if best is None or key[:2] > best[:2]:
            best = key
    props = set(cands)
    if qingyise:
        props.add("qingyise")
    return True, best[2], frozenset(props), best[0]


def wanzai_shanten(counts, melds) -> int:
    melds = _check_melds(melds)
    counts = _as_counts(counts)
    m = 4 - len(melds)
    x = _min_add(counts, m, 1, True, False)
    if not melds:
        x = min(x, _pairs_x(counts))
        x = min(x, 14 - _shisanlan_subset(counts))
    return x - 1


def wanzai_waits(counts, melds) -> list[int]:
    melds = _check_melds(melds)
    counts = _as_counts(counts, 13 - 3 * len(melds))
    seen = list(counts)
    for t in _meld_tiles(melds):
        seen[t] += 1
    waits = []
    for t in range(N_KINDS):
        if seen[t] >= 4:
            continue
        hand = list(counts)
        hand[t] += 1
        if wanzai_evaluate(hand, melds, t, True, None, WANZAI_DEFAULT_VALUES)[0]:
            waits.append(t)
    return waits


# ---------------------------------------------------------------------------------------
# Anhua
# ---------------------------------------------------------------------------------------

def anhua_wild_kinds(indicator: int) -> tuple[int, int]:
    """(type-A kind, type-B kind) for the turned-up indicator kind (RULES §3.1)."""
    if not 0 <= indicator < N_SUITED:
        raise ValueError(f"indicator {indicator} is not a suited kind")
    suit, r0 = divmod(indicator, 9)  # r0 = rank - 1
    return indicator, suit * 9 + (r0 + 1) % 9


def anhua_category(a: int, b: int) -> str | None:
    if a == 0 and b == 0:
        return None
    if a <= 2 and b <= 2:
        return "dan_wang"
    if max(a, b) == 3 and b < 4:
        return "san_wang"
    if b == 4 and a <= 1:
        return "si_wang"
    if b == 4 and a == 2:
        return "liu_wang"
    if b == 4 and a == 3:
        return "qi_wang"
    raise ValueError(f"impossible wild counts a={a} b={b}")


def _anhua_best_form(natural: tuple, melds, jokers: int, qingyise: bool, params):
    """Best complete form of the hand: (special multiplier, properties) or None.

    natural = tiles at face value; jokers = number of jokers (0 for the hard evaluation).
    Forms: standard (258 pair if pair_258), 清一色 standard (any pair, only if qingyise),
    小七對 (no declared melds; jokers pair with anything).
    """
    mult = params["multipliers"]
    m = 4 - len(melds)
    q_mult = mult["qingyise"] if qingyise else 1
    q_props = {"qingyise"} if qingyise else set()
    forms = []
    if _can_form(natural, m, 1, jokers, False, params["pair_258"], True):
        forms.append((q_mult, frozenset(q_props)))
    if qingyise and _can_form(natural, m, 1, jokers, False, False, True):
        forms.append((q_mult, frozenset(q_props)))
    if not melds:
        odd = sum(1 for c in natural if c % 2)
        if odd <= jokers and (jokers - odd) % 2 == 0:
            forms.append((mult["xiaoqidui"] * q_mult, frozenset(q_props | {"xiaoqidui"})))
    if not forms:
        return None
    # Highest multiplier; on equal multipliers the later form (more properties) is kept.
    best = forms[0]
    for f in forms[1:]:
        if f[0] >= best[0]:
            best = f
    return best


def anhua_evaluate(counts, melds, win_tile, self_draw, indicator, context, params):
    """Anhua seven-wild (RULES §3.1-3.3): (win, pattern, properties, points)."""
    melds = _check_melds(melds)
    counts = _as_counts(counts, 14 - 3 * len(melds), N_SUITED)
    if any(t >= N_SUITED for t in _meld_tiles(melds)):
        raise ValueError("Anhua melds contain only suited tiles")
    if not 0 <= win_tile < N_SUITED or counts[win_tile] == 0:
        raise ValueError(f"win tile {win_tile} is not in the concealed hand")
    if context not in ANHUA_CONTEXTS:
        raise ValueError(f"unknown context {context!r}")
    is_self = bool(self_draw) or context == "gangshanghua"
    if self_draw and context in ("qiangganghu", "gangshangpao"):
        raise ValueError(f"context {context!r} is a win on another player's tile, not a self-draw")
    mult = params["multipliers"]

    kind_a, kind_b = anhua_wild_kinds(indicator)
    a, b = counts[kind_a], counts[kind_b]
    if not is_self and win_tile == kind_a:
        a -= 1  # a wild won from someone else is a natural tile at face value
    elif not is_self and win_tile == kind_b:
        b -= 1
    cat = anhua_category(a, b)

    # Who may win at all (RULES §3.3): on a plain discard the wilds discard_win_wilds allows
    # (and only at face value, below); robbing a kong and 槓上炮 no wild or 單王.
    plain_discard = not is_self and context is None
    if plain_discard:
        allowed = {"none": (None,), "dan_wang_face_value": (None, "dan_wang")}.get(
            params.get("discard_win_wilds", "dan_wang_face_value"))
        if allowed is not None and cat not in allowed:
            return NO_WIN
    elif not is_self and cat not in (None, "dan_wang"):
        return NO_WIN

    meld_tiles = _meld_tiles(melds)
    concealed = [k for k in range(N_SUITED) for _ in range(counts[k])]

    # Hard: every tile at face value (RULES §3.2: 硬莊 whenever that completes the hand).
    hard_q = _one_numbered_suit(concealed + meld_tiles)
    hard = _anhua_best_form(counts, melds, 0, hard_q, params)
    hard_ok = hard is not None

    # Soft: the a+b wild tiles are jokers.  With hard_if_natural = false a hand complete at
    # face value is 硬莊, full stop: no wild reading is tried.
    soft = None
    if cat is not None and not plain_discard and (params["hard_if_natural"] or hard is None):
        natural = list(counts)
        natural[kind_a] -= a
        natural[kind_b] -= b
        natural = tuple(natural)
        nat_tiles = [k for k in range(N_SUITED) for _ in range(natural[k])]
        soft_q = _one_numbered_suit(nat_tiles + meld_tiles)
        soft = _anhua_best_form(natural, melds, a + b, soft_q, params)

    base = params["base"]
    options = []
    if hard_ok:
        options.append((base * mult["yingzhuang"] * hard[0], 1, "yingzhuang", hard[1]))
    if soft is not None:
        options.append((base * mult["pinghu"] * mult[cat] * soft[0], 0, "pinghu", soft[1]))
    if not options:
        return NO_WIN
    points, _, pattern, props = max(options)  # tie -> hard (second key 1 > 0)
    props = set(props)
    if cat is not None:
        props.add(cat)
    if context is not None:
        points *= mult[context]
        props.add(context)
    cap = params.get("score_cap", 0) * base       # in units of base, as every amount (RULES §1)
    if cap > 0:
        points = min(points, cap)
    return True, pattern, frozenset(props), points


def anhua_shanten(counts, melds, indicator, pair_258=True) -> int:
    melds = _check_melds(melds)
    counts = _as_counts(counts, None, N_SUITED)
    kind_a, kind_b = anhua_wild_kinds(indicator)
    w = counts[kind_a] + counts[kind_b]
    natural = list(counts)
    natural[kind_a] = 0
    natural[kind_b] = 0
    natural = tuple(natural)
    m = 4 - len(melds)
    x = _min_add(natural, m, 1, False, pair_258)
    nat_tiles = [k for k in range(N_SUITED) for _ in range(natural[k])]
    if _one_numbered_suit(nat_tiles + _meld_tiles(melds)):
        x = min(x, _min_add(natural, m, 1, False, False))
    if not melds:
        x = min(x, _pairs_x(natural))
    return x - w - 1


def anhua_waits(counts, melds, indicator, params) -> list[int]:
    melds = _check_melds(melds)
    counts = _as_counts(counts, 13 - 3 * len(melds), N_SUITED)
    seen = list(counts)
    for t in _meld_tiles(melds):
        seen[t] += 1
    waits = []
    for t in range(N_SUITED):
        available = 3 if t == indicator else 4
        if seen[t] >= available:
            continue
        hand = list(counts)
        hand[t] += 1
        if anhua_evaluate(hand, melds, t, True, indicator, None, params)[0]:
            waits.append(t)
    return waits
