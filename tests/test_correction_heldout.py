"""scripts/correction.py heldout on a hand-made learner folder (no FCE text): the partition of
the outside scripts without TLE sentences, models trained on TLE data only, the cost choice."""
import json
import sys
from pathlib import Path

import pytest
from learner_pairs import PLAIN, RELATIVE, conll, sentences
from script_module import load_script
from test_correction_cv import ROOT, learner_folder, punctuation_only_files

from fstpunct.apps.correction import noisy
from fstpunct.apps.correction.calibrate import Trial
from fstpunct.apps.correction.model import CorrectionModel
from fstpunct.model.store import read_record

# outside scripts: (FCE file, script, its TLE document or None, sentences)
SCRIPTS = [("train", "TRd", None, 2), ("train", "TRa", "docA", 2), ("dev", "TRb", None, 1),
           ("test", "TRe", None, 2), ("train", "TRc", None, 1), ("test", "TRf", "docF", 1),
           ("dev", "TRg", None, 1)]


def outside(words, sent_id: str, script: str, doc: str | None, **more) -> str:
    note = f"\n# fce_document = {script}" + (f"\n# tle_document = {doc}" if doc else "")
    return conll(words, sent_id, **more).replace("\n# text", note + "\n# text", 1)


def outside_files(folder: Path) -> None:
    """learner_corpus.py --parser's outside files: every sentence a relative clause without
    its commas, corrected with them (isomorphic); one more learner sentence of TRd (not in a
    pair); one punctuation-only pair, of TRh (a script without TLE sentences, in no part)."""
    for split in ("train", "dev", "test"):
        mine = [(s, d, n) for f, s, d, n in SCRIPTS if f == split]
        learner = "".join(outside(RELATIVE, f"{s}-{k}", s, d, drop=(1, 4))
                          for s, d, n in mine for k in range(n))
        corrected = "".join(outside(RELATIVE, f"{s}-{k}", s, d).replace(
            "\n# text", "\n# fce_punct_edits = 1:MP 3:MP\n# text", 1)
            for s, d, n in mine for k in range(n))
        punctuation_only = ""
        if split == "train":
            learner += outside(PLAIN, "TRd-9", "TRd", None)
        if split == "dev":
            learner += outside(RELATIVE, "TRh-0", "TRh", None, drop=(1, 4))
            punctuation_only = outside(RELATIVE, "TRh-0", "TRh", None).replace(
                "\n# text", "\n# fce_punct_edits = 1:MP 3:MP\n# text", 1)
        for kind, text in (("esl", learner), ("cesl", corrected), ("pesl", punctuation_only)):
            (folder / f"en_x{kind}-ud-{split}.conllu").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def script():
    return load_script("correction")


@pytest.fixture
def data(tmp_path):
    folder = tmp_path / "learner"
    folder.mkdir()
    learner_folder(folder)
    punctuation_only_files(folder)
    outside_files(folder)
    return folder


def test_parts_are_the_scripts_without_tle_sentences_dealt_by_name(script, data, capsys):
    parts = script.outside_parts(data)
    ids = [[s.sent_id for s, _ in part] for part in parts]
    # scripts without TLE sentences, sorted: TRb TRc TRd TRe TRg -> parts 0 1 2 0 1; TRh's
    # punctuation-only pair in none
    assert [sorted(i) for i in ids] == [["TRb-0", "TRe-0", "TRe-1"], ["TRc-0", "TRg-0"],
                                        ["TRd-0", "TRd-1"]]
    assert all(g.sent_id == s.sent_id for part in parts for s, g in part)
    assert script.outside_parts(data) == parts  # deterministic
    assert not set(ids[0]) & {i for part in ids[1:] for i in part}  # calibration ∩ test = ∅
    # a sentence of a script without TLE sentences but no # fce_document: one line, exit 2
    path = data / "en_xesl-ud-dev.conllu"
    path.write_text(path.read_text(encoding="utf-8").replace("# fce_document = TRb\n", ""),
                    encoding="utf-8")
    script.sentences_of.cache_clear()
    try:
        with pytest.raises(SystemExit) as stop:
            script.outside_parts(data)
    finally:
        script.sentences_of.cache_clear()
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert "TRb-0 has no # fce_document" in err


