"""The batch API's row check (fused into evaluate_batch / shanten_batch's loops) against a
plain Python statement of what a batch row may hold: the same verdict on every row, the same
first bad row and the same message, and no results for a batch that holds a bad row."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mjsim
from mjsim import _core
from mjsim.play import engine
from mjsim.tiles import kind_name

W = mjsim.Rules.load("wanzai")
A = mjsim.Rules.load("anhua")
PROBLEMS = (None, "count", "honor", "indicator", "size")


def problem(row, sizes, n_kinds, indicator):
    """What is wrong with a row, in the order the messages name it (None: nothing)."""
    row = [int(v) for v in row]
    if any(v > 4 for v in row):
        return "count"
    if any(row[n_kinds:]):
        return "honor"
    if indicator >= 0 and row[indicator] > 3:
        return "indicator"
    if sum(row) not in sizes:
        return "size"
    return None


def problem_codes(arr, sizes, n_kinds, indicator):
    """The same statement over a whole array: 0 nothing, else 1 + PROBLEMS index - 1."""
    a = arr.astype(np.int64)
    codes = np.full(len(a), 4)
    codes[np.isin(a.sum(axis=1), sizes)] = 0
    if indicator >= 0:
        codes[a[:, indicator] > 3] = 3
    codes[a[:, n_kinds:].sum(axis=1) > 0] = 2
    codes[(a > 4).any(axis=1)] = 1
    return codes


def message(row_index, row, what, sizes, indicator):
    if what == "count":
        return f"counts row {row_index} has a count outside 0..4 (only 4 copies of a tile exist)"
    if what == "honor":
        return f"counts row {row_index} holds honors; Anhua has none"
    if what == "indicator":
        return f"counts row {row_index} holds 4 of the indicator {kind_name(indicator)}; only 3 remain"
    want = " or ".join(map(str, sorted(set(sizes))))
    return f"counts row {row_index} holds {int(np.sum(row, dtype=np.int64))} tiles; every row must hold {want}"


def valid_rows(n, size, n_kinds, indicator, seed):
    """n legal rows of `size` tiles from a wall of n_kinds x 4 (3 of the indicator)."""
    rng = np.random.default_rng(seed)
    wall = np.repeat(np.arange(n_kinds), 4)
    if indicator >= 0:
        wall = np.delete(wall, np.flatnonzero(wall == indicator)[0])
    out = np.zeros((n, 34), np.uint8)
    for i in range(n):
        np.add.at(out[i], rng.permutation(wall)[:size], 1)
    return out


# (game rules, indicator, n_kinds): Wanzai; Anhua with an indicator, with the 9 wrapping, without
CONFIGS = [(W, -1, 34), (A, 4, 27), (A, 26, 27), (A, -1, 27)]
SIZES = {"evaluate": (14, 14), "shanten": (13, 14)}


@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("kind", ["evaluate", "shanten"])
@pytest.mark.parametrize("rules, indicator, n_kinds", CONFIGS)
def test_every_byte_value_at_every_position(rules, indicator, n_kinds, kind, simd):
    """One byte of a legal row set to each of 0..255 at each of the 34 positions: the
    native verdict (SSE2 and plain C) is exactly the Python statement's."""
    sizes = SIZES[kind]
    base = np.concatenate([valid_rows(4, s, n_kinds, indicator, seed=3 + s) for s in (13, 14)])
    rows = np.repeat(base, 34 * 256, axis=0)
    pos = np.tile(np.repeat(np.arange(34), 256), len(base))
    rows[np.arange(len(rows)), pos] = np.tile(np.arange(256, dtype=np.uint8), 34 * len(base))
    codes = problem_codes(rows, sizes, n_kinds, indicator)
    sample = np.random.default_rng(0).choice(len(rows), 2000, replace=False)
    assert [PROBLEMS[c] for c in codes[sample]] == [problem(r, sizes, n_kinds, indicator) for r in rows[sample]]
    got = _core._rows_ok(rows, sizes[0], sizes[1], n_kinds, indicator, simd)
    assert got.sum() > 100 and (~got).sum() > 1000     # both verdicts are exercised
    np.testing.assert_array_equal(got, codes == 0)


@pytest.mark.parametrize("simd", [True, False])
@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 255), min_size=34, max_size=34), min_size=1, max_size=20),
       cfg=st.sampled_from(CONFIGS), small=st.booleans(), kind=st.sampled_from(["evaluate", "shanten"]))
def test_random_rows(rows, cfg, small, kind, simd):
    _, indicator, n_kinds = cfg
    sizes = SIZES[kind]
    arr = np.array(rows, np.uint8)
    if small:   # mostly legal counts, so that the size and the honors decide
        arr %= 5
    got = _core._rows_ok(arr, sizes[0], sizes[1], n_kinds, indicator, simd)
    want = [problem(r, sizes, n_kinds, indicator) is None for r in arr]
    assert got.tolist() == want


