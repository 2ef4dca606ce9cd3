"""scripts/correction.py cv on a hand-made learner folder (no FCE text): folds by document,
every model retrained without its fold, one held-out output per pair, pooled scores."""
import argparse
import json
import sys
from pathlib import Path

import pytest
from learner_pairs import PLAIN, RELATIVE, bare, conll, sentences
from script_module import load_script

from fstpunct.apps.correction.correct import Prepared
from fstpunct.apps.correction.model import CorrectionModel, Decoding
from fstpunct.model.store import read_record
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import parse
from fstpunct.parser import train as train_parser
from fstpunct.ud.treebank import Line, rebuild

ROOT = Path(__file__).parent.parent
# split -> its documents; each document: two learner sentences without the relative clause's
# commas (corrected: with them, FCE code MP), two plain ones, and one sentence that is not in
# the corrected file (as a non-isomorphic one: the learner model still reads it)
DOCUMENTS = {"train": ["docA", "docB", "docC", "docD"], "dev": ["docE"], "test": ["docF"]}


@pytest.fixture(scope="module")
def script():
    return load_script("correction")


def learner_folder(folder: Path) -> None:
    for split, docs in DOCUMENTS.items():
        original, corrected = [], []
        for doc in docs:
            for k in range(2):
                original.append(conll(RELATIVE, f"{doc}-r{k}", drop=(1, 4)))
                fixed = conll(RELATIVE, f"{doc}-r{k}")
                corrected.append(fixed.replace("\n# text", "\n# fce_punct_edits = 1:MP 3:MP"
                                               "\n# text", 1))
                original.append(conll(PLAIN, f"{doc}-p{k}"))
                corrected.append(conll(PLAIN, f"{doc}-p{k}"))
            original.append(conll(PLAIN, f"{doc}-x"))
        (folder / f"en_esl-ud-{split}.conllu").write_text("".join(original), encoding="utf-8")
        (folder / f"en_cesl-ud-{split}.conllu").write_text("".join(corrected), encoding="utf-8")


def run_cv(script, monkeypatch, data: Path, work: Path, out: Path, *more: str) -> None:
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "cv", "--data", str(data), "--folds", "2", "--weight", "1.0",
        "--copy", "2", "--reference", "learner", "--iterations", "2",
        "--learner-iterations", "2", "--edit-cost", "0.2", "--support", "0.001",
        "--grammar", str(ROOT / "grammars" / "en.rules"), "--work", str(work), "-o", str(out),
        *more])
    script.main()


def cv_then(script, monkeypatch, tmp_path: Path, command: str) -> tuple[dict, dict]:
    """A 2-fold cv run over the hand-made train pairs, then ``command`` (rerank, agree) on its
    fold models, whose rows of keep, the correction model and the two CRF correctors must be
    the cv run's: the command's JSON and its rows by system."""
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--split", "train")
    monkeypatch.setattr(sys, "argv", [
        "correction.py", command, "--data", str(data), "--split", "train", "--folds", "2",
        "--work", str(work), "--edit-cost", "0.2", "--support", "0.001",
        "-o", str(tmp_path / f"{command}.json")])
    script.main()
    result = json.loads((tmp_path / f"{command}.json").read_text(encoding="utf-8"))
    rows = {r["system"]: r for r in result["rows"]}
    cv = {r["system"]: r for r in json.loads((tmp_path / "cv.json").read_text())["rows"]}
    for name in ("keep", "correction", script.CRF, script.KEEP):
        assert rows[name]["sentence_edits"] == cv[name]["sentence_edits"]
    return result, rows


def test_cv_folds_by_document_and_scores_every_pair_once(script, tmp_path, monkeypatch,
                                                         capsys):
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json")
    printed = capsys.readouterr().out
    result = json.loads((tmp_path / "cv.json").read_text(encoding="utf-8"))
    # documents sorted (docA..docF, whatever their split) and dealt round-robin: fold 0 holds
    # docA, docC, docE; fold 1 docB, docD, docF. Each fold's models see only the other's.
    for fold in (0, 1):
        assert read_record(work / f"fold{fold}" / "learner")["record"]["sentences"] == 15
        model = CorrectionModel.load(work / f"fold{fold}" / "correct")
        assert model.record["pairs"] == 12 and model.record["fold"] == fold
        assert model.decoding == Decoding()  # the decoding is the run's, not stored
    assert printed.count("learner model trained on 15 sentences") == 2
    rows = {r["system"]: r for r in result["rows"]}
    assert list(rows) == ["keep", "correction", "correction (plain MBR)", "CRF corrector",
                          "CRF corrector, keep tag", "CRF corrector x correction",
                          "CRF corrector, keep tag x correction", "correction, gated"]
    # the gate: fitted on every held-out edit, and per fold on the other fold's only; here
    # every plain MBR edit is right, so the gate trusts them all and the gated row is plain MBR
    assert len(result["gate"]) == 6 and len(result["fold_gates"]) == 2
    assert all(g[0] > 5 for g in result["fold_gates"])
    assert rows["correction, gated"]["sentence_edits"] == rows["correction (plain MBR)"][
        "sentence_edits"]
    assert all(len(r["sentence_edits"]) == 24 for r in rows.values())  # 6 documents x 4 pairs
    keep = rows["keep"]
    # 12 relative clauses, each missing its two commas: AED 24 / 24, 24 gold edits (all MP)
    assert keep["aed"] == 1.0 and [sum(c) for c in keep["edit_counts"]] == [0, 0, 24]
    assert keep["by_code"] == {"MP": [0, 24]} and keep["f0.5"] == 0.0
    assert rows["correction"]["aed"] < 1.0 and rows["correction"]["by_code"]["MP"][0] > 0
    assert len(result["per_fold"]) == 2 and (result["edit_cost"], result["support"]) == (0.2,
                                                                                          0.001)
    assert (work / "fold0" / "crf-keep-c2-0.1").is_dir()  # the keep-tag corrector, L2 0.1
    # the correction model at every edit cost: cost 0 is its plain MBR row
    costs = {c["edit_cost"]: c for c in result["edit_costs"]}
    assert len(costs) == 21 and costs[0.0]["aed"] == rows["correction (plain MBR)"]["aed"]
    assert costs[0.2]["aed"] == rows["correction"]["aed"]
    # each product at every weight: the run's own weight (1.0) gives its row's F0.5
    tried = result["product_weights"]
    assert tried["CRF corrector"]["1.0"] == rows["CRF corrector x correction"]["f0.5"]
    chosen = result["chosen_weights"]
    assert all(tried[crf][str(w)] == max(tried[crf].values()) for crf, w in chosen.items())
    # calibrate --cv stores the cost of least pooled AED (ties: higher F0.5, lower cost)
    monkeypatch.setattr(sys, "argv", ["correction.py", "calibrate", "--model",
                                      str(work / "fold0" / "correct"), "--cv",
                                      str(tmp_path / "cv.json"), "-o", str(tmp_path / "cal")])
    script.main()
    won = min(costs.values(), key=lambda c: (c["aed"], -c["f05"], c["edit_cost"]))
    assert CorrectionModel.load(tmp_path / "cal").decoding == Decoding(won["edit_cost"], 0.001)
    # a second run loads every fold's models instead of training them, with the same figures
    run_cv(script, monkeypatch, data, work, tmp_path / "again.json")
    assert "trained" not in capsys.readouterr().out
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert again["rows"] == result["rows"]
    # but not models trained with other options: one line, status 2
    with pytest.raises(SystemExit) as stop:
        run_cv(script, monkeypatch, data, work, tmp_path / "other.json", "--sharpen", "2")
    assert stop.value.code == 2 and "trained with sharpen 1.0, not 2.0: name another --work" \
        in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        run_cv(script, monkeypatch, data, work, tmp_path / "other.json", "--readings-seed", "1")
    assert stop.value.code == 2 and "trained with readings seed 0, not 1: name another" \
        in capsys.readouterr().err


