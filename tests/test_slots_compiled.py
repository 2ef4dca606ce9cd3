"""The compiled ``to_slots`` (fstpunct/ud/_slots.pyx) against the readable reference."""
from dataclasses import replace

import pytest
from conftest import treebank
from hypothesis import given
from hypothesis import strategies as st

from fstpunct.ud.slots import to_slots, to_slots_reference
from fstpunct.ud.treebank import read_conllu

FORMS = ['"', "'", ",", ".", "etc.", "U.S.", "...", "a", "b", "“", "(", ")"]
UPOS = ["PUNCT", "NOUN", "VERB", "SYM"]
DEPRELS = ["punct", "punct:x", "nsubj", "obj", "acl:relcl", "advmod"]
XPOS = ["``", "''", "_", "NN"]


@st.composite
def sentences(draw: st.DrawFn) -> str:
    """A random tree (any shape: non-projective, punctuation with dependents, several
    punctuation tokens in a row) as CoNLL-U text."""
    n = draw(st.integers(1, 12))
    order = draw(st.permutations(range(1, n + 1)))
    heads = {order[0]: 0}
    for k, w in enumerate(order[1:], 1):
        heads[w] = order[draw(st.integers(0, k - 1))]
    lines = [f"{w}\t{draw(st.sampled_from(FORMS))}\t_\t{draw(st.sampled_from(UPOS))}\t"
             f"{draw(st.sampled_from(XPOS))}\t_\t{heads[w]}\t"
             f"{'root' if heads[w] == 0 else draw(st.sampled_from(DEPRELS))}\t_\t_"
             for w in range(1, n + 1)]
    return "# sent_id = s1\n" + "\n".join(lines) + "\n\n"


def same(sent) -> None:
    compiled, reference = to_slots(sent), to_slots_reference(sent)
    assert compiled == reference
    assert compiled.spans == reference.spans


@given(sentences())
def test_compiled_to_slots_equals_reference_on_random_trees(text):
    for sent in read_conllu(text.splitlines(keepends=True)):
        same(sent)


@pytest.mark.parametrize("lang", ["en", "zh", "es"])
def test_compiled_to_slots_equals_reference_on_dev(lang):
    for sent in treebank(lang, "dev").sentences():
        same(sent)


def test_words_not_as_the_reader_gives_them_take_the_reference():
    sent = next(read_conllu("1\ta\t_\tNOUN\t_\t_\t0\troot\t_\t_\n"
                            "2\t.\t_\tPUNCT\t_\t_\t1\tpunct\t_\t_\n".splitlines(keepends=True)))
    sent.words = [replace(sent.words[0], id=5), sent.words[1]]
    same(sent)
