"""Punctuation normalisation: each mark re-attached to the constituent whose puncteme wrote it."""
import copy
import io
from pathlib import Path

import pytest

from fstpunct.apps.normalise import Counts, normalise, slot_heads
from fstpunct.cli.main import main
from fstpunct.model.punct import Inference
from fstpunct.model.store import load_model
from fstpunct.ud.slots import ABBV, to_slots
from fstpunct.ud.treebank import read_conllu, read_file

DATA = Path(__file__).parent / "data"
SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


@pytest.fixture(scope="module")
def model():
    return load_model("en")


def sentences(*paths):
    return [s for p in paths for s in read_file(p)]


def test_every_mark_hangs_from_a_constituent_that_borders_its_slot(model):
    sents = sentences(SAMPLE, DATA / "edge.conllu")
    prepared = [to_slots(s) for s in sents]
    inference = Inference(model, model.prepare(prepared))
    for slots, surfaces, pairs in zip(prepared, inference.batch.surfaces,
                                      inference.viterbi_all()):
        if not slots.trainable:
            continue
        for i, heads in enumerate(slot_heads(model, slots, surfaces, pairs)):
            assert heads is not None and len(heads) == len(slots.slots[i])
            for h in heads:
                if slots.n:
                    assert i in slots.spans[h - 1]  # its constituent ends or starts here
                else:
                    assert h == 0


def test_only_punctuation_heads_change_and_twice_is_once(model):
    original = sentences(SAMPLE, DATA / "edge.conllu")
    counts = Counts()
    once = list(normalise(model, copy.deepcopy(original), counts))
    assert counts.sentences == len(original) and counts.moved > 0
    assert counts.tokens == sum(w.is_punct for s in original for w in s.words)
    for before, after in zip(original, once):
        assert before.comments == after.comments
        assert len(before.lines) == len(after.lines)
        for a, b in zip(before.lines, after.lines):
            changed = [k for k in range(10) if a.fields[k] != b.fields[k]]
            assert not changed or (changed in ([6], [6, 8]) and b.fields[3] == "PUNCT")
        assert [w.head for w in after.words] == [int(ln.fields[6]) for ln in after.lines
                                                 if ln.is_word]
    again = Counts()
    twice = list(normalise(model, copy.deepcopy(once), again))
    assert again.moved == 0 and [s.text() for s in twice] == [s.text() for s in once]


def test_the_comma_before_and_belongs_to_the_conjunct_it_closes(model):
    """`apples [, pears ,] [and plums]`: the second comma closes "pears" (UD put it on
    "plums"); the final period stays on the root."""
    sent = next(s for s in read_file(SAMPLE) if s.sent_id == "sample-3")
    out = next(normalise(model, [sent]))
    head = {w.id: w.head for w in out.words}
    assert head[4] == 5 and head[6] == 5 and head[20] == 2 and head[9] == head[12] == 11


def test_enhanced_dependencies_follow_the_new_head():
    sent = next(read_conllu(io.StringIO(
        "1\tA\ta\tNOUN\t_\t_\t0\troot\t0:root\t_\n"
        "2\t,\t,\tPUNCT\t_\t_\t3\tpunct\t3:punct\t_\n"
        "3\tB\tb\tNOUN\t_\t_\t1\tconj\t1:conj\t_\n\n")))
    assert sent.set_head(2, 1) and not sent.set_head(2, 1)
    assert sent.lines[1].fields[6] == "1" and sent.lines[1].fields[8] == "1:punct"
    assert sent.words[1].head == 1


def test_kept_tokens_are_counted(model):
    edge = {s.sent_id: s for s in read_file(DATA / "edge.conllu")}
    for name in ("all-punct", "punct-with-dependent"):
        counts = Counts()
        sent = edge[name]
        heads = [w.head for w in sent.words]
        out = next(normalise(model, [sent], counts))
        assert [w.head for w in out.words] == heads
        n = sum(w.is_punct for w in sent.words)
        assert counts.tokens == counts.kept == n > 0
    abbreviation = edge["quotes-xpos"]  # "etc." loses its dot to the slot: not a token
    assert any(ABBV in slot for slot in to_slots(abbreviation).slots)
    counts = Counts()
    list(normalise(model, [abbreviation], counts))
    assert counts.tokens == 4


def test_cli(tmp_path, capsys):
    out = tmp_path / "out.conllu"
    assert main(["normalise", str(SAMPLE), "-o", str(out)]) == 0
    assert "punctuation tokens re-attached" in capsys.readouterr().err
    assert len(list(read_file(out))) == len(list(read_file(SAMPLE)))


def test_cli_counts_agree_with_their_nouns(tmp_path, capsys):
    """One sentence with one punctuation token: ``1 sentence: 0 of 1 punctuation token``."""
    given = tmp_path / "one.conllu"
    given.write_text("# text = Go.\n1\tGo\tgo\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
                     "2\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n", encoding="utf-8")
    assert main(["normalise", str(given), "-o", str(tmp_path / "out.conllu")]) == 0
    assert "fstpunct normalise: 1 sentence: 0 of 1 punctuation token re-attached" in \
        capsys.readouterr().err
