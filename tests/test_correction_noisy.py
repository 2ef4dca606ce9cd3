"""The noisy-channel corrector (:mod:`fstpunct.apps.correction.noisy`) on hand-made pairs: the
error model's probabilities worked out by hand, the prior's leave-one-slot-out sentences against
the written sentence scored directly, the per-slot decision against a brute force that writes
and scores every candidate sentence on its own, and the balance rule."""
import json
import math
import sys
from collections import Counter
from dataclasses import astuple, fields
from pathlib import Path

import numpy as np
import pytest
from learner_pairs import PLAIN, RELATIVE, conll, sentences
from script_module import load_script
from test_correction_cv import DOCUMENTS, learner_folder, run_cv

from fstpunct.apps.correction import noisy
from fstpunct.apps.restoration.metrics import EditScore, slot_strings
from fstpunct.apps.restoration.strip import insert, insertions_of, strip
from fstpunct.errors import InputError
from fstpunct.model import punct
from fstpunct.model.punct import Inference, log_probs
from fstpunct.model.store import load_model
from fstpunct.ud.slots import ABBV, UNK, to_slots

COMMA_END = [("We", 2, "nsubj"), ("left", 0, "root"), ("early", 2, "advmod"), (",", 2, "punct")]
ABBREVIATION = [("We", 2, "nsubj"), ("left", 0, "root"), ("etc.", 2, "obj"),
                (",", 2, "punct"), ("early", 2, "advmod"), (".", 2, "punct")]


def slot_sentences(text: str):
    return [to_slots(s) for s in sentences(text)]


def pairs():
    """(learner, corrected): a relative clause without its commas, a plain sentence kept, a
    final comma corrected to a period."""
    learner = slot_sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(PLAIN, "p")
                             + conll(COMMA_END, "c"))
    gold = slot_sentences(conll(RELATIVE, "r") + conll(PLAIN, "p") + conll(PLAIN, "c"))
    return list(zip(learner, gold))


@pytest.fixture(scope="module")
def english():
    return load_model("en")


def test_error_model_by_hand():
    e = noisy.ErrorModel.counted(pairs())
    # corrected () <- learner (): relative slots 0, 2, 4; plain 0, 1, 2; comma-end 0, 1, 2
    # corrected , <- (): relative slots 1, 3. corrected . <- .: relative 5, plain 3;
    # corrected . <- ,: comma-end 3. Learner strings (), ".", ",": K = 4.
    assert e.k == 4
    assert e.log_p((), ()) == pytest.approx(math.log(9.5 / (9 + 2)))
    assert e.log_p((), (",",)) == pytest.approx(math.log(2.5 / (2 + 2)))
    assert e.log_p((".",), (",",)) == pytest.approx(math.log(0.5 / 4))
    assert e.log_p((",",), (".",)) == pytest.approx(math.log(1.5 / (3 + 2)))
    assert e.log_p((".",), (".",)) == pytest.approx(math.log(2.5 / 5))
    assert e.log_p((), ("!",)) == pytest.approx(math.log(0.5 / 2))  # an unseen y
    assert e.candidates(()) == [(), (",",)]
    assert e.candidates((",",)) == [(",",), (".",)]
    assert e.candidates(("!",)) == [("!",)]


def test_error_model_refuses_pairs_of_other_words():
    a, = slot_sentences(conll(PLAIN, "a"))
    b, = slot_sentences(conll(RELATIVE, "b"))
    with pytest.raises(ValueError, match="slots"):
        noisy.ErrorModel.counted([(a, b)])


def written(sent, learner, chosen):
    """The sentence the corrector writes for ``chosen`` (insert into the stripped sentence)."""
    return insert(strip(sent), noisy.insertions(insertions_of(sent), learner, chosen))


