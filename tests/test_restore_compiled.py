"""The compiled steps of exact restoration (:mod:`fstpunct.apps._restore`) against their
readable references."""
import numpy as np
import pytest
from fstpunct.apps._restore import edit_distances, top_entries

from fstpunct.apps.restoration.exact import top_entries_reference
from fstpunct.apps.restoration.metrics import levenshtein

TOKENS = [",", ".", "(", ")", "“", "”", "--"]


@pytest.mark.parametrize("seed", range(20))
def test_edit_distances_equal_levenshtein(seed):
    rng = np.random.default_rng(seed)
    strings = tuple(tuple(TOKENS[j] for j in rng.integers(0, 4, int(rng.integers(0, 6))))
                    for _ in range(int(rng.integers(1, 12))))
    strings += ((),) + tuple(tuple(s) for s in strings[:2])  # ε, and equal strings
    got = edit_distances(strings)
    want = np.array([[levenshtein(a, b) for b in strings] for a in strings], dtype=float)
    assert got.dtype == np.float64 and np.array_equal(got, want)


def test_edit_distances_compare_tokens_by_value():
    a = ("".join(["-", "-"]), ",")  # a token equal to "--" but another object
    assert a[0] is not TOKENS[-1]
    assert edit_distances((a, (TOKENS[-1], ","), (",",), ())).tolist() == [
        [0, 0, 1, 2], [0, 0, 1, 2], [1, 1, 0, 1], [2, 2, 1, 0]]


@pytest.mark.parametrize("seed", range(20))
def test_top_entries_equal_the_numpy_reference(seed):
    """Random candidate rows whose sums tie, or land on the floor, or are 0."""
    rng = np.random.default_rng(seed)
    n, table, rows = int(rng.integers(1, 30)), int(rng.integers(1, 50)), int(rng.integers(0, 80))
    column = rng.integers(0, n, table).astype(np.intp)
    pairs = rng.integers(0, table, rows).astype(np.int32)
    probs = rng.choice([0.0, 1e-4, 2e-4, 3e-4, 0.01, 0.2], rows) * rng.choice([1, 1, 0.5], rows)
    add = rng.choice([0.0, 1e-4], n)
    start = int(rng.integers(0, rows + 1))
    stop = int(rng.integers(start, rows + 1))
    row = np.bincount(column[pairs[start:stop]], probs[start:stop], n + 1)  # + one not read
    for floor in (3e-4, 1e-2, 0.0):
        got = top_entries(pairs, probs, column, start, stop, add, floor)
        assert got == top_entries_reference(row, add, floor)
    with pytest.raises(ValueError):
        top_entries(pairs, probs, column, start, rows + 1, add, 0.1)
    with pytest.raises(ValueError):
        top_entries(np.full(1, table, dtype=np.int32), np.ones(1), column, 0, 1, add, 0.1)