@pytest.mark.parametrize("command, more", [
    ("train", ["--learner", "en", "--original", "gone.conllu", "--corrected", "gone.conllu"]),
    ("cv", ["--data", "gone", "--weight", "1", "--work"]),
    ("heldout", ["--data", "gone", "--work"]),
])
def test_a_readings_seed_of_two_words_is_refused_first(script, command, more, tmp_path,
                                                       monkeypatch, capsys):
    """``--readings-seed`` of 2**32 or more is one line, status 2, before any data is read
    (there is none here) or any folder made, as ``--bag-seed`` is."""
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["correction.py", command, *more, *(
        [str(out), "-o", str(tmp_path / "o.json")] if more[-1] == "--work" else ["-o", str(out)]),
        "--readings", "2", "--readings-seed", str(2 ** 32)])
    with pytest.raises(SystemExit) as stop:
        script.main()
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err == (f"correction: {command}: --readings-seed must be "
                                            f"below 2**32, not {2 ** 32}\n")
    assert not out.exists() and not (tmp_path / "o.json").exists()


def test_cv_over_the_train_pairs_only(script, tmp_path, monkeypatch, capsys):
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--split", "train")
    result = json.loads((tmp_path / "cv.json").read_text(encoding="utf-8"))
    # train's documents docA..D dealt into 2 folds: each model sees 2 documents of 5 learner
    # sentences (4 pairs each); every output is one of the 16 train pairs
    for fold in (0, 1):
        assert read_record(work / f"fold{fold}" / "learner")["record"]["sentences"] == 10
        assert CorrectionModel.load(work / f"fold{fold}" / "correct").record["pairs"] == 8
    assert all(len(r["sentence_edits"]) == 16 for r in result["rows"])


@pytest.mark.parametrize("argv, says", [
    (["table", "--model", "M", "--split", "test", "-o", "out.json"], "M"),  # no model folder
    (["calibrate", "--model", "M", "--cv", "cv.json", "--parser", "P", "-o", "out"], "--parser"),
    (["calibrate", "--model", "M", "--cv", "cv.json", "--decoder", "learner", "-o", "out"],
     "--decoder"),
    (["cv", "--weight", "1", "--fce", "all", "--crossfit", "-o", "out.json"],
     "--fce and --crossfit do not go together"),
    (["cv", "--weight", "1", "--fce-corrector-only", "-o", "out.json"],
     "--fce-corrector-only needs --fce"),
    (["cv", "--weight", "1", "--fce-edited", "-o", "out.json"], "cv: --fce-edited needs --fce"),
    (["train", "--learner", "L", "--original", "O", "--corrected", "C", "--fce-edited",
      "-o", "out"], "train: --fce-edited needs --fce"),
])
def test_bad_input_is_one_line_and_exit_2(script, tmp_path, monkeypatch, capsys, argv, says):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["correction.py", *argv])
    with pytest.raises(SystemExit) as exit_:
        script.main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("correction: ") and says in err
    assert err.count("\n") == 1


def punctuation_only_files(folder: Path) -> None:
    """Each document's sentence outside the isomorphic subset (``-x``) as a punctuation-only
    pair: its learner sentence lacks the relative clause's commas."""
    for split, docs in DOCUMENTS.items():
        path = folder / f"en_esl-ud-{split}.conllu"
        text = path.read_text(encoding="utf-8")
        for doc in docs:
            text = text.replace(conll(PLAIN, f"{doc}-x"), conll(RELATIVE, f"{doc}-x", drop=(1, 4)))
        path.write_text(text, encoding="utf-8")
        (folder / f"en_pesl-ud-{split}.conllu").write_text(
            "".join(conll(RELATIVE, f"{doc}-x").replace(
                "\n# text", "\n# fce_punct_edits = 1:MP 3:MP\n# text", 1) for doc in docs),
            encoding="utf-8")


