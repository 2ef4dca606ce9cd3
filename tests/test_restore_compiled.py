"""The compiled steps of exact restoration (:mod:`fstpunct.apps._restore`) against their
readable references."""
import numpy as np
import pytest
from test_model import make_model
from test_restore_exact import TREES
from test_restore_sampling import TRAIN

from fstpunct.apps import _restore
from fstpunct.apps.restoration.exact import ExactPrior, forward_reference, top_entries_reference
from fstpunct.apps.restoration.metrics import levenshtein
from fstpunct.model.punct import Settings
from fstpunct.ud.slots import BOUNDARY, slot_members

TOKENS = [",", ".", "(", ")", "“", "”", "--"]


@pytest.mark.parametrize("seed", range(20))
def test_edit_distances_equal_levenshtein(seed):
    rng = np.random.default_rng(seed)
    strings = tuple(tuple(TOKENS[j] for j in rng.integers(0, 4, int(rng.integers(0, 6))))
                    for _ in range(int(rng.integers(1, 12))))
    strings += ((),) + tuple(tuple(s) for s in strings[:2])  # ε, and equal strings
    got = _restore.edit_distances(strings)
    want = np.array([[levenshtein(a, b) for b in strings] for a in strings], dtype=float)
    assert got.dtype == np.float64 and np.array_equal(got, want)


def test_edit_distances_compare_tokens_by_value():
    a = ("".join(["-", "-"]), ",")  # a token equal to "--" but another object
    assert a[0] is not TOKENS[-1]
    assert _restore.edit_distances((a, (TOKENS[-1], ","), (",",), ())).tolist() == [
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
        got = _restore.top_entries(pairs, probs, column, start, stop, add, floor)
        assert got == top_entries_reference(row, add, floor)
    with pytest.raises(ValueError):
        _restore.top_entries(pairs, probs, column, start, rows + 1, add, 0.1)
    with pytest.raises(ValueError):
        _restore.top_entries(np.full(1, table, dtype=np.int32), np.ones(1), column, 0, 1, add, 0.1)


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
@pytest.mark.parametrize("prune", [1e-15, 1e-3, 1e-2])
def test_forward_equals_the_readable_reference(direction, prune):
    """The candidates' forward pass over every slot of the test trees (backoff on, so every
    puncteme has a share), its states bitwise: sums, best paths and their heads."""
    model = make_model(TRAIN, direction, seed=3)
    model.settings = Settings(backoff=0.3)
    prior = ExactPrior(model)
    ltr = direction == "ltr"
    for tree, marginals in zip(TREES, prior.marginals(TREES)):
        for i, members in enumerate(slot_members(tree)):
            steps = [(node + 1, prior._support(marginals, 2 * node + side, prune))
                     for node, side in members]
            if i == 0:
                steps.insert(0, (0, [((BOUNDARY,), 1.0)]))
            steps = steps if ltr else steps[::-1]
            cache = dict(prior._steps)
            want = forward_reference(steps, ltr, prune, cache, prior._step)
            got = _restore.forward(steps, ltr, prune, {}, prior._step)
            assert got == want and list(got) == list(want)
