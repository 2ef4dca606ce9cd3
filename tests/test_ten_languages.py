"""scripts/ten_languages.py: the columns of the chosen exact decoder, the goal verdict and
incomplete languages."""
import json
import runpy
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent.parent / "scripts" / "ten_languages.py"


@pytest.fixture(scope="module")
def ten():
    """The script's functions (``main`` among them), without running it."""
    return runpy.run_path(str(SCRIPT))


def row(lang, method, trees, mbr, edits):
    return {"lang": lang, "method": method, "trees": trees, "mbr": mbr,
            "edit_distance": sum(edits), "sentence_edits": edits, "sentences": len(edits),
            "average_edit_distance": sum(edits) / len(edits)}


def table(ten, tmp_path, monkeypatch, capsys, rows, *options):
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["ten_languages.py", str(path), *options])
    ten["main"]()
    return capsys.readouterr().out.splitlines()[2:]


def runs(lang, slot_nc, balanced_nc):
    return [row(lang, "trivial", "any", None, [2, 2]), row(lang, "crf", "any", None, [1, 2]),
            row(lang, "Attach", "gold", "exact slot", [1, 1]),
            row(lang, "Attach", "gold", "exact balanced", [1, 1]),
            row(lang, "+NC", "gold", "exact slot", slot_nc),
            row(lang, "+NC", "gold", "exact balanced", balanced_nc),
            row(lang, "+NC", "gold", "sentence", [1, 0])]


def test_the_decoder_chooses_the_columns_and_the_verdict(ten, tmp_path, monkeypatch, capsys):
    rows = runs("xx", [0, 1], [2, 2])
    slot, = table(ten, tmp_path, monkeypatch, capsys, rows)
    balanced, = table(ten, tmp_path, monkeypatch, capsys, rows, "--decoder", "balanced")
    assert slot.startswith("| xx | 2 | 2.000 | 1.500 | 1.000 | **0.500** | -3 ")
    assert "| met | – / 0.500 |" in slot
    assert balanced.startswith("| xx | 2 | 2.000 | 1.500 | 1.000 | **2.000** | +0 ")
    assert "| not met |" in balanced


def test_a_language_without_its_runs_is_marked(ten, tmp_path, monkeypatch, capsys):
    rows = [r for r in runs("xx", [0, 1], [0, 1]) if r["mbr"] != "exact slot"]
    out, = table(ten, tmp_path, monkeypatch, capsys, rows)
    assert out == ("| xx | incomplete: Attach exact slot, +NC exact slot, Attach sentence"
                   " missing |")