def test_cv_trains_on_the_punctuation_only_pairs_too(script, tmp_path, monkeypatch):
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    punctuation_only_files(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--extra", "--lexical", "3")
    result = json.loads((tmp_path / "cv.json").read_text(encoding="utf-8"))
    # each fold's models: the 12 isomorphic pairs and the 3 punctuation-only pairs of the
    # other fold's 3 documents; the held-out outputs are the 24 isomorphic pairs only; the
    # correctors with the lexical contexts of their 3 most frequent words
    for fold in (0, 1):
        model = CorrectionModel.load(work / f"fold{fold}" / "correct")
        assert model.record["pairs"] == 15 and model.record["extra"] is True
        assert model.record["lexical"] == 3 and model.corrector.settings.lexical == 3
        assert model.corrector.attach.lexical and not model.learner.attach.lexical
    assert result["extra"] is True
    assert all(len(r["sentence_edits"]) == 24 for r in result["rows"])


def test_pairs_read_several_corrected_files(script, tmp_path):
    learner_folder(tmp_path)
    punctuation_only_files(tmp_path)
    both, learners = script.pairs(str(tmp_path / "en_esl-ud-train.conllu"),
                                  str(tmp_path / "en_cesl-ud-train.conllu"),
                                  str(tmp_path / "en_pesl-ud-train.conllu"))
    assert len(both) == 16 + 4 and len(learners) == 20
    assert [o.sent_id for o, c in both] == [c.sent_id for o, c in both]


def test_fold_pairs_keeps_the_other_folds_isomorphic_then_punctuation_only_pairs(script):
    """fold_pairs: per fold, the pairs whose document is not in it, the isomorphic ones (keyed
    ``split/cesl/sent_id``) before the punctuation-only ones (``split/pesl/sent_id``), each in
    its list's order, the learner and corrected sentences as given."""
    def pair(split, sent_id):
        return split, *sentences(conll(PLAIN, sent_id) + conll(RELATIVE, sent_id))
    pooled = [pair("train", "docB-p0"), pair("train", "docA-p0"), pair("dev", "docE-p1"),
              pair("train", "docB-p1")]
    extra = [pair("dev", "docE-x"), pair("train", "docB-x"), pair("train", "docA-x")]
    fold_of = {"docA": 0, "docB": 1, "docE": 1}
    fold0, fold1 = script.fold_pairs(pooled, extra, fold_of, 2)
    assert [key for key, _, _ in fold0] == [
        "train/cesl/docB-p0", "dev/cesl/docE-p1", "train/cesl/docB-p1", "dev/pesl/docE-x",
        "train/pesl/docB-x"]
    assert [(s, g) for _, s, g in fold0] == [
        (s, g) for _, s, g in (pooled[0], pooled[2], pooled[3], extra[0], extra[1])]
    assert fold1 == [
        ("train/cesl/docA-p0", *pooled[1][1:]), ("train/pesl/docA-x", *extra[2][1:])]


def crossfit_cv(script, monkeypatch, tmp_path: Path, extra: bool = False) -> tuple[Path, Path]:
    """The learner folder and the work folder of a 2-fold cv --crossfit over its train pairs
    (with ``extra``, the punctuation-only pairs too: --extra)."""
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    if extra:
        punctuation_only_files(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--split", "train",
           "--crossfit", *(["--extra"] if extra else []))
    return data, work


def fold_features(script, work: Path, fold: int, tree) -> list:
    """The correction features of ``tree`` under fold ``fold``'s corrector."""
    model = CorrectionModel.load(work / f"fold{fold}" / "correct")
    return script.slot_features(script.to_slots(tree), script.Prepared.of(model, [tree]).dists[0],
                                "c")


def test_cv_crossfits_the_correction_features(script, tmp_path, monkeypatch):
    trained = []  # each fold's CRF training pairs' learner sentences and their features

    def spy(source, *rest):
        trained.append((source, rest[7]))
        return train_crfs(source, *rest)
    train_crfs = script.train_crfs
    monkeypatch.setattr(script, "train_crfs", spy)
    data, work = crossfit_cv(script, monkeypatch, tmp_path, extra=True)
    rows = {r["system"]: r for r in json.loads((tmp_path / "cv.json").read_text())["rows"]}
    assert {script.CRF_CORR, script.KEEP_CORR} <= set(rows)
    feats = json.loads((work / "crossfit.json").read_text(encoding="utf-8"))
    # the 16 isomorphic pairs and the 4 punctuation-only ones (-x), keyed by their kind
    kind = {True: "pesl", False: "cesl"}
    keys = [f"train/{kind[k == 'x']}/{doc}-{k}" for doc in DOCUMENTS["train"]
            for k in ("r0", "p0", "r1", "p1", "x")]
    assert sorted(feats) == sorted(keys)
    # the CRFs are given each training pair's own features, pair by pair (they differ: the
    # pairs' order matters): the other fold's documents' (docA and docC are in fold 0, docB
    # and docD in fold 1), the isomorphic pairs first, then the punctuation-only ones
    assert len(trained) == 2
    for (source, corr), docs in zip(trained, (("docB", "docD"), ("docA", "docC"))):
        assert [s.sent_id for s in source] == [f"{d}-{k}" for d in docs
                                               for k in ("r0", "p0", "r1", "p1")] + [
            f"{d}-x" for d in docs]
        assert corr == [feats[f"train/{kind[s.sent_id.endswith('-x')]}/{s.sent_id}"]
                        for s in source]
        assert corr != corr[::-1]
    # a pair's features come from the corrector of its own fold (trained without it)
    source = {s.sent_id: s for s in script.read_file(data / "en_esl-ud-train.conllu")}
    for key, fold in (("cesl/docA-r0", 0), ("cesl/docB-r1", 1), ("pesl/docC-x", 0)):
        assert feats[f"train/{key}"] == fold_features(script, work, fold,
                                                      source[key.split("/")[1]])
    assert (work / "fold0" / "crf-correct-corr").is_dir()


def chained(sent):
    """``sent`` with every word headed by the next word (the last by the root) and every
    punctuation token by the last word."""
    words = [w.id for w in sent.words if not w.is_punct]
    head = dict(zip(words, words[1:] + [0])) | {w.id: words[-1] for w in sent.words
                                                if w.is_punct}
    return rebuild(sent, list(sent.comments), [
        Line(ln.fields[:6] + [str(head[int(ln.id)])] + ln.fields[7:], ln.lineno)
        if ln.is_word else ln for ln in sent.lines])


def test_crossfit_again_on_a_parsers_trees(script, tmp_path, monkeypatch):
    data, work = crossfit_cv(script, monkeypatch, tmp_path)

    def run(*more: str) -> dict:
        out = tmp_path / "feats.json"
        monkeypatch.setattr(sys, "argv", ["correction.py", "crossfit", "--data", str(data),
                                          "--split", "train", "--folds", "2", "--work",
                                          str(work), "-o", str(out), *more])
        script.main()
        return json.loads(out.read_text(encoding="utf-8"))

    # without a parser: the cv run's own features, pair by pair
    assert run() == json.loads((work / "crossfit.json").read_text(encoding="utf-8"))
    # with one: each pair's features under its own fold's corrector, on the parser's tree (a
    # parser trained on chains of words, so that its trees differ from the gold ones)
    parser = tmp_path / "parser"
    learner = list(script.read_file(data / "en_esl-ud-train.conllu"))
    chains = [chained(s) for s in learner]
    train_parser(chains, chains, "tokens", 1, parser, epochs=1, progress=False,
                 log=lambda m: None)
    parsed = run("--parser", str(parser))
    assert set(parsed) == set(json.loads((work / "crossfit.json").read_text(encoding="utf-8")))
    source = {s.sent_id: s for s in learner}
    for sent_id, fold in (("docA-r0", 0), ("docB-r1", 1)):
        tree = parse(ParserModel.load(parser), source[sent_id], 1)
        assert [w.head for w in tree.words] == [2, 3, 4, 5, 0, 5] != [
            w.head for w in source[sent_id].words]
        assert parsed[f"train/cesl/{sent_id}"] == fold_features(script, work, fold, tree)
    # fold correctors of another cv run (here: without --extra) are refused
    with pytest.raises(SystemExit) as e:
        run("--extra")
    assert e.value.code == 2


def test_product_weights_chosen_on_dev_pooled_with_a_cv_run(script):
    source = sentences(conll(RELATIVE, "r", drop=(1, 4)))
    gold = sentences(conll(RELATIVE, "r"))

    def products(crf: str, w: float) -> list:  # only weight 2 sets both missing commas
        return gold if w == 2.0 else source

    weights, tried = script.chosen_weights(source, gold, products)
    assert weights == {script.CRF: 2.0, script.KEEP: 2.0}
    assert tried[script.CRF][2.0] == [2, 2, 2] and tried[script.KEEP][0.0] == [0, 0, 2]
    # a cv run's counts: weight 2 made 50 edits, none right; weight 4 made 10, all right
    prior = {crf: {w: [0, 50, 50] if w == 2.0 else [10, 10, 10] if w == 4.0 else [0, 0, 10]
                   for w in script.WEIGHTS} for crf in (script.CRF, script.KEEP)}
    pooled, again = script.chosen_weights(source, gold, products, prior)
    assert pooled == {script.CRF: 4.0, script.KEEP: 4.0} and again == tried  # own counts only
    # ties go to the lower weight
    flat = {crf: {w: [0, 0, 0] for w in script.WEIGHTS} for crf in prior}
    assert script.chosen_weights(source, source, products, flat)[0][script.CRF] == 0.0


def test_breakdown_prints_marks_and_fce_codes(script, tmp_path, monkeypatch, capsys):
    mark = {"precision": 50.0, "recall": 25.0, "f1": 100 / 3}
    row = {"system": "keep", "marks": {m: mark for m in script.MARKS},
           "by_code": {"MP": [1, 4], "RP": [0, 2]}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"test": [row], "weights": {}}), encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["correction.py", "breakdown", str(path)])
    script.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"### {path}: test" and len(lines) == 4
    assert lines[3] == "| keep | " + " | ".join(["50.0/25.0/33.3"] * 4) + " | 1/4 | 0/2 | 0/0 |"


