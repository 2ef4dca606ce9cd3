"""The compiled featurising loops (fstpunct/model/_features.pyx) against readable Python (the
per-word columns are checked through context_ids against node_contexts in test_attach.py), and
the layout of featurised en dev against the numpy references."""
import numpy as np
import pytest
from conftest import treebank
from hypothesis import given
from hypothesis import strategies as st

import fstpunct
from fstpunct.model import _features
from fstpunct.model.attach import candidate_rows_reference, set_contexts_reference
from fstpunct.model.features import context_ids
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import read_file


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


@st.composite
def set_rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """CSR rows of random nodes in random sets, with the distinct rows' first flags."""
    sets = draw(st.integers(1, 4))
    nodes = draw(st.lists(st.tuples(st.integers(0, sets - 1),
                                    st.sets(st.integers(0, 40), max_size=5)), max_size=30))
    group = np.array([g for g, _ in nodes], dtype=np.intp)
    rows = [sorted(row) for _, row in nodes]
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.intp)
    ids = np.array([x for r in rows for x in r], dtype=np.intp)
    _, first = _features.distinct_rows(ptr, ids, group)
    return ptr, ids, group, first, sets


def same_arrays(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
    return len(a) == len(b) and all(x.dtype == y.dtype and np.array_equal(x, y)
                                    for x, y in zip(a, b))


@given(set_rows())
def test_set_contexts_equal_the_numpy_reference(rows):
    ptr, ids, group, first, sets = rows
    compiled = _features.set_contexts(ptr, ids, group, first.view(np.uint8), sets)
    reference = set_contexts_reference(ptr, ids, group, first, sets)
    assert len(compiled) == len(reference) == sets
    assert all(same_arrays(a, b) for a, b in zip(compiled, reference))


@given(set_rows(), st.lists(st.lists(st.integers(0, 500), min_size=1, max_size=6,
                                     unique=True), min_size=4, max_size=4))
def test_candidate_rows_equal_the_numpy_reference(rows, candidates):
    _, _, group, _, sets = rows
    arrays = [np.array(sorted(c), dtype=np.int64) for c in candidates[:sets]]
    sizes = np.array([len(c) for c in arrays], dtype=np.int64)[group]
    node_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    assert same_arrays((_features.candidate_rows(node_offsets, group, arrays),),
                       (candidate_rows_reference(node_offsets, group, arrays),))


def test_featurising_en_dev_lays_out_the_sets_as_the_references():
    model = fstpunct.load("en").punct
    sentences = [to_slots(s) for s in read_file(treebank("en", "dev").path)]
    data = model.prepare(sentences).data
    ptr, ids, _ = context_ids(sentences, model.attach.context_index, model.attach.lexical)
    group = np.empty(data.n_nodes, dtype=np.intp)
    for k, g in enumerate(data.groups):
        group[g.nodes] = k
    _, first = _features.distinct_rows(ptr, ids, group)
    reference = set_contexts_reference(ptr, ids, group, first, len(data.groups))
    assert all(same_arrays((g.nodes, g.contexts.indptr, g.used, g.contexts.indices), expected)
               for g, expected in zip(data.groups, reference))
    assert same_arrays((data.pairs,), (candidate_rows_reference(
        data.node_offsets, group, [g.candidates for g in data.groups]),))


def test_node_rows_refuses_columns_out_of_range():
    """One sentence of two words: a head beyond the sentence, a relation code beyond the
    tables and columns of the wrong length are refused, not read out of bounds."""
    def rows(heads=(2, 0), deprels=(0, 1), upos=(0, 1, 1, 0)):
        ids = np.zeros((6, 2), dtype=np.intp)
        return _features.node_rows(
            np.array([2], dtype=np.intp), np.array(heads, dtype=np.intp),
            np.array([0, 1, 1, 2], dtype=np.intp), np.array(upos, dtype=np.intp),
            np.array(deprels, dtype=np.intp), np.zeros(0, dtype=np.intp), ids, ids[:4],
            np.zeros((0, 0), dtype=np.intp), np.arange(5, dtype=np.intp),
            np.arange(5, dtype=np.intp), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))

    ptr, ids = rows()
    assert ptr.tolist() == [0, 11, 23] and len(ids) == 23  # word 2: end and c= of word 1
    for bad in ({"heads": (3, 0)}, {"deprels": (0, 2)}, {"upos": (0, 1, 1)}):
        with pytest.raises(ValueError, match="node_rows"):
            rows(**bad)
