"""One command-line convention (issue 17 item 4): inputs by path, '-' or split name; progress
only as plain lines off a terminal; a step that re-analyses drops the stale analysis."""
import hashlib
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from conftest import counted_reads, treebank

from fstpunct import progress as progress_module
from fstpunct.cli.main import main
from fstpunct.errors import InputError, ModelError
from fstpunct.model.punct import Settings
from fstpunct.model.store import bundled, load_model, model_path
from fstpunct.parser import train
from fstpunct.progress import progress
from fstpunct.ud.annotations import COMMENTS, MISC_KEYS, forget
from fstpunct.ud.treebank import read_conllu

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


def decoded(capsys, *options):
    assert main(["decode", "--model", "en", *options, str(SAMPLE)]) == 0
    return capsys.readouterr().out


def stale(text):
    return [k for k in (*MISC_KEYS, *COMMENTS) if k in text]


def test_restore_after_decode_keeps_no_stale_analysis(tmp_path, capsys, monkeypatch):
    analysed = tmp_path / "decoded.conllu"
    analysed.write_text(decoded(capsys, "--posteriors", "2"), encoding="utf-8")
    assert stale(analysed.read_text(encoding="utf-8")) == list(MISC_KEYS + COMMENTS)
    options = ["--model", "en", "--samples", "20", "--quiet"]
    assert main(["restore", *options, str(analysed)]) == 0
    after = capsys.readouterr().out
    assert stale(after) == []
    assert main(["restore", *options, str(SAMPLE)]) == 0
    assert after == capsys.readouterr().out


PUNCTUATION_ONLY = ("# sent_id = marks\n# text = ***\n"
                    "1\t***\t***\tPUNCT\tNFP\t_\t0\troot\t_\t_\n\n")


def test_restore_drops_the_analysis_of_a_sentence_of_punctuation_only(tmp_path, capsys):
    """A sentence of punctuation only, which restore copies, lost decode's analysis too:
    decode | restore gives what restore alone gives (it kept '# underlying' and
    '# punct_logprob' there: 14 sentences of en dev)."""
    plain = tmp_path / "plain.conllu"
    plain.write_text(SAMPLE.read_text(encoding="utf-8") + PUNCTUATION_ONLY, encoding="utf-8")
    analysed = tmp_path / "decoded.conllu"
    assert main(["decode", "--model", "en", str(plain), "-o", str(analysed)]) == 0
    assert "# underlying = [∘ ***]" in analysed.read_text(encoding="utf-8")
    for options in ([], ["--samples", "5"]):
        assert main(["restore", "--model", "en", *options, "--quiet", str(analysed)]) == 0
        after = capsys.readouterr().out
        assert stale(after) == [] and after.endswith(PUNCTUATION_ONLY)
        assert main(["restore", "--model", "en", *options, "--quiet", str(plain)]) == 0
        assert after == capsys.readouterr().out


def test_correct_after_decode_keeps_no_stale_analysis(stub_correction, tmp_path, capsys):
    """correct changes the punctuation: decode's analysis of the old one goes (it was kept
    on every sentence, '# underlying', '# punct_logprob', PunctL/PunctR and PunctPost), and
    from a sentence of punctuation only, which correct copies (it kept '# underlying' and
    '# punct_logprob' there, as restore did before 60214e3)."""
    plain = tmp_path / "plain.conllu"
    plain.write_text(SAMPLE.read_text(encoding="utf-8") + PUNCTUATION_ONLY, encoding="utf-8")
    analysed = tmp_path / "decoded.conllu"
    assert main(["decode", "--model", "en", "--posteriors", "2", str(plain), "-o",
                 str(analysed)]) == 0
    assert "# underlying = [∘ ***]" in analysed.read_text(encoding="utf-8")
    assert main(["correct", "--model", str(stub_correction), "--quiet", str(analysed)]) == 0
    after = capsys.readouterr().out
    assert stale(after) == [] and after.endswith(PUNCTUATION_ONLY)
    assert main(["correct", "--model", str(stub_correction), "--quiet", str(plain)]) == 0
    assert after == capsys.readouterr().out


def test_decode_twice_is_decode_once(tmp_path, capsys):
    once = tmp_path / "once.conllu"
    once.write_text(decoded(capsys, "--posteriors", "3"), encoding="utf-8")
    assert main(["decode", "--model", "en", str(once)]) == 0
    assert capsys.readouterr().out == decoded(capsys)


def test_forget_keeps_everything_else(capsys):
    original = SAMPLE.read_text(encoding="utf-8")
    text = decoded(capsys, "--posteriors", "2")
    assert "".join(forget(s).text() for s in read_conllu(io.StringIO(text))) == original
    read = list(read_conllu(io.StringIO(text)))  # the sentences given are not changed
    for s in read:
        forget(s)
    assert "".join(s.text() for s in read) == text