def test_cv_with_the_bilstm_correctors_and_their_products(script, tmp_path, monkeypatch):
    pytest.importorskip("torch")
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--split", "train",
           "--bilstm")
    result = json.loads((tmp_path / "cv.json").read_text(encoding="utf-8"))
    rows = {r["system"]: r for r in result["rows"]}
    names = (script.CRF, script.KEEP, script.BILSTM, script.BILSTM_KEEP)
    assert all(f"{n} x correction" in rows and n in rows for n in names)
    assert set(result["product_weight_counts"]) == set(names) == set(result["chosen_weights"])
    for fold in (0, 1):  # the keep-tag BiLSTM-CRF: trained with one label for "keep"
        keep = json.loads(
            (work / f"fold{fold}" / "bilstm-keep" / "meta.json").read_text(encoding="utf-8"))
        assert keep["keep_tag"] is True and keep["training"]["pairs"] == 8
    # the product at weight 0 is the BiLSTM-CRF's slot-wise best string: here its Viterbi
    counts = result["product_weight_counts"][script.BILSTM]
    assert counts["0.0"] == [sum(c) for c in rows[script.BILSTM]["edit_counts"]]


def test_power_replicates_the_split_and_adds_right_edits(script, tmp_path, monkeypatch, capsys):
    def row(name, correct, proposed, gold):
        return {"system": name, "edit_counts": [correct, proposed, gold]}

    path = tmp_path / "t.json"
    path.write_text(json.dumps({"test": [row("CRF corrector", [0, 0, 1], [1, 0, 1], [1, 1, 1]),
                                         row("product", [1, 1, 0], [1, 1, 0], [1, 1, 1])]}),
                    encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["correction.py", "power", str(path), "--system", "product",
                                      "--copies", "3"])
    script.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("x1: 3 gold edits, product 2/2 right, F0.5 90.9; "
                               "CRF corrector 1/2, 45.5; p ")  # worked out by hand
    assert lines[2].startswith("x3: 9 gold edits, product 6/6 right")
    p = [float(x.rsplit("p ", 1)[1]) for x in lines]
    assert p[2] < p[0] and p[-1] < 0.05 <= p[-2]  # added right edits stop at p < 0.05
    assert lines[3].startswith("+1 right: 4 gold edits, product 3/3 right")
    monkeypatch.setattr(sys, "argv", ["correction.py", "power", str(path), "--system", "none"])
    with pytest.raises(SystemExit) as stop:
        script.main()
    assert stop.value.code == 2 and "no row 'none' in test" in capsys.readouterr().err


