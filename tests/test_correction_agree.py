"""Agreement of a CRF corrector and the correction model: chosen on a cv run's held-out pairs
(least pooled AED, and nested per fold), and added to the table."""
import dataclasses
import json
import re
import sys

import pytest
from learner_pairs import PLAIN, RELATIVE, bare, conll, sentences
from script_module import load_script
from test_correction import decoders_seen
from test_correction_cv import DOCUMENTS, cv_then, learner_folder, run_cv

from fstpunct.apps.correction.calibrate import calibrated
from fstpunct.apps.correction.correct import Prepared
from fstpunct.apps.correction.model import CorrectionModel, Decoding
from fstpunct.apps.correction.platt import examples, fitted
from fstpunct.apps.correction.slot_weights import corrected_slots, slot_arc_weights
from fstpunct.apps.restoration.metrics import score, slot_strings
from fstpunct.errors import InputError
from fstpunct.model.store import FORMAT
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import parse
from fstpunct.parser import tagger as tagger_module
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import with_arcs


def test_agree_chooses_the_least_aed_on_a_cv_runs_held_out_pairs(tmp_path, monkeypatch):
    script = load_script("correction")
    result, rows = cv_then(script, monkeypatch, tmp_path, "agree")
    grid = result["grid"]
    assert len(grid) == len(script.AGREEMENTS)
    won = script.Agreement(**result["chosen"])
    assert min(g["aed"] for g in grid) == next(
        g["aed"] for g in grid if script.Agreement(g["crf"], g["kind"], g["threshold"]) == won)
    assert rows[won.name]["aed"] == min(g["aed"] for g in grid)
    assert len(result["nested"]) == 2 and script.NESTED in rows
    for crf in (script.CRF, script.KEEP):  # an agreed edit is both systems' edit
        agreed = rows[script.Agreement(crf, "decoded").name]
        for mine, theirs in ((agreed, rows["correction"]), (agreed, rows[crf])):
            assert all(a <= b for a, b in zip(mine["edit_counts"][1], theirs["edit_counts"][1]))


def test_nested_outputs_take_each_folds_pairs_from_its_choice():
    script = load_script("correction")
    outputs = {"a": ["a0", "a1", "a2", "a3"], "b": ["b0", "b1", "b2", "b3"]}
    assert script.nested_outputs([[0, 3], [2]], [outputs["b"], outputs["a"]], 4) == [
        "b0", None, "a2", "b3"]


def models_only(script, monkeypatch, tmp_path):
    """A 2-fold ``cv --models-only`` run pooling the hand-made splits: (data, work)."""
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--models-only")
    return data, work


def by_split_slices(result, rows):
    """Every split's rows are the pooled rows' sentences of that split (train's 16 pairs,
    then dev's 4, then test's 4)."""
    for split, (start, end) in {"train": (0, 16), "dev": (16, 20), "test": (20, 24)}.items():
        mine = {r["system"]: r for r in result["rows_by_split"][split]}
        assert list(mine) == list(rows)
        for name, r in mine.items():
            assert r["sentence_edits"] == rows[name]["sentence_edits"][start:end]


def test_agree_over_pooled_splits_after_cv_models_only(tmp_path, monkeypatch, capsys):
    script = load_script("correction")
    data, work = models_only(script, monkeypatch, tmp_path)
    assert not (tmp_path / "cv.json").exists()  # models only: nothing scored
    assert capsys.readouterr().out.count("models trained") == 2
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "agree", "--data", str(data), "--folds", "2", "--work", str(work),
        "--edit-cost", "0.2", "--support", "0.001", "-o", str(tmp_path / "agree.json")])
    script.main()
    result = json.loads((tmp_path / "agree.json").read_text(encoding="utf-8"))
    rows = {r["system"]: r for r in result["rows"]}
    assert result["splits"] == ["train", "dev", "test"] and len(result["nested_costs"]) == 2
    by_split_slices(result, rows)
    # the nested edit cost: each fold's pairs decoded at the cost of least AED on the other's
    costs = {c["edit_cost"]: c for c in result["cost_grid"]}
    assert len(costs) == 21 and costs[0.2]["aed"] == rows["correction"]["aed"]
    assert script.NESTED_COST in rows and script.NESTED in rows
    if len(set(result["nested_costs"])) == 1:  # both folds chose it: its pooled outputs
        assert rows[script.NESTED_COST]["aed"] == costs[result["nested_costs"][0]]["aed"]


