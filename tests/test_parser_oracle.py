"""Arc-standard transitions and static oracle: gold tree → transitions → replay → same tree."""
import itertools

import pytest
from conftest import treebank

from fstpunct.parser.oracle import OracleError, oracle
from fstpunct.parser.punct import EMPTY, prepare
from fstpunct.parser.transitions import LeftArc, RightArc, Shift, heads_of, initial, leaf
from fstpunct.ud.tree import is_projective


def replay(heads, deprels):
    """Run the oracle's transitions, each checked legal; return the tree they build."""
    n = len(heads)
    leaves = [leaf(i, 0, 0, EMPTY) for i in range(n + 1)]
    state = initial(leaves[0], n)
    steps = []
    for t in oracle(heads, deprels):
        assert t.is_legal(state), (t, state.depth, state.j)
        steps.append((state, t))
        state = t.apply(state, leaves)
    assert state.terminal and len(steps) == 2 * n
    return heads_of(steps)


def sentences(lang, split, k):
    return itertools.islice(treebank(lang, split).sentences(), k)


@pytest.mark.parametrize("lang,split,k", [("en", "dev", 400), ("es", "dev", 150),
                                          ("zh", "dev", 100), ("hi", "test", 100)])
def test_oracle_reproduces_every_projective_gold_tree(lang, split, k):
    checked = 0
    for sent in sentences(lang, split, k):
        heads = [w.head for w in sent.words]
        if not is_projective(heads):
            continue
        deprels = ["root" if h == 0 else w.deprel for w, h in zip(sent.words, heads)]
        assert replay(heads, deprels) == (heads, deprels)
        checked += 1
    assert checked > k // 2


def test_projectivised_training_trees_all_replay():
    """Every prepared (lifted) training tree is reproduced, in every punctuation mode."""
    for sent in sentences("en", "train", 300):
        for mode in ("tokens", "removed", "properties"):
            p = prepare(sent, mode, gold=True)
            assert replay(p.heads, p.deprels) == (list(p.heads), list(p.deprels))


def test_non_projective_trees_are_rejected_clearly():
    found = 0
    for sent in sentences("hi", "test", 200):
        heads = [w.head for w in sent.words]
        if is_projective(heads):
            continue
        with pytest.raises(OracleError, match="not projective: arc .* crosses arc"):
            oracle(heads, [w.deprel for w in sent.words])
        found += 1
    assert found


@pytest.mark.parametrize("heads,message", [([0, 0], "exactly one root"),
                                           ([2, 1], "exactly one root"),
                                           ([0, 5], "invalid head")])
def test_malformed_trees_are_rejected(heads, message):
    with pytest.raises(OracleError, match=message):
        oracle(heads, ["x"] * len(heads))


def test_legality():
    leaves = [leaf(i, 0, 0, EMPTY) for i in range(3)]
    s = initial(leaves[0], 2)
    assert Shift().is_legal(s) and not RightArc("root").is_legal(s)
    s = Shift().apply(s, leaves)  # [0 1]
    assert not LeftArc("nsubj").is_legal(s)
    assert not RightArc("root").is_legal(s)  # buffer not empty: one root only
    s = Shift().apply(s, leaves)  # [0 1 2]
    assert LeftArc("nsubj").is_legal(s) and not LeftArc("root").is_legal(s)
    assert RightArc("obj").is_legal(s) and not RightArc("root").is_legal(s)
    assert not Shift().is_legal(s)
    s = LeftArc("nsubj").apply(s, leaves)  # [0 2]
    assert RightArc("root").is_legal(s) and not RightArc("obj").is_legal(s)
    assert RightArc("root").apply(s, leaves).terminal
