"""conftest's reading of $CI: a CI run fails the tests whose UD data is missing."""
import conftest
import pytest
from conftest import under_ci


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