def test_table_adds_the_agreements(hand_corrector, tmp_path, monkeypatch, capsys):
    script = load_script("correction")
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    hand_corrector.save(tmp_path / "model")
    chosen = {"crf": script.KEEP, "kind": "joint", "threshold": 0.2}
    (tmp_path / "agree.json").write_text(json.dumps({"chosen": chosen}), encoding="utf-8")
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "table", "--model", str(tmp_path / "model"), "--data", str(data),
        "--split", "dev", "--split", "test", "--work", str(tmp_path / "crfs"),
        "--agree", str(tmp_path / "agree.json"), "-o", str(tmp_path / "table.json")])
    script.main()
    result = json.loads((tmp_path / "table.json").read_text(encoding="utf-8"))
    assert result["agree"] == chosen
    # an agree run of the learner decoder (its "decoder" key) is not this table's: refused
    (tmp_path / "agree-l.json").write_text(json.dumps({"chosen": chosen, "decoder": "learner"}),
                                           encoding="utf-8")
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "table", "--model", str(tmp_path / "model"), "--data", str(data),
        "--split", "dev", "--work", str(tmp_path / "crfs"), "--agree",
        str(tmp_path / "agree-l.json"), "-o", str(tmp_path / "table-l.json")])
    with pytest.raises(SystemExit) as e:
        script.main()
    err = capsys.readouterr().err
    assert e.value.code == 2 and "agree run with --decoder learner, not balanced" in err
    assert not (tmp_path / "table-l.json").exists()
    for split in ("dev", "test"):
        rows = {r["system"]: r for r in result[split]}
        names = [v.name for v in script.AGREEMENTS if v.kind != "joint"]
        assert script.Agreement(**chosen).name in rows and all(n in rows for n in names)


def held_out_runs(script, monkeypatch, tmp_path):
    """After a 2-fold ``cv --models-only`` run: (data, work, run), run(command, out, *more)
    running a command on its held-out pairs (edit cost 0.2, support 0.001; ``--work`` but for
    compare, which names its runs by ``--before`` and ``--after``) and giving its JSON."""
    data, work = models_only(script, monkeypatch, tmp_path)
    common = ["--data", str(data), "--folds", "2", "--edit-cost", "0.2", "--support", "0.001"]

    def run(command, out, *more):
        own = [] if command == "compare" else ["--work", str(work)]
        monkeypatch.setattr(sys, "argv", ["correction.py", command, *common, *own, *more,
                                          "-o", str(tmp_path / out)])
        script.main()
        return json.loads((tmp_path / out).read_text(encoding="utf-8"))
    return data, work, run


def test_compare_two_cv_runs_correctors(tmp_path, monkeypatch, capsys):
    script = load_script("correction")
    data, work, run = held_out_runs(script, monkeypatch, tmp_path)
    agree = run("agree", "agree.json")
    same = run("compare", "same.json", "--before", str(work), "--after", str(work))
    rows = {r["system"]: r for r in same["rows"]}
    assert list(rows) == ["keep", "before (cost 0.2)", "before, nested edit cost",
                          "after (cost 0.2)", "after, nested edit cost"]
    theirs = {r["system"]: r for r in agree["rows"]}
    # the before side is agree's correction model, at the fixed and at the nested cost
    for mine, name in (("keep", "keep"), ("before (cost 0.2)", "correction"),
                       ("before, nested edit cost", script.NESTED_COST)):
        assert rows[mine]["sentence_edits"] == theirs[name]["sentence_edits"]
        assert rows[mine]["edit_counts"] == theirs[name]["edit_counts"]
    assert same["before"]["cost_grid"] == agree["cost_grid"] == same["after"]["cost_grid"]
    assert same["before"]["nested_costs"] == agree["nested_costs"]
    for name in ("after (cost 0.2)", "after, nested edit cost"):  # one folder: the same rows
        twin = rows[name.replace("after", "before")]
        assert rows[name]["sentence_edits"] == twin["sentence_edits"]
    assert rows["after (cost 0.2)"]["p_aed_vs_before (cost 0.2)"] == 1.0
    assert rows["after (cost 0.2)"]["p_f_vs_before (cost 0.2)"] == 1.0
    nested = rows["after, nested edit cost"]  # tested against the before side's nested row too
    for test in ("p_aed_vs_", "p_f_vs_"):
        assert nested[test + "before, nested edit cost"] == 1.0
    by_split_slices(same, rows)
    assert "p AED vs before (cost 0.2)" in capsys.readouterr().out
    assert same["platt"] == [[], []]

    mapped = run("compare", "platt.json", "--before", str(work), "--after", str(work),
                 "--platt", "--after-decoder", "learner")
    assert mapped["after_decoder"] == "learner" and same["after_decoder"] == "balanced"
    assert mapped["before_decoder"] == same["before_decoder"] == "balanced"
    rows = {r["system"]: r for r in mapped["rows"]}
    assert rows["before (cost 0.2)"]["sentence_edits"] == theirs["correction"]["sentence_edits"]
    # nested: fold 0's map is fitted on fold 1's held-out slots alone, and so on
    _, fold_of = script.document_folds(data, list(script.SPLITS), 2)
    pooled = script.pooled_pairs(data, list(script.SPLITS), False)[0]
    helds = script.held_of(pooled, fold_of, 2)
    assert sorted(j for h in helds for j in h) == list(range(len(pooled)))
    for fold, other in ((0, 1), (1, 0)):
        prep = Prepared.of(CorrectionModel.load(work / f"fold{other}" / "correct"),
                           [pooled[j][1] for j in helds[other]])
        x, offset, y = [], [], []
        for d, o, j in zip(prep.dists, prep.own, helds[other]):
            a, b, c = examples(d, o, slot_strings(to_slots(pooled[j][2])), 0.001)
            x, offset, y = x + a, offset + b, y + c
        assert mapped["platt"][fold] == pytest.approx(list(fitted(x, offset, y)))
        # and its after rows are that fold's corrector decoded with the map
        corrector = CorrectionModel.load(work / f"fold{fold}" / "correct")
        decoded = Prepared.of(corrector, [pooled[j][1] for j in helds[fold]]).corrected_with(
            Decoding(0.2, 0.001, platt=tuple(mapped["platt"][fold]), decoder="learner"))
        gold = [pooled[j][2] for j in helds[fold]]
        assert score(gold, decoded).sentence_edits == [
            rows["after (cost 0.2)"]["sentence_edits"][j] for j in helds[fold]]


