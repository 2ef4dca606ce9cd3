"""Nested jackknifed training trees: ``jackknife --nested`` (the training sentences of each
outer fold k parsed by parsers that saw neither k nor the sentence's own fold) and ``cv
--train-trees`` (fold k's learner model and corrector trained on them)."""
import dataclasses
import shutil
import sys

import pytest
from learner_pairs import bare
from script_module import load_script
from test_correction_cv import chained, learner_folder, punctuation_only_files, run_cv

from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import with_arcs

# the hand-made train documents dealt into 3 folds (sorted, round-robin)
FOLD_OF = {"docA": 0, "docB": 1, "docC": 2, "docD": 0}
# the relation of every non-root word in nested_file's trees for outer fold k: each outer
# fold's tree of a sentence differs from the others', so a test can tell which one trained
RELATIONS = ("dep", "obj", "nmod")


@pytest.fixture(scope="module")
def script():
    return load_script("correction")


def run(script, monkeypatch, capsys, *argv: str) -> tuple[int, str]:
    """``correction.py argv``: (exit code, 0 if none; stderr)."""
    monkeypatch.setattr(sys, "argv", ["correction.py", *argv])
    try:
        script.main()
    except SystemExit as stop:
        return stop.code, capsys.readouterr().err
    return 0, capsys.readouterr().err


def test_jackknife_nested_parses_fold_j_for_outer_k_with_neither(script, tmp_path,
                                                                monkeypatch, capsys,
                                                                train_calls):
    """One parser per pair of folds, trained on the third fold's documents only; every train
    sentence of fold j is written once for each outer fold k ≠ j, parsed by the parser of
    {j, k}, with both folds in its comments."""
    learner_folder(tmp_path)
    out = tmp_path / "nested.conllu"
    code, err = run(script, monkeypatch, capsys, "jackknife", "--data", str(tmp_path),
                    "--folds", "3", "--epochs", "1", "--split", "train", "--nested",
                    "--work", str(tmp_path / "jk"), "-o", str(out))
    assert code == 0
    seen = {tuple(call["info"]["nested_folds"]): {s.sent_id.rsplit("-", 1)[0]
                                                  for s in call["train_sents"]}
            for call in train_calls}
    assert seen == {(0, 1): {"docC"}, (0, 2): {"docB"}, (1, 2): {"docA", "docD"}}
    learner = list(script.read_file(tmp_path / "en_esl-ud-train.conllu"))
    trees = list(script.read_file(out))
    want = [(s.sent_id, str(FOLD_OF[s.sent_id.rsplit("-", 1)[0]]), str(k))
            for k in range(3) for s in learner if FOLD_OF[s.sent_id.rsplit("-", 1)[0]] != k]
    assert [(t.sent_id, t.comment("jackknife_fold"), t.comment("jackknife_outer_fold"))
            for t in trees] == want
    parsers = {pair: script.ParserModel.load(tmp_path / "jk" / f"fold{pair[0]}-{pair[1]}")
               for pair in seen}
    by_id = {s.sent_id: s for s in learner}
    for t in trees:
        pair = sorted((int(t.comment("jackknife_fold")), int(t.comment("jackknife_outer_fold"))))
        assert bare(t) == script.parse(parsers[tuple(pair)], by_id[t.sent_id], 1).text()
    # --nested with 2 folds, or with --tags: one line, exit 2
    code, err = run(script, monkeypatch, capsys, "jackknife", "--data", str(tmp_path),
                    "--folds", "2", "--split", "train", "--nested", "--work",
                    str(tmp_path / "jk2"), "-o", str(tmp_path / "two.conllu"))
    assert (code, err) == (2, "correction: a nested jackknife needs at least three folds\n")
    code, err = run(script, monkeypatch, capsys, "jackknife", "--data", str(tmp_path),
                    "--folds", "3", "--split", "train", "--nested", "--tags", "--work",
                    str(tmp_path / "jk3"), "-o", str(tmp_path / "tags.conllu"))
    assert code == 2 and err.count("\n") == 1 and "--nested" in err
    # compare --after-trees reads test trees: a nested file's trees are refused
    code, err = run(script, monkeypatch, capsys, "compare", "--data", str(tmp_path),
                    "--folds", "3", "--split", "train", "--before", str(tmp_path / "cv"),
                    "--after", str(tmp_path / "cv"), "--after-trees", str(out),
                    "--edit-cost", "0.2", "-o", str(tmp_path / "c.json"))
    assert code == 2 and "jackknife_outer_fold" in err and err.count("\n") == 1


