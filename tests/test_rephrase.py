"""Rephrasing: valid CoNLL-U out, the same word order for every method, deletion, the CLI."""
from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import treebank

from fstpunct import load
from fstpunct.apps.rephrase.order import OrderModel, order_path
from fstpunct.apps.rephrase.rephrase import METHODS, Options, rephrase, underlying, written
from fstpunct.apps.rephrase.wellformed import is_terminal, problems, unmatched
from fstpunct.cli.main import main
from fstpunct.errors import InputError, ModelError
from fstpunct.model.store import load_model
from fstpunct.ud.treebank import read_conllu, read_file

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def es():
    dev = list(treebank("es", "dev").sentences())[:80]
    return load_model("es"), OrderModel.load(order_path("es")), dev


@pytest.fixture(scope="module")
def en():
    return load_model("en")


def words(sent):
    return [w.form for w in sent.words if not w.is_punct]


@pytest.mark.parametrize("method", METHODS)
def test_output_is_valid_conllu(es, method):
    model, order, sents = es
    out = list(rephrase(sents, model, order, Options(method, seed=2, samples=2)))
    assert len(out) == 2 * len(sents)
    text = "".join(s.text() for s in out)
    back = list(read_conllu(io.StringIO(text)))  # the reader validates IDs, heads, one root
    for k, (orig, new) in enumerate(zip([s for s in sents for _ in range(2)], back)):
        assert Counter(words(new)) == Counter(words(orig))
        assert [w.id for w in new.words] == list(range(1, len(new.words) + 1))
        comments = dict(c[2:].split(" = ", 1) for c in new.comments if " = " in c)
        assert comments["rephrased_from"] == orig.sent_id
        assert comments["sent_id"] == f"{orig.sent_id}-rephrased-{k % 2 + 1}"
        # # text is the tokens (multiword tokens as written) joined as SpaceAfter says
        assert comments["text"].replace(" ", "") == "".join(
            ln.fields[1] for ln in new.lines if _surface_line(ln, new)).replace(" ", "")
        for w in new.words:  # heads name the same words as in the input (punctuation aside)
            if not w.is_punct and w.head:
                assert not new.words[w.head - 1].is_punct


def _surface_line(line, sent) -> bool:
    """A line whose FORM is in the text: a range, or a word outside every range."""
    if "-" in line.id:
        return True
    ranges = [tuple(map(int, ln.id.split("-"))) for ln in sent.lines if "-" in ln.id]
    return line.is_word and not any(a <= int(line.id) <= b for a, b in ranges)


def test_every_method_gets_the_same_word_order(es):
    model, order, sents = es
    outs = {m: list(rephrase(sents, model, order, Options(m, seed=5))) for m in METHODS}
    assert [words(s) for s in outs["full"]] == [words(s) for s in outs["base"]] \
        == [words(s) for s in outs["half"]]
    assert sum(words(a) != words(b) for a, b in zip(outs["full"], sents)) > 20


def test_keeping_the_order_changes_no_word(es):
    model, order, sents = es
    out = list(rephrase(sents, model, None, Options("base", permute=False)))
    for orig, new in zip(sents, out):
        assert [w.form for w in new.words] == [w.form for w in orig.words]


def test_deletion_regenerates_the_punctuation(en):
    sent = list(read_file(DATA / "arthur.conllu"))
    options = Options("full", permute=False, delete=frozenset({"appos"}))
    (full,) = rephrase(sent, en, None, options)
    assert full.comments[-3] == "# text = Hail the king."
    assert [w.form for w in full.words] == ["Hail", "the", "king", "."]
    assert problems([w.form for w in full.words]) == []


def test_wellformedness_checks():
    assert problems("Hail the king .".split()) == []
    assert problems(", a b , .".split()) == ["initial separator", "doubled point"]
    assert problems("a ( ) b".split()) == ["empty pair"]
    assert problems("a “ b".split()) == ["unbalanced"]
    assert problems('a " b'.split()) == ["unbalanced"]
    assert problems("a （ b ） 「 c 」 。".split()) == []
    assert problems("a , ...".split()) == ["doubled point"]
    assert unmatched('“ a ( b ” ) " c " "'.split()) == [0, 4, 9]  # ” is not ('s partner
    assert unmatched("「 a 」 ( b )".split()) == []


