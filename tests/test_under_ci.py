"""conftest's reading of $CI: a CI run fails the tests whose UD data is missing."""
import re

import conftest
import pytest
from conftest import under_ci
from toy_release import FILES

from fstpunct.errors import InputError
from fstpunct.ud.release import Source, find_treebank, split_source


@pytest.mark.parametrize("value, ci", [
    (None, False), ("", False), ("0", False), ("false", False), ("False", False),
    ("no", False), ("NO", False), (" false ", False),
    ("true", True), ("1", True), ("yes", True), ("TRUE", True), ("github", True)])
def test_ci_is_a_truthy_value_of_the_variable(value, ci):
    """CI is set only by a value that says so (CI=false and CI=0 were CI: bool of the string)."""
    assert under_ci(value) is ci


@pytest.mark.parametrize("ci, outcome", [(False, pytest.skip.Exception),
                                         (True, pytest.fail.Exception)])
@pytest.mark.parametrize("layout", ["none", "other files"])
def test_a_ud_folder_without_treebank_files_is_missing_data(tmp_path, monkeypatch, ci, outcome,
                                                            layout):
    """A UD folder that exists but holds no treebank files skips the tests that need it (fails
    them under CI), saying so, where they failed on 'treebank file ... not found'."""
    if layout == "other files":
        (tmp_path / "UD_English-EWT").mkdir()
        (tmp_path / "UD_English-EWT" / "README.md").write_text("no treebank\n")
    monkeypatch.setenv("FSTPUNCT_UD_DIR", str(tmp_path))
    monkeypatch.setattr(conftest, "CI", ci)
    with pytest.raises(outcome, match=r"needs the UD treebanks: no UD_\*/\*-ud-\*\.conllu under"):
        conftest.ud_release()


@pytest.mark.parametrize("name", ["UD_English-EWT/en_ewt-ud-dev.conllu", "en-ud-dev.conllu"])
def test_a_ud_folder_with_treebank_files_in_either_layout_is_the_release(tmp_path, monkeypatch,
                                                                        name):
    """A release in the UD 2 layout (UD_*/ folders) or UD 1.x's flat one is found as it is."""
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("")
    monkeypatch.setenv("FSTPUNCT_UD_DIR", str(tmp_path))
    assert conftest.ud_release() == tmp_path


@pytest.mark.parametrize("ci, outcome", [(False, pytest.skip.Exception),
                                         (True, pytest.fail.Exception)])
def test_a_treebank_the_release_lacks_is_missing_data(toy_ud, tmp_path, monkeypatch, ci,
                                                      outcome):
    """A release without the treebank a test asks for (the toy release: xx only; one with only
    German) skips the test (fails it under CI), naming the file, where the test failed on an
    InputError ('treebank file ... not found'); what it holds is given, by language or by
    treebank; a split no language has is the test's own error."""
    german = tmp_path / "UD_German-PUD" / "de_pud-ud-test.conllu"
    german.parent.mkdir()
    german.write_text(FILES["UD_Toy/xx-ud-train.conllu"], encoding="utf-8")
    monkeypatch.setattr(conftest, "CI", ci)
    for root, name, split, file in ((toy_ud, "en", "dev", "en_ewt-ud-dev.conllu"),
                                    (tmp_path, "en", "dev", "en_ewt-ud-dev.conllu"),
                                    (tmp_path, "de_pud", "dev", "de_pud-ud-dev.conllu"),
                                    (tmp_path, "zh_gsd", "test", "zh_gsd-ud-test.conllu")):
        monkeypatch.setenv("FSTPUNCT_UD_DIR", str(root))
        with pytest.raises(InputError, match=f"treebank file {file} not found"):
            split_source(name, split) if name == "en" else find_treebank(name, split)
        with pytest.raises(outcome, match=rf"^needs {name} {split} of the UD treebanks: "
                                          rf"treebank file {file} not found under {root}$"):
            conftest.treebank(name, split)
    assert conftest.treebank("de_pud", "test") == Source(german, "de_pud test")
    assert conftest.treebank("de", "dev") == Source(german, "de dev", 801, 900)
    with pytest.raises(InputError, match="unknown split 'valid'"):
        conftest.treebank("de", "valid")


@pytest.mark.parametrize("ci", [False, True])
@pytest.mark.parametrize("name, split, message", [
    ("enn", "dev", "unknown treebank 'enn': neither a language (en, "),
    ("en-ewt", "dev", "unknown treebank 'en-ewt'"),
    ("EN_EWT", "dev", "unknown treebank 'EN_EWT'"),
    ("zh_gsd", "tset", "unknown split 'tset'; known: train, dev, test"),
    ("en", "valid", "unknown split 'valid'")])
def test_a_mistyped_treebank_or_split_is_the_tests_own_error(toy_ud, monkeypatch, ci, name,
                                                             split, message):
    """A name that is neither a language nor of a UD code's shape, or a split no treebank
    has, fails the test everywhere, before the release is looked at: it was skipped outside CI
    as data missing ('needs enn dev of the UD treebanks: treebank file ... not found')."""
    monkeypatch.setenv("FSTPUNCT_UD_DIR", str(toy_ud))
    monkeypatch.setattr(conftest, "CI", ci)
    with pytest.raises(InputError, match=f"^{re.escape(message)}"):
        conftest.treebank(name, split)
    with pytest.raises((pytest.skip.Exception, pytest.fail.Exception), match="en_ewtt-ud-dev"):
        conftest.treebank("en_ewtt", "dev")  # of UD's shape: absent from this release