def test_leave_one_slot_out_is_the_written_sentence(english):
    sents = sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(ABBREVIATION, "a"))
    ss = [to_slots(s) for s in sents]
    assert ss[1].slots[3][0] == ABBV  # the abbreviation's dot opens slot 3
    tried = 0
    for sent, s in zip(sents, ss):
        learner = slot_strings(s)
        for i in range(len(learner)):
            for y in [(), (",",), (".",), ("“",), ("—", ","), (UNK, ".")]:
                chosen = learner[:i] + [y] + learner[i + 1:]
                out = to_slots(written(sent, learner, chosen))
                shown = tuple(t for t in y if t != UNK)  # the writer leaves <unk> out
                absorbed = s.slots[i][:1] == (ABBV,) and shown[:1] == (".",)  # etc. + . = etc.
                # the writer writes what was chosen, a full stop after etc.'s dot absorbed
                assert slot_strings(out) == [*chosen[:i], shown[absorbed:], *chosen[i + 1:]]
                assert out.slots == noisy.with_slot(s, i, y).slots
                direct = Inference(english, english.prepare([out])).log_prob_reference(0)
                ours = log_probs(english, [noisy.with_slot(s, i, y)])[0]
                assert ours == pytest.approx(direct, abs=1e-9) or direct == ours == -np.inf
                tried += 1
    assert tried == 6 * (6 + 5)


def test_log_probs_in_batches_of_chunk(english, monkeypatch):
    """log_probs scores every sentence, in order, batch by batch (here of 2: the last one
    shorter), as one Inference over them all; none: an empty array."""
    ss = [to_slots(s) for s in sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(PLAIN, "p")
                                         + conll(ABBREVIATION, "a") + conll(RELATIVE, "q")
                                         + conll(COMMA_END, "c"))]
    whole = Inference(english, english.prepare(ss)).log_probs()
    monkeypatch.setattr(punct, "CHUNK", 2)
    assert log_probs(english, ss) == pytest.approx(whole, abs=1e-9) and len(whole) == 5
    assert len(set(whole)) == 5  # a sentence scored in another's place would show
    assert log_probs(english, []).shape == (0,)


def brute_force(english, errors, sent, weight):
    """Each slot's best candidate as written, every candidate sentence written and scored on
    its own (ties to the learner's string, then the earlier candidate). Independent of
    :func:`noisy.slot_scores` (its dedupe and ``with_slot``), not of the writer
    (:func:`written` calls ``noisy.insertions``: tested by
    test_leave_one_slot_out_is_the_written_sentence) nor of the error model's candidates and
    p_err (``errors``: tested by test_error_model_by_hand)."""
    learner = slot_strings(to_slots(sent))

    def log_p(chosen):
        ss = to_slots(written(sent, learner, chosen))
        return Inference(english, english.prepare([ss])).log_prob_reference(0)
    base = log_p(learner)
    out = []
    for i, x in enumerate(learner):
        best, best_score = x, None
        for y in errors.candidates(x):
            gain = log_p(learner[:i] + [y] + learner[i + 1:]) - base
            score = errors.log_p(x, y) + (weight * gain if weight else 0.0)
            if best_score is None or score > best_score + 1e-12:
                best, best_score = y, score
        # reported as written: the slot's string in the sentence written for it
        out.append(slot_strings(to_slots(written(sent, learner,
                                                 learner[:i] + [best] + learner[i + 1:])))[i])
    return out


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0, 4.0, 40.0])
def test_decisions_against_brute_force(english, weight):
    errors = noisy.ErrorModel.counted(pairs())
    sents = sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(COMMA_END, "c")
                      + conll(ABBREVIATION, "a") + conll(PLAIN, "p"))
    scores = noisy.slot_scores(english, errors, [to_slots(s) for s in sents])
    got = [noisy.decisions(s, weight) for s in scores]
    assert got == [brute_force(english, errors, s, weight) for s in sents]


def test_lambda_zero_keeps_where_keeping_dominates_and_the_prior_overrules(english):
    errors = noisy.ErrorModel.counted(pairs())
    sents = sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(COMMA_END, "c")
                      + conll(ABBREVIATION, "a"))
    rel, comma, abbv = noisy.slot_scores(english, errors, [to_slots(s) for s in sents])
    assert noisy.decisions(rel, 0.0) == rel.learner  # n(()→()) outweighs n(,→())
    # a comma was only ever corrected to a period: the error model alone edits it, at the end
    # and inside; the prior (a period inside is improbable English) keeps the inner one
    assert noisy.decisions(comma, 0.0) == comma.learner[:3] + [(".",)]
    # after etc.'s dot the comma's correction . is written, and reported, as nothing
    assert noisy.decisions(abbv, 0.0)[3] == ()
    for weight in (1.0, 40.0):
        assert noisy.decisions(comma, weight)[3] == (".",)
        # a period after etc.'s dot is scored as written, absorbed (etc. early): the prior
        # prefers it to etc., early, so the comma goes; every other slot is kept
        assert noisy.decisions(abbv, weight) == [*abbv.learner[:3], (), *abbv.learner[4:]]
        assert noisy.decisions(rel, weight) == rel.learner  # a lone relative comma: never