def test_jackknifed_train_trees(script, tmp_path, monkeypatch, capsys):
    data, work = crossfit_cv(script, monkeypatch, tmp_path)
    learner = list(script.read_file(data / "en_esl-ud-train.conllu"))
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["correction.py", "jackknife", "--data", str(data),
                                      "--folds", "2", "--epochs", "1", "--work",
                                      str(tmp_path / "jk"), "-o", str(tmp_path / "jk.conllu")])
    script.main()
    assert "20 train sentences parsed by 2 jackknife parsers" in capsys.readouterr().out
    # folds by document as cv's (docA and docC in fold 0): each sentence parsed by the parser
    # trained on the other fold's 10 sentences
    parsers = [ParserModel.load(tmp_path / "jk" / f"fold{fold}") for fold in (0, 1)]
    assert [p.info["train_sentences"] for p in parsers] == [10, 10]
    assert [bare(s) for s in script.read_file(tmp_path / "jk.conllu")] == [
        parse(parsers[s.sent_id[:4] not in ("docA", "docC")], s, 1).text() for s in learner]
    # trees given for train (here: chains) replace the parser's parses of the train pairs
    chains = tmp_path / "chains.conllu"
    script.write_file([chained(s) for s in learner], chains)
    parser = str(tmp_path / "jk" / "fold0")
    out = tmp_path / "feats.json"
    monkeypatch.setattr(sys, "argv", ["correction.py", "crossfit", "--data", str(data),
                                      "--split", "train", "--folds", "2", "--work", str(work),
                                      "--parser", parser, "--train-trees", str(chains),
                                      "-o", str(out)])
    script.main()
    feats = json.loads(out.read_text(encoding="utf-8"))
    source = {s.sent_id: chained(s) for s in learner}
    for sent_id, fold in (("docA-r0", 0), ("docB-r1", 1)):
        assert feats[f"train/cesl/{sent_id}"] == fold_features(script, work, fold,
                                                               source[sent_id])
    trained = []

    def stop(source, *rest, **more):
        trained.append(source)
        raise SystemExit(0)

    monkeypatch.setattr(script, "train_crfs", stop)
    monkeypatch.setattr(sys, "argv", ["correction.py", "table", "--model",
                                      str(work / "fold0" / "correct"), "--data", str(data),
                                      "--split", "dev", "--parser", parser, "--train-trees",
                                      str(chains), "-o", str(tmp_path / "t.json")])
    with pytest.raises(SystemExit):
        script.main()
    assert [s.text() for s in trained[0]] == [source[s.sent_id].text() for s in trained[0]]
    assert len(trained[0]) == 16
    # a trees file without every train sentence: one line, exit 2
    script.write_file(learner[1:], chains)
    with pytest.raises(SystemExit) as e:
        script.main()
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1
    assert f"{chains}: sentence {learner[0].sent_id} of train is missing" in err


def outside_sentence(words: list, sent_id: str, doc: str | None, **more) -> str:
    """A sentence outside the TLE (``conll(words, sent_id, **more)``) of ``doc``'s FCE script
    (``# tle_document``; None: a script without TLE sentences)."""
    note = f"\n# tle_document = {doc}\n# text" if doc else "\n# text"
    return conll(words, sent_id, **more).replace("\n# text", note, 1)


def add_outside(folder: Path, **train: str) -> None:
    """Add each kind's sentences (``esl``, ``cesl``, ``pesl``) to its outside train file
    (``en_x{kind}-ud-train.conllu``, learner_corpus.py --parser's), every outside file of every
    split made if missing (empty)."""
    for split in ("train", "dev", "test"):
        for kind in ("esl", "cesl", "pesl"):
            path = folder / f"en_x{kind}-ud-{split}.conllu"
            old = path.read_text(encoding="utf-8") if path.exists() else ""
            path.write_text(old + (train.get(kind, "") if split == "train" else ""),
                            encoding="utf-8")


def outside_folder(folder: Path) -> None:
    """Sentences outside the TLE (learner_corpus.py --parser's files): two of docA's script,
    one of docB's, one of docE's (a dev document) and one of a script without TLE sentences;
    all relative clauses without their commas, corrected (isomorphic), and one plain sentence
    of docB's script with a punctuation-only pair."""
    scripts = (("TRa-0", "docA"), ("TRa-1", "docA"), ("TRb-0", "docB"), ("TRe-0", "docE"),
               ("TRz-0", None))
    learner = "".join(outside_sentence(RELATIVE, i, doc, drop=(1, 4)) for i, doc in scripts)
    plain = outside_sentence(PLAIN, "TRb-1", "docB")
    add_outside(folder, esl=learner + plain, pesl=plain,
                cesl="".join(outside_sentence(RELATIVE, i, doc) for i, doc in scripts))


