"""A trainer's random seed (:func:`fstpunct.errors.check_seed`): numpy's integer seed trains as
the same Python int does (the tagger, the parser; the BiLSTM-CRF corrector in
test_correction_bilstm.py), and a bool or a float is refused in one line, by the library
before any sentence is read and by the command line before anything is."""
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLE

import fstpunct
from fstpunct.apps.correction import bilstm
from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model import fit
from fstpunct.parser import Model
from fstpunct.parser import train as train_parser
from fstpunct.parser.tagger import depunctuated, train_tagger
from fstpunct.ud.treebank import read_file


def test_numpys_seed_trains_the_tagger_pythons_does():
    data = [depunctuated(s) for s in read_file(SAMPLE)]
    taggers = [train_tagger(data, epochs=3, seed=seed, log=lambda _: None)
               for seed in (np.int64(5), 5)]
    assert (taggers[0].weights == taggers[1].weights).all()


def test_numpys_seed_trains_the_parser_pythons_does(tmp_path):
    """random.Random refused numpy's seed with a TypeError after the features were built."""
    sents = list(read_file(SAMPLE))
    for name, seed in (("np", np.int64(5)), ("py", 5)):
        train_parser(sents, sents, "tokens", 1, tmp_path / name, epochs=3, progress=False,
                     log=lambda _: None, seed=seed)
    parsers = [Model.load(tmp_path / name) for name in ("np", "py")]
    assert (parsers[0].weights == parsers[1].weights).all()
    assert type(parsers[0].info["seed"]) is int and parsers[0].info["seed"] == 5
    untimed = [_untimed(tmp_path / name / "model.json") for name in ("np", "py")]
    assert untimed[0] == untimed[1] and untimed[0][1] > 0


def _untimed(path: Path) -> tuple[bytes, int]:
    """A JSON file's bytes with its timings' values (``build_seconds``, ``train_seconds``,
    ``dev_seconds``: wall time, which differs between runs under load) blanked, and how many
    were blanked; every other byte as written."""
    return re.subn(rb'("\w+_seconds": )[-+.\deE]+', rb"\1_", path.read_bytes())


def _unread():
    """Sentences whose reading fails the test."""
    raise AssertionError("a sentence was read")
    yield


TRAINERS = {  # every trainer that takes a seed, called with one (no sentence read)
    "tagger": lambda seed, out: train_tagger(_unread(), seed=seed),
    "parser": lambda seed, out: train_parser(_unread(), _unread(), "tokens", 1, out,
                                             seed=seed),
    "bilstm": lambda seed, out: bilstm.train([1], [1], out, seed=seed),  # torch not needed
    "fit.train": lambda seed, out: fit.train(_unread(), None, ["ltr"], seed=seed),
    "fstpunct.train": lambda seed, out: fstpunct.train(out, SAMPLE, seed=seed),
    "fstpunct.train_tagger": lambda seed, out: fstpunct.train_tagger(out, SAMPLE, seed=seed),
}


@pytest.mark.parametrize("seed", [True, 2.5, 2.0, "1", None])
@pytest.mark.parametrize("trainer", sorted(TRAINERS))
def test_a_bool_or_a_float_seed_is_refused_in_one_line(trainer, seed, tmp_path):
    """The tagger rounded 2.5 to 2 and took True as 1 and '1' as 1; the parser and the
    BiLSTM-CRF seeded their shuffles with each as given (random takes a float or a string).
    None was ``int(None)``'s TypeError traceback (a seed is required: no trainer draws one)."""
    shown = repr(seed) if isinstance(seed, str) else seed
    with pytest.raises(InputError, match=f"^seed must be a whole number of at least 0, "
                                         f"not {shown}$"):
        TRAINERS[trainer](seed, tmp_path / "m")
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("command", [["parser", "train"], ["tagger", "train"], ["train"]])
def test_the_commands_refuse_a_negative_seed_first(command, tmp_path, capsys):
    """``parser train --seed -1`` trained (random takes a negative seed's absolute value);
    every training command refuses it in one line, naming the option, before reading."""
    out = tmp_path / "m"
    assert main([*command, "--train", str(SAMPLE), "--seed", "-1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--seed must be at least 0, not -1" in err, err
    assert not out.exists()
