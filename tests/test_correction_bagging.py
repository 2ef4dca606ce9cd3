"""The bagged correction model: bootstrap resamples, the majority vote (hand-worked cases and
a brute-force count), cv --bags and compare --after-bags on hand-made pairs."""
import json
import random
import shutil
import sys
from dataclasses import replace

import numpy as np
import pytest
from learner_pairs import PLAIN, RELATIVE, conll, sentences
from script_module import load_script
from test_correction_agree import held_out_runs
from test_correction_cv import ROOT

from fstpunct.apps.correction.bagging import Bagged, resampled, voted
from fstpunct.apps.correction.correct import Prepared, decided, reads_alike
from fstpunct.apps.correction.model import CorrectionModel, Decoding
from fstpunct.apps.restoration import marks
from fstpunct.apps.restoration.metrics import score
from fstpunct.apps.restoration.strip import insert
from fstpunct.errors import InputError
from fstpunct.ud.slots import to_slots

QUOTES = (("“", "”"),)


def ins(*marks_: str, head: int = 1) -> tuple:
    return tuple((m, head) for m in marks_)


def test_resampled_is_a_seeded_bootstrap_of_its_stream():
    draw = resampled(50, 0, 1, 2)
    assert len(draw) == 50 and draw == sorted(draw) and all(0 <= i < 50 for i in draw)
    assert draw == resampled(50, 0, 1, 2)  # the same stream, the same resample
    others = [resampled(50, *s) for s in ((1, 1, 2), (0, 0, 2), (0, 1, 3))]
    assert all(o != draw for o in others)
    assert len(set(draw)) < 50  # with replacement: some item drawn twice (here)
    with pytest.raises(ValueError):
        resampled(0, 0, 0, 0)
    # a seed is one 32-bit word: 2**32 would shift into fold's word (seed 0, fold 1's stream)
    for seed, refused in ((-1, "at least 0, not -1"), (2 ** 32, r"below 2\*\*32, not 4294967296")):
        with pytest.raises(InputError, match=f"^the bag seed must be {refused}$"):
            resampled(50, seed, 0, 0)
    # the purpose word: (seed, 0, 0) is not plain default_rng(seed)'s stream (sign flips')
    plain = sorted(int(i) for i in np.random.default_rng(0).integers(0, 50, size=50))
    assert resampled(50, 0, 0, 0) != plain


def test_vote_by_hand():
    own = [ins(), ins(","), ins(".", head=2)]
    proposals = [[ins(), ins(".", head=3), ins("!")],
                 [ins(","), ins(".", head=4), ins("?")],
                 [ins(), ins(","), ins(".")]]
    # slot 0: ',' by one of three: kept; slot 1: '.' by two: written, with the first such
    # proposal's heads; slot 2: '!', '?', '.' once each: no majority, the learner's '.' kept,
    # with the heads of the proposal that writes it
    assert voted(own, proposals, QUOTES) == [ins(), ins(".", head=3), ins(".")]
    # two of four is no majority
    assert voted(own, proposals + [[ins(), ins(","), ins("!")]], QUOTES) == [
        ins(), ins(","), ins(".")]
    # no proposal writes the learner's string and none has a majority: the learner's own
    assert voted(own[2:], [p[2:] for p in proposals[:2]], QUOTES) == own[2:]
    # one proposal decides alone
    assert voted(own, proposals[:1], QUOTES) == proposals[0]
    with pytest.raises(ValueError):
        voted(own, [], QUOTES)


def test_paired_marks_vote_together():
    own = [ins("“"), ins(), ins("”")]
    both = [ins(), ins(), ins()]
    opening = [ins(), ins(), ins("”")]
    # slot by slot, two of three delete the opening quote but only one the closing one: a
    # half-edited pair; together, no tuple has a majority, so both stay
    assert voted(own, [both, opening, own], QUOTES) == own
    assert voted(own, [both, opening, both], QUOTES) == both
    # a slot without a paired mark still votes alone beside the group
    own2 = own + [ins(",")]
    props = [p + [ins(".")] for p in (both, opening, own)]
    assert voted(own2, props, QUOTES) == own + [ins(".")]


