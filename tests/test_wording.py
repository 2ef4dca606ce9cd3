"""Counts in messages agree with their nouns."""
from fstpunct.wording import counted


def test_counted_is_singular_for_one_only():
    assert [counted(n, "sentence") for n in (0, 1, 2)] == ["0 sentences", "1 sentence",
                                                         "2 sentences"]
    assert counted(1, "matrix", "matrices") == "1 matrix"
    assert counted(3, "matrix", "matrices") == "3 matrices"
