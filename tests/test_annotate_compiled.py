"""The compiled T′ string of decode (fstpunct/apps/_annotate.pyx) against the readable walk."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fstpunct.apps import _annotate
from fstpunct.apps.decode import bracketed, bracketed_reference
from fstpunct.apps.text import untagged, untagged_reference
from fstpunct.ud.slots import SlotSentence
from fstpunct.ud.treebank import Sentence, Word

PUNCTEMES = [(), (",",), ("“",), ("”",), (".",), ("(", "“"), ("[",), ("]",)]


@st.composite
def trees_with_pairs(draw: st.DrawFn) -> tuple[SlotSentence, list]:
    """A random tree (any shape, several roots allowed: the first one is walked) over 0-12
    words, and a pair (or the backoff, None) per node."""
    n = draw(st.integers(0, 12))
    order = draw(st.permutations(range(1, n + 1)))
    heads = {w: 0 for w in order[:1]}
    for k, w in enumerate(order[1:], 1):
        heads[w] = order[draw(st.integers(0, k - 1))]
    pair = st.none() | st.tuples(st.sampled_from(PUNCTEMES), st.sampled_from(PUNCTEMES))
    words = tuple(f"w{k}" for k in range(1, n + 1))
    sent = SlotSentence(words=words, upos=("X",) * n,
                        heads=tuple(heads[w] for w in range(1, n + 1)), deprels=("dep",) * n,
                        slots=((),) * (n + 1), word_ids=tuple(range(1, n + 1)),
                        slot_ids=((),) * (n + 1))
    return sent, draw(st.lists(pair, min_size=max(n, 1), max_size=max(n, 1)))


@given(trees_with_pairs())
def test_compiled_bracketed_equals_the_walk(case):
    sent, pairs = case
    assert bracketed(sent, pairs) == bracketed_reference(sent, pairs)


def test_bracketed_example():
    sent = SlotSentence(words=("Dale", "means", "river", "valley"), upos=("X",) * 4,
                        heads=(2, 0, 4, 2), deprels=("dep",) * 4, slots=((),) * 5,
                        word_ids=(1, 2, 3, 4), slot_ids=((),) * 5)
    pairs = [(("“",), ("”",)), ((), (".",)), ((), ()), (("“",), ("”",))]
    assert bracketed(sent, pairs) == "[∘ [“ Dale ”] means [“ [river] valley ”] .]"


def test_compiled_walk_refuses_heads_out_of_range():
    with pytest.raises(ValueError):
        _annotate.bracketed_tokens(("a", "b"), (0, 3), [None, None], ("<backoff>",))


@given(st.lists(st.sampled_from(["_", "NOUN", "__", " _", "PUNCT"]), max_size=5))
def test_compiled_untagged_is_the_reference(tags):
    sent = Sentence([], [], words=[Word(k, "w", "_", tag, "_", "_", 0, "dep", "_", k)
                                   for k, tag in enumerate(tags, 1)])
    assert untagged(sent) == untagged_reference(sent) == ("_" in tags)
