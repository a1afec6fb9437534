"""Scripted Wanzai walls for the flat wall model (tests that play a hand they wrote)."""
from collections import Counter

from mjsim.tiles import parse_tiles


def flat_wall(hands, live="", tail=""):
    """A 136-tile wall for the flat model (dealer = the seat listed first in `hands`).

    hands: the four opening hands in dealing order (dealer 14, then 13 each in play order);
    None takes tiles nobody else scripted. live: the first live draws, in order. tail: the
    first replacement tiles, in order. Unscripted tiles fill the middle, kinds that appear
    in the script last, so they reach the hands as late as possible.
    """
    scripted = [parse_tiles(h) for h in hands if h] + [parse_tiles(live), parse_tiles(tail)]
    left = Counter({k: 4 for k in range(34)})
    for ks in scripted:
        left.subtract(ks)
    assert min(left.values()) >= 0, "script uses a tile more than four times"
    named = {k for ks in scripted for k in ks}
    pool = sorted(left.elements(), key=lambda k: (k in named, k))
    order = []
    for h, size in zip(hands, (14, 13, 13, 13)):
        if h:
            ks = parse_tiles(h)
            assert len(ks) == size
        else:
            ks, pool = pool[:size], pool[size:]
        order += ks
    order += parse_tiles(live)
    tail_ks = parse_tiles(tail)
    middle = pool[: len(pool)]
    return order + middle + tail_ks[::-1]
