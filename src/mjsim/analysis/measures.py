"""What the statistics measure: every measure as a ratio of two per-hand columns.

Every measure is a ratio of two per-hand quantities summed over hands, R = Σy / Σn:

- a rate per hand: y = 1 when it happened in the hand, n = 1 (a hand with two winners of
  one pattern counts once);
- a rate per win: y = wins of the hand that had it, n = wins of the hand;
- a mean per hand: y = the value, n = 1; a mean per win: y = the sum over the hand's wins,
  n = its number of wins; a share of money: y = money of the kind, n = all money.

`y` and `n` name columns of `mjsim.chunkstats.HandFrame` (one value per hand, built from one
chunk's hands, wins and payments), so a measure is defined once and computed chunk by chunk.

Hands of one session are dependent (the dealer passes on, 上火 carries over), sessions are
independent, so every standard error is clustered by session: with Y_g, N_g the sums over
session g and G the sessions with N_g > 0,

    Var(R) = G / (G - 1) * Σ_g (Y_g - R N_g)^2 / (Σ_g N_g)^2,

which is what statsmodels' OLS of the unit values on a constant with
``cov_type="cluster"`` gives (its small-sample factor (N-1)/(N-k) is 1 for one regressor);
the tests check it against statsmodels. With one hand per session it is the ordinary
standard error of a mean. Sessions never cross chunks, so these sums are merged from
per-chunk sufficient statistics (mjsim.chunkstats).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mjsim.vocab import CATEGORY_NAMES, N_WANZAI_PATTERNS, PATTERNS, PAY_REASONS
from mjsim.rulesets.traits import traits

__all__ = ["Def", "Lists", "definitions", "lists_for", "merged_names", "union"]

_WANZAI_PATTERNS = PATTERNS[:N_WANZAI_PATTERNS]
WILD_CATEGORIES = CATEGORY_NAMES[1:]
#: listed even when they never occurred: a zero count still has an informative upper bound
GAME_PATTERNS = {"wanzai": _WANZAI_PATTERNS, "anhua": ("yingzhuang", "pinghu")}
GAME_PROPERTIES = {
    "wanzai": _WANZAI_PATTERNS[:9] + ("qingyise",),
    "anhua": ("qingyise", "xiaoqidui", *WILD_CATEGORIES, "gangshanghua", "qiangganghu", "gangshangpao"),
}
#: every kind a game's wins can have (the summary, --precision and balance's targets read this
#: list): Wanzai's kong replacement draw wins 槓上花; it has no 補章 (槓上炮) and no special start
GAME_WIN_KINDS = {
    "wanzai": ("self_draw", "discard", "rob_kong", "gangshanghua"),
    "anhua": ("self_draw", "discard", "rob_kong", "gangshanghua", "gangshangpao", "instant"),
}


@dataclass(frozen=True)
class Def:
    """One measure: the per-hand columns (mjsim.chunkstats.HandFrame keys) of its numerator
    `y` and denominator `n`.

    `sq`, `lo`, `hi` (means only) name the per-hand sum of squares, minimum and maximum of
    the unit values, for the sd, min and max. `defined_by`: rules keys that define the
    measure itself (bird hits by `birds`), so a change of them is not a finding. `binary`:
    y is 0/1 per hand and n = 1, so exact tests on hand counts apply.
    """

    section: str
    name: str
    kind: str                 # "rate" or "mean"
    y: str
    n: str = "one"
    unit: str = "hands"
    sq: str | None = None
    lo: str | None = None
    hi: str | None = None
    defined_by: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.name)

    @property
    def binary(self) -> bool:
        return self.kind == "rate" and self.n == "one"


@dataclass
class Lists:
    """The names a variant's wins use, besides the game's listed ones, and which optional
    columns its files have."""

    game: str
    patterns: list[str]
    kinds: list[str]
    properties: list[str]
    categories: list[str]
    has_turn: bool = False
    has_claims: bool = False
    reasons: list[str] | None = None     # payment reasons; None: no payments table


def merged_names(listed: Sequence[str], found) -> list[str]:
    """The listed names in their order, then every other found name sorted."""
    return [*listed, *sorted(x for x in set(found) if x not in listed)]


def lists_for(game: str, found: dict, has_turn: bool, has_claims: bool, has_payments: bool) -> Lists:
    """The game's listed names plus the `found` ones ({"patterns": set, ...})."""
    return Lists(
        game,
        merged_names(GAME_PATTERNS.get(game, ()), found.get("patterns", ())),
        merged_names(GAME_WIN_KINDS.get(game, ()), found.get("kinds", ())),
        merged_names(GAME_PROPERTIES.get(game, ()), found.get("properties", ())),
        merged_names(traits(game).wild_categories, found.get("categories", ())),
        has_turn=has_turn,
        has_claims=has_claims,
        reasons=merged_names(PAY_REASONS, found.get("reasons", ())) if has_payments else None,
    )