def test_calibration_cost_ties_go_nearest_then_higher(script):
    def trials(*aeds):
        return [Trial(c, a, 0, 0, 0, 0.0) for c, a in aeds]
    assert script.calibration_cost(trials((0.0, 0.3), (0.1, 0.2), (0.5, 0.25)), 0.25) == 0.1
    assert script.calibration_cost(trials((0.2, 0.2), (0.3, 0.2), (0.6, 0.2)), 0.25) == 0.3
    assert script.calibration_cost(trials((0.2, 0.2), (0.35, 0.2)), 0.25) == 0.2
    assert script.calibration_cost(trials((0.25, 0.2), (0.3, 0.2)), 0.25) == 0.25
    # 0.1 and 0.4 are both 3 steps from 0.25, though 0.25 - 0.1 > 0.4 - 0.25 in floating point
    assert script.calibration_cost(trials((0.1, 0.2), (0.4, 0.2)), 0.25) == 0.4


def run_heldout(script, monkeypatch, data: Path, work: Path, out: Path, *more: str) -> None:
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "heldout", "--data", str(data), "--weight", "4", "--keep-weight", "2",
        "--copy", "2", "--reference", "learner", "--iterations", "2",
        "--learner-iterations", "2", "--edit-cost", "0.25", "--support", "0.001",
        "--decoder", "learner", "--grammar", str(ROOT / "grammars" / "en.rules"),
        "--work", str(work), "-o", str(out), *more])
    script.main()


def test_heldout_refuses_a_cost_off_the_sweep_before_training(script, data, tmp_path,
                                                              monkeypatch, capsys):
    work = tmp_path / "heldout"
    with pytest.raises(SystemExit) as e:
        run_heldout(script, monkeypatch, data, work, tmp_path / "h.json", "--edit-cost", "0.22")
    assert e.value.code == 2 and capsys.readouterr().err == (
        "correction: heldout: --edit-cost must be one of the sweep's costs 0, 0.05, ..., 1, "
        "not 0.22\n")
    assert not work.exists()


def test_heldout_trains_on_tle_data_only_and_scores_the_parts(script, data, tmp_path,
                                                             monkeypatch, capsys):
    trained = {}

    def spy(name, function):
        def spied(sentences, *rest, **kw):
            trained[name] = [s.sent_id for s in sentences]
            return function(sentences, *rest, **kw)
        monkeypatch.setattr(script, name, spied)
    for name, function in (("fit_train", script.fit_train), ("train_crfs", script.train_crfs)):
        spy(name, function)
    corrector = script.train

    def corrector_spy(learner, originals, *rest, **kw):
        trained["corrector"] = [s.sent_id for s in originals]
        trained["vocabulary"] = [s.sent_id for s in kw["vocabulary"]]
        return corrector(learner, originals, *rest, **kw)
    monkeypatch.setattr(script, "train", corrector_spy)
    work, out = tmp_path / "heldout", tmp_path / "heldout.json"
    run_heldout(script, monkeypatch, data, work, out, "--extra")
    # every TLE learner sentence (6 documents, 5 each), every TLE pair (4 isomorphic and 1
    # punctuation-only a document), no sentence outside the TLE
    assert len(trained["fit_train"]) == len(trained["vocabulary"]) == 30
    assert len(trained["corrector"]) == len(trained["train_crfs"]) == 30
    assert not any(i.startswith("TR") for ids in trained.values() for i in ids)
    assert read_record(work / "learner")["record"]["sentences"] == 30
    assert CorrectionModel.load(work / "correct").record["pairs"] == 30
    assert CorrectionModel.load(work / "correct").record["fold"] is None
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["calibration"]["pairs"] == 3 and result["test"]["pairs"] == 4
    assert sorted(result["test"]["sent_ids"]) == ["TRc-0", "TRd-0", "TRd-1", "TRg-0"]
    assert result["calibrated_cost"] in script.COSTS
    rows = {r["system"]: r for r in result["test"]["rows"]}
    assert rows["keep"]["edit_counts"] == [[0] * 4, [0] * 4, [2] * 4]  # two MP edits a pair
    assert {"correction", script.CALIBRATED, script.CRF, script.KEEP, script.AGREED} <= set(rows)
    assert rows["keep"]["by_code"] == {"MP": [0, 8]} and rows["keep"]["aed"] == 2.0
    assert rows["keep"]["p_aed_vs_keep"] == 1.0 and 0 <= rows["correction"]["p_aed_vs_keep"] <= 1
    printed = capsys.readouterr().out
    assert "### test part (4 pairs of 3 FCE scripts, 8 gold punctuation edits" in printed
    assert "no document held out: corrector trained on 30 pairs" in printed
    assert "fold" not in printed
    # the same folder with other settings is refused in one line
    with pytest.raises(SystemExit) as stop:
        run_heldout(script, monkeypatch, data, work, out, "--extra", "--copy", "4")
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "copy 2.0, not 4.0" in err
    # so is the same folder with another --data (a copy of the same files)
    other = tmp_path / "other"
    other.mkdir()
    for path in data.iterdir():
        (other / path.name).write_bytes(path.read_bytes())
    with pytest.raises(SystemExit) as stop:
        run_heldout(script, monkeypatch, other, work, out, "--extra")
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and f"data {str(data)!r}" in err
    # and a folder of models without heldout.json (a cv fold, an old run) is not adopted
    (work / "heldout.json").unlink()
    with pytest.raises(SystemExit) as stop:
        run_heldout(script, monkeypatch, data, work, out, "--extra")
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "without heldout.json" in err


