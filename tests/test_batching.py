"""fstpunct.batching.batches: lists of the size asked for, the last shorter, read lazily."""
from itertools import count, islice

from hypothesis import given
from hypothesis import strategies as st

from fstpunct.batching import batches


@given(st.lists(st.integers()), st.integers(1, 5))
def test_batches_are_the_items_in_order_in_lists_of_size(items, size):
    got = list(batches(items, size))
    assert [x for batch in got for x in batch] == items
    assert all(len(batch) == size for batch in got[:-1])
    assert not got or 1 <= len(got[-1]) <= size


def test_batches_read_only_what_is_asked_for():
    read = []
    endless = (read.append(k) or k for k in count())
    assert list(islice(batches(endless, 3), 2)) == [[0, 1, 2], [3, 4, 5]]
    assert read == [0, 1, 2, 3, 4, 5]