def test_outside_pairs_never_train_their_documents_fold(script, tmp_path, monkeypatch):
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    outside_folder(data)
    crf_sources = []

    def spy(source, *rest):
        crf_sources.append([s.sent_id for s in source])
        return train_crfs(source, *rest)
    train_crfs = script.train_crfs
    monkeypatch.setattr(script, "train_crfs", spy)
    every = script.Outside.read(data, "all")
    assert [s.sent_id for s, _ in every.pairs] == ["TRa-0", "TRa-1", "TRb-0", "TRe-0", "TRz-0",
                                                   "TRb-1"]
    assert len(script.Outside.read(data, "isomorphic").pairs) == 5
    # the standard split: docE has dev sentences, docF test ones; docA..D train only
    assert script.tested_documents(data) == {"docE", "docF"}
    kept = every.without(script.tested_documents(data))
    assert [s.sent_id for s in kept.learners] == ["TRa-0", "TRa-1", "TRb-0", "TRz-0", "TRb-1"]
    read, document = [], script.tle_document  # each sentence's document is read once
    with monkeypatch.context() as m:
        m.setattr(script, "tle_document", lambda s: read.append(s) or document(s))
        fresh = script.Outside(every.learners, every.pairs)
        assert [s.sent_id for s in fresh.without({"docA"}).learners] == [
            "TRb-0", "TRe-0", "TRz-0", "TRb-1"]
        assert [s.sent_id for s, _ in fresh.without({"docB"}).pairs] == [
            "TRa-0", "TRa-1", "TRe-0", "TRz-0"]
    assert len(read) == len(every.learners) + len(every.pairs) == 12
    # 2 folds by document: fold 0 holds docA, docC, docE; fold 1 docB, docD, docF. Fold 0
    # trains on TRb-0, TRb-1 and TRz-0 (not docA's nor docE's); fold 1 on TRa-0, TRa-1, TRe-0
    # and TRz-0 (not docB's)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--fce", "all")
    result = json.loads((tmp_path / "cv.json").read_text(encoding="utf-8"))
    assert result["fce"] == result["fce_learner"] == "all" and result["fce_pairs"] == [3, 4]
    for fold, extra in ((0, 3), (1, 4)):
        assert read_record(work / f"fold{fold}" / "learner")["record"]["sentences"] == 15 + extra
        model = CorrectionModel.load(work / f"fold{fold}" / "correct")
        assert model.record["pairs"] == 12 + extra and model.record["fce"] == "all"
    # the held-out pairs are the TLE's only: 24, as without --fce
    assert all(len(r["sentence_edits"]) == 24 for r in result["rows"])
    # the CRF correctors train on the other fold's TLE pairs and the same outside pairs
    tle = {0: ("docB", "docD", "docF"), 1: ("docA", "docC", "docE")}
    for fold, outside in ((0, ["TRb-0", "TRz-0", "TRb-1"]),
                          (1, ["TRa-0", "TRa-1", "TRe-0", "TRz-0"])):
        assert crf_sources[fold][-len(outside):] == outside
        assert sorted(crf_sources[fold][:-len(outside)]) == sorted(
            f"{doc}-{kind}{k}" for doc in tle[fold] for kind in "rp" for k in range(2))
    # a work folder trained without --fce is refused
    run_cv(script, monkeypatch, data, tmp_path / "plain", tmp_path / "plain.json",
           "--learners-only")
    with pytest.raises(SystemExit) as stop:
        run_cv(script, monkeypatch, data, tmp_path / "plain", tmp_path / "again.json",
               "--fce", "isomorphic")
    assert stop.value.code == 2


def test_outside_pairs_for_the_corrector_only(script, tmp_path, monkeypatch, capsys):
    # --fce-corrector-only: the fold learner models train on the 15 TLE sentences of the other
    # fold alone, the correctors on the outside pairs too (3 and 4, as above); and
    # --correctors-only trains no CRF
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    outside_folder(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--fce", "all",
           "--fce-corrector-only", "--correctors-only")
    for fold, extra in ((0, 3), (1, 4)):
        record = read_record(work / f"fold{fold}" / "learner")["record"]
        assert record["sentences"] == 15 and record["fce"] is None
        assert record["fold_key"] == "FCE document"
        model = CorrectionModel.load(work / f"fold{fold}" / "correct")
        assert model.record["pairs"] == 12 + extra
        assert model.record["fce"] == "all" and model.record["fce_learner"] is None
        assert sorted(p.name for p in (work / f"fold{fold}").iterdir()) == ["correct", "learner"]
    assert not (tmp_path / "cv.json").exists()
    capsys.readouterr()

    def refused(says: str, *more: str) -> None:
        with pytest.raises(SystemExit) as stop:
            run_cv(script, monkeypatch, data, work, tmp_path / "again.json", *more)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and says in err and err.count("\n") == 1

    # the same work folder without --fce-corrector-only is refused (its learner models)
    refused("trained with --fce None, not all", "--fce", "all")
    # a learner model of 7148b46 (fce in its record, no fold_key: folds by document) is taken
    meta = work / "fold0" / "learner" / "model.json"
    old = json.loads(meta.read_text(encoding="utf-8"))
    old["record"] = {"fold": 0, "folds": 2, "sentences": 15, "fce": None}
    meta.write_text(json.dumps(old), encoding="utf-8")
    run_cv(script, monkeypatch, data, work, tmp_path / "again.json", "--fce", "all",
           "--fce-corrector-only", "--correctors-only")
    # but not one of the old folds (split/document: no fce, no fold_key in its record)
    old["record"] = {"fold": 0, "folds": 2, "sentences": 15}
    meta.write_text(json.dumps(old), encoding="utf-8")
    refused("folds by split/document, not by FCE document", "--fce", "all",
            "--fce-corrector-only")


def unedited_outside_pairs(folder: Path) -> None:
    """Two more isomorphic outside pairs, each without a punctuation edit (a plain sentence,
    corrected as it is): TRa-2 of docA's script, TRz-2 of a script without TLE sentences."""
    text = outside_sentence(PLAIN, "TRa-2", "docA") + outside_sentence(PLAIN, "TRz-2", None)
    add_outside(folder, esl=text, cesl=text)