def test_compare_refuses_a_cost_off_the_sweep_and_missing_folds(tmp_path, monkeypatch, capsys):
    script = load_script("correction")
    learner_folder(tmp_path)
    made = tmp_path / "three" / "fold0"  # a 3-fold cv run's first fold (its records alone)
    (made / "correct").mkdir(parents=True)
    (made / "learner").mkdir()
    (made / "learner" / "model.json").write_text(json.dumps(
        {"format": FORMAT, "record": {"fold": 0, "folds": 3}}), encoding="utf-8")
    old = tmp_path / "old" / "fold0"  # a 2-fold run of the old folds (no fce, no fold_key)
    (old / "correct").mkdir(parents=True)
    (old / "learner").mkdir()
    (old / "learner" / "model.json").write_text(json.dumps(
        {"format": FORMAT, "record": {"fold": 0, "folds": 2}}), encoding="utf-8")
    for cost, work, message in (
            ("0.22", "a", "must be one of the sweep's costs 0, 0.05, ..., 1, not 0.22"),
            ("0.25", "a", "no learner, correct (run cv"),
            ("0.25", "three", "made by a cv run with --folds 3, not 2"),
            ("0.25", "old", "folds by split/document, not by FCE document")):
        monkeypatch.setattr(sys, "argv", [
            "correction.py", "compare", "--data", str(tmp_path), "--folds", "2", "--before",
            str(tmp_path / work), "--after", str(tmp_path / "b"), "--edit-cost", cost,
            "-o", str(tmp_path / "c.json")])
        with pytest.raises(SystemExit) as e:
            script.main()
        err = capsys.readouterr().err
        assert e.value.code == 2 and message in err and len(err.strip().splitlines()) == 1
    # compare reads no --work (its runs are --before and --after): refused, not ignored
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "compare", "--data", str(tmp_path), "--folds", "2", "--before",
        str(tmp_path / "a"), "--after", str(tmp_path / "b"), "--work", str(tmp_path / "a"),
        "-o", str(tmp_path / "c.json")])
    with pytest.raises(SystemExit) as e:
        script.main()
    assert e.value.code == 2 and "unrecognized arguments: --work" in capsys.readouterr().err


def test_agree_with_the_learner_decoder(tmp_path, monkeypatch):
    script = load_script("correction")
    _, work, run = held_out_runs(script, monkeypatch, tmp_path)
    seen = decoders_seen(monkeypatch, script)
    agree = run("agree", "agree.json", "--decoder", "learner")
    assert agree["decoder"] == "learner" and seen and set(seen) == {"learner"}
    seen.clear()
    same = run("compare", "same.json", "--before", str(work), "--after", str(work),
               "--after-decoder", "learner")
    assert set(seen) == {"balanced", "learner"}
    # agree's correction model is compare's after side, at the fixed and at the nested cost
    rows, theirs = {r["system"]: r for r in agree["rows"]}, {r["system"]: r for r in same["rows"]}
    for mine, name in (("correction", "after (cost 0.2)"),
                       (script.NESTED_COST, "after, nested edit cost")):
        assert rows[mine]["sentence_edits"] == theirs[name]["sentence_edits"]
        assert rows[mine]["edit_counts"] == theirs[name]["edit_counts"]
    assert agree["cost_grid"] == same["after"]["cost_grid"]
    assert agree["nested_costs"] == same["after"]["nested_costs"]
    # --before-decoder learner: the sides swap their decoders, so their rows swap too
    seen.clear()
    swapped = run("compare", "swapped.json", "--before", str(work), "--after", str(work),
                  "--before-decoder", "learner")
    assert set(seen) == {"balanced", "learner"}
    assert swapped["before_decoder"] == "learner" and swapped["after_decoder"] == "balanced"
    assert same["before_decoder"] == "balanced"
    mine = {r["system"]: r for r in swapped["rows"]}
    for cost in (" (cost 0.2)", ", nested edit cost"):
        for side, other in (("before", "after"), ("after", "before")):
            assert mine[side + cost]["sentence_edits"] == theirs[other + cost]["sentence_edits"]
    assert swapped["before"]["cost_grid"] == same["after"]["cost_grid"]
    assert swapped["after"]["cost_grid"] == same["before"]["cost_grid"]