def test_written_edits_right_or_wrong_inner_or_final(script):
    learner, gold = sentences(conll(RELATIVE, "r", drop=(1, 4)) + conll(RELATIVE, "r"))
    # one comma of the two restored (right), the final period dropped (wrong)
    pred, = sentences(conll(RELATIVE, "r", drop=(4, 7)))
    rows = script.written_edits([learner], [gold], [pred])
    assert [(r["slot"], r["kind"], r["learner"], r["written"], r["right"], r["final"])
            for r in rows] == [(1, "insert", "", ",", True, False),
                               (5, "delete", ".", "", False, True)]


def test_units_describe_endings_and_gold_edits(script):
    def ended(mark: str | None, sent_id: str):  # PLAIN with its final mark replaced or dropped
        rows = PLAIN[:3] + ([(mark, 2, "punct")] if mark else [])
        return sentences(conll(rows, sent_id))[0]
    pairs = [(ended(",", "a"), ended(",", "a")),  # a final comma kept
             (ended(",", "b"), ended(".", "b")),  # a final comma corrected
             (ended(None, "c"), ended(".", "c")),  # a final mark added
             (ended("!", "d"), ended("!", "d")),
             (ended("”", "e"), ended("”", "e")),
             (sentences(conll(RELATIVE, "f", drop=(1, 4)))[0],
              sentences(conll(RELATIVE, "f"))[0])]  # two commas added inside
    r = script.described(pairs)
    assert r["units"] == 6 and r["tokens_per_unit"] == pytest.approx((4 * 4 + 3 + 6) / 6)
    assert r["ends"] == pytest.approx({"`,`": 100 * 2 / 6, "no mark": 100 / 6,
                                       "`.` `?` `!`": 100 * 2 / 6, "other mark": 100 / 6})
    assert r["comma_kept"] == 50.0
    assert r["gold_edits"] == {"final": 2, "inner": 2}


