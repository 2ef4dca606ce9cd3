"""Vocabularies (DESIGN §2): token mapping, V, W_d with backoff, JSON, symmetric-mark matching."""
import json

import numpy as np
import pytest

from fstpunct.model.vocab import EMPTY, NONE, Vocab, flanks, unmatched
from fstpunct.ud.slots import ABBV, BOUNDARY, UNK, SlotSentence

SYM = [("(", ")"), ("[", "]"), ("“", "”"), ("‘", "’")]


def sentence(upos, heads, deprels, slots):
    """A hand-made SlotSentence (words are their UPOS)."""
    return SlotSentence(words=tuple(upos), upos=tuple(upos), heads=tuple(heads),
                        deprels=tuple(deprels), slots=tuple(tuple(s) for s in slots),
                        word_ids=tuple(range(1, len(upos) + 1)),
                        slot_ids=tuple(tuple(range(len(s))) for s in slots))


# He said “ yes ” .     nsubj <- said -> ccomp
SAID = sentence(["PRON", "VERB", "INTJ"], [2, 0, 2], ["nsubj", "root", "ccomp"],
                [(), (), ("“",), ("”", ".")])
# Dogs , cats and mice .
LIST = sentence(["NOUN", "NOUN", "CCONJ", "NOUN"], [0, 1, 4, 1], ["root", "conj", "cc", "conj"],
                [(), (",",), (), (), (".",)])
SMILEY = sentence([], [], [], [(":)",)])
CORPUS = [SAID, LIST, SMILEY]


def strings(vocab, key):
    return {vocab.pair_strings(p) for p in vocab.candidates(key)}


def test_flanks_and_pseudo_node():
    assert flanks(SAID, SAID.slots) == [("nsubj", (), ()), ("root", (), ("”", ".")),
                                        ("ccomp", ("“",), ("”", "."))]
    assert flanks(SMILEY, SMILEY.slots) == [(EMPTY, (":)",), ())]


def test_tokens_kept_by_count_and_special_symbols_always_present():
    vocab = Vocab.build(CORPUS * 2, min_count=2)
    assert {BOUNDARY, ABBV, UNK, ",", ".", "“"} <= set(vocab.tokens)
    assert vocab.map_slot((",", "!", "“")) == (",", UNK, "“")
    rare = Vocab.build(CORPUS, min_count=2)
    assert rare.map_slot(("“", ".", ",")) == (UNK, ".", UNK)
    assert (UNK, ".") in rare.punctemes


def test_punctemes_and_pair_sets():
    vocab = Vocab.build(CORPUS, min_count=1)
    assert vocab.punctemes[0] == () and vocab.pairs[0] == (0, 0)
    assert set(vocab.punctemes) == {(), ("“",), ("”", "."), (",",), (".",), (":)",)}
    assert strings(vocab, "ccomp") == {((), ()), (("“",), ("”", "."))}
    assert strings(vocab, "root") == {((), ()), ((), ("”", ".")), ((), (".",))}
    assert strings(vocab, "conj") == {((), ()), ((",",), ()), ((), (".",))}
    assert strings(vocab, EMPTY) == {((), ()), ((":)",), ())}
    for key in vocab.relations:
        assert vocab.candidates(key)[0] == 0  # every W_d holds (ε, ε)
    assert vocab.observed(SAID) == [0, vocab.pair_index[0, vocab.puncteme_index["”", "."]],
                                    vocab.pair_index[vocab.puncteme_index["“",],
                                                     vocab.puncteme_index["”", "."]]]


def test_unseen_relation_backs_off_to_base_family_then_to_epsilon():
    vocab = Vocab(["."], [(), (",",), (".",)], [(0, 0), (0, 1), (1, 0), (0, 2)],
                  {"nmod": [0, 1], "nmod:poss": [0, 2], "obl:tmod": [0, 3]})
    assert vocab.relation_key("nmod:poss") == "nmod:poss"
    assert vocab.relation_key("nmod:xyz") == "nmod:*"
    assert vocab.candidates("nmod:xyz").tolist() == [0, 1, 2]
    assert vocab.relation_key("obl") == "obl:*"
    assert vocab.candidates("obl").tolist() == [0, 3]
    assert vocab.relation_key("dislocated") == NONE
    assert vocab.candidates("dislocated").tolist() == [0]
    assert vocab.candidates(NONE).tolist() == [0]


def as_json(vocab: Vocab) -> str:
    return json.dumps(vocab.to_dict(), ensure_ascii=False, sort_keys=True)


def test_json_round_trip_and_order_independent_of_input_order():
    vocab = Vocab.build(CORPUS, min_count=1)
    again = Vocab.from_dict(json.loads(as_json(vocab)))  # as attach.json stores it
    assert as_json(again) == as_json(vocab)
    assert as_json(Vocab.build(CORPUS[::-1], min_count=1)) == as_json(vocab)
    assert all(np.array_equal(again.candidates(d), vocab.candidates(d)) for d in vocab.relations)


@pytest.mark.parametrize("l, r, bad", [
    (("“",), ("”",), False),
    ((",", "“"), ("”", ","), False),
    (("(", "“"), ("”", ")"), False),
    ((), (), False),
    ((",",), (".",), False),
    (("(",), (",",), True),
    (("(",), ("]",), True),
    ((")",), (), True),
    ((), (")",), True),
    (("(", "“"), (")", "”"), True),
    (("“",), ("“",), True),
])
def test_unmatched(l, r, bad):
    assert unmatched(l, r, SYM) is bad


def test_unmatched_mask_covers_pair_table():
    vocab = Vocab.build(CORPUS, min_count=1)
    mask = vocab.unmatched_mask(SYM)
    assert mask.shape == (len(vocab.pairs),)
    assert {vocab.pair_strings(p) for p in np.flatnonzero(mask)} == {((), ("”", "."))}


def test_unmatched_mask_is_unmatched_of_every_pair_of_a_real_table():
    from fstpunct.api import load
    attach = load("en").punct.attach
    vocab = attach.vocab
    assert vocab.unmatched_mask(attach.symmetric).tolist() == \
        [unmatched(*vocab.pair_strings(p), attach.symmetric) for p in range(len(vocab.pairs))]