def tied(errors, learner, gains=None):
    """One-slot :class:`noisy.SlotScores` of ``learner`` under ``errors`` (prior gains 0)."""
    cands = errors.candidates(learner)
    return noisy.SlotScores([learner], [cands], [cands], [np.zeros(len(cands)) if gains is None
                                                          else np.array(gains)],
                            [np.array([errors.log_p(learner, y) for y in cands])])


def test_ties_go_to_the_learner_then_to_the_earlier_candidate():
    comma, stop, none = (",",), (".",), ()
    # n(,→()) = n(()→()) = 1 and n(,) = n(()) = 2: () and , tie exactly for a learner ()
    even = noisy.ErrorModel({none: Counter({none: 1, comma: 1}),
                             comma: Counter({none: 1, comma: 1})}, 3)
    s = tied(even, none)
    assert s.candidates == [[none, comma]] and s.errors[0][0] == s.errors[0][1]
    for weight in (0.0, 1.0):
        assert noisy.decisions(s, weight) == [none]
    # for a learner ;, the corrections , and . tie (3 each of 4) above keeping it (1 of 4)
    semi = (";",)
    two = noisy.ErrorModel({stop: Counter({semi: 3, stop: 1}), comma: Counter({semi: 3, none: 1}),
                            semi: Counter({semi: 1, comma: 3})}, 4)
    s = tied(two, semi)
    assert s.candidates == [[semi, comma, stop]] and s.errors[0][1] == s.errors[0][2]
    assert s.errors[0][0] < s.errors[0][1]
    assert noisy.decisions(s, 0.0) == [comma]
    assert noisy.decisions(tied(two, semi, [0.0, 0.0, 1e-9]), 1.0) == [stop]


def test_a_learner_sentence_of_probability_zero_is_refused(english, monkeypatch):
    """The bundled en model gives every sentence tried a finite log p, so the prior here is en
    with one learner sentence (a lone opening quote) at probability 0."""
    errors = noisy.ErrorModel.counted(pairs())
    s, = slot_sentences(conll(PLAIN, "p"))
    lone = noisy.with_slot(s, 1, ("“",))

    def zero_for_lone(model, sentences):
        logs = log_probs(model, sentences)
        logs[[ss.slots == lone.slots for ss in sentences]] = -np.inf
        return logs
    monkeypatch.setattr(noisy, "log_probs", zero_for_lone)
    assert len(noisy.slot_scores(english, errors, [s])) == 1  # without it: no refusal
    with pytest.raises(InputError, match=r"sent_id p\): the learner's sentence has probabil"):
        noisy.slot_scores(english, errors, [s, lone])


def test_corrected_writes_each_sentences_decisions(english):
    errors = noisy.ErrorModel.counted(pairs())
    sents = sentences(conll(COMMA_END, "c") + conll(PLAIN, "p") + conll(ABBREVIATION, "a"))
    scores = noisy.slot_scores(english, errors, [to_slots(s) for s in sents])
    outs, kept = noisy.corrected(sents, scores, [0.0, 1.0], english.attach.symmetric)
    out = outs[1.0]
    assert kept == {0.0: 0, 1.0: 0} and [o.sent_id for o in out] == ["c", "p", "a"]
    for w in (0.0, 1.0):
        made = [noisy.decisions(s, w) for s in scores]
        assert made[2][3] == ()  # the comma's correction . after etc.'s dot, as written
        assert [slot_strings(to_slots(o)) for o in outs[w]] == made
    assert slot_strings(to_slots(out[0]))[3] == (".",)  # the final comma corrected
    assert [w.form for w in out[2].words if not w.is_punct] == [
        w.form for w in sents[2].words if not w.is_punct]  # etc. kept


