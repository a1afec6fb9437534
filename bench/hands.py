"""Seeded random and near-winning hands shared by the benchmarks."""
import numpy as np


def random_hands(n, n_kinds=34, size=14, seed=1, turned_up=None):
    """n hands of `size` tiles drawn without replacement from a wall of n_kinds x 4
    (less the turned-up Anhua indicator tile, when given)."""
    rng = np.random.default_rng(seed)
    wall = np.repeat(np.arange(n_kinds), 4)
    if turned_up is not None:
        wall = np.delete(wall, np.flatnonzero(wall == turned_up)[0])
    keys = rng.random((n, wall.size))
    tiles = wall[np.argsort(keys, axis=1)[:, :size]]
    counts = np.zeros((n, 34), np.uint8)
    np.add.at(counts, (np.repeat(np.arange(n), size), tiles.ravel()), 1)
    return counts


def tile_ids_136(counts):
    """Per hand, a list of 136-format tile ids (kind*4 + copy), as riichi libraries take."""
    out = []
    for row in counts:
        ids = []
        for k in np.flatnonzero(row):
            ids.extend(k * 4 + c for c in range(row[k]))
        out.append(ids)
    return out
