"""_eval's SSE2 count helpers (seven-pairs count, tile total, odd / above-one shape) agree
with their plain-C statements and with numpy on every kind of row, for 27 and 34 kinds."""
import numpy as np
import pytest

from mjsim.core import _eval, _testing


def _rows():
    rng = np.random.default_rng(4)
    rows = [rng.integers(0, 5, (3000, 34)), np.zeros((1, 34), int), np.full((1, 34), 4)]
    # one nonzero count at every position, each value: the masks' edges (kinds 26/27, 31..33)
    for v in range(1, 5):
        one = np.zeros((34, 34), int)
        one[np.arange(34), np.arange(34)] = v
        rows.append(one)
    # sparse hands like the evaluator's (14 tiles or fewer)
    sparse = np.zeros((3000, 34), int)
    for i in range(3000):
        np.add.at(sparse[i], rng.integers(0, 34, rng.integers(0, 15)), 1)
    rows.append(np.minimum(sparse, 4))
    return np.concatenate(rows).astype(np.uint8)


@pytest.mark.parametrize("n", [27, 34])
def test_simd_plain_and_numpy_agree(n):
    rows = _rows()
    want = [(int((r[:n] // 2).sum()), int(r[:n].sum()), int((r % 2).any()), int((r > 1).any())) for r in rows]
    assert _testing._pairs_total_view(rows.tobytes(), n, False) == want
    assert _testing._pairs_total_view(rows.tobytes(), n, True) == want


def test_view_refuses_what_the_helpers_do_not_take():
    with pytest.raises(ValueError):
        _testing._pairs_total_view(bytes(34), 30, True)
    with pytest.raises(ValueError):
        _testing._pairs_total_view(bytes([5] * 34), 34, True)
    with pytest.raises(ValueError):
        _testing._pairs_total_view(bytes(33), 34, True)
    assert isinstance(_eval.PAIRS_SIMD, bool)