def test_table_and_calibrate_with_the_learner_decoder(hand_corrector, tmp_path, monkeypatch,
                                                      capsys):
    script = load_script("correction")
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    hand_corrector.save(tmp_path / "model")
    seen = decoders_seen(monkeypatch, script)
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "calibrate", "--model", str(tmp_path / "model"), "--data", str(data),
        "--decoder", "learner", "-o", str(tmp_path / "cal")])
    script.main()
    assert seen and set(seen) == {"learner"}
    cal = CorrectionModel.load(tmp_path / "cal")
    source, gold = script.split_pairs(data, "dev")
    want, _ = calibrated(hand_corrector, source, gold, decoder="learner")
    assert cal.decoding == want.decoding and cal.record["decoding"]["decoder"] == "learner"
    seen.clear()
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "table", "--model", str(tmp_path / "cal"), "--data", str(data),
        "--split", "dev", "--split", "test", "--work", str(tmp_path / "crfs"),
        "--decoder", "learner", "-o", str(tmp_path / "table.json")])
    script.main()
    assert set(seen) == {"learner"}
    result = json.loads((tmp_path / "table.json").read_text(encoding="utf-8"))
    assert result["decoder"] == "learner" and "decoder learner" in capsys.readouterr().out
    source, gold = script.split_pairs(data, "test")
    rows = {r["system"]: r for r in result["test"]}
    decoded = Prepared.of(cal, source).corrected_with(cal.decoding)
    assert rows["correction"]["sentence_edits"] == score(gold, decoded).sentence_edits


def marked(sent, folds: int, fold: int):
    """A copy of ``sent`` with jackknife's fold comments."""
    copy = dataclasses.replace(sent, comments=list(sent.comments))
    copy.set_comment("jackknife_folds", str(folds))
    copy.set_comment("jackknife_fold", str(fold))
    return copy


def test_jackknife_with_one_fold_is_refused_with_tags_too(tmp_path, monkeypatch, capsys):
    """--folds 1: one line, exit 2, with --tags as without."""
    script = load_script("correction")
    learner_folder(tmp_path)
    for tags in ([], ["--tags"]):
        monkeypatch.setattr(sys, "argv", [
            "correction.py", "jackknife", "--data", str(tmp_path), "--folds", "1", *tags,
            "--split", "train", "--split", "dev", "--work", str(tmp_path / "jk"),
            "-o", str(tmp_path / "jk.conllu")])
        with pytest.raises(SystemExit) as stop:
            script.main()
        assert stop.value.code == 2
        assert capsys.readouterr().err == "correction: jackknifing needs at least two folds\n"


def test_jackknife_adds_the_add_train_sentences_to_every_fold(tmp_path, monkeypatch, capsys,
                                                             train_calls):
    """--add-train FILE: its sentences train every fold's parser (and, with --tags, tagger),
    besides the other folds' learner sentences; they are not parsed. A bad spec: one line."""
    script = load_script("correction")
    learner_folder(tmp_path)
    extra = tmp_path / "extra.conllu"
    extra.write_text(conll(PLAIN, "ewt-a") + conll(RELATIVE, "ewt-b"))
    taggers: list[int] = []
    real_tagger = tagger_module.train_tagger

    def spied_tagger(rest, dev, **options):
        taggers.append(len(rest))
        return real_tagger(rest, dev, **options)

    monkeypatch.setattr(tagger_module, "train_tagger", spied_tagger)
    argv = ["correction.py", "jackknife", "--data", str(tmp_path), "--folds", "2", "--epochs",
            "1", "--split", "train", "--tags", "-o", str(tmp_path / "jk.conllu")]
    for work, added in (("plain", []), ("ewt", ["--add-train", str(extra)])):
        monkeypatch.setattr(sys, "argv", argv + ["--work", str(tmp_path / work), *added])
        script.main()
    assert f"(2 sentences of {extra} in each fold's training)" in capsys.readouterr().out
    parsers = [{s.sent_id for s in call["train_sents"]} for call in train_calls]
    assert [p - {"ewt-a", "ewt-b"} for p in parsers[2:]] == parsers[:2]
    assert all({"ewt-a", "ewt-b"} <= p for p in parsers[2:])
    assert taggers[2:] == [n + 2 for n in taggers[:2]]
    parsed = list(script.read_file(tmp_path / "jk.conllu"))
    assert not any(s.sent_id.startswith("ewt") for s in parsed)
    monkeypatch.setattr(sys, "argv", argv + ["--work", str(tmp_path / "x"),
                                             "--add-train", str(tmp_path / "none.conllu")])
    with pytest.raises(SystemExit) as stop:
        script.main()
    assert stop.value.code == 2
    assert capsys.readouterr().err == f"correction: {tmp_path / 'none.conllu'}: no such file\n"


