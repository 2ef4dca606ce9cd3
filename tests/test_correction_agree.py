"""Agreement of a CRF corrector and the correction model: chosen on a cv run's held-out pairs
(least pooled AED, and nested per fold), and added to the table."""
import json
import sys

from script_module import load_script
from test_correction import model  # noqa: F401 (fixture)
from test_correction_cv import cv_then, learner_folder, run_cv


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


def test_agree_over_pooled_splits_after_cv_models_only(tmp_path, monkeypatch, capsys):
    script = load_script("correction")
    data, work = tmp_path / "learner", tmp_path / "cv"
    data.mkdir()
    learner_folder(data)
    run_cv(script, monkeypatch, data, work, tmp_path / "cv.json", "--models-only")
    assert not (tmp_path / "cv.json").exists()  # models only: nothing scored
    assert capsys.readouterr().out.count("models trained") == 2
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "agree", "--data", str(data), "--folds", "2", "--work", str(work),
        "--edit-cost", "0.2", "--support", "0.001", "-o", str(tmp_path / "agree.json")])
    script.main()
    result = json.loads((tmp_path / "agree.json").read_text(encoding="utf-8"))
    rows = {r["system"]: r for r in result["rows"]}
    assert result["splits"] == ["train", "dev", "test"] and len(result["nested_costs"]) == 2
    # the pooled pairs in the splits' order: train's 16, dev's 4, test's 4
    for split, (start, end) in {"train": (0, 16), "dev": (16, 20), "test": (20, 24)}.items():
        mine = {r["system"]: r for r in result["rows_by_split"][split]}
        assert list(mine) == list(rows)
        for name, r in mine.items():
            assert r["sentence_edits"] == rows[name]["sentence_edits"][start:end]
    # the nested edit cost: each fold's pairs decoded at the cost of least AED on the other's
    costs = {c["edit_cost"]: c for c in result["cost_grid"]}
    assert len(costs) == 21 and costs[0.2]["aed"] == rows["correction"]["aed"]
    assert script.NESTED_COST in rows and script.NESTED in rows
    if len(set(result["nested_costs"])) == 1:  # both folds chose it: its pooled outputs
        assert rows[script.NESTED_COST]["aed"] == costs[result["nested_costs"][0]]["aed"]


def test_table_adds_the_agreements(model, tmp_path, monkeypatch):  # noqa: F811 (fixture)
    script = load_script("correction")
    data = tmp_path / "learner"
    data.mkdir()
    learner_folder(data)
    model.save(tmp_path / "model")
    chosen = {"crf": script.KEEP, "kind": "joint", "threshold": 0.2}
    (tmp_path / "agree.json").write_text(json.dumps({"chosen": chosen}), encoding="utf-8")
    monkeypatch.setattr(sys, "argv", [
        "correction.py", "table", "--model", str(tmp_path / "model"), "--data", str(data),
        "--split", "dev", "--split", "test", "--work", str(tmp_path / "crfs"),
        "--agree", str(tmp_path / "agree.json"), "-o", str(tmp_path / "table.json")])
    script.main()
    result = json.loads((tmp_path / "table.json").read_text(encoding="utf-8"))
    assert result["agree"] == chosen
    for split in ("dev", "test"):
        rows = {r["system"]: r for r in result[split]}
        names = [v.name for v in script.AGREEMENTS if v.kind != "joint"]
        assert script.Agreement(**chosen).name in rows and all(n in rows for n in names)