def nested_file(script, data, path, fold_of=FOLD_OF, skip: str = "", own: str = "") -> dict:
    """A hand-made ``jackknife --nested`` file of the train sentences on chained trees (every
    word headed by the next: unlike the gold trees; every non-root word's relation that of
    its outer fold k in :data:`RELATIONS`), without the tree of ``skip`` for outer fold 1,
    and with sentence ``own``'s tree for outer fold 1 said to be of its own fold 1 (a bad
    file); the trees by outer fold and sent_id."""
    trees: dict[int, dict] = {0: {}, 1: {}, 2: {}}
    learner = list(script.read_file(data / "en_esl-ud-train.conllu"))
    out = []
    for k in range(3):
        for s in learner:
            fold = fold_of[s.sent_id.rsplit("-", 1)[0]]
            if (fold == k and s.sent_id != own) or (k == 1 and s.sent_id == skip):
                continue
            t = chained(dataclasses.replace(s, comments=list(s.comments)))
            t = with_arcs(t, {w.id: (w.head, "root" if w.head == 0 else RELATIONS[k])
                              for w in t.words if not w.is_punct})
            t.set_comment("jackknife_folds", "3")
            t.set_comment("jackknife_fold", str(fold))
            t.set_comment("jackknife_outer_fold", str(k))
            trees[k][s.sent_id] = t
            out.append(t)
    script.write_file(out, path)
    return trees


@pytest.mark.parametrize("extra", [False, True])
def test_cv_train_trees_trains_fold_k_on_its_outer_trees(script, tmp_path, monkeypatch, capsys,
                                                         extra):
    """cv --train-trees: fold k's learner model trains on the outer-fold-k trees of the other
    folds' learner sentences (not on another outer fold's tree of the same sentence, parsed by
    a parser that saw fold k), and its corrector on the pairs with both sides on those trees
    (the correction's punctuation read on the learner's tree), not on the gold trees; with
    --extra, the punctuation-only pairs too."""
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    if extra:
        punctuation_only_files(data)
    trees = nested_file(script, data, tmp_path / "nested.conllu")
    learners: list[list] = []
    correctors: list[tuple[list, list]] = []
    real_fit, real_train = script.fit_train, script.train

    def spied_fit(own, *args, **more):
        learners.append(list(own))
        return real_fit(own, *args, **more)

    def spied_train(learner, originals, corrected, *args, **more):
        correctors.append((list(originals), list(corrected)))
        return real_train(learner, originals, corrected, *args, **more)

    monkeypatch.setattr(script, "fit_train", spied_fit)
    monkeypatch.setattr(script, "train", spied_train)
    gold = {s.sent_id: s for s in script.read_file(data / "en_esl-ud-train.conllu")}
    run_cv(script, monkeypatch, data, tmp_path / "cv", tmp_path / "cv.json", "--folds", "3",
           "--split", "train", "--train-trees", str(tmp_path / "nested.conllu"),
           "--correctors-only", *(["--extra"] if extra else []))
    assert len(learners) == len(correctors) == 3

    def others(k: int, sent_id: str) -> list[tuple[str, ...]]:
        """The relations of the other outer folds' trees of ``sent_id``."""
        return [to_slots(trees[j][sent_id]).deprels for j in range(3)
                if j != k and sent_id in trees[j]]

    for k in range(3):
        mine = {i for i in gold if FOLD_OF[i.rsplit("-", 1)[0]] != k}
        assert {ss.sent_id for ss in learners[k]} == mine
        assert all(ss.heads == to_slots(trees[k][ss.sent_id]).heads
                   != to_slots(gold[ss.sent_id]).heads for ss in learners[k])
        for ss in learners[k]:
            assert ss.deprels == to_slots(trees[k][ss.sent_id]).deprels
            assert others(k, ss.sent_id) and ss.deprels not in others(k, ss.sent_id)
        originals, corrected = correctors[k]
        assert {ss.sent_id for ss in originals} == {i for i in mine
                                                    if extra or not i.endswith("-x")}
        for o, c in zip(originals, corrected):
            assert o.heads == c.heads == to_slots(trees[k][o.sent_id]).heads
            assert o.deprels == c.deprels == to_slots(trees[k][o.sent_id]).deprels
            assert o.deprels not in others(k, o.sent_id)
            if not o.sent_id.endswith("-x"):
                assert c.slots == to_slots(script.with_words(
                    next(g for g in script.read_file(data / "en_cesl-ud-train.conllu")
                         if g.sent_id == o.sent_id), gold[o.sent_id])).slots
    record = script.read_record(tmp_path / "cv" / "fold0" / "learner")["record"]
    assert record["train_trees"] == str(tmp_path / "nested.conllu")
    # the same work folder without --train-trees (gold trees): refused, one line
    common = ["cv", "--data", str(data), "--folds", "3", "--split", "train", "--weight", "1",
              "--copy", "2", "--reference", "learner", "--iterations", "2",
              "--learner-iterations", "2", "--grammar", "grammars/en.rules", "-o",
              str(tmp_path / "x.json")]
    code, err = run(script, monkeypatch, capsys, *common, "--work", str(tmp_path / "cv"),
                    "--correctors-only")
    assert code == 2 and err.count("\n") == 1 and "trained on the trees of" in err


