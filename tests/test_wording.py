"""Counts in messages agree with their nouns."""
import pytest

from fstpunct.errors import ConlluError
from fstpunct.ud.treebank import read_conllu
from fstpunct.wording import counted


def test_counted_is_singular_for_one_only():
    assert [counted(n, "sentence") for n in (0, 1, 2)] == ["0 sentences", "1 sentence",
                                                         "2 sentences"]
    assert counted(1, "matrix", "matrices") == "1 matrix"
    assert counted(3, "matrix", "matrices") == "3 matrices"


@pytest.mark.parametrize("lines, says", [
    (["1-2\twe\t_\t_\t_\t_\t_\t_\t_\t_", "1\twe\twe\tPRON\t_\t_\t0\troot\t_\t_"],
     "a range ends at word 2 but the sentence has 1 word"),
    (["1\twe\twe\tPRON\t_\t_\t2\troot\t_\t_"], "HEAD 2 is out of range (the sentence has 1 word)"),
])
def test_a_one_word_sentence_is_said_to_have_1_word(lines, says):
    """Bad input of a one-word sentence: its message said "the sentence has 1 words"."""
    with pytest.raises(ConlluError) as caught:
        list(read_conllu([line + "\n" for line in (*lines, "")]))
    assert says in str(caught.value) and "1 words" not in str(caught.value), str(caught.value)