def test_corrected_writes_a_candidate_as_it_was_scored(english):
    """A learner comma after etc.'s dot that the error model (made by hand) corrects only to two
    full stops: the candidate is scored as written, one full stop (the first absorbed by the
    dot), and the sentence is written so, its two full stops given to the writer, which absorbs
    the first once (it wrote none before: a second absorption of the string as written)."""
    sent, = sentences(conll(ABBREVIATION, "a"))
    learner = slot_strings(to_slots(sent))
    assert learner[3] == (",",)
    errors = noisy.ErrorModel({(".", "."): Counter({(",",): 5})}, 2)
    s, = noisy.slot_scores(english, errors, [to_slots(sent)])
    made = noisy.decisions(s, 0.0)
    assert made == learner[:3] + [(".",)] + learner[4:]
    outs, kept = noisy.corrected([sent], [s], [0.0], english.attach.symmetric)
    assert kept == {0.0: 0} and slot_strings(to_slots(outs[0.0][0])) == made
    assert s.candidates[3] == [(",",), (".", ".")] and s.written[3] == [(",",), (".",)]


QUOTED = [("He", 2, "nsubj"), ("said", 0, "root"), ("“", 4, "punct"), ("hi", 2, "obj"),
          ("”", 4, "punct"), (".", 2, "punct")]


def test_corrected_counts_the_balance_per_lambda(english):
    """A quoted sentence whose opening quote the prior would drop (a made-up gain of 5) and
    the error model would keep (a log p_err 1 lower): kept at λ = 0, dropped at λ = 1 and 4,
    where the balance rule gives it back; a λ given twice is refused."""
    sent, = sentences(conll(QUOTED, "q"))
    learner = slot_strings(to_slots(sent))
    i = learner.index(("“",))
    cands = [[x] + ([()] if j == i else []) for j, x in enumerate(learner)]
    s = noisy.SlotScores(learner, cands, cands,
                         [np.array([0.0] + ([5.0] if j == i else [])) for j in range(len(learner))],
                         [np.array([0.0] + ([-1.0] if j == i else []))
                          for j in range(len(learner))])
    assert noisy.decisions(s, 0.0) == learner
    assert noisy.decisions(s, 1.0) == learner[:i] + [()] + learner[i + 1:]
    outs, kept = noisy.corrected([sent], [s], [0.0, 1.0, 4.0], english.attach.symmetric)
    assert kept == {0.0: 0, 1.0: 1, 4.0: 1}
    assert all(slot_strings(to_slots(o)) == learner for out in outs.values() for o in out)
    with pytest.raises(ValueError, match=r"a λ is given more than once in \[0.0, 1.0, 0.0\]"):
        noisy.corrected([sent], [s], [0.0, 1.0, 0.0], english.attach.symmetric)


def test_balance_gives_paired_marks_back():
    pairs_ = [("“", "”"), ("(", ")")]
    learner = [(), ("“",), (), ("”",), ()]
    chosen = [(), (), (",",), ("”",), (".",)]
    assert noisy.balanced_or_kept(learner, chosen, pairs_) == (
        [(), ("“",), (",",), ("”",), (".",)], True)
    balanced = [(), ("(",), (), (")",), (".",)]  # a balanced choice stands
    assert noisy.balanced_or_kept(learner, balanced, pairs_) == (balanced, False)
    lone = [(), ("“",), (), (), ()]  # the learner's own marks do not balance: no rule
    assert noisy.balanced_or_kept(lone, chosen, pairs_) == (chosen, False)


def test_nested_lambda_is_least_aed_on_the_other_folds_ties_to_the_smaller():
    script = load_script("correction")
    helds = [[0, 1], [2], [3]]
    edits = {0.0: [1, 1, 0, 2], 1.0: [0, 0, 2, 1], 2.0: [0, 0, 0, 1]}
    # 2.0's F0.5 on pairs 0, 1, 3 is higher than 1.0's: by_f05 would break fold 1's tie to it
    right = {0.0: [0, 0, 0, 0], 1.0: [0, 0, 0, 0], 2.0: [1, 1, 0, 1]}
    counts = {w: EditScore(right[w], right[w], [1, 1, 1, 1]) for w in edits}
    # fold 0 on pairs 2, 3: 2.0 (1) beats 0.0 (2) and 1.0 (3); fold 1 on 0, 1, 3: 1.0 and 2.0
    # tie at 1 against 0.0's 4: the smaller; fold 2 on 0, 1, 2: 2.0 (0)
    assert script.nested_choices(helds, [0.0, 1.0, 2.0], edits, counts, by_f05=False) == [
        2.0, 1.0, 2.0]
    assert script.nested_choices(helds, [0.0, 1.0, 2.0], edits, counts)[1] == 2.0


