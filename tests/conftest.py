"""Test-wide settings: hypothesis checks values, not time (speed is measured by the benchmarks
in bench/), so no example fails for being slow on a busy machine; under CI (``CI`` set, and
not to "", "0", "false" or "no"; ``.ci/run`` sets ``CI=true`` unless it is set) its examples
are derandomised, so a CI run is reproducible and a red one can be re-run as it was (local
runs keep drawing fresh examples; ``scripts/fuzz.py --minutes N`` searches further).

A test that reads a UD treebank, or runs a command that reads one (``hi:dev``, ``--lang en``),
asks for it by :func:`treebank` (``treebank("en", "dev")``, in the test or in a fixture of its
module); one that needs the release as a whole asks for the ``ud`` fixture. On a clone without
the treebank (no release, or one without that file) the test is skipped, saying so, but under
CI, which has them all, it fails."""
import inspect
import os
import re
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import settings
from learner_pairs import GRAMMAR, learner_pairs
from toy_release import write_release

from fstpunct.apps.correction.model import CorrectionModel
from fstpunct.apps.correction.model import train as train_correction
from fstpunct.errors import InputError
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.punct import Settings
from fstpunct.model.store import load_model
from fstpunct.parser import jackknife
from fstpunct.parser import train as train_parser
from fstpunct.ud.release import LANGUAGES, SPLITS, Source, find_treebank, split_source, ud_root
from fstpunct.ud.treebank import read_file


def under_ci(value: str | None) -> bool:
    """Whether ``$CI``'s ``value`` says this is a CI run: set to anything but "", "0", "false"
    or "no", in any case (``CI=false`` is not CI)."""
    return (value or "").strip().lower() not in ("", "0", "false", "no")


CI = under_ci(os.environ.get("CI"))
settings.register_profile("fstpunct", deadline=None, derandomize=CI)
settings.load_profile("fstpunct")


@pytest.fixture(scope="session")
def ud() -> Path:
    """The UD release folder the treebanks are read from: :func:`ud_release`."""
    return ud_release()


def ud_release() -> Path:
    """The UD release folder (``$FSTPUNCT_UD_DIR``, else ``ud`` or ``../shared/ud``:
    :func:`~fstpunct.ud.release.ud_root`), if it holds treebank files (either layout). Without
    one, or with a folder without them, a test that asks for it is skipped, saying why; under
    CI it fails instead, so no coverage vanishes there."""
    try:
        root = ud_root()
    except InputError as e:
        missing(f"needs the UD treebanks: {e}")
    if not any(root.glob("UD_*/*-ud-*.conllu")) and not any(root.glob("*-ud-*.conllu")):
        missing(f"needs the UD treebanks: no UD_*/*-ud-*.conllu under {root}")
    return root


# a UD treebank's code: its language's ISO code, "_", the treebank's name (en_ewt, grc_proiel)
UD_CODE = re.compile(r"[a-z]{2,3}_[a-z0-9]+")


def treebank(name: str, split: str) -> Source:
    """Split ``split`` of ``name`` in the UD release (:func:`ud_release`): a language's
    standard split (``treebank("es", "dev")``, :func:`~fstpunct.ud.release.split_source`) or a
    treebank's file (``treebank("zh_gsd", "test")``), found by
    :func:`~fstpunct.ud.release.find_treebank`. A release without that file (one with only de,
    say) is missing data as no release is: the test is skipped, naming the file, and fails
    under CI. A split that is none of :data:`~fstpunct.ud.release.SPLITS`, or a name that is
    neither a language of the project's splits nor of a UD treebank code's shape (``enn``,
    ``en-ewt``), is the test's own error (InputError), raised everywhere: a typo in a test
    would otherwise pass as a skip."""
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    if name not in LANGUAGES and not UD_CODE.fullmatch(name):
        raise InputError(f"unknown treebank {name!r}: neither a language ({', '.join(LANGUAGES)})"
                         f" nor a UD treebank code (language_name, as en_ewt)")
    root = ud_release()
    try:
        if name in LANGUAGES:
            return split_source(name, split, root)
        return Source(find_treebank(name, split, root), f"{name} {split}")
    except InputError as e:
        missing(f"needs {name} {split} of the UD treebanks: {e}")


def missing(reason: str) -> NoReturn:
    """A test's data is missing: skip it, saying ``reason``; under CI, which has the data,
    fail it instead."""
    (pytest.fail if CI else pytest.skip)(reason)


@pytest.fixture(scope="session")
def toy_ud(tmp_path_factory) -> Path:
    """A tiny UD release in both layouts (see toy_release.py)."""
    return write_release(tmp_path_factory.mktemp("ud"))


# Models several test modules read (session-wide, built once). Read only: a test that changes
# one works on a copy (dataclasses.replace, or its folder copied into tmp_path).
SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


def sample_parser(folder: Path, mode: str) -> Path:
    """``folder``: a ``mode``-mode parser trained one epoch on data/sample.conllu (its train
    and dev data alike)."""
    sents = list(read_file(SAMPLE))
    train_parser(sents, sents, mode, 1, folder, epochs=1, progress=False, log=lambda m: None)
    return folder


@pytest.fixture(scope="session")
def tokens_parser(tmp_path_factory) -> Path:
    """A ``tokens``-mode parser folder (:func:`sample_parser`): the one correction takes."""
    return sample_parser(tmp_path_factory.mktemp("parser") / "tokens", "tokens")


@pytest.fixture(scope="session")
def removed_parser(tmp_path_factory) -> Path:
    """A ``removed``-mode parser folder (:func:`sample_parser`): the one restoration and the
    text pipeline take."""
    return sample_parser(tmp_path_factory.mktemp("parser") / "removed", "removed")


@pytest.fixture(scope="session")
def stub_correction(tmp_path_factory) -> Path:
    """A correction model folder made of the bundled English model twice, as learner model
    and as corrector (input and option checks only)."""
    folder = tmp_path_factory.mktemp("stub") / "correction"
    return CorrectionModel(load_model("en"), load_model("en"), {}).save(folder)


@pytest.fixture(scope="session")
def hand_corrector() -> CorrectionModel:
    """The correction model of the hand-made pairs (learner_pairs.py, 12 of each; 3
    iterations, unlexicalised)."""
    learner, originals, fixed = learner_pairs(12)
    return train_correction(learner, originals, fixed, load_model("en"), load_grammar(GRAMMAR),
                            iterations=3, settings=Settings(lexical=0))


# Spies: what the code under test called, recorded while the real thing runs.
@pytest.fixture
def train_calls(monkeypatch) -> list[dict]:
    """Every call jackknifing makes from now on of the parser trainer
    (:func:`fstpunct.parser.train.train`, which still trains), its arguments by train's own
    names, defaults included (``train_sents``, ``dev_sents``, ``mode``, ``info``, ...)."""
    real = jackknife.train
    signature = inspect.signature(real)
    calls: list[dict] = []

    def spied(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        calls.append(dict(bound.arguments))
        return real(*args, **kwargs)

    monkeypatch.setattr(jackknife, "train", spied)
    return calls


def counted_reads(monkeypatch, method: str = "read_bytes") -> list[str]:
    """The names of the files ``Path.<method>`` (``read_bytes``, ``read_text``, ``open``) is
    called on from now on, in order; the real method still runs. Reads, but for ``open``:
    every call, whatever its mode, so that it counts reads only where nothing is opened to
    write (as in loading a model)."""
    calls: list[str] = []
    real = getattr(Path, method)

    def counted(self, *args, **kwargs):
        calls.append(self.name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, method, counted)
    return calls
