"""The correction models' folders are written as every model's (files.model_folder): a folder
holding what the writer does not write is refused before training, and if something appears
there while it trains, the model goes to NAME.new beside it, with one error line. Hand-made
pairs only (learner_pairs.py)."""
import errno
import os
import stat
import sys

import pytest
from learner_pairs import learner_pairs
from script_module import load_script

from fstpunct.apps.correction import bilstm, crf
from fstpunct.apps.correction.model import FILES, KIND, PART_FILES, CorrectionModel
from fstpunct.errors import InputError, SavedAside
from fstpunct.files import is_correction_model, model_target


@pytest.fixture(scope="module")
def pairs():
    _, originals, fixed = learner_pairs(2)
    return originals, fixed


def test_a_correction_model_is_saved_beside_a_folder_holding_anything_else(hand_corrector,
                                                                          tmp_path):
    """Saving replaced the folder whole: notes put beside a correction model were deleted in
    silence. Now the folder is left as it was and the model is saved in NAME.new."""
    folder = hand_corrector.save(tmp_path / "m")
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(SavedAside) as saved:
        hand_corrector.save(folder)
    assert str(saved.value) == (f"{folder}: holds notes.txt, not part of a correction model, so "
                                f"it is left as it was; the model is saved in {folder}.new")
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert CorrectionModel.load(tmp_path / "m.new").record == hand_corrector.record
    hand_corrector.save(tmp_path / "m.new")  # a correction model's own folder is replaced


def test_a_correction_models_folder_is_told_by_its_record(hand_corrector, tmp_path):
    """is_correction_model, which fstpunct.load and score's marks ask, is true of the folder a
    correction model is saved in, not of its learner/ (a punctuation model) nor of a folder
    whose correction.json is no file."""
    folder = hand_corrector.save(tmp_path / "m")
    (tmp_path / "odd" / "correction.json").mkdir(parents=True)
    assert [is_correction_model(f) for f in (folder, folder / "learner", tmp_path / "odd")] \
        == [True, False, False]


def test_notes_inside_a_correction_models_parts_are_kept(hand_corrector, tmp_path):
    """Only the folder's top level was checked: notes inside its learner/ (a punctuation model
    folder of its own) were deleted in silence by the next save. Now they count as the top
    level's do: the model is saved in NAME.new, and a trainer's check refuses the folder."""
    folder = hand_corrector.save(tmp_path / "m")
    (folder / "learner" / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(SavedAside) as saved:
        hand_corrector.save(folder)
    assert str(saved.value).startswith(f"{folder}: holds learner/notes.txt, not part of a "
                                       "correction model"), saved.value
    assert (folder / "learner" / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert CorrectionModel.load(tmp_path / "m.new").record == hand_corrector.record
    with pytest.raises(InputError, match=f"^{folder}: holds learner/notes.txt, not part of"):
        model_target(folder, FILES, KIND, PART_FILES)  # correction.py train's and calibrate's


@pytest.mark.parametrize("trainer, kind", [(crf.train, "a CRF corrector"),
                                           (bilstm.train, "a BiLSTM-CRF corrector")])
def test_a_corrector_refuses_a_folder_holding_anything_else_before_training(
        pairs, tmp_path, trainer, kind):
    """The CRF and BiLSTM-CRF correctors replaced their folder whole, whatever else it held;
    now refused before any training, in one line, the folder untouched."""
    folder = tmp_path / "c"
    folder.mkdir()
    for name in ("meta.json", "notes.txt"):
        (folder / name).write_text("{}\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"^{folder}: holds notes.txt, not part of {kind}:"):
        trainer(*pairs, folder)
    assert sorted(p.name for p in folder.iterdir()) == ["meta.json", "notes.txt"]


def test_what_appears_while_a_crf_corrector_trains_sends_it_beside(pairs, tmp_path,
                                                                    monkeypatch):
    """An entry put into the folder while the corrector trains: the folder is left as it is
    and the corrector saved in NAME.new (SavedAside, one line)."""
    folder = tmp_path / "c"
    made = crf.features

    def meanwhile(*args):
        folder.mkdir(exist_ok=True)
        (folder / "notes.txt").touch()
        return made(*args)

    monkeypatch.setattr(crf, "features", meanwhile)
    with pytest.raises(SavedAside, match="the model is saved in .*c.new$"):
        crf.train(*pairs, folder)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    assert crf.CrfCorrector.load(tmp_path / "c.new").meta["training"]["pairs"] == 4


@pytest.mark.parametrize("command", ["train", "calibrate"])
def test_the_script_refuses_a_folder_holding_anything_else_first(command, tmp_path,
                                                                  monkeypatch, capsys):
    """scripts/correction.py train and calibrate -o DIR, DIR holding other things: one line,
    status 2, before any data or model is read (there is none here)."""
    out = tmp_path / "out"  # a correction model's folder, say, with notes beside it
    out.mkdir()
    for name in ("correction.json", "notes.txt"):
        (out / name).touch()
    more = (["--learner", "en", "--original", "gone.conllu", "--corrected", "gone.conllu"]
            if command == "train" else ["--model", str(tmp_path / "gone"), "--data", "gone"])
    monkeypatch.setattr(sys, "argv", ["correction.py", command, *more, "-o", str(out)])
    with pytest.raises(SystemExit) as stop:
        load_script("correction").main()
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert f"{out}: holds notes.txt, not part of a correction model" in err, err
    assert sorted(p.name for p in out.iterdir()) == ["correction.json", "notes.txt"]


@pytest.mark.parametrize("what, error", [("folder", errno.EIO), ("file", errno.ENOSPC)])
def test_a_correction_model_that_cannot_be_flushed_is_one_line_naming_its_folder(
        hand_corrector, tmp_path, monkeypatch, what, error):
    """A flush to the disk that fails inside learner/ or corrector/ named the part's own
    temporary folder inside the temporary folder (DIR/.m.….part/learner), removed by then: each
    part was a model folder of its own, written by save_model (and its channel.fst had a
    temporary of its own too, named when its flush failed). Now the parts are written into the
    one temporary folder, and the error names DIR/m; the old model stays, nothing beside it."""
    folder = hand_corrector.save(tmp_path / "m")
    old = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    fsync = os.fsync

    def refused(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode) == (what == "folder"):
            raise OSError(error, os.strerror(error))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", refused)
    with pytest.raises(InputError) as failed:
        hand_corrector.save(folder)
    monkeypatch.undo()
    assert str(failed.value) == f"{folder}: cannot write: {os.strerror(error)}"
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == old
    assert [p.name for p in tmp_path.iterdir()] == ["m"]