def test_jackknife_cut_relations_cuts_the_added_sentences_only(tmp_path, monkeypatch, capsys,
                                                              train_calls):
    """--cut-relations: the --add-train sentences' relations that the learner sentences do not
    use (advmod:emph) train every fold's parser as their base (advmod), the learner sentences'
    as they are; without --add-train it is one line, exit 2."""
    script = load_script("correction")
    learner_folder(tmp_path)
    extra = tmp_path / "extra.conllu"
    extra.write_text(conll([(f, h, "advmod:emph" if r == "advmod" else r) for f, h, r in PLAIN],
                           "ewt-a"))
    argv = ["correction.py", "jackknife", "--data", str(tmp_path), "--folds", "2", "--epochs",
            "1", "--split", "train", "--work", str(tmp_path / "cut"), "--cut-relations",
            "-o", str(tmp_path / "jk.conllu")]
    monkeypatch.setattr(sys, "argv", argv + ["--add-train", str(extra)])
    script.main()
    assert f"(1 sentences of {extra}, relations cut in each fold's training)" \
        in capsys.readouterr().out
    relations = [{s.sent_id: {w.deprel for w in s.words} for s in call["train_sents"]}
                 for call in train_calls]
    assert len(relations) == 2 and all(r["ewt-a"] == {"nsubj", "root", "advmod", "punct"}
                                       for r in relations)
    gold = {s.sent_id: {w.deprel for w in s.words}
            for s in script.sentences_of(tmp_path / "en_esl-ud-train.conllu")}
    assert all(len(r) > 1 and all(r[i] == gold[i] for i in r if i != "ewt-a")
               for r in relations)
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stop:
        script.main()
    assert stop.value.code == 2
    assert capsys.readouterr().err == ("correction: jackknife: --cut-relations cuts the "
                                       "relations of --add-train's sentences: give --add-train\n")


def dev_learner_folder(monkeypatch, folder, dev_documents: list[str]) -> None:
    """The hand-made learner folder written to ``folder`` with ``dev_documents`` as dev's."""
    monkeypatch.setitem(DOCUMENTS, "dev", dev_documents)
    learner_folder(folder)


def test_jackknife_mode_removed_parses_without_the_learners_punctuation(tmp_path, monkeypatch,
                                                                        capsys, train_calls):
    """--mode removed: every fold's parser is trained and run without punctuation (the marks
    attached to a neighbour after, as ``parse`` attaches them: leaves); the trees are those
    parsers' parses. Only with dev among the splits (cv's folds, the trees ``compare`` and
    ``slots`` read): the train split's trees alone are for table/crossfit --parser P, a
    tokens-mode parser, and are refused in one line."""
    script = load_script("correction")
    dev_learner_folder(monkeypatch, tmp_path, ["docDD", "docE"])  # a dev document a fold
    trees = tmp_path / "jk.conllu"
    argv = ["correction.py", "jackknife", "--data", str(tmp_path), "--folds", "2", "--epochs",
            "1", "--mode", "removed", "--work", str(tmp_path / "jk"), "-o", str(trees)]
    splits = ["--split", "train", "--split", "dev", "--split", "test"]
    monkeypatch.setattr(sys, "argv", argv + splits)
    script.main()
    assert "parsed by 2 jackknife parsers (removed mode)" in capsys.readouterr().out
    assert [call["mode"] for call in train_calls] == ["removed", "removed"]
    parsers = [ParserModel.load(tmp_path / "jk" / f"fold{fold}") for fold in (0, 1)]
    assert [p.mode for p in parsers] == ["removed", "removed"]
    _, fold_of = script.document_folds(tmp_path, list(script.SPLITS), 2)
    learner = [s for split in script.SPLITS
               for s in script.read_file(tmp_path / f"en_esl-ud-{split}.conllu")]
    parsed = list(script.read_file(trees))
    assert [bare(t) for t in parsed] == [
        parse(parsers[fold_of[s.sent_id.rsplit("-", 1)[0]]], s, 1).text() for s in learner]
    marks = [{w.id for w in t.words if w.is_punct} for t in parsed]
    assert all(marks) and not any(w.head in m for t, m in zip(parsed, marks) for w in t.words)
    monkeypatch.setattr(sys, "argv", argv + ["--split", "train"])
    with pytest.raises(SystemExit) as stop:
        script.main()
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        "correction: jackknife: --mode removed needs dev among the splits (cv's folds, as "
        "compare, slots and cv --train-trees read them: --split train --split dev --split "
        "test); the train split's trees alone are for table/crossfit --parser P, a tokens-mode "
        "parser: --mode tokens there\n")


def test_jackknife_mode_removed_nested_writes_removed_mode_training_trees(tmp_path,
                                                                         monkeypatch, capsys,
                                                                         train_calls):
    """--mode removed --nested: the training trees for cv --train-trees, every pair of folds'
    parser trained and run without punctuation (each mark a leaf, attached after)."""
    script = load_script("correction")
    # a dev document in each of 3 folds (sorted, round-robin: docEE 0, docDD 1, docE 2)
    dev_learner_folder(monkeypatch, tmp_path, ["docDD", "docE", "docEE"])
    trees = tmp_path / "nested.conllu"
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "jackknife", "--data", str(tmp_path), "--folds", "3", "--epochs", "1",
        "--mode", "removed", "--nested", "--split", "train", "--split", "dev", "--split",
        "test", "--work", str(tmp_path / "jk"), "-o", str(trees)])
    script.main()
    assert "parsed by 3 nested jackknife parsers (removed mode)" in capsys.readouterr().out
    assert [call["mode"] for call in train_calls] == ["removed"] * 3
    for pair in ("0-1", "0-2", "1-2"):
        assert ParserModel.load(tmp_path / "jk" / f"fold{pair}").mode == "removed"
    parsed = list(script.read_file(trees))
    assert {t.comment("jackknife_outer_fold") for t in parsed} == {"0", "1", "2"}
    marks = [{w.id for w in t.words if w.is_punct} for t in parsed]
    assert all(marks) and not any(w.head in m for t, m in zip(parsed, marks) for w in t.words)