def test_outside_pairs_with_a_punctuation_edit_only(script, tmp_path, monkeypatch, capsys):
    # --fce-edited keeps the outside pairs whose sides differ in punctuation: not TRb-1
    # (punctuation-only, unchanged), TRa-2, TRz-2; fold 0 (docA, docC, docE held out) keeps
    # TRb-0 and TRz-0 of its 4 pairs, fold 1 (docB, docD, docF) TRa-0, TRa-1, TRe-0 and TRz-0 of
    # its 6; the learner models read every outside learner sentence all the same
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    outside_folder(data)
    unedited_outside_pairs(data)
    every = script.Outside.read(data, "all")
    assert [s.sent_id for s, _ in every.edited.pairs] == ["TRa-0", "TRa-1", "TRb-0",
                                                            "TRe-0", "TRz-0"]
    assert every.edited.learners == every.learners
    read, document = [], script.tle_document  # the edited pairs' documents are their parent's
    with monkeypatch.context() as m:
        m.setattr(script, "tle_document", lambda s: read.append(s) or document(s))
        fresh = script.Outside(every.learners, every.pairs)
        fresh.without({"docA"})  # kept_outside's order: the parent's documents first
        assert len(read) == len(every.learners) + len(every.pairs)
        read.clear()
        edited = fresh.edited.without({"docA"})
        assert read == []  # the edited pairs' documents are not read again
        assert fresh.edited.documents == script.Outside(fresh.edited.learners,
                                                        fresh.edited.pairs).documents
    assert [s.sent_id for s, _ in edited.pairs] == ["TRb-0", "TRe-0", "TRz-0"]
    # the scorer's edit: a pair whose corrected side is its learner side has none
    relative = every.pairs[0]
    assert script.Outside([], [relative, (relative[0], relative[0])]).edited.pairs == [
        relative]
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--fce", "all",
           "--fce-edited", "--models-only")
    out = capsys.readouterr().out
    assert "fold 0: 2 of 4 outside pairs kept (those with a punctuation edit)" in out
    assert "fold 1: 4 of 6 outside pairs kept (those with a punctuation edit)" in out
    for fold, extra, learners in ((0, 2, 4), (1, 4, 6)):
        assert read_record(work / f"fold{fold}" / "learner")["record"]["sentences"] == (
            15 + learners)
        model = CorrectionModel.load(work / f"fold{fold}" / "correct")
        assert model.record["pairs"] == 12 + extra and model.record["fce_edited"] is True
    # the fold correctors of a run without --fce-edited are refused, and with it the
    # corrector-only arm's learner models are the TLE's alone
    plain = tmp_path / "plain"
    run_cv(script, monkeypatch, data, plain, tmp_path / "plain.json", "--fce", "all",
           "--fce-corrector-only", "--correctors-only")
    with pytest.raises(SystemExit) as stop:
        run_cv(script, monkeypatch, data, plain, tmp_path / "again.json", "--fce", "all",
               "--fce-corrector-only", "--fce-edited", "--correctors-only")
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "trained with fce-edited False, not True: " in err
    assert err.count("\n") == 1
    edited = tmp_path / "edited"
    run_cv(script, monkeypatch, data, edited, tmp_path / "edited.json", "--fce", "all",
           "--fce-corrector-only", "--fce-edited", "--correctors-only")
    for fold, extra in ((0, 2), (1, 4)):
        assert read_record(edited / f"fold{fold}" / "learner")["record"]["sentences"] == 15
        model = CorrectionModel.load(edited / f"fold{fold}" / "correct")
        assert model.record["pairs"] == 12 + extra and model.record["fce_learner"] is None


# a full stop with a dependent: not trainable (DESIGN §2)
UNTRAINABLE = [("We", 2, "nsubj"), ("left", 0, "root"), ("early", 4, "advmod"),
               (".", 2, "punct")]


def test_untrainable_sentences_and_pairs_are_left_out_and_counted(script):
    good, bad = sentences(conll(PLAIN, "a") + conll(UNTRAINABLE, "b"))
    kept, dropped = script.trainable([good, bad, good])
    assert len(kept) == 2 and dropped == 1 and all(ss.trainable for ss in kept)
    originals, corrected, dropped = script.trainable_pairs([(good, good), (bad, good),
                                                            (good, bad)])
    assert len(originals) == len(corrected) == 1 and dropped == 2


def test_train_with_the_outside_pairs(script, tmp_path, monkeypatch, capsys):
    # train --fce: the outside pairs of every script without a TLE dev or test sentence
    # (docE's TRe-0 out), less one untrainable pair of a script without TLE sentences
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    outside_folder(data)
    untrainable = conll(UNTRAINABLE, "TRz-1")
    add_outside(data, esl=untrainable, cesl=untrainable)
    run_cv(script, monkeypatch, data, tmp_path / "cv", tmp_path / "cv.json", "--learners-only")
    for kind, outside in (("all", 5), ("isomorphic", 4)):
        monkeypatch.setattr(sys, "argv", [
            "correction.py", "train", "--learner", str(tmp_path / "cv" / "fold0" / "learner"),
            "--original", str(data / "en_esl-ud-train.conllu"),
            "--corrected", str(data / "en_cesl-ud-train.conllu"), "--data", str(data),
            "--fce", kind, "--iterations", "1", "--reference", "learner",
            "--grammar", str(ROOT / "grammars" / "en.rules"), "-o", str(tmp_path / kind)])
        script.main()
        model = CorrectionModel.load(tmp_path / kind)
        assert model.record["pairs"] == 16 + outside and model.record["fce"] == kind
        err = capsys.readouterr().err
        assert f"{16 + outside} training pairs and {20 + 5} learner sentences" in err
        assert "): 1 pairs, 1 sentences" in err
    # train --fce all --fce-edited: of the 6 outside pairs (TRe-0 out), the 4 with an edit
    # (not TRb-1, nor TRz-1, whose two sides are the same sentence: no edit, and untrainable
    # anyway); the learner
    # sentences all kept
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "train", "--learner", str(tmp_path / "cv" / "fold0" / "learner"),
        "--original", str(data / "en_esl-ud-train.conllu"),
        "--corrected", str(data / "en_cesl-ud-train.conllu"), "--data", str(data),
        "--fce", "all", "--fce-edited", "--iterations", "1", "--reference", "learner",
        "--grammar", str(ROOT / "grammars" / "en.rules"), "-o", str(tmp_path / "edited")])
    script.main()
    model = CorrectionModel.load(tmp_path / "edited")
    assert model.record["pairs"] == 16 + 4 and model.record["fce_edited"] is True
    err = capsys.readouterr().err
    assert "train: 4 of 6 outside pairs kept (those with a punctuation edit)" in err
    assert f"{16 + 4} training pairs and {20 + 5} learner sentences" in err


