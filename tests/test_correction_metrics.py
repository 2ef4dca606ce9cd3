"""F0.5 of punctuation edits (CoNLL-2014 M2 definition, one edit per slot), hand-worked."""
import io
import json

import pytest

from fstpunct.apps.restoration.metrics import EditScore, edit_score, f_randomisation_p, has_edit
from fstpunct.cli.main import main
from fstpunct.errors import ConlluError
from fstpunct.ud.treebank import read_conllu


def conll(rows):
    lines = ["# sent_id = t", "# text = x"]
    for k, (form, head, rel) in enumerate(rows, 1):
        punct = rel == "punct"
        lines.append("\t".join([str(k), form, "_", "PUNCT" if punct else "NOUN", "_", "_",
                                str(head), rel, "_", "_"]))
    return "\n".join(lines) + "\n\n"


# "a , b c ." (source), "a b , c ." (gold), "a b c !" (prediction): words a b c, slots 0..3
SOURCE = conll([("a", 0, "root"), (",", 1, "punct"), ("b", 1, "dep"), ("c", 1, "dep"),
                (".", 1, "punct")])
GOLD = conll([("a", 0, "root"), ("b", 1, "dep"), (",", 1, "punct"), ("c", 1, "dep"),
              (".", 1, "punct")])
PRED = conll([("a", 0, "root"), ("b", 1, "dep"), ("c", 1, "dep"), ("!", 1, "punct")])


def one(text):
    return list(read_conllu(text.splitlines(keepends=True)))


def test_hand_worked_sentence():
    # gold edits: slot 1 "," -> "", slot 2 "" -> ","; system edits: slot 1 "," -> "" (correct),
    # slot 3 "." -> "!" (wrong). P = 1/2, R = 1/2, F0.5 = 1.25 * .25 / (.125 + .5) = 0.5
    result = edit_score(one(SOURCE), one(GOLD), one(PRED))
    assert (result.correct, result.proposed, result.gold) == ([1], [2], [2])
    assert result.scores() == pytest.approx((50.0, 50.0, 50.0))
    assert edit_score(one(SOURCE), one(GOLD), one(GOLD)).scores() == (100.0, 100.0, 100.0)
    keep = edit_score(one(SOURCE), one(GOLD), one(SOURCE))   # no system edit: P = 1, R = 0
    assert keep.scores() == (100.0, 0.0, 0.0)


@pytest.mark.parametrize("source, gold, pred, counts, prf", [
    ([(), ()], [(), ()], [(), ()], (0, 0, 0), (100.0, 100.0, 100.0)),    # nothing to do
    ([(), ()], [(), ()], [(), (".",)], (0, 1, 0), (0.0, 100.0, 0.0)),    # a needless edit
    ([(), ()], [(), (".",)], [(), (",",)], (0, 1, 1), (0.0, 0.0, 0.0)),  # right slot, wrong mark
    # two gold edits, three system edits of which two right: P 2/3, R 1,
    # F0.5 = 1.25 * (2/3) / (0.25 * 2/3 + 1) = 0.8333 / 1.1667 = 71.43 %
    ([(), (), (), ()], [(",",), (), (",",), ()], [(",",), (";",), (",",), ()], (2, 3, 2),
     (200 / 3, 100.0, 500 / 7)),
])
def test_slot_edit_counts(source, gold, pred, counts, prf):
    result = EditScore()
    result.add(source, gold, pred)
    assert (result.correct[0], result.proposed[0], result.gold[0]) == counts
    assert result.scores() == pytest.approx(prf)


def test_randomisation():
    a, b = EditScore([1, 0, 2], [1, 1, 2], [2, 1, 2]), EditScore([0, 0, 0], [0, 0, 0], [2, 1, 2])
    assert f_randomisation_p(a, a) == 1.0
    # 3 sentences: 8 equally likely swaps; F0.5 differences at least the observed: by hand
    swaps = []
    for mask in range(8):
        pick = [(b if mask >> k & 1 else a, a if mask >> k & 1 else b) for k in range(3)]
        x = EditScore.prf(sum(p[0].correct[k] for k, p in enumerate(pick)),
                          sum(p[0].proposed[k] for k, p in enumerate(pick)), 5)[2]
        y = EditScore.prf(sum(p[1].correct[k] for k, p in enumerate(pick)),
                          sum(p[1].proposed[k] for k, p in enumerate(pick)), 5)[2]
        swaps.append(x - y)
    exact = sum(abs(d) >= abs(swaps[0]) - 1e-9 for d in swaps) / 8
    assert f_randomisation_p(a, b, rounds=40_000) == pytest.approx(exact, abs=0.01)
    # one-sided: b better than a (b - a at least the observed); a is the better one here
    b_better = sum(-d >= -swaps[0] - 1e-9 for d in swaps) / 8
    a_better = sum(d >= swaps[0] - 1e-9 for d in swaps) / 8
    assert swaps[0] > 0 and a_better < b_better
    assert f_randomisation_p(a, b, rounds=40_000, one_sided=True) == pytest.approx(b_better,
                                                                                    abs=0.01)
    assert f_randomisation_p(b, a, rounds=40_000, one_sided=True) == pytest.approx(a_better,
                                                                                    abs=0.01)


