"""Punctuation as properties (Ma, Zhang & Zhu 2014 §3) and re-attachment in the output."""
import io
import itertools

import pytest
from conftest import treebank

from fstpunct.parser.oracle import oracle
from fstpunct.parser.punct import (
    CLOSING,
    EMPTY,
    OPENING,
    combine,
    make_prop,
    mark_kind,
    prepare,
    reattach,
)
from fstpunct.parser.transitions import PROP, initial, leaf
from fstpunct.ud.tree import is_projective
from fstpunct.ud.treebank import read_conllu

PAREN, DQUOTE = OPENING["("], OPENING["“"]


def conllu(rows):
    """A sentence from (form, upos, xpos, head, deprel) rows."""
    lines = [f"{i}\t{f}\t{f}\t{u}\t{x}\t_\t{h}\t{d}\t_\t_"
             for i, (f, u, x, h, d) in enumerate(rows, 1)]
    return next(read_conllu(io.StringIO("\n".join(lines) + "\n\n")))


# The paper's §3.2 example: (“Congress’s Environmental Buccaneers,” Sept. 18).
CONGRESS = conllu([("(", "PUNCT", "-LRB-", 5, "punct"), ('"', "PUNCT", "``", 5, "punct"),
                   ("Congress’s", "PROPN", "NNP", 5, "nmod:poss"),
                   ("Environmental", "PROPN", "NNP", 5, "compound"),
                   ("Buccaneers", "PROPN", "NNPS", 0, "root"), (",", "PUNCT", ",", 5, "punct"),
                   ('"', "PUNCT", "''", 5, "punct"), ("Sept.", "PROPN", "NNP", 5, "nmod:tmod"),
                   ("18", "NUM", "CD", 8, "nummod"), (")", "PUNCT", "-RRB-", 5, "punct"),
                   (".", "PUNCT", ".", 5, "punct")])

# Figure 1's pattern: “Mechanisms ...,” modifies "entitled"; the left neighbour of ” is a comma.
FIGURE1 = conllu([("The", "DET", "DT", 2, "det"), ("report", "NOUN", "NN", 4, "nsubj:pass"),
                  ("was", "AUX", "VBD", 4, "aux:pass"), ("entitled", "VERB", "VBN", 0, "root"),
                  ('"', "PUNCT", "``", 6, "punct"), ("Mechanisms", "NOUN", "NNS", 4, "xcomp"),
                  ("of", "ADP", "IN", 8, "case"), ("Action", "NOUN", "NN", 6, "nmod"),
                  (",", "PUNCT", ",", 6, "punct"), ('"', "PUNCT", "''", 6, "punct"),
                  ("he", "PRON", "PRP", 12, "nsubj"), ("said", "VERB", "VBD", 4, "parataxis"),
                  (".", "PUNCT", ".", 4, "punct")])


def props_during_parse(sent):
    """Replay the gold tree; yield (transition, head word, head property) for every arc."""
    p = prepare(sent, "properties", gold=True)
    leaves = [leaf(0, 0, 0, EMPTY)] + [leaf(i, 0, 0, q) for i, q in enumerate(p.props, 1)]
    state = initial(leaves[0], p.n)
    for t in oracle(p.heads, p.deprels):
        state = t.apply(state, leaves)
        if t.label:
            yield t, p.forms[state.s0[0] - 1] if state.s0[0] else "ROOT", state.s0[PROP]


def test_paired_marks_become_flags_on_neighbours_and_plain_marks_next_to_them_go():
    p = prepare(CONGRESS, "properties", gold=True)
    assert p.forms == ("Congress’s", "Environmental", "Buccaneers", "Sept.", "18")
    props = dict(zip(p.forms, p.props))
    assert props["Congress’s"].opens == (PAREN, DQUOTE)
    assert props["Buccaneers"].closes == (CLOSING["”"],) and not props["Buccaneers"].punct
    assert props["18"].closes == (CLOSING[")"],) and not props["18"].punct  # "." dropped
    assert props["Environmental"] == props["Sept."] == EMPTY


def test_paired_waits_for_every_flag():
    arcs = list(props_during_parse(CONGRESS))
    buccaneers = [(t.label, q) for t, head, q in arcs if head == "Buccaneers"]
    (_, after_compound), (_, after_poss), (_, after_tmod) = buccaneers
    assert after_compound.opens == () and not after_compound.paired
    # Congress’s joins: its “ meets the ” of Buccaneers, but ( is still open.
    assert after_poss.opens == (PAREN,) and after_poss.closes == () and not after_poss.paired
    # Sept. 18 brings ) from its rightmost dependent: every flag is off, PAIRED.
    assert after_tmod.opens == () and after_tmod.closes == () and after_tmod.paired


def test_figure1_quoted_subtree_root_is_paired_and_its_head_is_not():
    p = prepare(FIGURE1, "properties", gold=True)
    props = dict(zip(p.forms, p.props))
    assert props["Mechanisms"].opens == (DQUOTE,)
    assert props["Action"].closes == (CLOSING["”"],) and not props["Action"].punct
    assert props["said"].punct  # the final period
    arcs = {(t.label, head): q for t, head, q in props_during_parse(FIGURE1)}
    assert arcs[("nmod", "Mechanisms")].paired
    entitled = arcs[("xcomp", "entitled")]
    assert not entitled.paired and entitled.closes == () and entitled.opens == ()
    assert arcs[("parataxis", "entitled")].punct  # passed up from the rightmost dependent


def test_plain_punctuation_is_passed_up_unless_the_head_has_an_opening_flag():
    comma = make_prop((), (), True, False)
    assert combine(EMPTY, comma, dep_is_left=False).punct
    assert not combine(EMPTY, comma, dep_is_left=True).punct
    opened = make_prop((DQUOTE,), (), False, False)
    assert not combine(opened, comma, dep_is_left=False).punct