def spied(real, calls: list):
    """``real``, recording each call's arguments and result in ``calls``."""
    def spy(*args):
        calls.append((args, real(*args)))
        return calls[-1][1]
    return spy


@pytest.mark.parametrize("fold, record, said", [
    (1, {"extra": True, "fce": None, "fold": 1, "pairs": 7}, "trained with extra True, fce "
     "None, fold 1 on 7 pairs, not as fold 1 with the punctuation-only pairs on these 8"),
    (1, {"extra": None, "fold": 1, "pairs": 8}, "trained with extra None, fce None, fold 1 on "
     "8 pairs, not as fold 1 with the punctuation-only pairs on these 8"),
    (1, {"extra": True, "fold": 0, "pairs": 8}, "trained with extra True, fce None, fold 0 on "
     "8 pairs, not as fold 1 with the punctuation-only pairs on these 8"),
    (None, {"extra": True, "fold": 0, "pairs": 8}, "trained with extra True, fce None, fold 0 "
     "on 8 pairs, not as heldout --extra on these 8"),
    (None, {"extra": True, "fce": "all", "pairs": 8}, "trained with extra True, fce all, fold "
     "None on 8 pairs, not as heldout --extra on these 8")])
def test_the_channels_refuse_a_corrector_of_other_pairs(capsys, fold, record, said):
    """The check both channel (a cv fold's corrector) and channel-heldout (heldout's, no
    fold) make: they count their error model on the corrector's training pairs, so one trained
    on others, or as another fold (its record), is refused in one line naming the folder; the
    fold's record, or heldout's, passes."""
    script = load_script("correction")
    with pytest.raises(SystemExit) as stop:
        script.refuse_other_pairs(Path("work"), record, 8, fold)
    assert stop.value.code == 2
    assert capsys.readouterr().err == f"correction: {Path('work')}: {said}\n"
    script.refuse_other_pairs(Path("work"), {"extra": True, "fold": 1, "pairs": 8}, 8, 1)
    script.refuse_other_pairs(Path("work"), {"extra": True, "pairs": 8}, 8, None)