def test_vote_against_a_brute_force_count():
    rng = random.Random(3)
    strings = [(), (",",), (".",), (",", "”"), ("“",)]
    for _ in range(300):
        n, b = rng.randint(1, 4), rng.randint(1, 5)
        own = [ins(*rng.choice(strings)) for _ in range(n)]
        proposals = [[ins(*rng.choice(strings), head=2) for _ in range(n)] for _ in range(b)]
        got = voted(own, proposals, QUOTES)
        group = [i for i in range(n) if {"“", "”"} & {m for x in [own] + proposals
                                                     for m in marks(x[i])}]
        units = ([group] if group else []) + [[i] for i in range(n) if i not in group]
        for unit in units:
            tally = {}
            for p in proposals:
                key = tuple(marks(p[i]) for i in unit)
                tally[key] = tally.get(key, 0) + 1
            winners = [k for k, c in tally.items() if c * 2 > b]
            want = winners[0] if winners else tuple(marks(own[i]) for i in unit)
            assert tuple(marks(got[i]) for i in unit) == want
            writers = [p for p in proposals if tuple(marks(p[i]) for i in unit) == want]
            source = writers[0] if writers else own  # the insertions, heads included
            assert [got[i] for i in unit] == [source[i] for i in unit]


def test_bagged_of_one_model_is_that_model(hand_corrector):
    prep = Prepared.of(hand_corrector, sentences(
        conll(RELATIVE, "r0", drop=(1, 4)) + conll(RELATIVE, "r1") + conll(PLAIN, "p0")))
    for decoding in (Decoding(0.2, 0.001), Decoding(0.0, 0.001, decoder="learner")):
        alone = prep.corrected_with(decoding)
        for bags in (1, 3):
            assert [s.text() for s in Bagged([prep] * bags).corrected_with(decoding)] == \
                [s.text() for s in alone]


def test_prepared_keeps_the_readings_only_when_asked(hand_corrector):
    """Prepared's readings of T_e′ (what ``slots`` reads) are kept only with keep_readings:
    the model's readings of the sentences; the distributions are the same either way."""
    words = sentences(conll(PLAIN, "p0") + conll(RELATIVE, "r0"))
    plain = Prepared.of(hand_corrector, words)
    kept = Prepared.of(hand_corrector, words, keep_readings=True)
    assert plain.readings is None
    assert Prepared.sharing([hand_corrector], words)[0].readings is None
    assert kept.readings == hand_corrector.readings_of([to_slots(s) for s in words])
    assert Prepared.sharing([hand_corrector], words, keep_readings=True)[0].readings == \
        kept.readings
    assert [[d.probs.tolist() for d in x] for x in plain.dists] == \
        [[d.probs.tolist() for d in x] for x in kept.dists]


def test_sharing_refuses_no_model_and_a_model_that_reads_otherwise(hand_corrector, tmp_path):
    """Prepared.sharing reads T_e′ once, by the first model's learner and readings: it takes
    a model loaded twice (equal, not the same object: the bags of a cv fold) and refuses no
    model, other drawn readings (count or stream) and another learner model (θ moved by
    1e-9, other settings; the trained model beside its loaded copy, whose channel went through
    the .fst file's weights, also differs in φ's last bits), before reading a sentence."""
    words = sentences(conll(PLAIN, "p0") + conll(RELATIVE, "r0"))
    with pytest.raises(InputError, match="^Prepared.sharing: no correction model"):
        Prepared.sharing([], words)
    folder = hand_corrector.save(tmp_path / "model")
    first, loaded = CorrectionModel.load(folder), CorrectionModel.load(folder)
    assert loaded.learner is not first.learner
    alike = Prepared.sharing([first, loaded], words)
    assert [p.model for p in alike] == [first, loaded]
    assert [s.text() for s in alike[1].corrected_with(Decoding(0.0, 0.001))] == \
        [s.text() for s in Prepared.of(loaded, words).corrected_with(Decoding(0.0, 0.001))]
    learner = first.learner
    theta = learner.theta.copy()
    theta[0] += 1e-9
    others = [replace(first, record={**first.record, "readings": 2}),
              replace(first, record={**first.record, "readings_seed": 1}),
              replace(first, learner=replace(learner, theta=theta)),
              replace(first, learner=replace(
                  learner, settings=replace(learner.settings, backoff=0.5))), hand_corrector]
    for other in others:
        assert not reads_alike(first, other)
        with pytest.raises(InputError, match="^correction model 2: its learner model or "
                                             "readings of T_e' are not correction model 0's"):
            Prepared.sharing([first, loaded, other], words)
        with pytest.raises(InputError, match="^c: its learner model or readings of T_e' are "
                                             r"not a's \(sharing reads them once, by a's\)$"):
            Prepared.sharing([first, loaded, other], words, ["a", "b", "c"])