def test_score_command_with_source(tmp_path, capsys):
    paths = {}
    for name, text in (("source", SOURCE), ("gold", GOLD), ("pred", PRED)):
        paths[name] = tmp_path / f"{name}.conllu"
        paths[name].write_text(text, encoding="utf-8")
    assert main(["score", "--gold", str(paths["gold"]), "--source", str(paths["source"]),
                 str(paths["pred"]), "--json"]) == 0
    edits = json.loads(capsys.readouterr().out)["edits"]
    assert (edits["gold"], edits["proposed"], edits["correct"]) == (2, 2, 1)
    assert edits["f0.5"] == pytest.approx(50.0)
    assert main(["score", "--gold", str(paths["gold"]), "--source", str(paths["source"]),
                 str(paths["pred"])]) == 0
    out = capsys.readouterr().out
    assert "per sentence 2.0000" in out  # AED against gold: slot 2 lacks ",", slot 3 "!"
    assert "precision 50.00  recall 50.00  F0.5 50.00" in out


def test_score_command_with_source_reads_the_prediction_from_stdin(tmp_path, capsys,
                                                                   monkeypatch):
    """The prediction is read once: a pipe (``correct | score --source``) can be scored."""
    for name, text in (("source", SOURCE), ("gold", GOLD)):
        (tmp_path / f"{name}.conllu").write_text(text, encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO(PRED))
    assert main(["score", "--gold", str(tmp_path / "gold.conllu"), "--source",
                 str(tmp_path / "source.conllu"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["average_edit_distance"] == pytest.approx(2.0)
    assert (result["edits"]["gold"], result["edits"]["proposed"]) == (2, 2)


def words(*forms):
    """One sentence of ``forms``: the first word the root and head of every other token, a
    form without a letter punctuation."""
    root = next((k for k, f in enumerate(forms, 1) if any(c.isalpha() for c in f)), 0)
    return one(conll([(f, 0 if k == root else root,
                       "root" if k == root else "dep" if any(c.isalpha() for c in f)
                       else "punct") for k, f in enumerate(forms, 1)]))[0]


@pytest.mark.parametrize("source, gold, edit", [
    (words("a", "b", "."), words("a", "b", "."), False),             # the same
    (words("a", "b", "."), words("a", "b", "!"), True),              # a mark replaced
    (words("a", ",", "b", "."), words("a", "b", "."), True),         # a mark deleted
    (words("a", "b"), words("a", "b", "."), True),                   # a mark inserted
    (words("a", ",", "b"), words("a", "b", ","), True),              # a mark moved
    # straight quotes are scored directional: '" a b "' is '“ a b ”'
    (words('"', "a", "b", '"'), words("“", "a", "b", "”"), False),
    # an abbreviation's dot (a word "b.") is no punctuation: "a b." is "a b", not "a b ."
    (words("a", "b."), words("a", "b"), False),
    (words("a", "b."), words("a", "b", "."), True),
    # all punctuation (no words): slot 0 alone is scored
    (words("."), words("."), False),
    (words("."), words("!"), True),
])
def test_has_edit_is_the_scorers_gold_edit(source, gold, edit):
    assert has_edit(source, gold) is edit
    assert (sum(edit_score([source], [gold], [gold]).gold) > 0) is edit


@pytest.mark.parametrize("source, gold, says", [
    (words("a", "c", "."), words("a", "b", "."), "word 2 is 'c'"),
    (words("a", "."), words("a", "b", "."), "1 words without punctuation"),
    (words("."), words("a", "."), "0 words without punctuation"),
    # a source with words for an all-punctuation gold sentence: an extra sentence to the scorer
    (words("a", "."), words("."), "the source has more sentences"),
])
def test_has_edit_refuses_what_the_scorer_refuses(source, gold, says):
    with pytest.raises(ConlluError, match=says):
        has_edit(source, gold)
    with pytest.raises(ConlluError, match=says):
        edit_score([source], [gold], [gold])
