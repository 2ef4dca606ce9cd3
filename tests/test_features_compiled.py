"""The compiled featurising loops (fstpunct/model/_features.pyx) against readable Python (the
per-word columns are checked through context_ids against node_contexts in test_attach.py)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fstpunct.model import _features


def reference(rows: list[list[int]], group: list[int]) -> tuple[list[int], list[bool]]:
    """Each row's number among its set's distinct rows, and whether it is the first of them."""
    seen: dict[tuple[int, tuple[int, ...]], int] = {}
    counts: dict[int, int] = {}
    number, first = [], []
    for row, g in zip(rows, group):
        key = (g, tuple(row))
        first.append(key not in seen)
        if key not in seen:
            seen[key] = counts.get(g, 0)
            counts[g] = seen[key] + 1
        number.append(seen[key])
    return number, first


@given(st.lists(st.tuples(st.integers(0, 2), st.lists(st.integers(0, 5), max_size=3)),
                max_size=40))
def test_distinct_rows_equal_the_dict_reference(nodes):
    group = [g for g, _ in nodes]
    rows = [sorted(set(row)) for _, row in nodes]
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.intp)
    ids = np.array([x for r in rows for x in r], dtype=np.intp)
    number, first = _features.distinct_rows(ptr, ids, np.array(group, dtype=np.intp))
    expected_number, expected_first = reference(rows, group)
    assert number.tolist() == expected_number
    assert first.tolist() == expected_first


def test_distinct_rows_refuses_rows_that_do_not_fit():
    with pytest.raises(ValueError):
        _features.distinct_rows(np.array([0, 3], dtype=np.intp), np.zeros(2, dtype=np.intp),
                                np.zeros(1, dtype=np.intp))