def test_a_final_point_may_have_several_characters():
    assert all(map(is_terminal, [".", "...", "…", "!!!", "?!", "。", "।", "॥", "؟"]))
    assert not any(map(is_terminal, [",", "", ".,", "etc.", "»", ";"]))


PERCENT = """# sent_id = percent
# text = It rose 5, or 6, %.
1	It	it	PRON	PRP	_	2	nsubj	_	_
2	rose	rise	VERB	VBD	_	0	root	_	_
3	5	5	NUM	CD	_	8	nummod	_	SpaceAfter=No
4	,	,	PUNCT	,	_	6	punct	_	_
5	or	or	CCONJ	CC	_	6	cc	_	_
6	6	6	NUM	CD	_	3	appos	_	SpaceAfter=No
7	,	,	PUNCT	,	_	6	punct	_	_
8	%	%	SYM	NN	_	2	obj	_	SpaceAfter=No
9	.	.	PUNCT	.	_	2	punct	_	_

"""


def test_new_neighbours_are_spaced_by_the_shared_marks():
    """``%`` is spaced like a word (its spacing differs by language), the same rule as
    restoration's (:mod:`fstpunct.ud.spacing`); former neighbours keep the input's spacing."""
    from fstpunct.ud.spacing import NO_SPACE_BEFORE
    options = Options("base", permute=False, delete=frozenset({"appos"}))
    (out,) = rephrase(read_conllu(io.StringIO(PERCENT)), None, None, options)
    assert "# text = It rose 5 %." in out.comments
    assert "%" not in NO_SPACE_BEFORE and {"॥", "۔", "…"} <= NO_SPACE_BEFORE


def test_input_that_writes_its_marks_apart_gets_new_neighbours_apart_too():
    """UD 1.4 Chinese writes a space on both sides of every mark (no SpaceAfter=No): marks
    that meet new neighbours are spaced so too, not as English (``不同 ,`` beside ``不同,``
    in one sentence before). Hand-made: tests/data/zh-fullwidth.conllu, half-width, spaced."""
    full = (DATA / "zh-fullwidth.conllu").read_text(encoding="utf-8")
    spaced = "\n".join(ln for ln in full.split("\n") if not ln.startswith("# text = "))
    spaced = spaced.translate(str.maketrans("，。：；？！（）", ",.:;?!()"))
    out = load("zh").rephrase(spaced.replace("SpaceAfter=No", "_"), samples=5, seed=1)
    texts = [ln[9:] for ln in out.splitlines() if ln.startswith("# text = ")]
    assert len(texts) == 20 and not [t for t in texts if re.search(r"[^ ][,.:;?!)、」]", t)]
    assert not [t for t in texts if re.search(r"[(「][^ ]", t)]


AT_NINE = """# sent_id = nine
1	We	we	PRON	PRP	_	2	nsubj	_	_
2	left	leave	VERB	VBD	_	0	root	_	_
3	at	at	ADP	IN	_	5	case	_	_
4	9	9	NUM	CD	_	5	nummod	_	_
5	p.m.	p.m.	NOUN	NN	_	2	obl	_	_
6	yesterday	yesterday	NOUN	NN	_	2	obl:tmod	_	SpaceAfter=No
7	.	.	PUNCT	.	_	2	punct	_	_

"""


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("delete", [frozenset(), frozenset({"obl:tmod"})])
def test_no_method_writes_a_point_after_an_abbreviations_dot(en, method, delete):
    """Hand-made: with ``yesterday`` deleted, ``p.m.`` ends the sentence; every method writes
    ``at 9 p.m.``, never ``p.m. .`` (ud.slots.absorbs: the rule of restoration's writer)."""
    options = Options(method, permute=False, delete=delete)
    outs = rephrase(read_conllu(io.StringIO(AT_NINE)), en, None, options)
    for out in outs:
        forms = [w.form for w in out.words]
        assert forms[:5] == ["We", "left", "at", "9", "p.m."]
        assert forms[5:6] != ["."]
        if delete:
            assert forms == ["We", "left", "at", "9", "p.m."]
            assert "# text = We left at 9 p.m." in out.comments