@pytest.fixture(scope="module")
def parser(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parser") / "p"
    sents = list(treebank("hi", "dev").sentences())
    train(sents[:60], sents[60:], "removed", 1, folder, epochs=1, patience=1, progress=False,
          log=lambda _: None)
    return folder


def test_parse_reads_a_split_and_drops_the_stale_analysis(parser, tmp_path, capsys):
    assert main(["parse", "--model", str(parser), "hi:dev", "--quiet"]) == 0
    by_split = capsys.readouterr().out
    assert by_split.count("# sent_id") == 100
    assert main(["decode", "--model", "hi", "hi:dev", "-o", str(tmp_path / "d.conllu")]) == 0
    capsys.readouterr()
    assert main(["parse", "--model", str(parser), str(tmp_path / "d.conllu"), "--quiet"]) == 0
    assert capsys.readouterr().out == by_split


def test_draw_reads_a_split(tmp_path):
    treebank("hi", "dev")
    out = tmp_path / "tree.svg"
    assert main(["draw", "tree", "--sentence", "hi:dev:3", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<")


@pytest.mark.parametrize("what", [["tree"], ["lattice", "--slot", "2"]])
def test_draw_reads_a_sentence_of_stdin(what, tmp_path, capsys, monkeypatch):
    """'--sentence -:2' (stdin's sentence 2, as --help says) is the option's value: argparse
    took it for an option ('argument --sentence: expected one argument', exit 2). The picture
    calls it 'sentence 2 of standard input', not '-:2'."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(SAMPLE.read_text(encoding="utf-8")))
    out = tmp_path / "picture.dot"
    options = ["--model", "en", "--sentence", "-:2"]
    assert main(["draw", *what, *options, "-o", str(out.with_suffix(".svg"))]) == 0
    picture = out.with_suffix(".svg").read_text(encoding="utf-8")
    assert "means" in picture and "-:2" not in picture
    caption = "sentence 2 of standard input" if what == ["tree"] else \
        "slot 2 of sentence 2 of standard input"  # was 'slot 2 of -:2'
    assert caption in picture
    assert capsys.readouterr().err == ""
    # a prefix of --sentence too, as argparse takes one elsewhere (was 'expected one argument')
    monkeypatch.setattr(sys, "stdin", io.StringIO(SAMPLE.read_text(encoding="utf-8")))
    again = tmp_path / "again.svg"
    assert main(["draw", *what, "--model", "en", "--sent", "-:2", "-o", str(again)]) == 0
    assert caption in again.read_text(encoding="utf-8") and capsys.readouterr().err == ""
    # '-:2' elsewhere is still refused, also where a command takes an input file, in the
    # user's words (decode has no --sentence: not '--sentence=-:2')
    for stray, said in ((["draw", *what, *options, "-:2"], "unrecognized arguments: -:2"),
                        (["decode", "--model", "en", "-:2"], "unrecognized arguments: -:2"),
                        (["decode", "--model", "en", "--sentence", "-:2"],
                         "unrecognized arguments: --sentence -:2")):
        with pytest.raises(SystemExit):
            main(stray)
        assert said in capsys.readouterr().err


@pytest.mark.parametrize("what, caption", [(["tree"], "sentence {} of standard input"),
                                           (["lattice", "--slot", "2"],
                                            "slot 2 of sentence {} of standard input")])
@pytest.mark.parametrize("sent_id", ["sample-2", "O'Hara\\2"])
def test_draw_quotes_a_sent_id_of_stdin(what, caption, sent_id, tmp_path, capsys, monkeypatch):
    """'--sentence -:sample-2' (a sent_id of stdin) is called "sentence 'sample-2' of standard
    input", quoted, where it read like a sentence number ('sentence sample-2 of ...'); quoted
    as it is between single quotes (a quote or backslash in it was quoted the Python way)."""
    text = SAMPLE.read_text(encoding="utf-8").replace("sent_id = sample-2\n",
                                                     f"sent_id = {sent_id}\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    out = tmp_path / "picture.svg"
    assert main(["draw", *what, "--model", "en", "--sentence", f"-:{sent_id}", "-o",
                 str(out)]) == 0
    picture = html.unescape(out.read_text(encoding="utf-8"))
    assert caption.format(f"'{sent_id}'") in picture
    assert capsys.readouterr().err == ""


def test_progress_off_a_terminal_is_plain_lines(capsys, monkeypatch):
    monkeypatch.setattr(progress_module, "on_terminal", lambda: False)
    assert list(progress(range(3), "count", unit="items", total=3, interval=0)) == [0, 1, 2]
    err = capsys.readouterr().err
    assert err.splitlines() == [f"count: {k} of 3 items, 0 s" for k in (1, 2, 3)]
    assert list(progress(range(3), "count", quiet=True)) == [0, 1, 2]
    assert list(progress(range(3), "count")) == [0, 1, 2]  # 30 s between lines: none
    assert capsys.readouterr().err == ""


def test_commands_write_no_escapes_into_a_log(capsys):
    assert not sys.stderr.isatty()
    decoded(capsys)
    assert main(["restore", "--model", "en", "--samples", "10", str(SAMPLE)]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err


def test_train_takes_one_split_per_file_never_a_whole_language(tmp_path, capsys):
    """'--train en' would have trained on en's dev and test splits too."""
    for split in ("train", "dev", "test"):
        treebank("en", split)
    assert main(["train", "--train", "en", "-o", str(tmp_path / "m")]) == 2
    assert "'en' names 3 files (en train, en dev, en test); name one split" in \
        capsys.readouterr().err
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("command", ["decode", "normalise", "perplexity", "stats", "show",
                                     "rephrase"])
def test_quiet_silences_the_progress_bar(command, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(progress_module, "on_terminal", lambda: True)
    args = [command, *(["--model", "en"] if command != "stats" else []), str(SAMPLE),
            *(["-o", str(tmp_path / "r.html")] if command == "show" else [])]
    assert main(args) == 0
    assert f"\r{command}" in capsys.readouterr().err  # a tqdm bar
    assert main([*args, "--quiet"]) == 0
    assert "\r" not in capsys.readouterr().err


@pytest.mark.parametrize("command", [["perplexity", "--model", "en"],
                                     ["crf", "perplexity", "--model", "no-crf"]])
def test_held_out_data_is_files_or_a_split_never_both(command, capsys):
    """--lang with FILEs used to ignore the FILEs, --split without --lang to read stdin."""
    assert main([*command, "--lang", "en", str(SAMPLE)]) == 2
    assert "give FILEs or --lang (its standard split), not both" in capsys.readouterr().err
    assert main([*command, "--split", "dev", str(SAMPLE)]) == 2
    assert "--split goes with --lang" in capsys.readouterr().err
    if command[0] == "perplexity":
        assert main([*command, str(SAMPLE)]) == 0
        assert capsys.readouterr().out.startswith(f"{SAMPLE}\tsentences 5\tslots 50\t")


def test_train_refuses_negative_settings(tmp_path, capsys):
    """Before reading anything: --lexical -1 used to give every word but the rarest a feature.
    Each refusal names the option given, as --jobs' does (the library's refusal named the
    parameter: "token_cost must be at most 1000, not 1001.0"); the API's names the parameter."""
    out = tmp_path / "m"

    def refused(*options: str) -> str:
        assert main(["train", "--train", str(SAMPLE), *options, "-o", str(out)]) == 2
        assert not out.exists()
        return capsys.readouterr().err

    assert refused("--lexical", "-1") == ("fstpunct train: error: --lexical must be at least 0, "
                                          "not -1\n")
    assert "error: --xi and --l2 must be at least 0, not -1.0 and -2.0\n" in refused(
        "--xi", "-1", "--l2", "-2")
    assert "error: --xi must be at least 0, not nan\n" in refused("--xi", "nan")
    assert "error: --token-cost must be at least 0, not -1.0\n" in refused("--token-cost", "-1")
    with pytest.raises(InputError, match="^token_cost must be at least 0, not -0.5$"):
        Settings(token_cost=-0.5)  # the API's check (fstpunct.train takes Settings)
    # a cost whose −cost · tokens is no float used to train to NaN (objective nan, saved)
    assert "error: --token-cost must be at most 1000, not 1e+308\n" in refused(
        "--token-cost", "1e308")
    assert "error: --token-cost must be at most 1000, not 1001.0\n" in refused(
        "--token-cost", "1001")
    with pytest.raises(InputError, match=r"^token_cost must be at most 1000, not 1\.000E\+400$"):
        Settings(token_cost=10 ** 400)
    assert Settings(token_cost=1000).token_cost == 1000.0
    with pytest.raises(InputError, match="^xi must be a finite number of at least 0, not inf$"):
        Settings(xi=float("inf"))  # it would be written to model.json as Infinity (not JSON)
    assert "error: --xi must be a finite number of at least 0, not inf\n" in refused(
        "--xi", "inf")
    assert "error: --attach-iterations must be at least 1, not 0\n" in refused(
        "--attach-iterations", "0")
    assert "error: --iterations must be at least 0, not -1\n" in refused("--iterations", "-1")


@pytest.mark.parametrize("lexical", [2.5, 2.0, np.float64(2.0), True, "500"])
def test_lexical_is_a_whole_number(lexical):
    """lexical counts the most frequent training words (a slice): 2.5, and numpy's 2.0 made
    Python's 2.0, passed Settings and failed in the slice after the data was read."""
    with pytest.raises(InputError, match="^lexical must be a whole number of at least 0, not "):
        Settings(lexical=lexical)
    assert Settings(lexical=np.int64(3)).lexical == 3


def test_settings_are_checked_and_stored_as_their_types():
    """Every field is checked and stored as its declared type, Python's: a Decimal or a
    Fraction (numbers refuse_below accepts) was kept as given and failed model.json's
    json.dumps after training; backoff, continuation and prior were not checked at all (a
    string passed), nor was a field that is None."""
    given = Settings(backoff=Fraction(1, 1000), continuation=Decimal("0.5"), xi=np.float32(2),
                     l2=True, prior=1, token_cost=np.array(4.0), lexical=np.int64(500))
    assert given == Settings()
    assert [type(value) for value in given.to_dict().values()] == [float] * 6 + [int]
    assert json.loads(json.dumps(given.to_dict())) == Settings().to_dict()
    for name in ("backoff", "continuation", "prior"):
        with pytest.raises(InputError, match=f"^{name} must be a number of at least 0, not 'x'$"):
            Settings(**{name: "x"})
    with pytest.raises(InputError, match="^prior must be at least 0, not -1$"):
        Settings(prior=-1)
    with pytest.raises(InputError, match="^xi must be a number of at least 0, not None$"):
        Settings(xi=None)
    with pytest.raises(InputError, match="^lexical must be a whole number of at least 0, "
                                         "not None$"):
        Settings(lexical=None)


PARSER = Path(__file__).parents[1] / "fstpunct" / "models" / "en" / "parser"


@pytest.mark.parametrize("command, refused", [
    (["decode", "--jobs", "0"], "--jobs must be at least 1, not 0"),
    (["decode", "--dask-workers", "0"], "--dask-workers must be at least 1, not 0"),
    (["normalise", "--jobs", "0"], "--jobs must be at least 1, not 0"),
    (["perplexity", "--jobs", "0"], "--jobs must be at least 1, not 0"),
    (["restore", "--samples", "5", "--seed", "-1"], "--seed must be at least 0, not -1"),
    (["restore", "--samples", "5", "--seed", str(2 ** 32)],
     f"--seed must be below 2**32, not {2 ** 32}"),
    (["restore", "--jobs", "0", "--parser", "no-such-parser"], "--jobs must be at least 1"),
    (["rephrase", "--seed", "-1"], "--seed must be at least 0, not -1"),
    (["rephrase", "--samples", "0"], "--samples must be at least 1, not 0"),
    (["rephrase", "--delete", "appos,foo"], "not a UD relation to delete: foo"),
    (["correct", "--model", "no-such-model", "--samples", "2", "--seed", "-1"],
     "--seed must be at least 0, not -1"),
    (["correct", "--model", "no-such-model", "--samples", "2", "--seed", str(2 ** 32)],
     f"--seed must be below 2**32, not {2 ** 32}"),
    (["correct", "--model", "no-such-model", "--edit-cost", "-1"],
     "--edit-cost must be at least 0, not -1.0"),
    (["correct", "--model", "no-such-model", "--edit-cost", "nan"],
     "--edit-cost must be at least 0, not nan"),
    (["correct", "--model", "no-such-model", "--edit-cost", "inf"],
     "--edit-cost must be a finite number of at least 0, not inf"),
    (["correct", "--model", "no-such-model", "--samples", "0"], "--samples must be at least 1"),
    (["correct", "--model", "no-such-model", "--support", "1.5"],
     "--support must be from 0 to 1, not 1.5"),
    (["parse", "--model", str(PARSER), "--punct-model", "en", "--punct-weight", "-1"],
     "--punct-weight must be at least 0, not -1.0"),
    (["parse", "--model", "no-such-parser", "--punct-weight", "-0.5"],
     "--punct-weight must be at least 0, not -0.5"),
    (["parse", "--model", "no-such-parser", "--punct-weight", "nan"],
     "--punct-weight must be at least 0, not nan"),
    (["draw", "lattice", "--slot", "-1", "--sentence"], "--slot must be at least 0, not -1"),
    (["parser", "train", "--patience", "-1"], "--patience must be at least 0"),
    (["parser", "train", "--min-count", "-1"], "--min-count must be at least 0"),
    (["parser", "compact", "no-such-parser", "--threshold", "nan"],
     "--threshold must be at least 0, not nan"),
    (["parser", "compact", "no-such-parser", "--threshold", "-1"],
     "--threshold must be at least 0, not -1.0"),
    (["parser", "compact", "no-such-parser", "--threshold", "inf"],
     "--threshold must be a finite number of at least 0, not inf"),
])
def test_bad_numbers_are_refused_first_in_one_line(command, refused, capsys, tmp_path):
    """A number out of its range is one error line, exit 2, before any note (the input's
    language), model or data is read: no traceback for a negative seed (numpy's before), no
    note before --jobs 0, a negative --punct-weight not taken (nor ignored without
    --punct-model), a negative --patience or --min-count not taken as 0."""
    out = tmp_path / "out"  # the parser commands write a folder: refused before it exists
    data = (["-o", str(out)] if "parser" in command else [f"{SAMPLE}:1"]
            if "draw" in command else [str(SAMPLE)])
    assert main([*command, *data]) == 2
    assert "-o" not in data or not out.exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and refused in err and "note" not in err, err


def test_an_error_after_reading_stdin_is_one_line(tmp_path):
    """An option refused once stdin's first sentence is read (to tell its language): the
    error alone (the note on the language came first: two lines), and no 'Exception ignored'
    traceback at exit from the reader's generator detaching the already closed stdin."""
    with SAMPLE.open("rb") as stdin:
        run = subprocess.run([sys.executable, "-m", "fstpunct.cli.main", "rephrase", "--order",
                              str(tmp_path / "none")], stdin=stdin, capture_output=True,
                             text=True, cwd=tmp_path, check=False)
    assert run.returncode == 2 and "none: not an ordering model" in run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert "note" not in run.stderr, run.stderr


def test_the_readme_first_command_runs_without_a_word_on_stderr(capsys, monkeypatch):
    monkeypatch.chdir(SAMPLE.parents[1])  # the README's paths are the repository's
    first = Path("README.md").read_text(encoding="utf-8").split("\n")[3]
    command = first.split(".venv/bin/fstpunct ", 1)[1].split("#")[0].split()
    assert command[0] == "decode" and main(command) == 0
    out, err = capsys.readouterr()
    assert out.count("# underlying = ") == 5 and err == ""


def test_a_model_folder_that_cannot_be_read_says_why(tmp_path, capsys):
    """Not Python's '[Errno 2] No such file or directory: 'x/model.json''."""
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    for name, why in (("missing", "no such folder"), ("file", "a file, not a folder"),
                      ("empty", "no model.json")):
        assert main(["parse", "--model", str(tmp_path / name), str(SAMPLE)]) == 2
        assert capsys.readouterr().err == \
            f"fstpunct parse: error: {tmp_path / name}: not a parser model ({why})\n"
    assert main(["restore", "--crf", str(tmp_path / "empty"), str(SAMPLE)]) == 2
    assert "empty: not a CRF model folder (no meta.json)" in capsys.readouterr().err


def test_a_model_folder_is_named_as_typed(tmp_path, monkeypatch, capsys):
    """A model folder ./NAME keeps its ./ in the refusal (they said "NAME: not a ..."), and
    so does an ordering model inside it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    for given in ("./empty", "empty", f"{tmp_path / 'empty'}/"):
        for command, option, what in (("decode", "--model", "fstpunct model (no model.json)"),
                                      ("parse", "--model", "parser model (no model.json)"),
                                      ("restore", "--crf", "CRF model folder (no meta.json)")):
            assert main([command, option, given, str(SAMPLE)]) == 2
            assert capsys.readouterr().err == \
                f"fstpunct {command}: error: {given}: not a {what}\n"
        # an ordering model: the folder's order.json (it said "empty/order" for ./empty)
        assert main(["rephrase", "--model", "en", "--order", given, str(SAMPLE)]) == 2
        assert capsys.readouterr().err == ("fstpunct rephrase: error: "
                                           f"{os.path.join(given, 'order')}: not an ordering "
                                           "model (no order.json)\n")


def test_score_reads_stdin_once(capsys, monkeypatch):
    """'score --gold - -' read alternate sentences of stdin as gold and as prediction."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(SAMPLE.read_text(encoding="utf-8")))
    assert main(["score", "--gold", "-", "-"]) == 2
    assert capsys.readouterr().err == \
        "fstpunct score: error: --gold and PRED cannot both be stdin ('-'); name files\n"
    assert main(["score", "--gold", str(SAMPLE)]) == 0  # PRED: stdin
    assert capsys.readouterr().out.startswith("sentences 5  slots 50  edit distance 0  ")


TRAINERS = [["train", "-o", "unused"], ["crf", "train", "--lang", "en", "-o", "unused"],
            ["parser", "train", "-o", "unused"]]


@pytest.mark.parametrize("argv", [[*command, "-", "-"] for command in (
    ["stats"], ["perplexity", "--model", "en"],
    ["crf", "perplexity", "--model", "fstpunct/models/en/text/crf"])] + [
    [*command, "--train", "-", "--dev", "-"] for command in TRAINERS])
def test_commands_of_several_inputs_read_stdin_once(argv, capsys, monkeypatch):
    """'stats - -' and 'perplexity - -' read stdin whole for the first '-', then failed on
    the second ('<stdin>: no sentences'), perplexity after printing the first row; so did the
    trainers' --train - --dev -."""
    monkeypatch.chdir(SAMPLE.parents[1])
    monkeypatch.setattr(sys, "stdin", io.StringIO(SAMPLE.read_text(encoding="utf-8")))
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1 and "'-' (stdin) is named more than once" in err


@pytest.mark.parametrize("command, described", [
    (["decode", "--model", "{m}"], "model.json"),
    (["restore", "--crf", "{m}"], "meta.json"),
    (["parse", "--model", "{m}"], "model.json"),
    (["rephrase", "--lang", "en", "--order", "{m}/order"], "order.json"),
    (["correct", "--model", "{m}"], "correction.json"),
])
@pytest.mark.parametrize("text, why", [
    ("[1]\n", " is not a JSON object)"),
    ('{"format": "other-1"}\n', ": format 'other-1', expected "),
])
def test_a_model_description_of_another_shape_or_format_is_one_line(command, described, text,
                                                                    why, tmp_path, capsys):
    """Not an AttributeError's traceback ('list' object has no attribute 'get')."""
    (tmp_path / described).write_text(text)
    assert main([a.format(m=tmp_path) for a in command] + [str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"error: {tmp_path}" in err and ": not a" in err, err
    assert f"({described}{why}" in err, err


def test_an_attach_description_of_another_shape_is_one_line(tmp_path, capsys):
    """attach.json holding a list: a TypeError's traceback before."""
    shutil.copytree(model_path("en"), tmp_path / "en")
    (tmp_path / "en" / "attach.json").write_text("[1]\n")
    assert main(["decode", "--model", str(tmp_path / "en"), str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'en'}: not a fstpunct model (attach.json is " \
        "not a JSON object)" in err, err


def test_a_model_without_attach_json_names_the_file(tmp_path, capsys):
    """Not '(no such folder)' for a folder that exists (the attach model is a file stem), and in
    README's form, FOLDER: not a fstpunct model (FILE: why), not 'FOLDER/attach: not an attach
    model' (user28 item 11)."""
    shutil.copytree(model_path("en"), tmp_path / "en")
    (tmp_path / "en" / "attach.json").unlink()
    assert main(["decode", "--model", str(tmp_path / "en"), str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err == f"fstpunct decode: error: {tmp_path / 'en'}: not a fstpunct model (no " \
        "attach.json)\n", err


def test_an_unreadable_stem_model_is_judged_by_its_folder(tmp_path):
    """A file stem's model (folder/attach) whose file is damaged or missing: its own problem,
    not '(no such folder)' for the stem (which is no folder)."""
    from fstpunct.errors import ModelError
    from fstpunct.files import read_meta
    (tmp_path / "m.json").write_text("{", encoding="utf-8")
    with pytest.raises(ModelError, match=r"/m: not an attach model \(m.json: Expecting"):
        read_meta(tmp_path / "m.json", None, "an attach model", name=tmp_path / "m")
    with pytest.raises(ModelError, match=r"/gone/m: not an attach model \(no folder .*/gone\)"):
        read_meta(tmp_path / "gone" / "m.json", None, "an attach model",
                  name=tmp_path / "gone" / "m")


@pytest.mark.parametrize("file, text, why", [
    ("model.json", '{"format": 1, "settings": [1]}', "'settings' missing or not a JSON object"),
    ("model.json", '{"format": 1, "settings": {"newer": 1}}', "settings this fstpunct does not "
                                                              "know: newer"),
    ("attach.json", '{"vocab": {}, "symmetric": []}', "'contexts' missing or not a JSON list"),
    ("parser/model.json", '{"format": "FORMAT", "mode": 3}', "'mode' missing or not a string"),
    ("tagger/tagger.json", '{"format": "FORMAT", "tags": []}', "'lowercase' missing or not "
                                                               "true or false"),
])
def test_a_model_description_without_a_field_is_one_line(file, text, why, tmp_path, capsys):
    """A field missing or of another type: a KeyError's or TypeError's traceback before."""
    shutil.copytree(model_path("en"), tmp_path / "en")
    path = tmp_path / "en" / file
    fmt = json.loads(path.read_text(encoding="utf-8")).get("format")
    path.write_text(text.replace('"FORMAT"', json.dumps(fmt)))
    text_in = tmp_path / "in.txt"  # text for --text (a CoNLL-U file is bad text: a tab)
    text_in.write_text("we bought apples\nand pears\n", encoding="utf-8")
    command = {"parser/model.json": ["parse", "--model", str(path.parent), str(SAMPLE)],
               "tagger/tagger.json": ["restore", "--lang", "en", "--text", "--tagger",
                                      str(path.parent), str(text_in)]}.get(
        file, ["decode", "--model", str(tmp_path / "en"), str(SAMPLE)])
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and why in err, err


@pytest.mark.parametrize("file, damage, why", [
    ("attach.npz", None, "hi: not a fstpunct model (no attach.npz)"),
    ("attach.npz", b"PK", "hi: not a fstpunct model (attach.npz: "),
    ("model.json", b"{", ": not a fstpunct model (model.json: Expecting"),
    ("channel.json", None, "channel.json: cannot read the channel's direction (no such file or "
                     "directory)"),
    ("channel.json", b"{", "channel.json: cannot read the channel's direction (Expecting"),
    ("attach.json", {"vocab": {}}, "hi: not a fstpunct model (attach.json: 'tokens' "
                                   "missing)"),
    ("attach.json", {"contexts": [["x"]]}, "hi: not a fstpunct model (attach.json: "
                                           "unhashable type: 'list')"),
])
def test_a_damaged_model_file_is_named_in_one_line(file, damage, why, tmp_path, capsys):
    """A model folder's file missing or damaged (bytes; a dict: fields of the JSON replaced):
    one line naming the file and why, without Python's '[Errno 2] ...: PATH' (the path said
    twice) and without advice meant for the library ('pass direction= explicitly', which no
    command takes for a model folder). A damaged attach.json was blamed on attach.npz, or a
    traceback."""
    shutil.copytree(model_path("hi"), tmp_path / "hi")
    path = tmp_path / "hi" / file
    if isinstance(damage, dict):
        damage = json.dumps(json.loads(path.read_text(encoding="utf-8")) | damage).encode()
    path.unlink() if damage is None else path.write_bytes(damage)
    assert main(["decode", "--model", str(tmp_path / "hi"), str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and why in err, err
    assert "[Errno" not in err and "direction=" not in err, err


@pytest.mark.parametrize("files, why", [
    (["channel.fst"], "attach.json and channel.fst are of different models (-- ; ? । – not in "
                     "the channel; the channel's ؟ ـ not in it)"),
    (["channel.json"], "channel.json and channel.fst are of different models ("),
    (["channel.fst", "channel.json"], "attach.json and channel.fst are of different models ("),
])
def test_files_of_another_model_are_one_line_naming_the_folder(files, why, tmp_path, capsys):
    """A model folder's channel copied from another model's folder (here ar's into hi's): one
    line naming the folder and the files that disagree. The channel alone gave 'symbol '।' is
    not in the channel alphabet' (no folder, no file) once a sentence was read; channel.json
    alone was read for its direction, its other symbols never checked."""
    shutil.copytree(model_path("hi"), tmp_path / "hi")
    for name in files:
        shutil.copy(model_path("ar") / name, tmp_path / "hi" / name)
    assert main(["decode", "--model", str(tmp_path / "hi"), str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'hi'}: {why}" in err, err


@pytest.mark.parametrize("symbols", [None, 3, "। ,", [",", 1]])
def test_a_channel_json_whose_symbols_are_no_list_of_strings_is_one_line(symbols, tmp_path,
                                                                          capsys):
    """channel.json's symbols null or a number raised a TypeError traceback (tuple(None)); a
    list holding a number broke the message of two models' files (" ".join)."""
    shutil.copytree(model_path("hi"), tmp_path / "hi")
    side = tmp_path / "hi" / "channel.json"
    side.write_text(json.dumps({**json.loads(side.read_text(encoding="utf-8")),
                                "symbols": symbols}), encoding="utf-8")
    assert main(["decode", "--model", str(tmp_path / "hi"), str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and \
        f"{side}: 'symbols' must be a list of strings" in err, err


@pytest.mark.parametrize("setting, value, why", [
    ("continuation", 2.5, "continuation must be at most 1, not 2.5"),
    ("xi", -1, "xi must be at least 0, not -1"),
    ("lexical", 1.5, "lexical must be a whole number of at least 0, not 1.5"),
])
def test_a_setting_out_of_range_in_model_json_names_the_file(setting, value, why, tmp_path,
                                                             capsys):
    """A model.json setting that Settings refuses was an InputError naming no file, as if the
    user had given the value: a ModelError naming model.json, in one line."""
    shutil.copytree(model_path("hi"), tmp_path / "hi")
    record = tmp_path / "hi" / "model.json"
    meta = json.loads(record.read_text(encoding="utf-8"))
    meta["settings"][setting] = value
    record.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelError, match=f"^{re.escape(f'{record}: settings: {why}')}$"):
        load_model(tmp_path / "hi")
    assert main(["restore", "--model", str(tmp_path / "hi"), str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{record}: settings: {why}" in err, err


def test_channel_json_is_checked_before_channel_fst(tmp_path):
    """Both missing: channel.json is named (read first, for the direction channel.fst is read
    in: load_model's docstring)."""
    shutil.copytree(model_path("hi"), tmp_path / "hi")
    for name in ("channel.json", "channel.fst"):
        (tmp_path / "hi" / name).unlink()
    with pytest.raises(ModelError, match="channel.json: cannot read the channel's direction"):
        load_model(tmp_path / "hi")


def test_load_model_reads_channel_json_once(monkeypatch):
    """load_model read channel.json twice: for the channel's direction (Channel.load) and for
    the symbols it checks against the other files."""
    read_text = Path.read_text
    reads = counted_reads(monkeypatch, "read_text")
    model = load_model("hi")
    assert reads.count("channel.json") == 1
    side = json.loads(read_text(model_path("hi") / "channel.json", encoding="utf-8"))
    assert model.channel.direction == side["direction"]
    assert list(model.channel.symbols) == side["symbols"]


def test_load_model_reads_channel_fst_once(tmp_path, monkeypatch):
    """A channel.json recording channel.fst's SHA-256 (a compiled channel put into a model
    folder: Channel.save's pair) made load_model read channel.fst twice: to hash it
    (channel_marks) and to parse it (Channel.load). Read once; another channel.fst is still
    refused, naming channel.json."""
    folder = tmp_path / "hi"
    shutil.copytree(model_path("hi"), folder)
    side, fst = folder / "channel.json", folder / "channel.fst"
    meta = json.loads(side.read_text(encoding="utf-8"))
    side.write_text(json.dumps({**meta, "pair_sha256": hashlib.sha256(fst.read_bytes())
                                .hexdigest()}), encoding="utf-8")
    reads = counted_reads(monkeypatch)
    assert load_model(folder).channel.symbols == tuple(meta["symbols"])
    assert reads.count("channel.fst") == 1
    monkeypatch.undo()
    side.write_text(json.dumps({**meta, "pair_sha256": "0" * 64}), encoding="utf-8")
    with pytest.raises(ModelError, match=rf"^{re.escape(str(side))}: records another "
                                         "channel.fst than the one beside it"):
        load_model(folder)


# each loader of an .npz archive: the model it names (under tmp_path) and what it is, the
# bundled English model's files it reads (the archive last), its command
NPZ_LOADERS = {"attach": ("", "a fstpunct model", ["model.json", "channel.fst", "channel.json",
                                                   "attach.json", "attach.npz"],
                          ["decode", "--model", "{m}"]),
               "parser": ("parser", "a parser model", ["parser/model.json",
                                                       "parser/weights.npz"],
                          ["parse", "--model", "{m}/parser"]),
               "order": ("order", "an ordering model", ["order.json", "order.npz"],
                         ["rephrase", "--lang", "en", "--order", "{m}/order"])}


def pickled_objects(stored: bytes, path: Path) -> bytes:
    """An .npz of the archive ``stored``'s names, each an array of Python objects."""
    np.savez(path, **{name: np.array([None], dtype=object)
                      for name in np.load(io.BytesIO(stored)).files})
    return path.read_bytes()


def npy_bytes() -> bytes:
    """An .npy file (one array, not an archive)."""
    stream = io.BytesIO()
    np.save(stream, np.zeros(3))
    return stream.getvalue()


@pytest.mark.parametrize("loader", NPZ_LOADERS)
@pytest.mark.parametrize("damage, why", [
    (lambda stored, tmp: stored[:len(stored) // 2], "not a NumPy .npz archive, or a truncated one"),
    (lambda stored, tmp: b"not an archive\n", "not a NumPy .npz archive, or a truncated one"),
    (lambda stored, tmp: npy_bytes(), "not a NumPy .npz archive, or a truncated one"),
    (pickled_objects, "Python objects (a pickle), not arrays of numbers"),
], ids=["truncated", "text", "npy", "objects"])
def test_a_damaged_npz_archive_is_one_line(loader, damage, why, tmp_path, capsys):
    """Every loader of an .npz archive (attach weights, a parser's weights, an ordering model)
    says in one line, exit 2, that a truncated file, a text file, an .npy or an archive of
    pickled objects is not its model, naming the file (the parser and the ordering model passed
    on numpy's advice to allow pickles, and an .npy was a traceback)."""
    named, what, files, command = NPZ_LOADERS[loader]
    for name in files:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(model_path("en") / name, tmp_path / name)
    archive = tmp_path / files[-1]
    archive.write_bytes(damage(archive.read_bytes(), tmp_path / "objects.npz"))
    assert main([a.format(m=tmp_path) for a in command] + [str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "allow_pickle" not in err, err
    assert f"{tmp_path / named}: not {what} ({archive.name}: {why})\n" in err, err


@pytest.mark.parametrize("loader, member, stored, why", [
    ("attach", "theta_shape", np.array(5), "theta_shape is not 1-d numbers but 0-d int64"),
    ("attach", "theta_values", np.array(["x"]), "theta_values is not 1-d numbers but 1-d <U1"),
    ("attach", "theta_values", np.zeros(3), "the stored values do not pair up with the "
                                            "block's nonzero bits"),
    ("parser", "shape", np.array(5), "shape is not 1-d numbers but 0-d int64"),
    ("parser", "data", np.zeros(3, np.float16), "indices and data should have the same size"),
    ("order", "theta", np.array(5.0), "theta is not 1-d numbers but 0-d float64"),
], ids=["attach-scalar-shape", "attach-text", "attach-unpaired", "parser-scalar-shape",
        "parser-sizes", "order-scalar"])
def test_an_npz_array_of_the_wrong_kind_is_one_line(loader, member, stored, why, tmp_path,
                                                     capsys):
    """A whole archive holding an array of the wrong shape or kind (a parser's weights whose
    shape is a scalar was a TypeError's traceback) is the loader's one line, exit 2."""
    named, what, files, command = NPZ_LOADERS[loader]
    for name in files:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(model_path("en") / name, tmp_path / name)
    archive = tmp_path / files[-1]
    with np.load(archive) as npz:
        arrays = dict(npz)
    np.savez(archive, **{**arrays, member: stored})
    assert main([a.format(m=tmp_path) for a in command] + [str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{tmp_path / named}: not {what} ({archive.name}: {why})\n" in err, err


@pytest.mark.parametrize("argv, prog, what", [
    (["score", "--gold", str(SAMPLE), str(SAMPLE), "-o", "x"], "fstpunct score",
     "unrecognized arguments: -o x"),
    (["train", "--lang", "xx", "-o", "x"], "fstpunct train", "argument --lang: invalid choice"),
    (["parser", "train", "--beam", "0", "-o", "x"], "fstpunct parser train",
     "argument --beam: must be a whole number of at least 1, not '0'"),
    (["draw", "channel", "c.fst", "--symbols", ",", "--bogus"], "fstpunct draw channel",
     "unrecognized arguments: --bogus"),
    (["decod"], "fstpunct", "argument COMMAND: invalid choice: 'decod'"),
])
def test_a_usage_error_is_one_line_naming_the_command(argv, prog, what, capsys):
    """argparse's refusals are one line as every other (its usage lines came first), naming
    the subcommand that refuses (an unknown option of 'fstpunct score' was the top level's:
    'fstpunct: error: unrecognized arguments', under the top level's usage), and saying where
    the options are listed."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"{prog}: error: {what}") and \
        err.endswith(f" (see '{prog} --help')\n"), err


@pytest.mark.parametrize("command", ["decode", "restore"])
def test_text_input_that_cannot_be_read_is_one_line(command, tmp_path, capsys):
    """With --text a missing file or a folder is one line (the note on the input's language
    came first)."""
    for given, why in ((str(tmp_path / "missing.txt"), "no such file"),
                       (str(tmp_path), "is a folder, not a file")):
        assert main([command, "--text", given]) == 2
        err = capsys.readouterr().err
        assert err == f"fstpunct {command}: error: {given}: {why}\n", err


@pytest.mark.parametrize("command", ["decode", "restore"])
def test_a_split_given_as_text_is_named_conllu(command, capsys):
    """With --text a split's name says it is CoNLL-U (it was 'en:dev: no such file')."""
    treebank("en", "dev")  # a split is one found in the release
    assert main([command, "--text", "en:dev"]) == 2
    assert capsys.readouterr().err == f"fstpunct {command}: error: en:dev: a UD split is " \
        "CoNLL-U, not plain text: leave out --text\n"


def test_a_model_refused_leaves_the_text_file_closed(tmp_path, capsys):
    """--text with a model that cannot be loaded: the one line, and the text file is not left
    open (it was opened before the model was chosen, and never closed)."""
    import gc
    (tmp_path / "t.txt").write_text("a b\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["decode", "--text", str(tmp_path / "t.txt"), "--model",
                     str(tmp_path / "no-model")]) == 2
        gc.collect()
    assert capsys.readouterr().err.count("\n") == 1
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)], caught


@pytest.mark.parametrize("command", [
    ["show", "--grammar", "missing.rules", "-o", "x.html", str(SAMPLE)],
    ["restore", "--seed", "3", str(SAMPLE)],
    ["restore", "--mix-crf", "missing", str(SAMPLE)],
    ["rephrase", "--no-balance", str(SAMPLE)],
    ["draw", "lattice", "--sentence", f"{SAMPLE}:2", "--slot", "99", "-o", "t.svg"],
    ["draw", "lattice", "--sentence", f"{SAMPLE}:2", "--slot", "1", "--min-prob", "0.1"],
    ["decode", "-o", "nowhere/x.conllu", str(SAMPLE)],
])
def test_a_refusal_comes_without_the_note_on_the_language(command, tmp_path, monkeypatch,
                                                          capsys):
    """Without --model the note on the model chosen for the input's language is printed once
    the work reads a sentence, or at the end of a run: a refusal before is its one line (the
    note came first: two lines); a run that succeeds still prints it, once."""
    monkeypatch.chdir(tmp_path)
    try:
        status = main(command)
    except SystemExit as stop:  # an -o in no folder: refused with the options
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "note" not in err, err


@pytest.mark.parametrize("command", [
    ["decode", str(SAMPLE)], ["normalise", str(SAMPLE)], ["rephrase", str(SAMPLE)],
    ["show", str(SAMPLE), "-o", "x.html"], ["draw", "tree", "--sentence", f"{SAMPLE}:2"],
    ["restore", "--text", "in.txt"],
])
@pytest.mark.parametrize("lang", ["nl", "EN", "fr_gsd", ""])
def test_a_lang_without_a_bundled_model_is_refused(command, lang, tmp_path, monkeypatch,
                                                    capsys):
    """``--lang nl`` (or a typo, ``EN``, ``fr_gsd``, or ``''``) used to give the English model
    with a note and exit 0, where train, rules and ``restore --crf --text`` refuse it: one
    line, exit 2, nothing written. A language that only the input's name or metadata tells keeps the
    note (test_api.py::test_choice_falls_back_to_english_with_a_note)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.txt").write_text("we left\n", encoding="utf-8")
    assert main([*command, "--lang", lang]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"fstpunct {' '.join(command[:2] if command[0] == 'draw' else command[:1])}: error: "
        f"--lang {lang!r}: no bundled model of that language (bundled: {', '.join(bundled())}; "
        "or pass --model DIR, a model of your own)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


def test_a_note_or_warning_names_the_whole_command(tmp_path, monkeypatch, capsys):
    """A run that succeeds without --model prints the note on the language once, its line
    beginning with the whole command ('fstpunct draw tree: note: '); the Graphviz-missing line
    is a warning of the whole command too."""
    monkeypatch.chdir(tmp_path)
    for ok in (["draw", "tree", "--sentence", f"{SAMPLE}:2", "-o", "t.svg"],
               ["decode", str(SAMPLE), "-o", "out.conllu"], ["perplexity", str(SAMPLE)]):
        assert main(ok) == 0
        prog = "fstpunct " + " ".join(ok[:2] if ok[0] == "draw" else ok[:1])
        lines = capsys.readouterr().err.splitlines()
        notes = [line for line in lines if "note: cannot tell the input's language" in line]
        assert len(notes) == 1 and notes[0].startswith(f"{prog}: note: cannot tell"), lines
    monkeypatch.setattr("fstpunct.cli.draw.write_graph",
                        lambda picture, path: (tmp_path / "x.dot", False))
    assert main(["draw", "lattice", "--sentence", f"{SAMPLE}:2", "--slot", "1", "--paths", "2",
                 "--samples", "20", "-o", "l.svg"]) == 0
    assert "\nfstpunct draw lattice: warning: the Graphviz 'dot' program is missing, so wrote " \
        f"{tmp_path / 'x.dot'} instead of l.svg" in "\n" + capsys.readouterr().err


def test_a_folder_of_another_kind_says_what_it_is(tmp_path, capsys):
    """A parser's folder given as the punctuation model, or a punctuation model's as the
    parser: the error says what the folder is (it said only the two formats)."""
    from fstpunct.model.store import model_path
    en = model_path("en")
    assert main(["decode", "--model", str(en / "parser"), str(SAMPLE)]) == 2
    assert f"{en / 'parser'}: not a fstpunct model (model.json is a parser's: format " \
        "'fstpunct-parser-1', expected 1)" in capsys.readouterr().err
    assert main(["parse", "--model", str(en), str(SAMPLE)]) == 2
    assert f"{en}: not a parser model (model.json is a punctuation or ordering model's: " \
        "format 1, expected 'fstpunct-parser-1')" in capsys.readouterr().err


def test_the_format_table_names_every_format():
    """files.py's table of what each format is holds every module's FORMAT (a module-level
    ``FORMAT = ...`` anywhere in the package, found by reading the source: the corrector
    formats, sharing meta.json with the CRF, were missing)."""
    import ast

    import fstpunct
    from fstpunct.files import _FORMATS
    formats = {ast.literal_eval(node.value)
               for file in Path(fstpunct.__file__).parent.rglob("*.py")
               for node in ast.parse(file.read_text(encoding="utf-8")).body
               if isinstance(node, ast.Assign)
               and [getattr(t, "id", None) for t in node.targets] == ["FORMAT"]}
    assert len(formats) >= 7 and set(_FORMATS) == formats


def test_a_format_of_another_type_is_refused(tmp_path):
    """``"format": true`` or ``1.0`` was taken as format 1; a CRF corrector's meta.json where
    a CRF's is expected says what it is."""
    from fstpunct.errors import ModelError
    from fstpunct.files import read_meta
    for found in ("true", "1.0"):
        (tmp_path / "model.json").write_text(f'{{"format": {found}}}', encoding="utf-8")
        with pytest.raises(ModelError, match=rf"^{tmp_path}: not a model \(model\.json: "
                                             rf"format {found.title()}, expected 1\)$"):
            read_meta(tmp_path / "model.json", 1, "a model")
    (tmp_path / "meta.json").write_text('{"format": "fstpunct-crf-corrector 1"}')
    with pytest.raises(ModelError, match=r"\(meta\.json is a CRF corrector's: format "
                                         r"'fstpunct-crf-corrector 1', expected "
                                         r"'fstpunct-crf 1'\)$"):
        read_meta(tmp_path / "meta.json", "fstpunct-crf 1", "a CRF")


@pytest.mark.parametrize("argv, prog", [
    (["crf", "perplexity", "--model", "no-such-crf", "--lang", "en"], "fstpunct crf perplexity"),
    (["parser", "train", "--lang", "xx", "-o", "x"], "fstpunct parser train"),
    (["draw", "tree", "--sentence", f"{SAMPLE}:99", "-o", "t.svg"], "fstpunct draw tree"),
])
def test_an_error_names_the_whole_command(argv, prog, tmp_path, monkeypatch, capsys):
    """A subcommand's error line begins with its whole name, as argparse's do ('fstpunct crf
    perplexity: error:'; it was 'fstpunct crf: error:')."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{prog}: error: ") and err.count("\n") == 1, err


def test_a_missing_model_is_named_as_typed(tmp_path, monkeypatch, capsys):
    """--model ./en with no folder ./en said "no model 'en': not a folder, and not a bundled
    model (...)": the ./ dropped (str of a Path), and a path called no bundled model. A path is
    no such folder (or a file), a bare name is no bundled model and no folder here."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    bundled_names = ", ".join(bundled())
    for name, why in [("./en", "no such folder"), ("./afile", "a file, not a folder"),
                      ("xx", f"not a bundled model ({bundled_names}), and no folder of that "
                             "name here"),
                      ("afile", f"not a bundled model ({bundled_names}), and a file here, not "
                                "a folder")]:
        assert main(["decode", "--model", name, str(SAMPLE)]) == 2
        assert capsys.readouterr().err == f"fstpunct decode: error: no model '{name}': {why}\n"
    with pytest.raises(ModelError, match=r"^no model 'en': no such folder$"):
        load_model(Path("en"))  # a Path is a folder, never a bundled name
