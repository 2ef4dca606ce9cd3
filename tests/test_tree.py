"""Tree utilities: the linear-time contiguity check and spans against the definitions."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fstpunct.ud.tree import _contiguous, bottom_up, is_projective, projectivize, spans


def random_tree(rng: np.random.Generator, n: int) -> list[int]:
    """Any tree over n words (projective or not): each word's head among the earlier-placed."""
    order = rng.permutation(n) + 1
    heads = [0] * n
    for k, d in enumerate(order[1:], 1):
        heads[d - 1] = int(order[rng.integers(k)])
    return heads


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_contiguity_and_spans_match_the_definitions(n, seed):
    heads = random_tree(np.random.default_rng(seed), n)
    assert _contiguous(heads) == is_projective(heads)
    lifted, _ = projectivize(heads)
    assert is_projective(lifted)
    below = {k: {k} for k in range(1, n + 1)}
    for k in bottom_up(lifted):
        if lifted[k - 1]:
            below[lifted[k - 1]] |= below[k]
    assert spans(lifted) == [(min(below[k]) - 1, max(below[k])) for k in range(1, n + 1)]


def test_a_cycle_is_not_contiguous():
    assert not _contiguous([0, 3, 2])