def test_units_of_the_tle_pairs_and_the_parts_with_a_heldout_runs_edits(script, data,
                                                                       tmp_path, monkeypatch,
                                                                       capsys):
    parts = script.outside_parts(data)
    edits = {"calibration": [{"final": True, "right": False}, {"final": False, "right": True}],
             "test": [{"final": False, "right": False}]}
    run = {"edit_cost": 0.25} | {
        name: {"sent_ids": [s.sent_id for s, _ in pairs], "edits": edits[name]}
        for name, pairs in (("calibration", parts[0]), ("test", parts[1] + parts[2]))}
    (tmp_path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    out = tmp_path / "units.json"
    monkeypatch.setattr(sys, "argv", ["correction.py", "units", "--data", str(data),
                                      "--heldout", str(tmp_path / "run.json"), "-o", str(out)])
    script.main()
    result = json.loads(out.read_text(encoding="utf-8"))
    # every hand-made pair: a relative clause whose two commas the correction adds (inside)
    assert [result[k]["units"] for k in ("TLE", "calibration", "test")] == [24, 3, 4]
    assert result["test"]["gold_edits"] == {"final": 0, "inner": 8}
    assert result["calibration"]["heldout_edits"] == {"final": [0, 1], "inner": [1, 1]}
    assert result["test"]["heldout_edits"] == {"final": [0, 0], "inner": [0, 1]}
    assert "heldout_edits" not in result["TLE"] and "| TLE | 24 |" in capsys.readouterr().out
    # a run of other pairs, or without edit lists: one line, exit 2
    for changed, says in ((run | {"test": run["calibration"]}, "its test part is not these"),
                          (run | {"test": {"sent_ids": run["test"]["sent_ids"]}},
                           "no edit list")):
        (tmp_path / "run.json").write_text(json.dumps(changed), encoding="utf-8")
        with pytest.raises(SystemExit) as stop:
            script.main()
        err = capsys.readouterr().err
        assert stop.value.code == 2 and says in err and err.count("\n") == 1


def run_channel(script, monkeypatch, data: Path, work: Path, out: Path) -> None:
    monkeypatch.setattr(sys, "argv", ["correction.py", "channel-heldout", "--data", str(data),
                                      "--work", str(work), "-o", str(out)])
    script.main()


def test_channel_heldout_counts_tle_pairs_only_on_heldouts_parts(script, data, tmp_path,
                                                                 monkeypatch, capsys):
    """channel-heldout: the error model counted on the TLE pairs heldout --extra's corrector
    trained on (spied: no outside sentence), the λ chosen on heldout's calibration part and
    scored on its test part; a corrector trained otherwise is refused."""
    work = tmp_path / "heldout"
    run_heldout(script, monkeypatch, data, work, tmp_path / "heldout.json", "--extra")
    counted: list[str] = []
    real = noisy.ErrorModel.counted

    def spy(cls, pairs):
        pairs = list(pairs)
        counted.extend(x.place for x, _ in pairs)
        return real(pairs)
    monkeypatch.setattr(noisy.ErrorModel, "counted", classmethod(spy))
    out = tmp_path / "channel.json"
    run_channel(script, monkeypatch, data, work, out)
    # heldout's corrector's pairs: 4 isomorphic and 1 punctuation-only of each of 6 documents
    assert len(counted) == 30 and not any("sent_id TR" in place for place in counted)
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["error_model"]["pairs"] == 30
    parts = script.outside_parts(data)
    assert result["calibration"]["sent_ids"] == [s.sent_id for s, _ in parts[0]]
    assert result["test"]["sent_ids"] == [s.sent_id for s, _ in parts[1] + parts[2]]
    assert result["calibrated_lambda"] in script.LAMBDAS
    calibration = {g["lambda"]: g["aed"] for g in result["calibration"]["lambda_grid"]}
    assert calibration[result["calibrated_lambda"]] == min(calibration.values())
    rows = {r["system"]: r for r in result["test"]["rows"]}
    assert list(rows) == ["keep", script.CHANNEL_BAYES, script.CHANNEL_CALIBRATED]
    assert rows["keep"]["aed"] == 2.0  # two commas left out in each of the 4 test pairs
    test = {g["lambda"]: g["aed"] for g in result["test"]["lambda_grid"]}
    assert rows[script.CHANNEL_BAYES]["aed"] == pytest.approx(test[1.0])
    assert rows[script.CHANNEL_CALIBRATED]["aed"] == pytest.approx(
        test[result["calibrated_lambda"]])
    assert "calibrated: λ" in capsys.readouterr().out
    plain = tmp_path / "plain"
    run_heldout(script, monkeypatch, data, plain, tmp_path / "plain.json")
    with pytest.raises(SystemExit) as stop:
        run_channel(script, monkeypatch, data, plain, tmp_path / "refused.json")
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "not as heldout --extra" in err
    assert not (tmp_path / "refused.json").exists()