def test_property_codes_are_distinct():
    props = {make_prop(o, c, p, q) for o in [(), (1,), (1, 4), (4, 1)]
             for c in [(), (1,), (4, 1)] for p in range(7) for q in (False, True)}
    assert len({x.code for x in props}) == len(props)


def test_removed_mode_keeps_word_arcs():
    p = prepare(CONGRESS, "removed", gold=True)
    assert p.heads == (3, 3, 0, 3, 4) and all(q == EMPTY for q in p.props)
    assert prepare(CONGRESS, "tokens", gold=True).n == 11


@pytest.mark.parametrize("mode", ["removed", "paired", "properties"])
def test_reattached_punctuation_gives_valid_projective_trees(mode):
    for sent in itertools.chain(itertools.islice(treebank("en", "dev").sentences(), 500),
                                [CONGRESS, FIGURE1]):
        p = prepare(sent, mode, gold=True)
        arcs = reattach(sent, p, p.heads, p.deprels)
        heads = [arcs[w.id][0] for w in sent.words]
        assert is_projective(heads) and heads.count(0) == 1
        assert all(arcs[w.id][1] == "punct" for w in sent.words if w.upos == "PUNCT") \
            or p.n == len(sent.words)


def test_paired_marks_attach_to_the_enclosed_subtree():
    p = prepare(FIGURE1, "properties", gold=True)
    arcs = reattach(FIGURE1, p, p.heads, p.deprels)
    assert arcs[5] == arcs[10] == (6, "punct")  # both quotes -> Mechanisms
    assert arcs[13] == (4, "punct")  # final period -> the root


def test_typed_mode_names_the_kind_of_plain_mark_and_parses_like_properties_otherwise():
    typed = prepare(FIGURE1, "typed", gold=True)
    plain = prepare(FIGURE1, "properties", gold=True)
    said = typed.forms.index("said")
    assert typed.props[said].punct == mark_kind(".") != mark_kind(",")
    assert plain.props[said].punct == 1
    assert [(p.opens, p.closes) for p in typed.props] == [(p.opens, p.closes) for p in plain.props]
    assert mark_kind("?") == mark_kind(".") and mark_kind("@") > mark_kind("—")


def test_paired_mode_keeps_plain_marks_as_tokens_unless_they_touch_a_paired_mark():
    p = prepare(FIGURE1, "paired", gold=True)
    # the quotes go, and with them the comma before ”; the final period stays a token
    assert p.forms == ("The", "report", "was", "entitled", "Mechanisms", "of", "Action", "he",
                       "said", ".")
    props = dict(zip(p.forms, p.props))
    assert props["Mechanisms"].opens == (DQUOTE,) and props["Action"].closes == (DQUOTE,)
    assert not any(q.punct for q in p.props)
    assert p.heads[p.forms.index(".")] == p.forms.index("entitled") + 1
    congress = prepare(CONGRESS, "paired", gold=True)
    assert congress.forms == ("Congress’s", "Environmental", "Buccaneers", "Sept.", "18")


# A one-word quotation and an opening bracket followed by a comma: "yes" ( well , no ) .
ONE_WORD = conllu([("He", "PRON", "PRP", 2, "nsubj"), ("said", "VERB", "VBD", 0, "root"),
                   ('"', "PUNCT", "``", 4, "punct"), ("yes", "INTJ", "UH", 2, "obj"),
                   ('"', "PUNCT", "''", 4, "punct"), ("(", "PUNCT", "-LRB-", 7, "punct"),
                   ("well", "INTJ", "UH", 9, "discourse"), (",", "PUNCT", ",", 7, "punct"),
                   ("no", "INTJ", "UH", 2, "parataxis"), (")", "PUNCT", "-RRB-", 9, "punct"),
                   (".", "PUNCT", ".", 2, "punct")])


def props_by_form(sent, version=2):
    p = prepare(sent, "properties", True, version)
    return dict(zip(p.forms, p.props))


def test_flags_meeting_on_one_word_make_it_paired_and_opening_flags_beat_plain_marks():
    props = props_by_form(ONE_WORD)
    assert props["yes"].paired and props["yes"].opens == props["yes"].closes == ()
    assert props["well"].opens == (PAREN,) and not props["well"].punct
    assert props["no"].closes == (CLOSING[")"],)
    # The one-word quotation passes no flag to its head.
    arcs = {(t.label, head): q for t, head, q in props_during_parse(ONE_WORD)}
    assert arcs[("obj", "said")].closes == () and not arcs[("obj", "said")].paired


def test_version_1_properties_are_those_of_older_models():
    old = props_by_form(ONE_WORD, version=1)
    assert old["yes"].opens == (DQUOTE,) and old["yes"].closes == (CLOSING["”"],)
    assert not old["yes"].paired and old["well"].punct
    new = prepare(FIGURE1, "properties", True)
    assert new.props == prepare(FIGURE1, "properties", True, 1).props


def test_quote_directions_do_not_come_from_the_input_heads():
    # With its heads the first quote would close (it follows its head "a"); without them the
    # two straight quotes pair up around "b", whatever the heads say.
    rows = [("a", "NOUN", "NN", 0, "root"), ('"', "PUNCT", "PUNCT", 1, "punct"),
            ("b", "NOUN", "NN", 1, "obj"), ('"', "PUNCT", "PUNCT", 3, "punct")]
    other = [r[:3] + ((1, "punct") if r[0] == '"' else r[3:]) for r in rows]
    for gold in (True, False):
        a = prepare(conllu(rows), "properties", gold=gold)
        assert a.props == prepare(conllu(other), "properties", gold=gold).props
        assert a.props[1].paired
