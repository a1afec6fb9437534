"""Seeded generators of random, complete and near-complete hands (with declared melds and wilds)."""
from __future__ import annotations

import random

CONTEXTS = (None, "gangshanghua", "qiangganghu", "gangshangpao")


def wild_kinds(indicator: int) -> tuple[int, int]:
    return indicator, (indicator + 1 if indicator % 9 != 8 else indicator - 8)


def _melds_for(game: str):
    melds = [("pung", (k, k, k)) for k in range(34 if game == "wanzai" else 27)]
    for s in range(3):
        melds += [("chow", (9 * s + r, 9 * s + r + 1, 9 * s + r + 2)) for r in range(7)]
    if game == "wanzai":
        melds += [("chow", t) for t in ((27, 28, 29), (27, 28, 30), (27, 29, 30), (28, 29, 30), (31, 32, 33))]
    return melds


MELDS = {g: _melds_for(g) for g in ("wanzai", "anhua")}


class HandGen:
    def __init__(self, game: str, seed: int):
        self.game = game
        self.rng = random.Random(seed)
        self.n_kinds = 34 if game == "wanzai" else 27

    def _available(self, indicator):
        left = [4] * self.n_kinds
        if indicator is not None:
            left[indicator] -= 1
        return left

    def _take(self, left, kinds):
        if any(kinds.count(k) > left[k] for k in set(kinds)):
            return False
        for k in kinds:
            left[k] -= 1
        return True

    def _declared(self, left, n):
        melds = []
        for _ in range(n):
            for _try in range(20):
                kind, tiles = self.rng.choice(MELDS[self.game])
                if kind == "pung" and self.rng.random() < 0.35:
                    kind = self.rng.choice(("kong", "added_kong", "concealed_kong"))
                    tiles = tiles + tiles[:1]
                if self._take(left, tiles):
                    melds.append((kind, list(tiles)))
                    break
        return melds

    def _random_tiles(self, left, n):
        pool = [k for k in range(self.n_kinds) for _ in range(left[k])]
        picked = self.rng.sample(pool, n)
        for k in picked:
            left[k] -= 1
        return picked

    def _complete_concealed(self, left, n_melds):
        """A concealed part of (4 - n_melds) melds + pair, or seven pairs, where possible."""
        for _ in range(50):
            trial = list(left)
            tiles = []
            ok = True
            if n_melds == 0 and self.rng.random() < 0.25:
                for _p in range(7):
                    k = self.rng.randrange(self.n_kinds)
                    if not self._take(trial, (k, k)):
                        ok = False
                        break
                    tiles += [k, k]
            else:
                suit = self.rng.randrange(3) if self.rng.random() < 0.2 else None
                for _m in range(4 - n_melds):
                    kind, t = self.rng.choice(MELDS[self.game])
                    if suit is not None and t[0] // 9 != suit:
                        continue
                    if not self._take(trial, t):
                        ok = False
                        break
                    tiles += t
                k = self.rng.randrange(self.n_kinds)
                if ok and self._take(trial, (k, k)):
                    tiles += [k, k]
                else:
                    ok = False
            if ok and len(tiles) == 14 - 3 * n_melds:
                left[:] = trial
                return tiles
        return self._random_tiles(left, 14 - 3 * n_melds)

    def hand(self, size_offset: int = 0):
        """-> dict(counts, melds, win_tile, self_draw, indicator, context); 14-tile hands
        (size_offset 0) or 13-tile ones (size_offset -1)."""
        rng = self.rng
        indicator = rng.randrange(27) if self.game == "anhua" else None
        left = self._available(indicator)
        n_melds = rng.choice((0, 0, 0, 1, 2, 3, 4))
        melds = self._declared(left, n_melds)
        n_melds = len(melds)
        size = 14 - 3 * n_melds
        kind = rng.random()
        if kind < 0.35:
            tiles = self._random_tiles(left, size)
        else:
            tiles = self._complete_concealed(left, n_melds)
            if kind < 0.6 and tiles:  # one tile off
                i = rng.randrange(len(tiles))
                left[tiles[i]] += 1
                tiles[i] = self._random_tiles(left, 1)[0]
        if self.game == "anhua" and rng.random() < 0.7:
            tiles = self._sprinkle_wilds(tiles, left, indicator)
        if size_offset:
            left[tiles.pop(rng.randrange(len(tiles)))] += 1
        counts = [0] * 34
        for k in tiles:
            counts[k] += 1
        self_draw = rng.random() < 0.5
        context = None
        if rng.random() < 0.25:
            context = rng.choice(CONTEXTS[1:])
            self_draw = context == "gangshanghua"
        return dict(counts=counts, melds=melds, win_tile=rng.choice(tiles) if tiles else -1,
                    self_draw=self_draw, indicator=indicator, context=context)

    def _sprinkle_wilds(self, tiles, left, indicator):
        """Swap up to 7 tiles for wild tiles (as substitutes) where copies remain."""
        a, b = wild_kinds(indicator)
        for _ in range(self.rng.choice((1, 1, 2, 3, 4, 5, 7))):
            w = self.rng.choice((a, b))
            if left[w] <= 0 or not tiles:
                continue
            i = self.rng.randrange(len(tiles))
            left[tiles[i]] += 1
            left[w] -= 1
            tiles[i] = w
        return tiles
