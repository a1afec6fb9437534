"""What distinguishes one rule set from another, as facts the rest of the code reads.

Code outside the rule sets asks `traits(game).wilds` (or `rules.traits.wilds`), never
`game == "anhua"`: a third rule set is then a new entry here (and a schema and a native
translation), not a hunt for string comparisons.
"""
from __future__ import annotations

from dataclasses import dataclass

from mjsim.vocab import CATEGORY_NAMES


@dataclass(frozen=True)
class GameTraits:
    name: str
    n_tiles: int                 # tiles in the set
    n_kinds: int                 # kinds in play (27: suits only, 34: with honours)
    honors: bool                 # the seven honour kinds are in play
    honor_runs: bool             # any three winds, or 中發白, make a meld (RULES §2)
    wilds: bool                  # a turned-up indicator makes wild tiles (RULES §3.1)
    wild_categories: tuple       # the win categories by wilds held (單王 ... 七王), or ()
    pattern_values: bool         # a win pays its pattern's value from `values` (else `multipliers` multiply)
    kong_payments: bool          # kongs are paid for at once (`kong_values`)
    birds: bool                  # birds are drawn after a win (`birds`)


TRAITS = {
    "wanzai": GameTraits("wanzai", n_tiles=136, n_kinds=34, honors=True, honor_runs=True, wilds=False,
                         wild_categories=(), pattern_values=True, kong_payments=True, birds=False),
    "anhua": GameTraits("anhua", n_tiles=108, n_kinds=27, honors=False, honor_runs=False, wilds=True,
                        wild_categories=CATEGORY_NAMES[1:], pattern_values=False, kong_payments=False,
                        birds=True),
}


def traits(game: str) -> GameTraits:
    """The traits of a rule set by name; ValueError names the known ones."""
    try:
        return TRAITS[game]
    except KeyError:
        raise ValueError(f"unknown rule set {game!r} (expected one of {', '.join(TRAITS)})") from None
