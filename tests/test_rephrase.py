"""Rephrasing: valid CoNLL-U out, the same word order for every method, deletion, the CLI."""
from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

from fstpunct.apps.rephrase.order import OrderModel, order_path
from fstpunct.apps.rephrase.rephrase import METHODS, Options, rephrase
from fstpunct.apps.rephrase.wellformed import problems
from fstpunct.cli.main import main
from fstpunct.model.store import load_model
from fstpunct.ud.release import read_one
from fstpunct.ud.treebank import read_conllu, read_file

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def es():
    return load_model("es"), OrderModel.load(order_path("es")), list(read_one("es:dev"))[:80]


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


def test_deletion_regenerates_the_punctuation():
    sent = list(read_file(DATA / "arthur.conllu"))
    options = Options("full", permute=False, delete=frozenset({"appos"}))
    (full,) = rephrase(sent, load_model("en"), None, options)
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


def test_deleting_the_constituent_that_ends_the_sentence_keeps_its_final_point(es):
    model, _, sents = es
    out = rephrase(sents, model, None, Options("full", permute=False, best_surface=True,
                                               delete=frozenset({"obl", "obj", "advcl"})))
    ends = [(orig.words[-1].form, new.words[-1].form) for orig, new in zip(sents, out)]
    assert all(new == "." for old, new in ends if old == ".")
