"""scripts/text_restoration.py: restoring over a tree ensemble (--parsers), the decoder asked (from
``run --decoder`` to its records), the count of sentences with an unpaired mark."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from script_module import load_script

from fstpunct.apps.restoration.pipeline import has_words
from fstpunct.apps.restoration.strip import insert, strip
from fstpunct.parser import train as train_parser
from fstpunct.ud.treebank import read_file

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


@pytest.fixture(scope="module")
def script():
    return load_script("text_restoration")


class Recording:
    """A restorer that inserts nothing and records the trees it is given."""

    def __init__(self) -> None:
        self.seen: list[tuple[object, tuple]] = []

    def restore(self, sent, alternatives=()):
        self.seen.append((sent, tuple(alternatives)))
        return [()] * (len(sent.words) + 1)


def test_every_parser_gives_the_method_a_tree(script, tmp_path):
    gold = list(read_file(SAMPLE))
    quiet = lambda _: None  # noqa: E731
    for name, epochs in (("a-en", 1), ("b-en", 2)):
        train_parser(gold, gold, "removed", 1, tmp_path / name, epochs=epochs, progress=False,
                     log=quiet)
    parsers = script.ensemble("en", [str(tmp_path / "a-{lang}"), str(tmp_path / "b-{lang}")])
    trees = [strip(s) for s in gold]
    method = Recording()
    pred = script.predicted(method, gold, range(len(gold)), trees, parsers)
    assert len(method.seen) == len(gold) and len(pred) == len(gold)
    for (first, alternatives), g in zip(method.seen, gold):
        assert len(alternatives) == 1  # the second parser's tree
        words = [w.form for w in strip(g).words]
        assert [w.form for w in first.words] == [w.form for w in alternatives[0].words] == words
    alone = Recording()
    script.predicted(alone, gold, range(len(gold)), trees)
    assert all(alt == () for _, alt in alone.seen)  # no parsers: the analysis's tree only


def test_pick_prefers_fewest_edits_then_the_larger_weight(script):
    rows = [{"weight": w, "edit_distance": e} for w, e in ((0.0, 1), (0.3, 5), (0.6, 5), (1.0, 6))]
    assert script.pick(rows)["weight"] == 0.6  # weight 0 (the CRF alone) is not a pick


def test_constrain_picks_among_the_systems_that_print_the_example(script, tmp_path, capsys):
    crf = "fstpunct/models/en/text/crf"
    rows = [{"lang": "en", "method": "+NC", "model": "fstpunct/models/en", "weight": w,
             "crf": crf, "edit_distance": e} for w, e in ((0.2, 10), (1.0, 20))]
    (tmp_path / "choice.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    line = "we bought apples pears and plums at the market in oxford england"
    want = "we bought apples, pears and plums at the market in oxford, england."
    script.constrain(tmp_path / "choice.jsonl", line, want)
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["example"] == want for r in out[:2]] == [False, True]
    assert out[-1]["chosen"] and out[-1]["weight"] == 1.0 and out[-1]["must_print"] == want


def test_ship_bundles_the_pick(script, tmp_path, monkeypatch):
    monkeypatch.setattr(script, "BUNDLED", tmp_path / "models")
    (tmp_path / "models" / "xx").mkdir(parents=True)
    for name in ("textjk", "crf"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.bin").write_text(name)
    script.ship("xx", {"model": str(tmp_path / "textjk"), "weight": 0.6, "method": "+NC-textjk",
                       "crf": str(tmp_path / "crf"), "edit_distance": 7, "decoder": "balanced"})
    text = tmp_path / "models" / "xx" / "text"
    assert (text / "textjk.bin").is_file() and (text / "crf" / "crf.bin").is_file()
    stored = json.loads((text / "mixture.json").read_text())
    assert (stored["crf"], stored["weight"], stored["chosen"]["edit_distance"]) == ("crf", 0.6, 7)
    assert stored["chosen"]["decoder"] == "balanced"  # what choose decoded with
    script.ship("xx", {"model": str(tmp_path / "models" / "xx"), "weight": 1.0, "method": "+NC",
                       "crf": str(tmp_path / "crf"), "edit_distance": 9})
    assert not text.exists()  # the model itself, alone: nothing in text/


def test_ship_refuses_a_pick_chosen_with_another_decoder(script, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(script, "BUNDLED", tmp_path / "models")
    (tmp_path / "models" / "xx" / "text").mkdir(parents=True)
    with pytest.raises(SystemExit) as stop:
        script.ship("xx", {"model": str(tmp_path / "models" / "xx"), "weight": 1.0,
                           "method": "+NC", "edit_distance": 9, "decoder": "slot"})
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        "text_restoration.py ship: xx's pick was chosen with the slot decoder, the text path "
        "decodes with balanced: choose again with --decoder balanced\n")
    assert (tmp_path / "models" / "xx" / "text").is_dir()  # what was shipped before is kept


def test_unpaired_counts_the_sentences_with_a_mark_without_its_partner(script):
    gold = list(read_file(SAMPLE))
    paired = [s for s in gold if any(w.form == "(" for w in s.words)][:1]
    assert paired and script.unpaired(paired) == 0
    opened = strip(paired[0])  # the words, then "(" alone at the end
    lone = insert(opened, [()] * len(opened.words) + [(("(", 1),)])
    assert script.unpaired([lone, *paired, lone]) == 2


@pytest.mark.parametrize("model", ["fstpunct/models/{lang}", "shipped"])
def test_restorer_decodes_with_the_decoder_asked(script, model):
    for decoder in ("slot", "balanced"):
        assert script.restorer("en", model, None, decoder=decoder).decoder == decoder


def test_restorer_decodes_by_default_as_the_path_it_stands_for(script):
    """Without a decoder, ``--model shipped`` decodes as ``restore --text`` does, balanced; a
    model folder as ``restore --model`` does, slot."""
    assert script.restorer("en", "shipped", None).decoder == "balanced"
    assert script.restorer("en", "fstpunct/models/{lang}", None).decoder == "slot"


@pytest.mark.parametrize("decoder", ["slot", "balanced"])
def test_run_restores_with_the_decoder_asked_and_records_it(script, decoder, monkeypatch,
                                                             capsys, tmp_path):
    """``run --decoder D``: main hands D to run, which builds its restorer with D and writes
    ``"decoder": "exact D"`` in every record (the sample for the test split, analysed as its
    gold trees; a restorer that inserts nothing; no CRF)."""
    gold = list(read_file(SAMPLE))
    todo = [k for k, s in enumerate(gold) if has_words(s)]
    monkeypatch.setattr(script, "analyse", lambda lang, split, lower: (
        gold, todo, [strip(gold[k]) for k in todo], 0.0))
    monkeypatch.setattr(script, "CRF", str(tmp_path / "no-crf-{lang}"))
    asked = []

    def restorer(lang, model_dir, mix, crf, decoder_):
        asked.append(decoder_)
        recording = Recording()
        recording.decoder = decoder_  # as a real restorer names its decoder
        return recording

    monkeypatch.setattr(script, "restorer", restorer)
    monkeypatch.setattr(sys, "argv", ["text_restoration.py", "run", "--langs", "en",
                                      "--no-baselines", "--decoder", decoder])
    script.main()
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert asked == [decoder]
    assert [(r["case"], r["decoder"]) for r in records] == [
        ("plain", f"exact {decoder}"), ("lower-cased", f"exact {decoder}")]


def spied(script, monkeypatch, tmp_path) -> list:
    """The decoders ``script.restorer`` is asked for, each restorer one that inserts nothing;
    the sample as every split, analysed as its gold trees; no CRF baseline."""
    gold = list(read_file(SAMPLE))
    todo = [k for k, s in enumerate(gold) if has_words(s)]
    monkeypatch.setattr(script, "analyse", lambda lang, split, lower: (
        gold, todo, [strip(gold[k]) for k in todo], 0.0))
    monkeypatch.setattr(script, "CRF", str(tmp_path / "no-crf-{lang}"))
    monkeypatch.setattr(script, "_load_crf", lambda folder: Recording())
    asked: list = []

    def restorer(lang, model_dir, mix, crf, decoder=None):
        asked.append(decoder)
        recording = Recording()
        recording.decoder = decoder or "slot"  # as a model folder's restorer names its decoder
        return recording

    monkeypatch.setattr(script, "restorer", restorer)
    return asked


@pytest.mark.parametrize("given", [[], ["--decoder", "slot"]])
def test_choose_decodes_as_the_text_path_unless_told_and_records_it(script, given, monkeypatch,
                                                                    capsys, tmp_path):
    """``choose`` picks the model and weight ``ship`` makes the text path's: by default it
    decodes as that path does (balanced; it decoded with slot before), and each row says how."""
    asked = spied(script, monkeypatch, tmp_path)
    monkeypatch.setattr(sys, "argv", ["text_restoration.py", "choose", "--langs", "en",
                                      "--models", "+NC=fstpunct/models/{lang}", "--weights",
                                      "0.5", "1.0", *given])
    script.main()
    want = given[-1] if given else "balanced"
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert asked == [want, want]
    assert [r.get("decoder") for r in rows] == [None, want, want, want]  # the CRF's row: none


def test_constrain_and_run_chosen_decode_as_the_pick_was_chosen(script, monkeypatch, capsys,
                                                                tmp_path):
    """``constrain`` checks each row's example, and ``run --chosen`` restores the pick, with the
    decoder choose used (a row from before choose recorded one: slot, as it was made)."""
    asked = spied(script, monkeypatch, tmp_path)
    monkeypatch.setattr(script, "printed", lambda lang, method, line: "out")
    rows = [{"lang": "en", "method": "+NC", "model": "m", "weight": w, "crf": "c",
             "edit_distance": 1, **d} for w, d in ((0.5, {"decoder": "balanced"}), (1.0, {}))]
    (tmp_path / "choice.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    script.constrain(tmp_path / "choice.jsonl", "line", "out")
    assert asked == ["balanced", "slot"]
    (tmp_path / "chosen.jsonl").write_text(json.dumps({**rows[0], "chosen": True}) + "\n")
    capsys.readouterr()
    asked.clear()
    monkeypatch.setattr(sys, "argv", ["text_restoration.py", "run", "--langs", "en",
                                      "--no-baselines", "--chosen", str(tmp_path / "chosen.jsonl")])
    script.main()
    assert asked == ["balanced"]
    assert {json.loads(x)["decoder"] for x in capsys.readouterr().out.splitlines()} == {
        "exact balanced"}
    # a pick from before choose recorded its decoder: slot's, as constrain reads it (it was
    # None, which a "shipped" pick's restorer reads as the text path's balanced)
    (tmp_path / "chosen.jsonl").write_text(json.dumps({**rows[1], "chosen": True}) + "\n")
    asked.clear()
    script.main()
    assert asked == ["slot"]
