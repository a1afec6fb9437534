"""Answers under more than one player population.

A population is the four players of a table (`--players`, given once per population).  A
rule question ("what if 七小對 pays 10?") can get a different answer from each: a
value-blind player (greedy) plays the same whatever a hand pays, so only payments move,
while ev chases the new value.  `sweep` and `compare` run or read each population on the
same seeds, show every difference per population, and say whether the populations agree:
their 95 % intervals share a point. That is "the same sign" wherever a sign is known: an
interval that excludes 0 fixes the sign, and intervals with a common point cannot fix
opposite ones; the sign of a difference whose interval contains 0 is noise, and two such
differences of opposite sign do not disagree.

`blind_note` is the one line printed above a comparison whose players cannot respond to
the change being compared (values and multipliers under value-blind players).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mjsim.players import options as player_options
from mjsim.run.spec import SEPARATOR, parse_players

__all__ = ["VALUE_BLIND", "VALUE_KEYS", "Agreement", "agree", "agreement_rows", "blind_note",
           "population_name", "populations", "select_variant", "strip_population"]

#: built-in players whose play never reads what a hand is worth (values / multipliers);
#: greedy does read whether a kong pays at all (kong_values > 0), so only these keys count
VALUE_BLIND = frozenset({"random", "greedy", "greedy_v1"})
#: rule tables whose change only a value-reading player (ev) can respond to
VALUE_KEYS = ("values", "multipliers")


def population_name(players: Sequence[str]) -> str:
    """('ev',) * 4 -> 'ev'; a mixed table -> its four names, comma-separated."""
    players = list(players)
    return players[0] if len(set(players)) == 1 else ",".join(players)


def populations(texts: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """Each --players text -> (name, four canonical players); a population given twice
    (in any spelling) is a ValueError naming it."""

    out: list[tuple[str, tuple[str, ...]]] = []
    for text in texts:
        players = parse_players(text)
        name = population_name(players)
        if any(players == p for _, p in out):
            raise ValueError(f"--players: population {name!r} given twice")
        out.append((name, players))
    return out


def strip_population(label: str, population: str) -> str:
    """'greedy / birds=2' -> 'birds=2' (the label a variant has within its population)."""
    prefix = population + SEPARATOR
    return label[len(prefix):] if population and label.startswith(prefix) else label


def select_variant(directory, players: tuple[str, ...], variant: str | None, option: str) -> str:
    """The variant of `directory` played by `players` (named `variant` within its population,
    or its only one); ValueError naming what is missing or ambiguous."""
    from mjsim.analysis import stats

    manifest = stats._manifest(directory)
    name = population_name(players)
    found = [v for v in stats.variants(directory) if manifest.get(v, {}).get("players") == list(players)]
    if variant is not None:
        found = [v for v in found if variant in (v, strip_population(manifest[v].get("label", ""),
                                                                      manifest[v].get("population", "")))]
    if not found:
        which = f" named {variant!r}" if variant is not None else ""
        raise ValueError(f"{directory} has no variant{which} played by {name!r} (--players)")
    if len(found) > 1:
        raise ValueError(f"{directory} holds {len(found)} variants played by {name!r} "
                         f"({', '.join(found)}): choose one with {option}")
    return found[0]


def _base_names(info: dict) -> set[str] | None:
    players = info.get("players")
    if not players:
        return None
    return {player_options.split_name(p)[0] for p in players}


def _value_changes(a, b) -> list[str]:
    """The values/multipliers keys whose value differs between two variants' rules."""
    if a.rules is None or b.rules is None:
        return []
    keys = sorted(set(a.rules.changes()) | set(b.rules.changes()))
    return [k for k in keys if k.split(".")[0] in VALUE_KEYS and a.rules.get(k) != b.rules.get(k)]


def blind_note(base, others: Sequence) -> str | None:
    """One line when every player of the comparison is value-blind and what changes is a
    value or multiplier: play is then identical, only payments move.  None otherwise."""
    names: set[str] = set()
    for s in (base, *others):
        got = _base_names(s.info)
        if got is None:
            return None
        names |= got
    if not names <= VALUE_BLIND:
        return None
    keys = sorted({k for o in others for k in _value_changes(base, o)})
    if not keys:
        return None
    shown = ", ".join(keys[:4]) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")
    who = ", ".join(sorted(names))
    return (f"note: {who} never read{'s' if len(names) == 1 else ''} what a hand is worth, so the change of "
            f"{shown} cannot change play here (only payments move); add --players ev to see play respond")


@dataclass(frozen=True)
class Agreement:
    """One measure of one compared variant, its difference in each population."""

    variant: str            # the variant's label within its population ("birds=2")
    section: str
    name: str
    comparisons: tuple      # Comparison or None, one per population
    agree: bool | None      # None: a population lacks it or an interval is undefined


def agree(comparisons: Sequence) -> bool | None:
    """A point common to every 95 % interval (so no two known signs differ); None when a
    population lacks the measure or its interval."""
    if any(c is None for c in comparisons):
        return None
    bounds = [c.ci for c in comparisons]
    if not all(math.isfinite(lo) and math.isfinite(hi) for lo, hi in bounds):
        return None
    return max(lo for lo, _ in bounds) <= min(hi for _, hi in bounds)


def agreement_rows(labels: Sequence[str], per_population: Sequence[Sequence[list]]) -> list[Agreement]:
    """`per_population[p][j]`: the comparisons of population p for the compared variant
    `labels[j]` (the same grid point in every population); one Agreement per measure."""
    rows = []
    for j, label in enumerate(labels):
        maps = [{(c.section, c.name): c for c in pop[j]} for pop in per_population]
        keys: list = []
        for m in maps:
            keys += [k for k in m if k not in keys]
        for key in keys:
            cs = tuple(m.get(key) for m in maps)
            rows.append(Agreement(label, key[0], key[1], cs, agree(cs)))
    return rows