def test_jackknife_weight_slots_weighs_the_arcs_at_the_corrections_slots(tmp_path, monkeypatch,
                                                                        capsys, train_calls):
    """--weight-slots K: each fold parser's training sentences that have an isomorphic
    correction carry the weight K on the arcs at the inner slots it punctuates or edits
    (slot_arc_weights), the others none; the record says so (a parser trained without weights
    is not reused). K below 2 and a beam above 1 (no local learning) are refused in one line."""
    script = load_script("correction")
    dev_learner_folder(monkeypatch, tmp_path, ["docDD", "docE"])
    argv = ["correction.py", "jackknife", "--data", str(tmp_path), "--folds", "2", "--epochs",
            "1", "--split", "train", "--split", "dev", "--split", "test",
            "--work", str(tmp_path / "jk"), "-o", str(tmp_path / "jk.conllu")]
    monkeypatch.setattr(sys, "argv", argv + ["--weight-slots", "3"])
    script.main()
    assert "--weight-slots 3: " in capsys.readouterr().out
    pooled, _ = script.pooled_pairs(tmp_path, list(script.SPLITS), False)
    pairs = {s.sent_id: (s, g) for _, s, g in pooled}
    weighed = [(call["train_sents"], call["arc_weights"]) for call in train_calls]
    assert len(weighed) == 2
    for rest, weights in weighed:
        assert len(weights) == len(rest)
        for s, w in zip(rest, weights):
            if s.sent_id in pairs:
                assert w == slot_arc_weights(s, corrected_slots(*pairs[s.sent_id]), 3)
            else:
                assert w is None
        assert any(w for w in weights) and set(v for w in weights for v in (w or {}).values()) \
            == {3}
    assert all("arc_weights" in ParserModel.load(tmp_path / "jk" / f"fold{f}").info
               for f in (0, 1))
    monkeypatch.setattr(sys, "argv", argv)  # unweighted: the weighted parsers are not reused
    with pytest.raises(SystemExit) as stop:
        script.main()
    assert stop.value.code == 2 and "arc_weights" in capsys.readouterr().err
    for more, message in ((["--weight-slots", "1"], "--weight-slots 1: a weight of at least 2"),
                          (["--weight-slots", "3", "--beam", "2"], "not --beam 2")):
        monkeypatch.setattr(sys, "argv", argv + more)
        with pytest.raises(SystemExit) as stop:
            script.main()
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1 and message in err