def test_cli_rephrases_and_reports_bad_input(tmp_path, capsys):
    out = tmp_path / "out.conllu"
    assert main(["rephrase", str(DATA / "arthur.conllu"), "--model", "en", "--seed", "1",
                 "-o", str(out)]) == 0
    (sent,) = read_file(out)
    assert "# rephrased_from = arthur" in sent.comments
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tx\tx\tX\t_\t_\t5\tdep\t_\t_\n\n", encoding="utf-8")
    assert main(["rephrase", str(bad), "--model", "en"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.conllu:1" in err


def test_a_relation_that_is_not_ud_is_refused_not_ignored(tmp_path, capsys):
    out = tmp_path / "out.conllu"
    assert main(["rephrase", str(DATA / "arthur.conllu"), "--model", "en", "--delete",
                 "apos", "-o", str(out)]) == 2  # a typo of appos deleted nothing, exit 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "apos" in err and not out.exists()
    for fine in ("appos", "acl:relcl", "dobj", "appos,parataxis"):  # v2, subtype, v1
        assert Options("full", delete=frozenset(fine.split(","))).delete
    with pytest.raises(InputError):
        Options("full", delete=frozenset({"appos", "apos"}))


def test_a_model_without_an_ordering_model_says_so(capsys):
    """de has no order.json: self-permutation is refused naming the model and the ways on
    (the message named an internal path); deleting needs no ordering model."""
    assert main(["rephrase", str(DATA / "arthur.conllu"), "--model", "de"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'de' has no ordering model" in err and "--order" in err
    assert "models/de/order" not in err and "order=" not in err  # the API's words are the API's
    with pytest.raises(ModelError, match=r"give one \(order=\), or only delete \(delete="):
        load("de").rephrase(str(DATA / "arthur.conllu"))
    assert main(["rephrase", str(DATA / "arthur.conllu"), "--model", "de", "--delete",
                 "appos"]) == 0


def test_the_api_method_writes_what_the_command_writes(tmp_path):
    import fstpunct
    text = (DATA / "arthur.conllu").read_text(encoding="utf-8")
    got = fstpunct.load("en").rephrase(text, seed=4, samples=2)
    out = tmp_path / "out.conllu"
    assert main(["rephrase", str(DATA / "arthur.conllu"), "--model", "en", "--seed", "4",
                 "--samples", "2", "-o", str(out)]) == 0
    assert got == out.read_text(encoding="utf-8")
    short = fstpunct.load("en").rephrase(text, delete=["appos"], method="base")
    assert "# text = Hail the king." in short


def test_full_without_a_change_writes_the_input_back(es):
    model, _, sents = es
    for best in (False, True):
        out = rephrase(sents, model, None, Options("full", permute=False, best_surface=best))
        for orig, new in zip(sents, out):
            assert [w.form for w in new.words] == [w.form for w in orig.words]


def test_a_deleted_mark_takes_its_partner_along():
    from fstpunct.apps.rephrase.underlying import Mark, without_orphans
    opening, closing = Mark("“", origin=(0, 0, 0)), Mark("”", origin=(1, 0, 0))
    comma = Mark(",", origin=(1, 0, 1))
    marks = [((opening,), ()), ((closing, comma), ()), ((), ())]
    pairs = [((0, 0, 0), (1, 0, 0))]
    assert without_orphans(marks, {0, 2}, pairs) == [((), ()), ((closing, comma), ()), ((), ())]
    assert without_orphans(marks, {0, 1, 2}, pairs) == marks
    # a mark paired twice (in T′ with a kept one, as printed with a deleted one) takes its
    # T′ partner along too
    phantom = Mark("“", origin=(2, 0, 0))
    marks = [((opening,), ()), ((closing, comma), ()), ((phantom,), ())]
    pairs = [((0, 0, 0), (1, 0, 0)), ((2, 0, 0), (1, 0, 0))]
    assert without_orphans(marks, {1, 2}, pairs) == [((opening,), ()), ((comma,), ()), ((), ())]


def test_deleting_the_constituent_that_ends_the_sentence_keeps_its_final_point(es):
    model, _, sents = es
    out = rephrase(sents, model, None, Options("full", permute=False, best_surface=True,
                                               delete=frozenset({"obl", "obj", "advcl"})))
    ends = [(orig.words[-1].form, new.words[-1].form) for orig, new in zip(sents, out)]
    assert all(new == "." for old, new in ends if old == ".")


SHE_LEFT = """# sent_id = left
1	She	she	PRON	PRP	_	2	nsubj	_	_
2	left	leave	VERB	VBD	_	0	root	_	_
3	and	and	CCONJ	CC	_	5	cc	_	_
4	he	he	PRON	PRP	_	5	nsubj	_	_
5	stayed	stay	VERB	VBD	_	2	conj	_	SpaceAfter=No
6	.	.	PUNCT	.	_	2	punct	_	_

"""


def _carried(marks):
    from fstpunct.apps.rephrase.underlying import Carried
    return Carried([tuple(tuple(side) for side in ms) for ms in marks], {})


class _Writes:
    """An aligner stub: every u explains every x (or none, with ``ok=False``)."""

    def __init__(self, ok=True):
        self.ok = ok

    def __call__(self, u, x):
        return tuple(range(len(x))) if self.ok else None


@pytest.mark.parametrize("point", [".", "..."])
def test_the_final_point_is_pinned_to_the_root(en, point):
    from fstpunct.apps.rephrase.underlying import Mark, pinned_final_point
    from fstpunct.ud.slots import to_slots
    (sent,) = read_conllu(io.StringIO(SHE_LEFT.replace("\t.\t.\t", f"\t{point}\t{point}\t")))
    slots, line = to_slots(sent), sent.lines[-1]
    model = en
    absorbed, surfaced = Mark(point, None, (1, 1, 0)), Mark(point, line, (4, 1, 0))
    marks = [((), ()), ((), (absorbed,)), ((), ()), ((), ()), ((), (surfaced,))]
    pinned = pinned_final_point(model, slots, _carried(marks), _Writes())
    # the clause's point is dropped; the root's takes the input's token line
    assert pinned.marks[4] == ((), ())
    assert pinned.marks[1] == ((), (Mark(point, line, (1, 1, 0)),))
    assert pinned.observed == {((1, 1, 0),): (0,)}
    # a root without a point gets the clause's
    marks[1] = ((), ())
    pinned = pinned_final_point(model, slots, _carried(marks), _Writes())
    assert pinned.marks[1] == ((), (Mark(point, line, (1, 1, 0)),))
    assert pinned.marks[4] == ((), ())
    # unchanged when the new u cannot be written as the input's surface
    assert pinned_final_point(model, slots, _carried(marks), _Writes(False)).marks == \
        _carried(marks).marks


def test_a_rare_final_point_is_pinned_to_the_root_too(en):
    from fstpunct.apps.rephrase.underlying import Mark, pinned_final_point
    from fstpunct.ud.slots import UNK, to_slots
    (sent,) = read_conllu(io.StringIO(SHE_LEFT.replace("\t.\t.\t", "\t!!!!\t!!!!\t")))
    slots, line = to_slots(sent), sent.lines[-1]
    marks = [((), ()), ((), ()), ((), ()), ((), ()), ((), (Mark(UNK, line, (4, 1, 0)),))]
    pinned = pinned_final_point(en, slots, _carried(marks), _Writes())
    assert pinned.marks[1] == ((), (Mark(UNK, line, (1, 1, 0)),)) and pinned.marks[4] == ((), ())


def test_an_absorbed_mark_without_partner_is_dropped(en):
    from fstpunct.apps.rephrase.underlying import Mark, without_phantom_orphans
    from fstpunct.ud.slots import to_slots
    (sent,) = read_conllu(io.StringIO(SHE_LEFT))
    slots, model = to_slots(sent), en
    opening, closing = Mark("(", sent.lines[0], (2, 0, 0)), Mark(")", sent.lines[1], (3, 1, 0))
    phantom = Mark(")", None, (4, 1, 0))
    marks = [((), ()), ((), ()), ((opening,), ()), ((), (closing,)), ((), (phantom,))]
    out = without_phantom_orphans(model, slots, _carried(marks), _Writes())
    assert out.marks[4] == ((), ()) and out.marks[2:4] == marks[2:4]
    surfaced = Mark(")", sent.lines[2], (4, 1, 0))  # an orphan in the input itself stays
    marks[4] = ((), (surfaced,))
    assert without_phantom_orphans(model, slots, _carried(marks), _Writes()).marks[4] == \
        marks[4]


def test_full_prints_no_point_mid_sentence(es):
    model, order, sents = es
    out = list(rephrase(sents, model, order, Options("full", seed=3, samples=2)))
    one_point = [k for k, s in enumerate(sents)
                 if [w.form for w in s.words if w.form == "."] == ["."]
                 and s.words[-1].form == "."]
    assert len(one_point) > 40
    for k in one_point:
        for new in out[2 * k:2 * k + 2]:
            forms = [w.form for w in new.words]
            assert forms.count(".") == 1 and forms[-1] == ".", forms


def test_deleting_an_apposition_leaves_no_orphaned_title_mark():
    sent = [s for s in treebank("zh", "test").sentences()
            if "".join(w.form for w in s.words[:5]).startswith("《進化特區》")]
    (out,) = rephrase(sent, load_model("zh"), None,
                      Options("full", permute=False, best_surface=True,
                              delete=frozenset({"appos"})))
    forms = [w.form for w in out.words]
    assert "Evolution" not in forms and problems(forms) == []


def test_posterior_trees_are_reproducible_and_vary(es):
    model, order, sents = es
    options = Options("full", seed=1, samples=2, tree="sample")
    first = [s.text() for s in rephrase(sents, model, order, options)]
    assert first == [s.text() for s in rephrase(sents, model, order, options)]
    viterbi = list(rephrase(sents, model, order, Options("full", seed=1, samples=2)))
    drawn = list(rephrase(sents, model, order, options))
    assert [words(a) for a in viterbi] == [words(b) for b in drawn]  # the same word orders
    assert any([w.form for w in a.words] != [w.form for w in b.words]
               for a, b in zip(viterbi, drawn))
    with pytest.raises(InputError):
        Options("full", tree="best")


def test_one_underlying_stage_serves_every_way_of_writing(es):
    model, order, sents = es
    for tree, samples in (("viterbi", 1), ("sample", 2)):
        trees = list(underlying(sents, model, tree, seed=1, samples=samples))
        assert len(trees) == len(sents) and all(len(t.carried) == samples for t in trees)
        for options in (Options("full", seed=1, samples=samples, tree=tree),
                        Options("half", seed=1, samples=samples, tree=tree),
                        Options("base", seed=1, samples=samples),  # reads no T′
                        Options("full", seed=1, samples=samples, tree=tree, permute=False,
                                best_surface=True, delete=frozenset({"obl"}))):
            assert [s.text() for s in written(trees, model, order, options)] == \
                [s.text() for s in rephrase(sents, model, order, options)]
    with pytest.raises(InputError):  # full needs the T′ that a model gives
        list(written(underlying(sents, None), model, order, Options("full")))


def test_rewriting_every_slot_keeps_the_words(es):
    model, _, sents = es
    out = list(rephrase(sents, model, None, Options("full", permute=False, best_surface=True,
                                                    rewrite_all=True)))
    assert [words(a) for a in out] == [words(b) for b in sents]


def test_marks_pair_in_t_prime_and_as_printed():
    from fstpunct.apps.rephrase.underlying import Mark, partners
    from fstpunct.ud.slots import to_slots
    from fstpunct.ud.treebank import Line
    (sent,) = read_conllu(io.StringIO(SHE_LEFT))
    slots = to_slots(sent)

    def line(i, form):
        return Line([str(i), form, form, "PUNCT", "_", "_", "1", "punct", "_", "_"], 0)
    printed = Mark("(", line(2, "("), (0, 1, 0))   # after She
    phantom = Mark("(", None, (2, 0, 0))           # before "and he stayed", absorbed
    closing = Mark(")", line(8, ")"), (4, 1, 0))   # after stayed
    marks = [((), (printed,)), ((), ()), ((phantom,), ()), ((), ()), ((), (closing,))]
    symmetric = [("(", ")")]
    assert partners(slots, marks, symmetric) == [((2, 0, 0), (4, 1, 0))]
    assert partners(slots, marks, symmetric, surface=True) == [((0, 1, 0), (4, 1, 0))]


def test_deleting_a_bracket_takes_the_printed_partner_along():
    sent = [s for s in treebank("zh", "test").sentences() if "".join(w.form for w in s.words[:4]) ==
            "1689年英國在"]
    (out,) = rephrase(sent, load_model("zh"), None,
                      Options("full", permute=False, best_surface=True, delete_parens=True))
    forms = [w.form for w in out.words]
    assert "九" not in forms and problems(forms) == []


COME = """# sent_id = come
# text = Come see how we continue this tradition."
1	Come	come	VERB	VB	_	0	root	_	_
2	see	see	VERB	VB	_	1	parataxis	_	_
3	how	how	ADV	WRB	_	5	advmod	_	_
4	we	we	PRON	PRP	_	5	nsubj	_	_
5	continue	continue	VERB	VBP	_	2	ccomp	_	_
6	this	this	DET	DT	_	7	det	_	_
7	tradition	tradition	NOUN	NN	_	5	obj	_	SpaceAfter=No
8	.	.	PUNCT	.	_	1	punct	_	SpaceAfter=No
9	"	"	PUNCT	''	_	1	punct	_	_

"""


@pytest.mark.parametrize("balance", [True, False])
def test_a_shortened_sentence_prints_the_absorbed_partner_of_an_orphan(en, balance):
    # the closing quote of a quotation opened in the previous sentence: for the model, the
    # root's pair (“, . ”) with the “ absorbed by the channel
    sent = list(read_conllu(io.StringIO(COME)))
    (out,) = rephrase(sent, en, None,
                      Options("full", permute=False, best_surface=True, balance=balance,
                              delete=frozenset({"parataxis"})))
    forms = [w.form for w in out.words]
    assert forms == (['"', "Come", ".", '"'] if balance else ["Come", ".", '"'])
    assert (problems(forms) == []) is balance
    assert ("balance=no" in out.text()) is not balance


def test_printed_partners_prints_only_the_partner_of_a_surface_orphan():
    from fstpunct.apps.rephrase.underlying import Mark, printed_partners
    from fstpunct.ud.slots import to_slots
    from fstpunct.ud.treebank import Line
    (sent,) = read_conllu(io.StringIO(SHE_LEFT))
    slots = to_slots(sent)

    def line(i, form):
        return Line([str(i), form, form, "PUNCT", "_", "_", "1", "punct", "_", "_"], 0)
    absorbed = Mark("“", None, (0, 0, 0))
    printed = Mark("”", line(7, '"'), (1, 1, 0))  # a straight quote, printed
    marks = [((absorbed,), ()), ((), (printed,)), ((), ()), ((), ()), ((), ())]
    symmetric = [("“", "”")]
    new, settled = printed_partners(slots, marks, {0, 1, 2, 3, 4}, symmetric)
    assert new[0] == ((Mark("“", None, (0, 0, 0), glyph='"'),), ()) and new[1:] == marks[1:]
    assert settled == {(0, 0, 0), (1, 1, 0)}
    # a printed partner that pairs on the surface: nothing to print
    other = Mark("“", line(1, '"'), (2, 0, 0))
    marks[2] = ((other,), ())
    assert printed_partners(slots, marks, {0, 1, 2, 3, 4}, symmetric) == (marks, frozenset())


def test_a_settled_slot_takes_the_most_probable_surface_even_when_sampling(en):
    from fstpunct.apps.rephrase.underlying import Aligner, Mark, write_slots
    channel = en.channel
    opening = Mark("“", None, (0, 0, 0))
    marks = [((opening,), ()), ((), (Mark(".", None, (1, 1, 0)),))]
    observed = {((-1, 0, 0), (0, 0, 0)): (0,)}  # the input printed no “ there
    kept = write_slots(channel, [0, 1], marks, "sample", np.random.default_rng(0), None,
                       observed)
    assert kept[0] == []
    best = Aligner(channel).best(("∘", "“"))
    for seed in range(5):
        out = write_slots(channel, [0, 1], marks, "sample", np.random.default_rng(seed), None,
                          observed, frozenset({(0, 0, 0)}))
        assert [w.mark.symbol for w in out[0]] == [t for t in best if t != "∘"] == ["“"]
    # a settled mark the input printed there: an unchanged slot keeps the input's surface
    printed = Mark("“", read_conllu(io.StringIO(SHE_LEFT)).__next__().lines[0], (0, 0, 0))
    marks[0] = ((printed,), ())
    observed = {((-1, 0, 0), (0, 0, 0)): (0,)}  # as if the input printed ∘ alone there
    out = write_slots(channel, [0, 1], marks, "sample", np.random.default_rng(0), None,
                      observed, frozenset({(0, 0, 0)}))
    assert out[0] == []


def test_only_sentences_with_a_surface_orphan_take_a_balanced_t_prime(es):
    model, _, sents = es
    sents = [*sents, *read_conllu(io.StringIO(COME))]
    plain, balanced = (list(underlying(sents, model, balanced=b)) for b in (False, True))
    for sent, a, b in zip(sents, plain, balanced):
        if not unmatched([w.form for w in sent.words if w.is_punct]):
            assert a.carried == b.carried
    from fstpunct.model.vocab import unmatched as unmatched_pair
    l, r = balanced[-1].carried[0].marks[0]
    symbols = (tuple(m.symbol for m in l), tuple(m.symbol for m in r))
    assert unmatched_pair(*symbols, model.attach.symmetric) is False  # the root's pair
    assert [m.line for m in l if m.symbol == "“"] == [None]  # its “ absorbed



def test_a_balanced_t_prime_explains_an_orphan_by_an_absorbed_partner(en):
    sent = [s for s in treebank("en", "test").sentences() if s.words[0].form == "It" and
            [w.form for w in s.words[1:4]] == ["read", ",", '"']]
    model = en
    (plain,), (balanced,) = (underlying(sent, model, balanced=b) for b in (False, True))
    node = [w.form for w in sent[0].words if not w.is_punct].index("condemn")

    def pair(item):
        return tuple(tuple(m.symbol for m in side) for side in item.carried[0].marks[node])
    assert pair(plain) == ((",", "“"), ())  # the Viterbi T′: an unmatched pair
    assert pair(balanced) == ((",", "“"), ("”",))  # matched, its ” absorbed
    assert balanced.carried[0].marks[node][1][0].line is None


def test_the_command_and_the_api_take_no_balance(tmp_path):
    import fstpunct
    path, out = tmp_path / "come.conllu", tmp_path / "out.conllu"
    path.write_text(COME, encoding="utf-8")
    assert main(["rephrase", str(path), "--model", "en", "--delete", "parataxis",
                 "--best-surface", "--no-balance", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert '# text = Come."' in text and "balance=no" in text
    assert text == fstpunct.load("en").rephrase(COME, delete=["parataxis"], best_surface=True,
                                                balance=False)
    assert '# text = "Come."' in fstpunct.load("en").rephrase(COME, delete=["parataxis"],
                                                              best_surface=True)


def _at(sents, index, model, order, options, chunk=500):
    """The rephrasings of the sentence at ``index`` of ``sents``."""
    out = list(rephrase(sents, model, order, options, chunk))
    return [s.text() for s in out[index * options.samples:(index + 1) * options.samples]]


@pytest.mark.parametrize("method", METHODS)
def test_a_sentences_rephrasings_do_not_depend_on_its_neighbours(es, method):
    """Sentence 6's posterior T′ (its 3 draws differ), word orders and channel draws are its
    own: the same with other sentences before and after it, and in chunks of any size (T′ was
    drawn per chunk of 500 from one stream, so a sentence's draws depended on what preceded
    it)."""
    model, order, sents = es
    options = Options(method, seed=3, samples=3,  # base reads no T′ (and refuses a tree)
                      tree="viterbi" if method == "base" else "sample")
    alone = _at(sents[:7], 6, model, order, options)
    assert method == "base" or len(set(alone)) == 3  # the draws differ: the test has force
    assert alone == _at([*sents[60:66], sents[6], *sents[70:72]], 6, model, order, options)
    assert alone == _at(sents[:12], 6, model, order, options, chunk=4)
    assert alone == _at(sents[:12], 6, model, order, options, chunk=1)


def test_a_balanced_t_prime_does_not_depend_on_the_other_orphans(en):
    """A sentence with an orphaned quote draws its balanced T′ from its own stream: the same
    whether or not another such sentence precedes it (the balanced draws were one stream for
    all such sentences of a chunk)."""
    come = list(read_conllu(io.StringIO(COME)))
    plain = list(read_file(DATA / "arthur.conllu"))[:1]
    model = en
    options = Options("full", seed=4, samples=6, permute=False, tree="sample",
                      delete=frozenset({"parataxis"}))
    alone = _at([*plain * 3, *come], 3, model, None, options)
    assert alone == _at([*come * 2, *plain, *come], 3, model, None, options)
    assert alone == _at([*come * 3, *come], 3, model, None, options, chunk=2)


def test_no_two_draws_share_a_random_stream(es, monkeypatch):
    """Every random stream made while rephrasing (word orders, channel draws, posterior and
    balanced T′, several samples and a sentence with an orphaned quote) is a different numpy
    SeedSequence; chunk k's T′ stream was sentence k's third sample's word order before."""
    model, order, sents = es
    come = list(read_conllu(io.StringIO(COME)))
    made = []
    default_rng = np.random.default_rng

    def recording(seed=None):
        if isinstance(seed, (tuple, list)):
            made.append(tuple(np.random.SeedSequence(seed).generate_state(8)))
        return default_rng(seed)
    monkeypatch.setattr(np.random, "default_rng", recording)
    options = Options("full", seed=0, samples=4, tree="sample", delete=frozenset({"obl"}))
    list(rephrase([*sents[:5], *come], model, order, options, chunk=3))
    # per sample a word order and a channel (full), per sentence a T′, one balanced T′ (come)
    assert len(made) == 6 * 4 * 2 + 6 + 1
    assert len(set(made)) == len(made)


def test_the_seed_is_one_32_bit_word(capsys):
    """A seed of 2**32 or more would take two words of a stream and shift its parts."""
    with pytest.raises(InputError, match="seed must be below 2"):
        Options(seed=2 ** 32)
    assert main(["rephrase", "--seed", str(2 ** 32), str(DATA / "arthur.conllu")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "seed must be below 2**32" in err and "note" not in err


def test_relations_given_as_one_string_are_names_not_characters():
    """Options(delete="iobj") (the public dataclass) holds the relation, not the str: a str
    was tested as a substring, so obj went too ("obj" in "iobj"; plain acl for "acl:relcl"),
    and the record joined its characters."""
    sents = list(read_file(DATA / "arthur.conllu"))
    assert Options(delete="acl:relcl, appos").delete == frozenset({"acl:relcl", "appos"})
    options = Options("base", permute=False, delete="iobj")
    assert options.delete == frozenset({"iobj"})
    (out,) = rephrase(sents, None, None, options)
    assert words(out) == words(sents[0])  # no iobj there: nothing deleted
    assert "delete=iobj" in out.text()