def _call(kind, rules, arr, indicator):
    wild = None if indicator < 0 else kind_name(indicator)
    if rules is A and wild is None:
        # the batch API takes the indicator as a tile; -1 (face value) is the core's own
        return (_core.evaluate_batch(engine.core_config(A), arr, True, -1) if kind == "evaluate"
                else _core.shanten_batch(engine.core_config(A), arr, -1))
    if kind == "evaluate":
        return mjsim.evaluate_batch(rules, arr, wild=wild)
    return mjsim.shanten_batch(rules, arr, wild=wild)


@st.composite
def one_bad_batch(draw):
    """A batch of legal rows with one bad byte (or a bad size) somewhere, and maybe more after."""
    rules, indicator, n_kinds = draw(st.sampled_from(CONFIGS))
    kind = draw(st.sampled_from(["evaluate", "shanten"]))
    sizes = SIZES[kind]
    n = draw(st.integers(1, 12))
    arr = valid_rows(n, sizes[draw(st.integers(0, 1))], n_kinds, indicator, seed=draw(st.integers(0, 10**6)))
    bad = draw(st.integers(0, n - 1))
    how = draw(st.sampled_from(["count", "honor", "indicator", "size"]))
    if how == "count":
        arr[bad, draw(st.integers(0, 33))] = draw(st.integers(5, 255))
    elif how == "honor":
        arr[bad, draw(st.integers(27, 33))] = draw(st.integers(1, 4))
    elif how == "indicator" and indicator >= 0:
        arr[bad, indicator] = 4
    else:
        k = draw(st.integers(0, n_kinds - 1))
        arr[bad, k] = (arr[bad, k] + draw(st.sampled_from([1, 2, 3]))) % 5 if arr[bad, k] < 4 else 0
    if draw(st.booleans()) and bad + 1 < n:    # a later bad row must not be the one named
        arr[draw(st.integers(bad + 1, n - 1)), draw(st.integers(0, 33))] = 9
    return rules, indicator, n_kinds, kind, arr


@settings(max_examples=400, deadline=None)
@given(case=one_bad_batch())
def test_first_bad_row_and_its_message(case):
    rules, indicator, n_kinds, kind, arr = case
    sizes = SIZES[kind]
    problems = [problem(r, sizes, n_kinds, indicator) for r in arr]
    first = next((i for i, p in enumerate(problems) if p), None)
    assert _core.find_bad_row(arr, sizes[0], sizes[1], n_kinds, indicator) == (
        (-1, None) if first is None else (first, problems[first]))
    if first is None:      # the change happened to leave a legal row (e.g. another legal size)
        _call(kind, rules, arr, indicator)
        return
    with pytest.raises(ValueError) as info:
        _call(kind, rules, arr, indicator)
    assert str(info.value) == message(first, arr[first], problems[first], sizes, indicator)


@pytest.mark.parametrize("rules, indicator, n_kinds", CONFIGS)
def test_results_are_those_of_single_rows(rules, indicator, n_kinds):
    """The fused loop's outputs, row by row, equal a batch of that row alone."""
    arr = valid_rows(300, 14, n_kinds, indicator, seed=5)
    arr13 = valid_rows(300, 13, n_kinds, indicator, seed=6)
    mixed = np.concatenate([arr, arr13])[np.random.default_rng(1).permutation(600)]
    win, code, points = _call("evaluate", rules, arr, indicator)
    sh = _call("shanten", rules, mixed, indicator)
    for i in range(len(arr)):
        w1, c1, p1 = _call("evaluate", rules, arr[i:i + 1], indicator)
        assert (win[i], code[i], points[i]) == (w1[0], c1[0], p1[0])
    for i in range(len(mixed)):
        assert sh[i] == _call("shanten", rules, mixed[i:i + 1], indicator)[0]


def test_a_bad_row_returns_no_results_and_empty_batches_are_fine():
    arr = valid_rows(5, 14, 34, -1, seed=2)
    arr[3, 0] = 7
    with pytest.raises(ValueError, match="counts row 3 has a count outside 0..4"):
        mjsim.evaluate_batch(W, arr)
    win, code, points = mjsim.evaluate_batch(W, np.zeros((0, 34), np.uint8))
    assert win.shape == code.shape == points.shape == (0,)
    assert mjsim.shanten_batch(A, np.zeros((0, 34), np.uint8), wild="1p").shape == (0,)
    # a non-contiguous view and a wider dtype take the same path and the same message
    wide = np.zeros((4, 68), np.int64)
    wide[:, ::2] = valid_rows(4, 14, 34, -1, seed=9)
    wide[2, 2 * 33] += 5
    with pytest.raises(ValueError, match="counts row 2 has a count outside 0..4"):
        mjsim.evaluate_batch(W, wide[:, ::2])


def test_the_wrappers_refuse_bad_arguments_before_any_row():
    cfg = engine.core_config(W)
    with pytest.raises(ValueError, match="34 columns"):
        _core.evaluate_batch(cfg, np.zeros((2, 33), np.uint8), True, -1)
    with pytest.raises(ValueError, match="Wanzai has no indicator"):
        _core.shanten_batch(cfg, np.full((2, 34), 9, np.uint8), 3)
    with pytest.raises(ValueError, match="sizes"):
        _core.find_bad_row(np.zeros((2, 34), np.uint8), 14, 13, 34, -1)
    assert isinstance(_core.ROW_CHECK_SIMD, bool)