def test_compare_on_jackknifed_trees_of_the_cv_folds(tmp_path, monkeypatch, capsys,
                                                    train_calls):
    """jackknife --split train --split dev --split test parses each fold's learner sentences
    with a parser that never saw the fold's documents (dev sentences of the other folds choose
    its epoch and train nothing), and compare --after-trees decodes the after side on them."""
    script = load_script("correction")
    # two dev documents, one per fold (documents sorted and dealt: docDD fold 0, docE fold 1)
    monkeypatch.setitem(DOCUMENTS, "dev", ["docDD", "docE"])
    data, work, run = held_out_runs(script, monkeypatch, tmp_path)
    _, fold_of = script.document_folds(data, list(script.SPLITS), 2)
    assert fold_of["docDD"] == 0 and fold_of["docE"] == 1
    trees = tmp_path / "jk.conllu"
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "jackknife", "--data", str(data), "--folds", "2", "--epochs", "1",
        "--split", "train", "--split", "dev", "--split", "test", "--work", str(tmp_path / "jk"),
        "-o", str(trees)])
    train_calls.clear()
    script.main()
    assert "35 train+dev+test sentences parsed by 2 jackknife parsers" in capsys.readouterr().out
    seen = {call["info"]["jackknife_fold"]: (
        {s.sent_id.rsplit("-", 1)[0] for s in call["train_sents"]},
        {s.sent_id for s in call["dev_sents"]}) for call in train_calls}
    trained = {s.sent_id for call in train_calls for s in call["train_sents"]}
    for fold in (0, 1):
        documents, dev = seen[fold]
        assert documents and all(fold_of[d] != fold for d in documents)
        assert dev == {f"{'docE' if fold == 0 else 'docDD'}-{k}"
                       for k in ("r0", "r1", "p0", "p1", "x")}
    # no dev sentence trains a parser: every other sentence trains the other fold's
    dev_ids = {s.sent_id for s in script.read_file(data / "en_esl-ud-dev.conllu")}
    assert trained and not trained & dev_ids
    parsers = [ParserModel.load(tmp_path / "jk" / f"fold{fold}") for fold in (0, 1)]
    assert sum(p.info["train_sentences"] for p in parsers) == 35 - len(dev_ids)
    learner = [s for split in script.SPLITS
               for s in script.read_file(data / f"en_esl-ud-{split}.conllu")]
    fold_of_sent = [fold_of[s.sent_id.rsplit("-", 1)[0]] for s in learner]
    tree_sents = list(script.read_file(trees))
    assert [(s.comment("jackknife_folds"), s.comment("jackknife_fold"), bare(s))
            for s in tree_sents] == [
        ("2", str(f), parse(parsers[f], s, 1).text()) for s, f in zip(learner, fold_of_sent)]
    # --tags: each fold's words tagged by a tagger trained on the same sentences as its parser
    # (the parsers, trained on gold tags, loaded), then parsed by that parser
    counts = []
    real_tagger = tagger_module.train_tagger

    def spied_tagger(rest, dev, **options):
        counts.append((len(rest), len(dev)))
        return real_tagger(rest, dev, **options)

    monkeypatch.setattr(tagger_module, "train_tagger", spied_tagger)
    train_calls.clear()
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "jackknife", "--data", str(data), "--folds", "2", "--epochs", "1",
        "--split", "train", "--split", "dev", "--split", "test", "--work", str(tmp_path / "jk"),
        "--tags", "-o", str(tmp_path / "jk-tags.conllu")])
    script.main()
    assert "parsed by 2 jackknife parsers on jackknifed tags" in capsys.readouterr().out
    assert counts == [(p.info["train_sentences"], 5) for p in parsers]
    assert not train_calls  # the parsers were loaded, not trained again
    tagged = list(script.read_file(tmp_path / "jk-tags.conllu"))
    assert [s.sent_id for s in tagged] == [s.sent_id for s in learner]
    # the after side decodes the held-out pairs on those trees, with its fold's corrector
    parsed = run("compare", "parsed.json", "--before", str(work), "--after", str(work),
                 "--after-trees", str(trees))
    rows = {r["system"]: r for r in parsed["rows"]}
    pooled = script.pooled_pairs(data, list(script.SPLITS), False)[0]
    helds = script.held_of(pooled, fold_of, 2)
    by_id = {s.sent_id: s for s in tree_sents}
    for fold in (0, 1):
        corrector = CorrectionModel.load(work / f"fold{fold}" / "correct")
        decoded = Prepared.of(corrector, [by_id[pooled[j][1].sent_id] for j in helds[fold]]
                              ).corrected_with(Decoding(0.2, 0.001))
        assert score([pooled[j][2] for j in helds[fold]], decoded).sentence_edits == [
            rows["after (cost 0.2)"]["sentence_edits"][j] for j in helds[fold]]
    assert parsed["after_trees"] == str(trees) and 0 <= parsed["after_trees_uas"] <= 100
    for name, r in rows.items():  # edits at the final slot and inside: every edit once
        where = parsed["final_or_inner"][name]
        assert where["final"][1] + where["inner"][1] == sum(r["edit_counts"][1])
        assert where["final"][0] + where["inner"][0] == sum(r["edit_counts"][0])
    # trees that do not say they are the jackknife trees of the cv run's folds: refused
    gold, three = tmp_path / "gold.conllu", tmp_path / "jk3.conllu"
    script.write_file(learner, gold)
    script.write_file([marked(s, 3, f) for s, f in zip(learner, fold_of_sent)], three)  # 3 folds
    for wrong in (gold, three):
        with pytest.raises(SystemExit) as stop:
            run("compare", "wrong.json", "--before", str(work), "--after", str(work),
                "--after-trees", str(wrong))
        assert stop.value.code == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and err.startswith(f"correction: {wrong}: sentence ")
        assert "was not parsed by the jackknife parser of its fold" in err
    # the gold trees given as the after side's trees (said to be the jackknife's): the before
    # side's rows again
    script.write_file([marked(s, 2, f) for s, f in zip(learner, fold_of_sent)], gold)
    same = run("compare", "same.json", "--before", str(work), "--after", str(work),
               "--after-trees", str(gold))
    mine = {r["system"]: r for r in same["rows"]}
    assert same["after_trees_uas"] == 100.0
    for cost in (" (cost 0.2)", ", nested edit cost"):
        assert mine["after" + cost]["sentence_edits"] == mine["before" + cost]["sentence_edits"]