@pytest.mark.parametrize("bad, says", [
    ({"skip": "docA-r1"}, "no tree of sentence docA-r1 for outer fold 1"),
    ({"own": "docB-p0"}, "(sent_id docB-p0): not parsed for an outer fold of 3"),
    ({"fold_of": {**FOLD_OF, "docC": 1}}, "(sent_id docC-r0): not parsed for an outer fold"),
    ({"mangle": "twice"}, "(sent_id docB-r0): a second tree for outer fold 0"),
    ({"mangle": "stranger"}, "(sent_id docZ-r0): not a learner sentence of train"),
    ({"mangle": "tokens"}, "(sent_id docB-r0): not a learner sentence of train (other tokens)"),
    ({}, "give --correctors-only or --learners-only")])
def test_cv_train_trees_refuses_a_file_of_other_sentences(script, tmp_path, monkeypatch, capsys,
                                                          bad, says):
    """A tree missing, one for the sentence's own fold, of another fold than its document's,
    given twice for an outer fold, of no learner sentence or with other tokens; or cv going
    on to train the CRFs: one line, exit 2, nothing trained."""
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    path = tmp_path / "nested.conllu"
    nested_file(script, data, path, **{key: v for key, v in bad.items() if key != "mangle"})
    text = path.read_text(encoding="utf-8")
    first = text[:text.index("\n\n") + 2]  # docB-r0's tree for outer fold 0
    if bad.get("mangle") == "twice":
        text += first
    elif bad.get("mangle") == "stranger":
        text = text.replace("# sent_id = docB-r0\n", "# sent_id = docZ-r0\n", 1)
    elif bad.get("mangle") == "tokens":
        line = next(ln for ln in first.split("\n") if ln[:1].isdigit())
        cols = line.split("\t")
        text = text.replace(line, "\t".join(cols[:1] + ["Zzz"] + cols[2:]), 1)
    path.write_text(text, encoding="utf-8")
    code, err = run(script, monkeypatch, capsys, "cv", "--data", str(data), "--folds", "3",
                    "--split", "train", "--weight", "1", "--train-trees",
                    str(tmp_path / "nested.conllu"), "--work", str(tmp_path / "cv"),
                    *(["--correctors-only"] if bad else []), "-o", str(tmp_path / "x.json"))
    assert code == 2 and err.count("\n") == 1 and says in err
    assert not (tmp_path / "cv").exists()


@pytest.mark.parametrize("bad, says", [
    ("nested", "(sent_id docB-r0): a tree for jackknife_outer_fold 0 (a jackknife --nested"),
    ("twice", "(sent_id docA-r0): a second tree of sentence docA-r0")])
def test_read_trees_refuses_a_nested_file_or_a_sentence_twice(script, tmp_path, capsys, bad,
                                                              says):
    """The plain training trees of ``table``/``crossfit --train-trees`` (:func:`read_trees`,
    with no folds to check): a ``jackknife --nested`` file, or a sentence given two trees, is
    refused in one line naming the file and sentence, rather than each sentence's last tree
    kept."""
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    path = tmp_path / "trees.conllu"
    if bad == "nested":
        nested_file(script, data, path)
    else:
        learner = list(script.read_file(data / "en_esl-ud-train.conllu"))
        script.write_file(learner + learner[:1], path)
    with pytest.raises(SystemExit) as stop:
        script.read_trees(str(path), script.learner_sentences(data, ["train"]))
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and str(path) in err and says in err


