"""A parser of another punctuation mode than the one a command needs is refused before any
input is read, in one line naming its folder, its mode and the mode wanted (the library checks,
the command line inherits): correction parses the learner's punctuated sentence (``tokens``),
restoration and re-ranking by punctuation parse the stripped one (``removed``). Each used to
run with the wrong parser, silently."""
from pathlib import Path

import pytest

import fstpunct
from fstpunct.apps.constraint import constrained
from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model.store import load_model
from fstpunct.parser import Model

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


def refused(capsys, argv, folder, mode, wanted):
    """``argv`` exits 2 with one line naming ``folder``, its ``mode`` and ``wanted``, and
    writes no output (its input, a file that is not CoNLL-U, is never read)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"{folder}: a '{mode}'-mode parser" in err and f"a '{wanted}'-mode one" in err


@pytest.fixture
def garbage(tmp_path):
    path = tmp_path / "in.conllu"
    path.write_text("not CoNLL-U\n", encoding="utf-8")
    return path


def test_correct_refuses_a_parser_that_is_not_tokens_mode(removed_parser, stub_correction,
                                                           garbage, tmp_path, capsys):
    out = tmp_path / "out.conllu"
    refused(capsys, ["correct", str(garbage), "--model", str(stub_correction),
                     "--parser", str(removed_parser), "-o", str(out)],
            removed_parser, "removed", "tokens")
    assert not out.exists()
    with pytest.raises(InputError, match="'removed'-mode parser"):
        fstpunct.load(stub_correction).correct(SAMPLE, parser=removed_parser)


def test_restore_refuses_a_parser_that_is_not_removed_mode(removed_parser, tokens_parser,
                                                           garbage, tmp_path, capsys):
    out = tmp_path / "out.conllu"
    refused(capsys, ["restore", str(garbage), "--model", "en", "--parser",
                     str(removed_parser), "--parser", str(tokens_parser), "-o",
                     str(out)], tokens_parser, "tokens", "removed")
    assert not out.exists()
    with pytest.raises(InputError, match="'tokens'-mode parser"):
        fstpunct.load("en").restore(SAMPLE, parsers=Model.load(tokens_parser))


def test_parse_with_a_punctuation_model_refuses_a_parser_that_is_not_removed_mode(
        tokens_parser, garbage, tmp_path, capsys):
    out = tmp_path / "out.conllu"
    refused(capsys, ["parse", str(garbage), "--model", str(tokens_parser), "--beam", "4",
                     "--punct-model", "en", "-o", str(out)], tokens_parser, "tokens",
            "removed")
    assert not out.exists()
    with pytest.raises(InputError, match="'tokens'-mode parser"):  # before any next()
        constrained(Model.load(tokens_parser), load_model("en"), iter(()), 4, 8.0)


@pytest.mark.parametrize("method", [["--trivial", "en"], ["--crf", "crf"]])
def test_restore_by_another_method_refuses_a_parser_that_is_not_removed_mode(
        method, tokens_parser, garbage, tmp_path, capsys):
    if method[0] == "--crf":  # the bundled English compact CRF
        method = ["--crf", str(fstpunct.load("en").folder / "text" / "crf")]
    out = tmp_path / "out.conllu"
    refused(capsys, ["restore", str(garbage), *method, "--parser", str(tokens_parser),
                     "-o", str(out)], tokens_parser, "tokens", "removed")
    assert not out.exists()