def test_channel_on_a_cv_run(tmp_path, monkeypatch, capsys):
    """``channel`` on a 2-fold cv run of hand-made pairs: keep's row is the learner's, λ = 1's
    row is the grid's, one nested λ per fold (the choice itself:
    test_nested_lambda_is_least_aed_on_the_other_folds_ties_to_the_smaller), the nested row
    takes each fold's held-out pairs from the grid at that fold's λ (choices fixed: both
    folds at one λ give that λ's row; mixed ones, either way round, fold by fold; λ = 4's
    sentences replaced by the gold ones, as every λ makes the same edits here), the error
    models on the other fold's pairs, a run without --extra is refused, and so is one whose
    fold corrector cannot be read, before any slot is scored."""
    script = load_script("correction")
    seen: dict[str, list] = {"held_of": [], "grid_of": [], "pooled_pairs": []}
    for name, calls in seen.items():
        monkeypatch.setattr(script, name, spied(getattr(script, name), calls))
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    for split in DOCUMENTS:
        (data / f"en_pesl-ud-{split}.conllu").write_text("", encoding="utf-8")
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--split", "train", "--extra",
           "--sharpen", "4", "--correctors-only")
    out = tmp_path / "channel.json"
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "channel", "--data", str(data), "--split", "train", "--folds", "2",
        "--work", str(work), "-o", str(out)])
    script.main()
    result = json.loads(out.read_text(encoding="utf-8"))
    rows = {r["system"]: r for r in result["rows"]}
    assert list(rows) == ["keep", script.REFERENCE_NESTED, script.CHANNEL_NESTED,
                          script.CHANNEL_BAYES]
    assert sum(rows["keep"]["edit_counts"][1]) == 0
    assert rows["keep"]["aed"] == 1.0  # two commas left out in 8 of the 16 pairs
    grid = {g["lambda"]: g for g in result["lambda_grid"]}
    assert list(grid) == list(script.LAMBDAS)
    assert rows[script.CHANNEL_BAYES]["aed"] == pytest.approx(grid[1.0]["aed"])
    assert len(result["nested_lambdas"]) == 2
    assert result["fold_error_models"][0]["pairs"] == 8  # the other fold's trainable pairs
    assert "nested λ by fold" in capsys.readouterr().out
    # every λ makes the same edits on these pairs: λ = 4's sentences become the gold ones, so
    # that a row taken from the wrong λ or fold differs
    gold = [g for _, _, g in seen["pooled_pairs"][-1][1][0]]
    real_grid = script.lambda_grid
    monkeypatch.setattr(script, "lambda_grid", lambda *args: (
        {**(got := real_grid(*args))[0], 4.0: gold}, got[1]))
    nested_rows, real = [], script.nested_choices
    for choice in ([1.0, 1.0], [0.0, 0.0], [0.0, 4.0], [4.0, 0.0]):
        def fixed(helds_, candidates, *rest, c=choice, **kw):  # the reference arm's: real
            return list(c) if candidates == list(script.LAMBDAS) else real(
                helds_, candidates, *rest, **kw)
        monkeypatch.setattr(script, "nested_choices", fixed)
        script.main()
        capsys.readouterr()
        result = json.loads(out.read_text(encoding="utf-8"))
        row = {r["system"]: r for r in result["rows"]}[script.CHANNEL_NESTED]
        assert result["nested_lambdas"] == choice
        helds = seen["held_of"][-1][1]
        (_, _, source, _), (edits, counts) = [
            call for call in seen["grid_of"] if call[0][0] == script.LAMBDAS][-1]
        fold_of = {j: f for f, held in enumerate(helds) for j in held}
        assert sorted(fold_of) == list(range(len(source))) and len(helds) == 2
        assert row["sentence_edits"] == [edits[choice[fold_of[j]]][j]
                                         for j in range(len(source))]
        assert row["edit_counts"] == [
            [list(astuple(counts[choice[fold_of[j]]]))[k][j] for j in range(len(source))]
            for k in range(len(fields(EditScore)))]
        if choice[0] == choice[1]:
            lam = {g["lambda"]: g for g in result["lambda_grid"]}[choice[0]]
            assert row["aed"] == lam["aed"]
            assert [sum(c) for c in row["edit_counts"]] == lam["edit_counts"]
        nested_rows.append(row["sentence_edits"])
    assert nested_rows[2] != nested_rows[3]  # the folds' λs swapped: another row
    plain = tmp_path / "plain"
    run_cv(script, monkeypatch, data, plain, tmp_path / "cv2.json", "--split", "train",
           "--correctors-only")

    def refused(folder: Path) -> str:
        """channel on the cv run in ``folder``: exit 2, no output; its stderr."""
        monkeypatch.setattr(sys, "argv", [
            "correction.py", "channel", "--data", str(data), "--split", "train", "--folds", "2",
            "--work", str(folder), "-o", str(tmp_path / "refused.json")])
        with pytest.raises(SystemExit) as e:
            script.main()
        assert e.value.code == 2 and not (tmp_path / "refused.json").exists()
        return capsys.readouterr().err

    assert "not as fold 0 with the punctuation-only pairs" in refused(plain)
    # fold 1's corrector recorded as another fold's: refused before any slot is scored (fold
    # 0's too)
    scored: list = []
    monkeypatch.setattr(noisy, "slot_scores", spied(noisy.slot_scores, scored))
    stored = work / "fold1" / "correct" / "correction.json"
    saved = json.loads(stored.read_text(encoding="utf-8"))
    stored.write_text(json.dumps({**saved, "record": {**saved["record"], "fold": 0}}),
                      encoding="utf-8")
    assert "not as fold 1 with the punctuation-only pairs" in refused(work) and scored == []
    # fold 1's corrector cannot be read: refused before any slot is scored
    (work / "fold1" / "correct" / "corrector" / "attach.npz").write_text("no", encoding="utf-8")
    err = refused(work)
    assert err.count("\n") == 1 and scored == []
    assert f"{work / 'fold1' / 'correct' / 'corrector'}: not a fstpunct model (attach.npz: " in err
