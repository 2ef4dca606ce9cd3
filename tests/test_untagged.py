"""CoNLL-U whose UPOS is ``_`` given to the commands that read trees (user28 item 6): perplexity,
normalise, rephrase, show and draw tag such a sentence with the model's tagger, as decode and
restore do (perplexity with a warning: its value is then of predicted tags); correct refuses it,
and so does a model without a tagger, in one line naming the file, line and sentence."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import fstpunct
from fstpunct.api.model import Model
from fstpunct.cli.main import main
from fstpunct.errors import ConlluError
from fstpunct.model.store import load_model
from fstpunct.ud.treebank import Line, read_file, write_conllu

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


def untagged(line: str) -> str:
    """A CoNLL-U line with UPOS ``_`` if it is a token line."""
    fields = line.split("\t")
    return "\t".join(fields[:3] + ["_"] + fields[4:]) if len(fields) == 10 else line


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    """data/sample.conllu without UPOS, and the same with the UPOS that ``decode --model en``
    writes for it (the command, not the function the others call: review 28, section 3)."""
    folder = tmp_path_factory.mktemp("untagged")
    bare, decoded, tagged = (folder / f"{n}.conllu" for n in ("bare", "decoded", "tagged"))
    bare.write_text("\n".join(untagged(ln) for ln in SAMPLE.read_text().split("\n")))
    assert main(["decode", "--model", "en", "--quiet", "-o", str(decoded), str(bare)]) == 0
    upos = {(s.sent_id, w.id): w.upos for s in read_file(decoded) for w in s.words}
    with tagged.open("w") as out:
        write_conllu((dataclasses.replace(s, lines=[
            Line(ln.fields[:3] + [upos[s.sent_id, int(ln.id)]] + ln.fields[4:], ln.lineno)
            if ln.is_word else ln for ln in s.lines]) for s in read_file(bare)), out)
    return bare, tagged


def test_perplexity_tags_them_and_warns_that_the_value_is_of_predicted_tags(files, capsys):
    bare, tagged = files
    assert main(["perplexity", "--model", "en", "--quiet", str(tagged)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["perplexity", "--model", "en", "--quiet", str(bare)]) == 0
    out = capsys.readouterr()
    value = re.compile(r"perplexity (\S+)")
    assert value.findall(out.out) == value.findall(
        f"perplexity {fstpunct.load('en').perplexity(tagged).value:.4f}")
    warning, = out.err.splitlines()
    assert warning.startswith(f"fstpunct perplexity: warning: {bare}:1 (sent_id sample-1): "
                              "UPOS is '_'")
    assert "predicted tags" in warning


@pytest.mark.parametrize("command", [["normalise"], ["rephrase"], ["show"]])
def test_normalise_rephrase_and_show_tag_them_as_decode_does(files, command, tmp_path, capsys):
    outputs = []
    for path in files:
        out = tmp_path / "out"
        assert main([*command, "--model", "en", "--quiet", "-o", str(out), str(path)]) == 0
        outputs.append(out.read_text().replace(str(path), "IN"))  # show's title names it
    assert outputs[0] == outputs[1]
    assert "warning" not in capsys.readouterr().err


def test_draw_tree_tags_them(files):
    en = fstpunct.load("en")
    assert en.draw_tree(files[0]) == en.draw_tree(files[1])


def test_correct_refuses_them_in_one_line(files, stub_correction, capsys):
    assert main(["correct", "--model", str(stub_correction), "--quiet", str(files[0])]) == 2
    err = capsys.readouterr().err
    assert err == (f"fstpunct correct: error: {files[0]}:3 (sent_id sample-1): UPOS is '_' "
                   "(word 1, 'Hail'): correct reads tagged sentences (a correction model has no "
                   "tagger): give every word its UPOS\n")


def test_a_model_without_a_tagger_refuses_them(files, tmp_path):
    model = Model(load_model("en"), tmp_path, "toy")
    with pytest.raises(ConlluError, match=r":3 \(sent_id sample-1\): UPOS is '_' .*model 'toy' "
                                          r"has no tagger"):
        model.perplexity(files[0])
    assert model.perplexity(files[1]).sentences == 5


def test_normalise_help_says_a_upos_of_underscore_is_filled_in():
    """normalise's help said everything but the heads was copied unchanged."""
    from fstpunct.cli.normalise import HELP
    assert "everything else is copied unchanged, but a UPOS '_', which the model's tagger " \
        "fills in first" in HELP


@pytest.mark.parametrize("command", [["train", "--direction", "ltr", "--iterations", "0",
                                      "--jobs", "1"],
                                     ["tagger", "train", "--epochs", "1", "--quiet"]])
def test_training_refuses_them_in_one_line(files, tmp_path, capsys, command):
    """Training reads gold tags: it took UPOS '_' for a tag, silently (fix28c's report)."""
    out = tmp_path / "model"
    assert main([*command, "--train", str(files[0]), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"error: {files[0]}:3 (sent_id sample-1): UPOS is '_' (word 1, 'Hail'): "
                        "training reads tagged sentences: give every word its UPOS (fstpunct "
                        "decode --lang L tags them)\n") and err.count("error:") == 1
    assert not out.exists()


def test_a_model_with_a_tagger_and_no_parser_tags_them(files, tmp_path, capsys):
    """Tagging needs the tagger alone: a model folder with tagger/ but no parser/ (a user's
    `tagger train -o M/tagger` beside a model) was refused, 'no parser for ...: give one with
    --parser DIR', an option perplexity does not have (review 28, item 1.3)."""
    import shutil
    en = Path(fstpunct.__file__).parent / "models" / "en"
    folder = tmp_path / "np"
    folder.mkdir()
    for p in en.iterdir():
        if p.is_file():
            shutil.copy(p, folder)
    shutil.copytree(en / "tagger", folder / "tagger")
    assert main(["perplexity", "--model", str(folder), "--quiet", str(files[0])]) == 0
    out = capsys.readouterr()
    value = re.compile(r"perplexity (\S+)")
    assert value.findall(out.out) == value.findall(
        f"perplexity {fstpunct.load('en').perplexity(files[1]).value:.4f}")
    assert "error" not in out.err


def test_parse_with_a_punctuation_model_tags_them_and_alone_refuses_them(files, tmp_path,
                                                                        capsys):
    """fstpunct parse read UPOS '_' as a tag, silently (fix28c's report): with --punct-model
    the model's tagger fills it in first, as decode does; a parser alone, which has no tagger,
    refuses it in one line."""
    parser = str(Path(fstpunct.__file__).parent / "models" / "en" / "parser")
    outputs = []
    for path in files:
        out = tmp_path / "out.conllu"
        assert main(["parse", "--model", parser, "--beam", "4", "--punct-model", "en",
                     "--quiet", "-o", str(out), str(path)]) == 0
        outputs.append([(w.upos, w.head, w.deprel) for s in read_file(out) for w in s.words])
    assert outputs[0] == outputs[1]
    assert main(["parse", "--model", parser, "--quiet", str(files[0])]) == 2
    assert capsys.readouterr().err.endswith(
        f"error: {files[0]}:3 (sent_id sample-1): UPOS is '_' (word 1, 'Hail'): a parser reads "
        "tagged sentences: give every word its UPOS (fstpunct decode --lang L tags them; parse "
        "--punct-model M tags them with M's tagger)\n")
