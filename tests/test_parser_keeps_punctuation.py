"""One definition of punctuation (:attr:`fstpunct.ud.treebank.Word.is_punct`) for the parser
and the punctuation model: parsing never makes a word punctuation (relation ``punct``) nor
punctuation a word, so restoring with parsed trees, alone or as an ensemble, and the text
pipeline never change the number of words (issue 24: a zh fold parser labelled a word
``punct``, ``to_slots`` then removed it and the ensemble stopped on the word count)."""
import io
from pathlib import Path

import numpy as np
import pytest

import fstpunct
from fstpunct.cli.main import main
from fstpunct.parser import Model, kbest, parse
from fstpunct.parser import features as F
from fstpunct.parser.punct import MARK, REL_MARK, WORD, prepare
from fstpunct.parser.train import build
from fstpunct.parser.transitions import initial
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import read_conllu, read_file

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


def words(path):
    return [[w.form for w in s.words if not w.is_punct] for s in read_file(path)]


def conllu(rows, tree=True):
    """A sentence from (form, upos, head, deprel) rows."""
    lines = [f"{i}\t{f}\t{f}\t{u}\t_\t_\t{h}\t{d}\t_\t_" for i, (f, u, h, d) in enumerate(rows, 1)]
    return next(read_conllu(io.StringIO("\n".join(lines) + "\n\n"), tree=tree))


# The situation of zh test sentence #364 (a made-up sentence, not treebank text): a SYM token
# with the relation punct, which the punctuation model takes for punctuation.
RANGE = conllu([("3", "NUM", 4, "nummod"), ("～", "SYM", 3, "punct"), ("5", "NUM", 1, "conj"),
                ("年", "NOUN", 0, "root"), ("。", "PUNCT", 4, "punct")])


def favouring(mode, label):
    """A model whose every feature votes for the arcs labelled ``label`` (all features unknown:
    each configuration scores ``len(templates)`` times weight row 0)."""
    model = Model(mode, [], [], ["dep", "punct", "root"], F.templates(mode),
                  np.zeros(0, dtype=np.uint64), info={"beam": 1})
    model.weights[0, [a for a, t in enumerate(model.transitions) if t.label == label]] = 1.0
    return model


def punctuation(sent):
    return [w.is_punct for w in sent.words]


def test_training_drops_what_to_slots_drops():
    prep = prepare(RANGE, "removed", gold=True)
    assert prep.forms == to_slots(RANGE).words == ("3", "5", "年")
    assert prep.deprels == ("nummod", "conj", "root") and prep.marks == (WORD,) * 3
    model, _ = build([RANGE], "removed", log=lambda m: None)
    assert "punct" not in model.labels
    assert prepare(RANGE, "tokens", gold=True).marks == (WORD, REL_MARK, WORD, WORD, MARK)


@pytest.mark.parametrize("mode", ["removed", "properties", "tokens"])
@pytest.mark.parametrize("beam", [1, 4])
def test_a_parser_that_would_label_words_punct_cannot(mode, beam):
    model = favouring(mode, "punct")
    bare = conllu([("3", "NUM", "_", "_"), ("5", "NUM", "_", "_"), ("年", "NOUN", "_", "_")],
                  tree=False)
    for sent in (RANGE, bare):
        for out in [parse(model, sent, beam)] + [t for _, t in kbest(model, sent, beam)]:
            assert punctuation(out) == punctuation(sent)
            assert len(to_slots(out).words) == len(to_slots(sent).words)


def test_punctuation_by_its_relation_alone_stays_punctuation():
    out = parse(favouring("tokens", "dep"), RANGE, 1)
    assert [w.deprel for w in out.words][1] == "punct"  # the SYM token
    assert punctuation(out) == punctuation(RANGE)


def test_greedy_training_masks_what_parsing_masks():
    """Local and early learning at beam 1 (one mask table) forbid, at every gold configuration,
    what parsing forbids: the perceptron is never told an arc making a word ``punct`` won."""
    model, (ex,) = build([RANGE], "tokens", log=lambda m: None)
    table = model.mask_table()
    punct_arcs = [a for a, t in enumerate(model.transitions) if t.label == "punct"]
    state, between_words = initial(ex.inp.leaves[0], ex.inp.n), 0
    for k, a in zip(ex.legality, ex.actions):
        assert (table[k] == model.mask(state, ex.inp.marks)).all()
        if ex.inp.marks[state.s0[0]] == ex.inp.marks[state.s1[0]] == WORD:
            assert (table[k][punct_arcs] == -np.inf).all()
            between_words += 1
        state = model.transitions[a].apply(state, ex.inp.leaves)
    assert between_words


def test_restore_with_such_parsers_alone_or_as_an_ensemble_keeps_the_words(tmp_path):
    punct_happy = tmp_path / "punct-happy"
    favouring("removed", "punct").save(punct_happy)
    plain = tmp_path / "plain"
    favouring("removed", "dep").save(plain)
    for parsers in ([punct_happy], [plain, punct_happy], [punct_happy, plain]):
        out = tmp_path / "out.conllu"
        options = [a for p in parsers for a in ("--parser", str(p))]
        assert main(["restore", str(SAMPLE), *options, "--samples", "20", "-o", str(out),
                     "--quiet"]) == 0
        assert words(out) == words(SAMPLE)
        assert [to_slots(s).n for s in read_file(out)] == \
            [to_slots(s).n for s in read_file(SAMPLE)]


def test_the_text_pipeline_keeps_the_words():
    text = "we bought apples pears and plums at the market\ndale means river valley\n"
    out = fstpunct.load("en").restore(text, text=True, format="conllu",
                                      parsers=[favouring("removed", "punct")])
    sents = list(read_conllu(io.StringIO(out)))
    assert [[w.form for w in s.words if not w.is_punct] for s in sents] == \
        [line.split() for line in text.splitlines()]
