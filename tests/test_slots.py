"""Slot extraction (DESIGN §2) on hand-written CoNLL-U edge cases and on the shared treebanks."""
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import treebank
from hypothesis import given
from hypothesis import strategies as st

from fstpunct.errors import InputError
from fstpunct.ud.slots import ABBV, on_tree, punct_tokens, slot_members, surface_slots, to_slots
from fstpunct.ud.tree import has_crossing_arcs, is_projective, projectivize, spans
from fstpunct.ud.treebank import read_file

EDGE = Path(__file__).parent / "data" / "edge.conllu"


@pytest.fixture(scope="module")
def edge():
    return {s.sent_id: s for s in read_file(EDGE)}


def test_xpos_quotes_and_abbreviation_dot(edge):
    s = to_slots(edge["quotes-xpos"])
    assert s.words == ("He", "said", "Go", "home", "etc", "today")
    assert s.slots == ((), (), ("“",), (), (",",), (ABBV, "”"), (".",))
    assert s.slot_ids == ((), (), (3,), (), (6,), (7, 8), (10,))
    assert s.heads == (2, 0, 2, 3, 3, 2)


def test_straight_quotes_paired_by_head(edge):
    s = to_slots(edge["quotes-paired"])
    assert s.slots == ((), ("“",), ("”",), ("“",), ("”",))


def test_multiword_tokens_and_empty_nodes_skipped(edge):
    s = to_slots(edge["mwt-empty"])
    assert s.word_ids == (1, 2, 3, 4, 6, 7, 8)
    assert s.words == ("Vamos", "a", "el", "cine", "y", "él", "también")
    assert s.slots[4] == (",",) and s.slots[7] == (".",)


def test_place_names_file_line_and_sentence(edge):
    sent = next(iter(edge.values()))
    assert to_slots(sent).place == sent.place == f"{EDGE}:{sent.lineno} (sent_id {sent.sent_id})"
    sent = replace(sent, comments=[])  # no sent_id: named by its number, as ConlluError does
    assert to_slots(sent).place == sent.place == f"{EDGE}:{sent.lineno} (sentence {EDGE}#1)"


@pytest.mark.parametrize("lang", ["en", "zh", "ar"])
def test_punct_tokens_are_the_slot_tokens_without_abbreviation_dots(edge, lang):
    sentences = [*edge.values(), *treebank(lang, "dev").sentences()]
    for sent in sentences:
        assert punct_tokens(sent) == [t for slot in surface_slots(sent)[1] for t in slot
                                      if t != ABBV]
    assert punct_tokens(edge["quotes-xpos"]) == ["“", ",", "”", "."]


def test_nonprojective_tree_is_lifted(edge):
    s = to_slots(edge["nonprojective"])
    assert s.lifted == 1 and is_projective(s.heads)
    assert s.heads[6] == 4  # "issue" lifted from "hearing" to "scheduled"


def test_punctuation_with_dependents_reattached_and_untrainable(edge):
    s = to_slots(edge["punct-with-dependent"])
    assert s.words == ("Yes", "no") and s.heads == (0, 1)
    assert s.punct_with_dependents == 1 and not s.trainable
    assert s.slots == ((), ("--",), ("!",))


def test_members_are_slot_members_computed_once(edge):
    for sent in edge.values():
        s = to_slots(sent)
        assert s.members == tuple(tuple(m) for m in slot_members(s))
        assert s.members is s.members


def test_on_tree_takes_the_trees_tags_and_arcs_and_keeps_the_rest(edge):
    """on_tree: the tree's UPOS, heads, relations and lifted arcs, the spans of its heads;
    the sentence's slots, ids, place and punctuation with dependents (so its trainability);
    other words refused in one line naming both sentences."""
    sent = to_slots(edge["punct-with-dependent"])  # heads (0, 1), not trainable
    tree = replace(sent, upos=("X", "X"), heads=(2, 0), deprels=("dep", "root"), lifted=1,
                   slots=((), (), ()), slot_ids=((), (), ()), punct_with_dependents=0,
                   path="tree.conllu", lineno=7, sent_id="tree")
    out = on_tree(sent, tree)
    assert (out.upos, out.heads, out.deprels, out.lifted) == (("X", "X"), (2, 0),
                                                              ("dep", "root"), 1)
    assert out.spans == spans((2, 0)) != sent.spans
    assert (out.words, out.slots, out.slot_ids, out.word_ids, out.place) == (
        sent.words, sent.slots, sent.slot_ids, sent.word_ids, sent.place)
    assert out.punct_with_dependents == 1 and not out.trainable
    with pytest.raises(InputError) as bad:
        on_tree(sent, replace(tree, words=("Yes", "yes")))
    assert str(bad.value) == (f"{sent.place}: other words than the tree given it "
                              "(tree.conllu:7 (sent_id tree))")


def test_all_punctuation_sentence_has_no_words(edge):
    s = to_slots(edge["all-punct"])
    assert s.n == 0 and s.slots == ((":)",),)


def test_every_slot_token_maps_back_to_an_input_line(edge):
    for sent in edge.values():
        s = to_slots(sent)
        ids = {w.id for w in sent.words}
        assert len(s.slots) == s.n + 1
        assert all(len(t) == len(i) for t, i in zip(s.slots, s.slot_ids))
        assert {i for ids_ in s.slot_ids for i in ids_} <= ids


@st.composite
def trees(draw, max_n=8):
    n = draw(st.integers(1, max_n))
    root = draw(st.integers(1, n))
    heads = [0] * n
    attached = [root]
    for d in draw(st.permutations([k for k in range(1, n + 1) if k != root])):
        heads[d - 1] = draw(st.sampled_from(attached))
        attached.append(d)
    return heads


@given(trees())
def test_projectivize_gives_projective_tree_with_contiguous_spans(heads):
    lifted_heads, lifts = projectivize(heads)
    assert is_projective(lifted_heads)
    assert (lifts == 0) == is_projective(heads)
    if is_projective(heads):
        assert not has_crossing_arcs(heads)
    for k, (i, j) in enumerate(spans(lifted_heads), 1):
        assert i < k <= j
        inside = {d for d in range(1, len(heads) + 1) if i < d <= j}
        for d in inside:  # every word in the span descends from k
            h = d
            while h not in (0, k):
                h = lifted_heads[h - 1]
            assert h == k