def files(folder):
    """Every file of ``folder``/correct, by its path there: its bytes."""
    root = folder / "correct"
    return {str(f.relative_to(root)): f.read_bytes() for f in root.rglob("*") if f.is_file()}


def test_cv_bags_and_compare_after_bags(tmp_path, monkeypatch, capsys):
    script = load_script("correction")
    data, work, run = held_out_runs(script, monkeypatch, tmp_path)
    trained = []  # what cv's fold correctors were trained with: (args, learner, own, grammar)
    real = script.fold_model

    def spy(args, folder, fold, learner, own, grammar, rest, bag=None, trees=None):
        if bag is None:
            trained.append((args, learner, own, grammar))
        return real(args, folder, fold, learner, own, grammar, rest, bag, trees)
    monkeypatch.setattr(script, "fold_model", spy)
    common = ["--data", str(data), "--folds", "2", "--weight", "1.0", "--copy", "2",
              "--reference", "learner", "--iterations", "2", "--learner-iterations", "2",
              "--edit-cost", "0.2", "--support", "0.001", "--work", str(work),
              "--grammar", str(ROOT / "grammars" / "en.rules")]

    def cv(*more):
        monkeypatch.setattr(sys, "argv", ["correction.py", "cv", *common, *more,
                                          "-o", str(tmp_path / "cv.json")])
        script.main()
    cv("--bags", "3", "--correctors-only")
    out = capsys.readouterr().out
    pooled, helds, fold_of, _ = script.held_out_pairs(
        type("A", (), {"data": str(data), "splits": None, "folds": 2})())
    _, extra = script.pooled_pairs(data, list(script.SPLITS), False)
    rests = []
    for fold in range(2):
        rest = [(s, g) for _, s, g in pooled + extra if fold_of[script._document(s)] != fold]
        rests.append(rest)
        for b in range(3):
            record = CorrectionModel.load(work / f"fold{fold}" / f"bag{b}" / "correct").record
            assert (record["fold"], record["bag"], record["bag_seed"]) == (fold, b, 0)
            assert f"fold {fold}, bag {b} (seed 0): corrector trained on {len(rest)} pairs" in out
    assert "bag" not in CorrectionModel.load(work / "fold0" / "correct").record
    # fold 0's bag 1 trained by hand on the resample it should get (stream 0, fold 0, bag 1):
    # the same files as cv's; bag 0, the fold corrector and bag 1 are three different models
    args, learner, own, grammar = trained[0]
    hand = tmp_path / "hand"
    real(args, hand, 0, learner, own, grammar,
         script.slot_pairs(rests[0][i] for i in resampled(len(rests[0]), 0, 0, 1)), (1, 0))
    assert files(hand) == files(work / "fold0" / "bag1")
    capsys.readouterr()
    assert len({files(work / "fold0" / f)["corrector/attach.npz"]
                for f in ("", "bag0", "bag1")}) == 3
    cv("--bags", "3", "--correctors-only")  # loaded, not trained again
    assert "trained" not in capsys.readouterr().out
    for more, message in ((("--bags", "3", "--bag-seed", "1"), "bag_seed 0, not 1"),  # other
                          (("--bag-seed", "1"), "--bag-seed needs --bags"),  # bags' seed: refused
                          (("--bags", "-1"), "--bags must be at least 0, not -1"),
                          (("--bags", "1", "--bag-seed", "-1"),
                           "cv: --bag-seed must be at least 0, not -1"),
                          (("--bags", "1", "--bag-seed", str(2 ** 32)), f"not {2 ** 32}")):
        with pytest.raises(SystemExit) as e:
            cv(*more, "--correctors-only")
        err = capsys.readouterr().err
        assert e.value.code == 2 and message in err and len(err.strip().splitlines()) == 1
    # a bag of the stream without the purpose word (before the review's mend): refused
    path = work / "fold1" / "bag2" / "correct" / "correction.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**stored, "record": {
        k: v for k, v in stored["record"].items() if k != "bag_purpose"}}), encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        cv("--bags", "3", "--correctors-only")
    err = capsys.readouterr().err
    assert e.value.code == 2 and "bag2/correct: trained with bag_purpose None" in err
    path.write_text(json.dumps(stored), encoding="utf-8")
    with pytest.raises(SystemExit):  # refused before anything is read or trained
        cv("--bags", "1", "--bag-seed", "-1", "--work", str(tmp_path / "fresh"))
    assert not (tmp_path / "fresh").exists()
    capsys.readouterr()

    bagged = run("compare", "bagged.json", "--before", str(work), "--after", str(work),
                 "--after-bags", "3", "--after-decoder", "learner")
    assert (bagged["after_bags"], bagged["bag_seed"]) == (3, 0)
    rows = {r["system"]: r for r in bagged["rows"]}
    plain = run("compare", "plain.json", "--before", str(work), "--after", str(work))
    assert "after_bags" not in plain
    # the same correctors on both sides: every edit kept
    for name, counts in plain["overlap"].items():
        row = {r["system"]: r for r in plain["rows"]}[name]
        assert (counts["kept right"], counts["kept right"] + counts["kept wrong"]) == (
            row["correct"], row["proposed"]) and sum(counts.values()) == row["proposed"]
    assert list(bagged["overlap"]) == ["after (cost 0.2)", "after, nested edit cost"]
    mine = {r["system"]: r for r in plain["rows"]}
    for name in ("keep", "before (cost 0.2)", "before, nested edit cost"):
        assert rows[name]["sentence_edits"] == mine[name]["sentence_edits"]
    # the after side is the vote of each fold's three bagged correctors, by hand
    decoding = Decoding(0.2, 0.001, decoder="learner")
    for fold, held in enumerate(helds):
        preps = [Prepared.of(CorrectionModel.load(work / f"fold{fold}" / f"bag{b}" / "correct"),
                             [pooled[j][1] for j in held]) for b in range(3)]
        pairs = preps[0].model.corrector.attach.symmetric
        made = [insert(t, voted(o, [decided(p.model, p.dists[i], p.own[i], decoding)
                                    for p in preps], pairs))
                for i, (t, o) in enumerate(zip(preps[0].stripped, preps[0].own))]
        assert score([pooled[j][2] for j in held], made).sentence_edits == [
            rows["after (cost 0.2)"]["sentence_edits"][j] for j in held]
    # bags and mixed trees (which compare refuses) are refused by prepared_folds itself, not
    # prepared with the trees' mixture by each fold's first bag alone
    with pytest.raises(ValueError, match="^prepared_folds: bagged correctors read one tree "
                                         "per sentence, not mixed trees$"):
        script.prepared_folds(work, pooled, helds, 3, [pooled])
    for more, message in ((("--after-bags", "4"), "no bag3/correct"),
                          (("--after-bags", "-1"), "--after-bags must be at least 0, not -1"),
                          (("--after-bags", "3", "--platt"), "do not go together")):
        with pytest.raises(SystemExit) as e:
            run("compare", "x.json", "--before", str(work), "--after", str(work), *more)
        err = capsys.readouterr().err
        assert e.value.code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_compare_refuses_a_bag_of_another_fold(tmp_path, monkeypatch, capsys):
    script = load_script("correction")
    data, work, run = held_out_runs(script, monkeypatch, tmp_path)
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "cv", "--data", str(data), "--folds", "2", "--weight", "1.0",
        "--copy", "2", "--reference", "learner", "--iterations", "2",
        "--learner-iterations", "2", "--work", str(work), "--bags", "2", "--correctors-only",
        "--grammar", str(ROOT / "grammars" / "en.rules"),
        "-o", str(tmp_path / "cv.json")])
    script.main()
    swapped = work / "swap"
    (work / "fold1" / "bag1").rename(swapped)
    (work / "fold0" / "bag1").rename(work / "fold1" / "bag1")
    swapped.rename(work / "fold0" / "bag1")
    with pytest.raises(SystemExit) as e:
        run("compare", "x.json", "--before", str(work), "--after", str(work), "--after-bags", "2")
    err = capsys.readouterr().err
    assert e.value.code == 2 and "recorded as fold 1, bag 1" in err
    assert len(err.strip().splitlines()) == 1
    # swapped back, fold 1's bags (both: each agrees with its own fold's bag 0) of another seed
    swapped.mkdir()
    for fold in (0, 1):
        (work / f"fold{fold}" / "bag1").rename(swapped / str(fold))
    for fold in (0, 1):
        (swapped / str(fold)).rename(work / f"fold{1 - fold}" / "bag1")
    run("compare", "x.json", "--before", str(work), "--after", str(work), "--after-bags", "2")
    records = {}
    for b in (0, 1):
        path = work / "fold1" / f"bag{b}" / "correct" / "correction.json"
        records[path] = path.read_text(encoding="utf-8")
        stored = json.loads(records[path])
        stored["record"]["bag_seed"] = 1
        path.write_text(json.dumps(stored), encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        run("compare", "x.json", "--before", str(work), "--after", str(work), "--after-bags", "2")
    err = capsys.readouterr().err
    assert e.value.code == 2 and "fold1/bag0/correct: recorded as fold 1, bag 0, seed 1" in err
    assert "of fold0/bag0's seed 0" in err and len(err.strip().splitlines()) == 1
    for path, text in records.items():  # fold 1's seed back: only the learner is wrong below
        path.write_text(text, encoding="utf-8")

    # a bag whose learner model differs from its fold's first bag's (here in its backoff) or
    # that draws other readings: refused (Prepared.sharing), since compare reads a fold's
    # sentences once for all bags
    said = (f"{work / 'fold0'}: bag1/correct: its learner model or readings of T_e' are not "
            f"bag0/correct's (sharing reads them once, by bag0/correct's)")
    learner = work / "fold0" / "bag1" / "correct" / "learner"
    kept = tmp_path / "kept-learner"
    shutil.copytree(learner, kept)
    stored = json.loads((learner / "model.json").read_text(encoding="utf-8"))
    stored["settings"]["backoff"] += 0.001
    (learner / "model.json").write_text(json.dumps(stored), encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        run("compare", "x.json", "--before", str(work), "--after", str(work), "--after-bags", "2")
    err = capsys.readouterr().err
    assert e.value.code == 2 and said in err
    assert len(err.strip().splitlines()) == 1
    shutil.rmtree(learner)
    shutil.copytree(kept, learner)
    run("compare", "x.json", "--before", str(work), "--after", str(work), "--after-bags", "2")
    capsys.readouterr()  # the learner put back: compared (exit 0), no refusal
    path = work / "fold0" / "bag1" / "correct" / "correction.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["record"]["readings"] = 2
    path.write_text(json.dumps(stored), encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        run("compare", "x.json", "--before", str(work), "--after", str(work), "--after-bags", "2")
    assert e.value.code == 2 and said in capsys.readouterr().err


def test_edit_overlap_by_hand():
    script = load_script("correction")

    def edit(pair, slot, written, right):
        return {"pair": pair, "slot": slot, "written": written, "right": right}
    before = [edit(0, 1, ",", True), edit(0, 2, ".", False), edit(1, 0, ",", True),
              edit(2, 3, "", False), edit(4, 0, ",", False)]
    after = [edit(0, 1, ",", True), edit(0, 2, ",", True),  # slot 2: another string
             edit(2, 3, "", False), edit(3, 0, ".", False), edit(4, 0, ",", False)]
    assert script.edit_overlap(before, after) == {
        "dropped right": 1, "dropped wrong": 1, "added right": 1, "added wrong": 1,
        "kept right": 1, "kept wrong": 2}
    assert script.edit_overlap(after, before) == {
        "dropped right": 1, "dropped wrong": 1, "added right": 1, "added wrong": 1,
        "kept right": 1, "kept wrong": 2}
    assert script.edit_overlap([], after)["added wrong"] == 3