def test_compare_mixes_the_after_sides_trees(tmp_path, monkeypatch, capsys):
    """compare --after-trees F --mix-trees G: the after side's correctors read every sentence
    on both files' trees, each slot's distribution the equal mixture of the two trees'."""
    script = load_script("correction")
    data, work, run = held_out_runs(script, monkeypatch, tmp_path)
    _, fold_of = script.document_folds(data, list(script.SPLITS), 2)
    learner = [s for split in script.SPLITS
               for s in script.read_file(data / f"en_esl-ud-{split}.conllu")]
    fold = [fold_of[s.sent_id.rsplit("-", 1)[0]] for s in learner]
    gold, other = tmp_path / "gold.conllu", tmp_path / "other.conllu"
    script.write_file([marked(s, 2, f) for s, f in zip(learner, fold)], gold)
    # every sentence's first word that is neither punctuation nor the root: another relation
    changed = []
    for s in learner:
        w = next((w for w in s.words if w.deprel not in ("punct", "root")), None)
        changed.append(s if w is None else with_arcs(s, {w.id: (w.head, "dep" if w.deprel
                                                               != "dep" else "nmod")}))
    script.write_file([marked(s, 2, f) for s, f in zip(changed, fold)], other)
    both = ("--before", str(work), "--after", str(work))
    pairs_read = []  # the splits whose pairs each run reads: once, whatever the tree files
    real_split_pairs = script.split_pairs

    def spied(data, split, *args, **kwargs):
        pairs_read.append(split)
        return real_split_pairs(data, split, *args, **kwargs)
    monkeypatch.setattr(script, "split_pairs", spied)
    one = run("compare", "one.json", *both, "--after-trees", str(other))
    out = capsys.readouterr().out
    assert f"gold trees, the after side's from {other}\n" in out and "mixed with" not in out
    assert pairs_read == list(script.SPLITS)
    # a file's trees mixed with themselves: the same after side
    twice = run("compare", "twice.json", *both, "--after-trees", str(other), "--mix-trees",
                str(other))
    assert pairs_read == list(script.SPLITS) * 2
    assert twice["mix_trees"] == [str(other)] and "mix_trees" not in one
    assert twice["mix_trees_las"] == [one["after_trees_las"]] < [100.0]
    assert twice["rows"] == one["rows"] and twice["overlap"] == one["overlap"]
    mixed = run("compare", "mixed.json", *both, "--after-trees", str(gold), "--mix-trees",
                str(other))
    # the printed title names the mixed files too (else its log reads as the first file's alone)
    assert f"gold trees, the after side's from {gold}, mixed with {other}\n" in (
        capsys.readouterr().out)
    assert (mixed["after_trees"], mixed["after_trees_uas"]) == (str(gold), 100.0)
    rows = {r["system"]: r for r in mixed["rows"]}
    # the mixture decides otherwise than the gold trees alone (the before side, the same
    # correctors) at some edit cost of the grid (at 0.2 this small run's edits are the same):
    # a compare that dropped the --mix-trees trees would decode as before at every cost
    assert mixed["after"]["cost_grid"] != mixed["before"]["cost_grid"]
    pooled = script.pooled_pairs(data, list(script.SPLITS), False)[0]
    helds = script.held_of(pooled, fold_of, 2)
    by_id = [{s.sent_id: s for s in trees} for trees in (learner, changed)]
    for k in (0, 1):
        corrector = CorrectionModel.load(work / f"fold{k}" / "correct")
        sources = [[ids[pooled[j][1].sent_id] for j in helds[k]] for ids in by_id]
        prepared = Prepared.over_trees(corrector, sources)
        alone = [Prepared.of(corrector, s) for s in sources]
        differ = 0  # slot strings whose probability differs between the two trees
        for i, slots in enumerate(prepared.dists):  # each slot: the mean of the two trees'
            for t, slot in enumerate(slots):
                a, b = alone[0].dists[i][t], alone[1].dists[i][t]
                for y in {*a.strings, *b.strings}:
                    assert slot.prob(y) == pytest.approx((a.prob(y) + b.prob(y)) / 2, abs=1e-9)
                    differ += abs(a.prob(y) - b.prob(y)) > 1e-6
        assert differ
        decoded = prepared.corrected_with(Decoding(0.2, 0.001))
        assert score([pooled[j][2] for j in helds[k]], decoded).sentence_edits == [
            rows["after (cost 0.2)"]["sentence_edits"][j] for j in helds[k]]
    with pytest.raises(SystemExit) as stop:
        run("compare", "no.json", *both, "--mix-trees", str(other))
    assert stop.value.code == 2
    assert "--mix-trees needs --after-trees" in capsys.readouterr().err


def test_over_trees_refuses_sources_that_are_not_the_same_sentences(hand_corrector):
    """Prepared.over_trees refuses no tree source, a source with more or with fewer sentences
    than the first (naming the first sentence without a counterpart) and a sentence whose
    tokens differ (naming both); the same sentences twice are prepared as once."""
    words = sentences(conll(PLAIN, "p0") + conll(RELATIVE, "r0"))
    with pytest.raises(InputError, match="^Prepared.over_trees: no tree source$"):
        Prepared.over_trees(hand_corrector, [])
    extra, = sentences(conll(PLAIN, "p1"))
    for other, missing in (([words[0]], words[1]), ([*words, extra], extra)):
        with pytest.raises(InputError, match=f"^{re.escape(missing.place)}: tree source 2 has "
                                             f"{len(other)} sentences, the first 2$"):
            Prepared.over_trees(hand_corrector, [words, words, other])
    shorter, = sentences(conll(PLAIN, "p2", drop=(2,)))  # without "early"
    with pytest.raises(InputError, match=f"^{re.escape(shorter.place)}: not the tokens of "
                                         f"{re.escape(words[0].place)}$"):
        Prepared.over_trees(hand_corrector, [words, [shorter, words[1]]])
    decoding = Decoding(0.2, 0.001)
    assert [s.text() for s in Prepared.over_trees(hand_corrector, [words, words])
            .corrected_with(decoding)] == [s.text() for s in Prepared.of(
                hand_corrector, words).corrected_with(decoding)]