def nested_cv(script, tmp_path) -> list[str]:
    """A learner folder ``tmp_path``/learner with :func:`nested_file`'s trees in
    ``tmp_path``/nested.conllu; the arguments of a small ``cv --correctors-only`` over it into
    ``tmp_path``/cv, without ``--train-trees``."""
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    nested_file(script, data, tmp_path / "nested.conllu")
    return ["cv", "--data", str(data), "--folds", "3", "--split", "train", "--weight", "1",
            "--copy", "2", "--reference", "learner", "--iterations", "2",
            "--learner-iterations", "2", "--grammar", "grammars/en.rules", "--work",
            str(tmp_path / "cv"), "--correctors-only", "-o", str(tmp_path / "x.json")]


@pytest.mark.parametrize("first, then", [(True, False), (False, True)])
def test_cv_corrector_refuses_a_folder_of_other_training_trees(script, tmp_path, monkeypatch,
                                                               capsys, first, then):
    """A work folder's correctors trained on other trees than asked (nested trees, then gold;
    or gold, then nested), their learner models removed so that only the corrector's record
    can tell: refused in one line, exit 2, naming fold 0's corrector."""
    common = nested_cv(script, tmp_path)
    trees = ["--train-trees", str(tmp_path / "nested.conllu")]
    assert run(script, monkeypatch, capsys, *common, *(trees if first else []))[0] == 0
    for fold in range(3):
        shutil.rmtree(tmp_path / "cv" / f"fold{fold}" / "learner")
    code, err = run(script, monkeypatch, capsys, *common, *(trees if then else []))
    assert code == 2 and err.count("\n") == 1
    assert f"{tmp_path / 'cv' / 'fold0' / 'correct'}: trained with train trees" in err


@pytest.mark.parametrize("kept", ["learner", "correct"])
def test_cv_refuses_a_folder_of_the_same_path_regenerated(script, tmp_path, monkeypatch, capsys,
                                                          kept):
    """The nested file rewritten at the same path with other trees (one relation changed): a
    work folder trained on the old file is refused in one line, exit 2, by its learner models'
    records, or, these removed, by its correctors' (the digest of each fold's trees)."""
    path = tmp_path / "nested.conllu"
    common = [*nested_cv(script, tmp_path), "--train-trees", str(path)]
    assert run(script, monkeypatch, capsys, *common)[0] == 0
    lines = path.read_text(encoding="utf-8").split("\n")
    first = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    cols = lines[first].split("\t")
    cols[7] = "dep" if cols[7] != "dep" else "nsubj"
    lines[first] = "\t".join(cols)
    path.write_text("\n".join(lines), encoding="utf-8")
    if kept == "correct":
        for fold in range(3):
            shutil.rmtree(tmp_path / "cv" / f"fold{fold}" / "learner")
    code, err = run(script, monkeypatch, capsys, *common)
    assert code == 2 and err.count("\n") == 1 and "digest" in err
    assert str(tmp_path / "cv" / "fold0" / kept) in err


@pytest.mark.parametrize("kept", ["learner", "correct"])
def test_cv_reuses_a_folder_of_the_same_trees_named_another_way(script, tmp_path, monkeypatch,
                                                                capsys, kept):
    """The nested file named another way (``DIR/./nested.conllu``): the same trees by their
    digest, so a work folder trained on them is reused, nothing trained again, whether its
    learner models' records or, these removed, its correctors' are read."""
    common = nested_cv(script, tmp_path)
    assert run(script, monkeypatch, capsys, *common, "--train-trees",
               str(tmp_path / "nested.conllu"))[0] == 0
    if kept == "correct":
        for fold in range(3):
            shutil.rmtree(tmp_path / "cv" / f"fold{fold}" / "learner")
    else:
        monkeypatch.setattr(script, "fit_train", None)  # not called: the learner models reused
    monkeypatch.setattr(script, "train", None)  # not called: the correctors reused
    assert run(script, monkeypatch, capsys, *common, "--train-trees",
               f"{tmp_path}/./nested.conllu")[0] == 0