def union(a: Lists, b: Lists) -> Lists:
    """The names of both (payments and optional columns only when both have them)."""
    def u(x, y):
        return [*x, *[v for v in y if v not in x]]

    reasons = u(a.reasons, b.reasons) if a.reasons is not None and b.reasons is not None else None
    return Lists(a.game, u(a.patterns, b.patterns), u(a.kinds, b.kinds), u(a.properties, b.properties),
                 u(a.categories, b.categories), a.has_turn and b.has_turn, a.has_claims and b.has_claims,
                 reasons)


def _hand_mean(section: str, name: str, col: str, **kw) -> Def:
    return Def(section, name, "mean", col, sq=f"sq:{col}", lo=col, hi=col, **kw)


def _win_mean(section: str, name: str, column: str, **kw) -> Def:
    """The mean of a wins column per win: its per-hand sum over the hand's wins."""
    return Def(section, name, "mean", f"sum:{column}", n="nw", unit="wins", sq=f"sum2:{column}",
               lo=f"min:{column}", hi=f"max:{column}", **kw)


def definitions(lists: Lists, fire: bool = True) -> list[Def]:
    """Every measure of a variant, in report order."""
    L = lists
    d: list[Def] = [
        Def("outcome", "win", "rate", "end:win"),
        Def("outcome", "draw", "rate", "end:draw"),
        Def("outcome", "several winners", "rate", "several"),
    ]
    d += [Def("win kind", k, "rate", f"kind:{k}") for k in L.kinds]
    d += [Def("pattern", p, "rate", f"pat:{p}") for p in L.patterns]
    d += [Def("property", p, "rate", f"prop:{p}") for p in L.properties]
    if traits(L.game).wilds:
        d += [Def("wild category", c, "rate", f"cat:{c}") for c in L.categories]
    # per pattern: what a win of it is worth and the share of all win money it carries
    d += [Def("pattern points", p, "mean", f"patp:{p}", n=f"patn:{p}", unit="wins") for p in L.patterns]
    d += [Def("pattern money", p, "rate", f"patr:{p}", n="sum:received", unit="points") for p in L.patterns]
    # per property: the share of all win money carried by wins that have it
    d += [Def("property money", p, "rate", f"propr:{p}", n="sum:received", unit="points") for p in L.properties]
    d += [Def("seat", f"seat {s} wins", "rate", f"won:{s}") for s in range(4)]
    d += [Def("seat", f"seat {s} deals in", "rate", f"dealt:{s}") for s in range(4)]
    if traits(L.game).birds:
        d += [Def("birds", "wins with a bird hit", "rate", "bw", n="nw", unit="wins", defined_by=("birds",)),
              _win_mean("birds", "birds hit per win", "birds_hit", defined_by=("birds",))]
    for kind in ("exposed", "added", "concealed"):
        d.append(Def("kongs", f"hands with {kind} kong", "rate", f"any:kongs_{kind}"))
    for kind in ("exposed", "added", "concealed"):
        d.append(_hand_mean("kongs", f"{kind} kongs per hand", f"col:kongs_{kind}"))
    if fire:
        d += [Def("fire", f"seat {s} on fire", "rate", f"any:fire_{s}", defined_by=("fire",)) for s in range(4)]
    d += [_hand_mean("score", f"seat {s}", f"col:delta_{s}") for s in range(4)]
    d.append(_hand_mean("score", "dealer", "dealer"))
    # one quantity per hand, not three pooled non-dealer values (they are not independent)
    d.append(_hand_mean("score", "dealer − non-dealer", "dealer_edge"))
    d += [_win_mean("win", "points per win", "points"), _win_mean("win", "received per win", "received")]
    if L.has_turn:
        d.append(_win_mean("win", "winning turn", "turn"))
    d.append(_hand_mean("hand", "live tiles drawn", "col:draws"))
    if L.has_claims:
        d.append(_hand_mean("hand", "claims per hand", "claims"))
        d += [_hand_mean("seat", f"seat {s} claims per hand", f"col:claims_{s}") for s in range(4)]
    if L.reasons is not None:
        d += [Def("money", r, "rate", f"payr:{r}", n="pay_all", unit="points") for r in L.reasons]
    return d