def test_a_document_over_several_splits_is_in_one_fold(script, tmp_path):
    # docA has sentences in train and in test (as most TLE documents do): one fold holds both
    data = tmp_path / "learner"
    data.mkdir()
    files = {"train": ["docA-1", "docB-1"], "dev": ["docC-1"], "test": ["docA-2", "docD-1"]}
    for split, ids in files.items():
        text = "".join(conll(PLAIN, sent_id) for sent_id in ids)
        for kind in ("esl", "cesl"):
            (data / f"en_{kind}-ud-{split}.conllu").write_text(text, encoding="utf-8")
    _, fold_of = script.document_folds(data, list(script.SPLITS), 2)
    assert fold_of == {"docA": 0, "docB": 1, "docC": 0, "docD": 1}
    pooled = script.pooled_pairs(data, list(script.SPLITS), False)[0]
    helds = script.held_of(pooled, fold_of, 2)
    assert [[pooled[j][1].sent_id for j in held] for held in helds] == [
        ["docA-1", "docC-1", "docA-2"], ["docB-1", "docD-1"]]


def test_cv_with_drawn_readings_then_its_edits(script, tmp_path, monkeypatch, capsys):
    """``cv --readings 2``: every fold corrector trained on 2 readings of each of its 8 pairs;
    the work folder asked for again without readings is refused (one line, exit 2); ``edits``
    lists the fold correctors' edits at their nested cost, each with its reading, and refuses
    ``--draws 0``."""
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--split", "train",
           "--readings", "2")
    for fold in (0, 1):
        record = CorrectionModel.load(work / f"fold{fold}" / "correct").record
        assert (record["readings"], record["pairs"]) == (2, 16)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        run_cv(script, monkeypatch, data, work, tmp_path / "again.json", "--split", "train")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "trained with readings 2, not 0" in err
    assert err.count("\n") == 1
    edits = ["correction.py", "edits", "--data", str(data), "--split", "train", "--folds", "2",
             "--work", str(work), "--decoder", "learner", "-o", str(tmp_path / "edits.json")]
    monkeypatch.setattr(sys, "argv", [*edits, "--draws", "10"])
    script.main()
    printed = capsys.readouterr().out
    result = json.loads((tmp_path / "edits.json").read_text(encoding="utf-8"))
    assert result["draws"] == 10 and len(result["nested_costs"]) == 2
    rows = result["edits"]
    # the learners leave out the relative clauses' commas: an edit there is right if it
    # writes the comma back; the plain sentences have nothing to correct
    for row in rows:
        assert row["fold"] in (0, 1) and row["kind"] == script.edit_kind(
            tuple(row["learner"].split()), tuple(row["written"].split()))
        assert row["right"] == ((row["learner"], row["written"]) == ("", ","))
        assert row["posterior"] * 10 == round(row["posterior"] * 10)
    right = sum(r["right"] for r in rows)
    assert rows and f"| insert | {right}/{len(rows)} |" in printed
    assert result["edit_cost"] is None and all(0 < r["corrector_p"] <= 1 for r in rows)
    assert "| the corrector's p(written) |" in printed
    # at a fixed cost: the edits of the fold correctors decoded at that cost, by hand
    pooled, helds, _, _ = script.held_out_pairs(argparse.Namespace(data=str(data),
                                                                   splits=["train"], folds=2))
    preps = [Prepared.of(CorrectionModel.load(work / f"fold{fold}" / "correct"),
                         [pooled[j][1] for j in held]) for fold, held in enumerate(helds)]
    at = {}
    for cost in ("0", "1"):
        monkeypatch.setattr(sys, "argv", [*edits, "--draws", "10", "--edit-cost", cost])
        script.main()
        at[cost] = json.loads((tmp_path / "edits.json").read_text(encoding="utf-8"))
        made: list = [None] * len(pooled)
        for prep, held in zip(preps, helds):
            for j, sent in zip(held, prep.corrected_with(Decoding(float(cost), script.SUPPORT,
                                                                  decoder="learner"))):
                made[j] = sent
        want = script.written_edits([s for _, s, _ in pooled], [g for _, _, g in pooled], made)
        assert at[cost]["edit_cost"] == float(cost)
        assert [(e["pair"], e["slot"], e["written"]) for e in at[cost]["edits"]] == [
            (e["pair"], e["slot"], e["written"]) for e in want]
    # the cost is applied: the hand data's 16 edits at cost 0 (here the nested ones too), none
    # at cost 1 (an option ignored would give the nested 16 at both)
    assert len(at["0"]["edits"]) == 16 and at["1"]["edits"] == []
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", [*edits, "--edit-cost", "0.22"])
    with pytest.raises(SystemExit) as exit_:
        script.main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and \
        "--edit-cost must be one of the sweep's costs 0, 0.05, ..., 1, not 0.22\n" in err
    monkeypatch.setattr(sys, "argv", [*edits, "--draws", "0"])
    with pytest.raises(SystemExit) as exit_:
        script.main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "at least 1" in err and err.count("\n") == 1
