"""Outputs appear whole or not at all; inputs open one way; the CLI's exit statuses."""
import errno
import gc
import io
import json
import os
import pickle
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import counted_reads, treebank

from fstpunct.api.data import sentences
from fstpunct.apps.correction.model import CorrectionModel
from fstpunct.apps.rephrase.order import OrderModel
from fstpunct.cli.main import main
from fstpunct.errors import FstpunctWarning, InputError, ModelError, SavedAside, Unflushed
from fstpunct.files import (
    Terminated,
    end_on_signals,
    folder_target,
    has_separator,
    model_folder,
    open_input,
    output,
    read_npy,
    read_npz,
    temporary_target,
    to_json,
    write_json,
    writing,
)
from fstpunct.fst.channel import Channel
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.store import BUNDLED, load_model, model_path, save_model
from fstpunct.parser import Model
from fstpunct.parser.pipeline import load_pipeline, pipeline_folders
from fstpunct.parser.tagger import Tagger
from fstpunct.ud.release import read_one, resolve

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"
GRAMMARS = Path(__file__).parents[1] / "grammars"
PREVIOUS = "previous content\n"
WRITTEN = ("model.json", "new.json")  # the files of the model folders written here


def fstpunct(*args):
    return subprocess.Popen([sys.executable, "-m", "fstpunct.cli.main", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def leftovers(folder):
    return [p.name for p in Path(folder).iterdir() if p.name.startswith(".")]


def test_output_appears_only_when_complete(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text(PREVIOUS)
    with pytest.raises(RuntimeError):
        with output(target) as f:
            f.write("half")
            raise RuntimeError
    assert target.read_text() == PREVIOUS and leftovers(tmp_path) == []
    with output(target) as f:
        f.write("a\r\nb\n")
        assert target.read_text() == PREVIOUS
    assert target.read_bytes() == b"a\r\nb\n" and leftovers(tmp_path) == []


def test_output_keeps_permissions_and_refuses_folders(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text(PREVIOUS)
    target.chmod(0o640)
    with output(target) as f:
        f.write("new")
    assert target.stat().st_mode & 0o777 == 0o640
    with pytest.raises(InputError, match="is a folder"):
        with output(tmp_path):
            pass
    with pytest.raises(InputError, match="cannot write"):
        with output(tmp_path / "missing" / "out.txt"):
            pass


def test_write_json_is_whole_or_not_at_all(tmp_path, monkeypatch):
    """A JSON file cut short (a full disk halfway) leaves the previous one: write_json wrote
    the target in place, and the disk's error was a traceback."""
    target = tmp_path / "meta.json"
    target.write_text(PREVIOUS)

    def half(self, text, encoding=None):
        with open(self, "w", encoding=encoding) as f:
            f.write(text[:len(text) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half)
    with pytest.raises(InputError, match=r"^\S+/meta.json: cannot write: No space left"):
        write_json(target, {"words": ["a", "b"]})
    assert target.read_text() == PREVIOUS and leftovers(tmp_path) == []


def test_every_json_file_of_a_model_is_write_jsons(tmp_path):
    """A parser's model.json, a tagger's tagger.json and an ordering model's order.json are
    written as every JSON file is (:func:`write_json`: one space of indent, a final newline):
    the first two had no final newline, the last no indent. The bundled files, written so
    before, load as they are."""
    order = OrderModel(["a", "b"], np.array([0.5, -1.0]), {"steps": 2})
    saved = ((Model.load(BUNDLED / "ru" / "parser").save, "model.json"),
             (Tagger.load(BUNDLED / "ru" / "tagger").save, "tagger.json"),
             (lambda folder: folder.mkdir() or order.save(folder / "order"), "order.json"))
    for save, name in saved:
        save(tmp_path / name)
        text = (tmp_path / name / name).read_text(encoding="utf-8")
        assert text == to_json(json.loads(text), ensure_ascii=False, indent=1) + "\n", name


class Cut(Exception):
    """A write or a rename cut short (a full disk, a kill), raised by the tests of pairs."""


def _pair(kind, folder):
    """Two files written together, outside a model folder: a compiled channel (``.fst`` and its
    sidecar ``.json``: en's rules, then es's, both right to left) or an ordering model (``.json``
    and ``.npz``: one feature index, two sets of weights and records). Returns the write of
    version 0 or 1, the read, the two files (the JSON first) and how to cut short the write of
    the binary file."""
    if kind == "channel":
        out = folder / "c.fst"
        return ((lambda v: load_grammar(GRAMMARS / f"{('en', 'es')[v]}.rules").compile(out)),
                lambda: Channel.load(out), (out.with_suffix(".json"), out), (Channel, "fst"))
    base = folder / "order"
    return ((lambda v: OrderModel(["a", "b"], np.array([0.5, -1.0]) * (v + 1),
                                  {"version": v}).save(base)),
            lambda: OrderModel.load(base), (base.with_suffix(".json"), base.with_suffix(".npz")),
            (np, "savez_compressed"))


def _write_file(target):
    with output(target) as f:
        f.write("new\n")


def _write_folder(target):
    with model_folder(target, ["model.json"], "a model") as tmp:
        write_json(tmp / "model.json", {}, atomic=False)


@pytest.mark.parametrize("write, old", [(_write_file, None), (_write_file, "file"),
                                        (_write_folder, None), (_write_folder, "folder")])
def test_a_rename_into_place_is_flushed(write, old, tmp_path, monkeypatch):
    """After the rename that puts an output in place (atomic_path's, model_folder's, over an
    old one or not), the folder holding it is flushed to the disk: it was not, so a crash
    right after could lose the rename (ext4, xfs) and find the old output."""
    target = tmp_path / "out"
    if old == "file":
        target.write_text("old\n")
    elif old == "folder":
        _write_folder(target)
    events, replace, fsync, folder = [], os.replace, os.fsync, os.stat(tmp_path)

    def renamed(src, dst):
        replace(src, dst)
        events.append(Path(dst))

    def flushed(fd):  # the folder holding the output, or another file or folder
        fsync(fd)
        events.append("folder" if os.path.samestat(os.fstat(fd), folder) else "other")

    monkeypatch.setattr(os, "replace", renamed)
    monkeypatch.setattr(os, "fsync", flushed)
    write(target)
    monkeypatch.undo()
    assert events[-2:] == [target, "folder"], events


@pytest.mark.parametrize("kind", ["file", "folder", "aside"])
def test_an_output_whose_rename_cannot_be_flushed(kind, tmp_path, monkeypatch):
    """The folder holding an output (a file, a model folder) is flushed to the disk after the
    rename that puts it in place, and before a previous model folder is removed: it was removed
    first. An error of that flush (EIO), with the output in place, now says the same of both:
    that it is written, where, and that a crash may yet lose it. A model folder said "cannot
    write" of itself, losing the notice that it went beside the folder asked for (SavedAside);
    a file still did."""
    target = tmp_path / ("out" if kind == "file" else "model")
    if kind == "file":
        target.write_text("old\n")
    else:
        _write_folder(target)
    if kind == "aside":
        (target / "notes.txt").write_text("mine")
    events, fsync, rmtree, folder = [], os.fsync, shutil.rmtree, os.stat(tmp_path)

    def flushed(fd):  # the folder holding the output refuses, as a failing disk
        if os.path.samestat(os.fstat(fd), folder):
            events.append("flush")
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        fsync(fd)

    def removed(path, *args, **kwargs):
        events.append("remove")
        rmtree(path, *args, **kwargs)

    monkeypatch.setattr(os, "fsync", flushed)
    monkeypatch.setattr(shutil, "rmtree", removed)
    with pytest.raises(SavedAside if kind == "aside" else InputError) as caught:
        if kind == "file":
            _write_file(target)
        else:
            with model_folder(target, ["model.json"], "a model") as tmp:
                write_json(tmp / "model.json", {"new": 1}, atomic=False)
    monkeypatch.undo()
    place = tmp_path / "model.new" if kind == "aside" else target
    told = (f"{target}: holds notes.txt, not part of a model, so it is left as it was; the "
            f"model is saved in {place}" if kind == "aside" else f"{place}: written")
    assert str(caught.value) == (f"{told}, but the folder holding it could not be flushed to "
                                 f"the disk ({os.strerror(errno.EIO)}): a crash now may lose it")
    if kind == "file":
        assert target.read_text() == "new\n" and events == ["flush"]
    else:
        assert json.loads((place / "model.json").read_text()) == {"new": 1}
        # (folder_target's probe of a temporary beside it is removed before)
        assert events[events.index("flush"):] == (["flush"] if kind == "aside"
                                                  else ["flush", "remove"])
    assert leftovers(tmp_path) == []


def test_ctrl_c_while_the_previous_model_is_removed_leaves_no_part_of_it(tmp_path, monkeypatch):
    """Ctrl-C (or SIGTERM) while the previous model folder, moved aside once the new one is in
    place, is being removed still removes all of it before the interrupt goes on: the removal
    stopped, leaving what it had not reached in a hidden folder beside the model."""
    target = tmp_path / "model"
    _write_folder(target)
    (target / "weights.npy").write_bytes(b"0" * 1000)
    rmtree, cut = shutil.rmtree, []

    def interrupted(path, *args, **kwargs):  # the first removal of it stops after one file
        if not cut and Path(path).name.endswith(".old"):
            cut.append(path)
            next(p for p in Path(path).rglob("*") if p.is_file()).unlink()
            raise KeyboardInterrupt
        rmtree(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", interrupted)
    with pytest.raises(KeyboardInterrupt):
        with model_folder(target, ["model.json", "weights.npy"], "a model") as tmp:
            write_json(tmp / "model.json", {"new": 1}, atomic=False)
    monkeypatch.undo()
    assert cut
    assert json.loads((target / "model.json").read_text()) == {"new": 1}
    assert leftovers(tmp_path) == []


def test_a_second_signal_does_not_cut_the_cleanup_of_the_first_short(tmp_path, monkeypatch):
    """Ctrl-C twice, or the two hangups a closed terminal may send (bash's, then the kernel's),
    a second signal while the previous model folder is being removed: it was raised too, in the
    removal the first one had started again, and left what it had not reached in a hidden
    folder beside the model. Only the first signal is raised now."""
    with end_on_signals():
        handler = signal.getsignal(signal.SIGTERM)
        with pytest.raises(Terminated):
            handler(signal.SIGTERM, None)
        assert handler(signal.SIGTERM, None) is None
    target = tmp_path / "model"
    _write_folder(target)
    rmtree, sent = shutil.rmtree, []

    def signalled(path, *args, **kwargs):  # a real signal before each of two removals of it
        if Path(path).name.endswith(".old") and len(sent) < 2:
            sent.append(path)
            os.kill(os.getpid(), signal.SIGTERM)
        rmtree(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", signalled)
    with pytest.raises(Terminated), end_on_signals():
        with model_folder(target, ["model.json"], "a model") as tmp:
            write_json(tmp / "model.json", {"new": 1}, atomic=False)
    monkeypatch.undo()
    assert len(sent) == 2
    assert json.loads((target / "model.json").read_text()) == {"new": 1}
    assert leftovers(tmp_path) == []


def test_a_signal_while_a_failed_output_is_removed_waits_for_the_removal(tmp_path,
                                                                        monkeypatch):
    """A signal landing as the temporary file of a failed output was about to be removed cut
    the removal short and left the temporary beside the target; it now waits for its end."""
    target = tmp_path / "out"
    target.write_text(PREVIOUS)
    unlink, sent = Path.unlink, []

    def signalled(path, *args, **kwargs):
        if not sent:
            sent.append(path)
            os.kill(os.getpid(), signal.SIGTERM)
        unlink(path, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", signalled)
    with pytest.raises(Terminated) as caught, end_on_signals():
        with output(target) as f:
            f.write("new\n")
            raise ValueError("a bug")
    monkeypatch.undo()
    assert sent and isinstance(caught.value.__context__, ValueError)
    assert target.read_text() == PREVIOUS and leftovers(tmp_path) == []


@pytest.mark.parametrize("after", [".old", "model"])
def test_a_signal_between_the_renames_of_a_model_folder_waits_for_both(after, tmp_path,
                                                                      monkeypatch):
    """A signal landing just after the previous model folder is moved aside removed it with the
    new one: no model at all. One landing just after the new one took its place failed to put
    the previous one back over it ("cannot write: Directory not empty"). Held back until both
    renames are done, it leaves the new model in place and nothing beside it."""
    target = tmp_path / "model"
    _write_folder(target)
    replace, sent = os.replace, []

    def signalled(src, dst):  # a real signal, as the terminal sends it, right after the rename
        replace(src, dst)  # (the previous one parked as .model.HEX.old, or the new one put)
        if Path(dst).name.endswith(after) and not sent:
            sent.append(dst)
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(os, "replace", signalled)
    with pytest.raises(Terminated), end_on_signals():
        with model_folder(target, ["model.json"], "a model") as tmp:
            write_json(tmp / "model.json", {"new": 1}, atomic=False)
    monkeypatch.undo()
    assert sent
    assert json.loads((target / "model.json").read_text()) == {"new": 1}
    assert leftovers(tmp_path) == []


def _in_thread(work):
    """``work()`` run in a thread of its own: what it returned, or what it raised."""
    done = []

    def run():
        try:
            done.append(work())
        except BaseException as e:
            done.append(e)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return done[0]


def test_a_write_in_another_thread_installs_no_handlers(tmp_path):
    """Python handles signals in the main thread only, and ``signal.signal`` elsewhere raises
    ValueError: ``main`` called from a user's thread (a service's worker) failed so, with a
    traceback, in end_on_signals before any work. It now runs there, and writes as in the main
    thread, without catching signals (there is no handler of its own to install); so do the
    library's writes (a model folder over a previous one, a compiled channel's pair)."""
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    fst, target = tmp_path / "en.fst", tmp_path / "model"
    for _ in range(2):  # the second over the first
        assert _in_thread(lambda: main(["compile", str(GRAMMARS / "en.rules"), "-o",
                                        str(fst)])) == 0
        assert _in_thread(lambda: _write_folder(target)) is None
        assert _in_thread(lambda: load_grammar(GRAMMARS / "en.rules").channel().save(fst)) \
            is None
    assert Channel.load(fst).direction == load_grammar(GRAMMARS / "en.rules").direction
    assert json.loads((target / "model.json").read_text()) == {}
    assert leftovers(tmp_path) == []
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] \
        == handlers


def test_a_signal_while_another_thread_renames_a_model_folder_is_not_held_back(tmp_path,
                                                                              monkeypatch):
    """A model folder that another thread puts in place, while the main thread catches
    signals (end_on_signals): a SIGTERM or Ctrl-C between that thread's two renames was held
    back (the hold was the process's) and raised in that thread once both were done, a
    traceback there, the main thread going on as if none had come. A signal cannot cut another
    thread's renames short (its handler runs in the main thread): the main thread now gets it
    at once, and the other thread puts its model in place whole."""
    target = tmp_path / "model"
    _write_folder(target)
    replace, sent, caught, done = os.replace, threading.Event(), threading.Event(), []
    finished = threading.Event()  # (a join an exception cut short returned at once after)

    def signalled(src, dst):  # SIGTERM to the main thread as the previous model is moved aside
        if Path(dst).name.endswith(".old") and not sent.is_set():
            sent.set()
            signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)
            caught.wait(10)  # (until the main thread has it, or 10 s)
        replace(src, dst)

    def write():
        try:
            _write_folder(target)
            done.append(None)
        except BaseException as e:
            done.append(e)
        finished.set()

    monkeypatch.setattr(os, "replace", signalled)
    thread = threading.Thread(target=write)
    with pytest.raises(Terminated), end_on_signals():
        try:
            thread.start()
            finished.wait()
        finally:
            caught.set()
            finished.wait()
    monkeypatch.undo()
    assert sent.is_set() and done == [None]
    assert json.loads((target / "model.json").read_text()) == {}
    assert leftovers(tmp_path) == []

@pytest.mark.parametrize("cut", ["json", "binary"])
@pytest.mark.parametrize("kind", ["channel", "order"])
def test_a_pair_whose_second_write_fails_stays_the_old_pair(kind, cut, tmp_path, monkeypatch):
    """A pair of files written together (:func:`write_pair`) whose writing fails, in either
    file, is the old pair: compile renamed the channel into place before its sidecar was
    written, an ordering model its .json before its .npz, so a failure of the second write
    left a new file beside an old one, read as one model."""
    save, load, files, binary = _pair(kind, tmp_path)
    save(0)
    old = [p.read_bytes() for p in files]

    def fail(*args, **kwargs):
        raise Cut

    monkeypatch.setattr(*((Path, "write_text") if cut == "json" else binary), fail)
    with pytest.raises(Cut):
        save(1)
    monkeypatch.undo()
    assert [p.read_bytes() for p in files] == old and leftovers(tmp_path) == []
    load()


@pytest.mark.parametrize("cut", [0, 1])
@pytest.mark.parametrize("kind", ["channel", "order"])
def test_a_pair_cut_between_its_renames_is_the_old_pair_or_refused(kind, cut, tmp_path,
                                                                  monkeypatch):
    """A save killed at either of its two renames leaves the old pair, or a pair its reader
    refuses in one line naming the JSON file; never halves of two saves read as one model (the
    new channel beside the old sidecar, the new order.json beside the old weights were)."""
    save, load, files, _ = _pair(kind, tmp_path)
    save(0)
    old = [p.read_bytes() for p in files]
    renames, replace = [], os.replace

    def cut_short(src, dst):
        renames.append(dst)
        if len(renames) == cut + 1:
            raise Cut
        replace(src, dst)

    monkeypatch.setattr(os, "replace", cut_short)
    with pytest.raises(Cut):
        save(1)
    monkeypatch.undo()
    if [p.read_bytes() for p in files] != old:
        with pytest.raises(ModelError, match=rf"^\S+/{files[0].name}: records another "
                                             rf"{files[1].name} than the one beside it .*$"):
            load()
    else:
        load()
    save(1)
    load()


def test_a_compiled_channel_is_read_once(tmp_path, monkeypatch):
    """Channel.load reads a compiled channel's file once: the digest its sidecar records is
    checked on the bytes read to parse it (they were read again to be hashed), and a sidecar
    of another channel is still refused."""
    save, load, (side, fst), _ = _pair("channel", tmp_path)
    save(0)
    reads = counted_reads(monkeypatch)
    load()
    assert reads.count(fst.name) == 1
    mine = side.read_bytes()
    save(1)
    side.write_bytes(mine)
    with pytest.raises(ModelError, match=rf"^\S+/{side.name}: records another {fst.name} "):
        load()


@pytest.mark.parametrize("kind", ["channel", "order"])
def test_a_pair_is_hashed_as_written(kind, tmp_path, monkeypatch):
    """write_pair hashes the bytes it writes: it read the written file back to hash it (the
    channel's .fst, the .npz). The record it writes still describes the file beside it."""
    save, load, (_, data), _ = _pair(kind, tmp_path)
    save(0)
    reads = counted_reads(monkeypatch)
    save(1)
    assert [name for name in reads if data.name in (name, temporary_target(name))] == []
    monkeypatch.undo()
    load()


def test_an_ordering_model_is_read_once(tmp_path, monkeypatch):
    """OrderModel.load opens order.npz once: the digest order.json records is checked on the
    bytes read to load the weights (read_npz opened the file, check_pair read it again), and a
    record of another save is still refused."""
    save, load, (record, weights), _ = _pair("order", tmp_path)
    save(0)
    opened = counted_reads(monkeypatch, "open")
    assert load().record == {"version": 0}
    assert opened.count(weights.name) == 1
    monkeypatch.undo()
    mine = record.read_bytes()
    save(1)
    record.write_bytes(mine)
    with pytest.raises(ModelError, match=rf"^\S+/{record.name}: records another {weights.name} "):
        load()


@pytest.mark.parametrize("kind", ["channel", "order"])
def test_a_pair_flushes_its_folder_between_its_renames(kind, tmp_path, monkeypatch):
    """A power loss cannot keep a pair's second rename and lose its first: the folder is
    flushed to the disk (fsync) between them. It was not, so a file system that reorders its
    metadata could keep the new binary beside an old record (one without a digest: nothing
    to refuse it). And after the second (atomic_path's flush), which was not flushed either:
    a crash right after could lose it."""
    save, _, files, _ = _pair(kind, tmp_path)
    save(0)
    events, replace, fsync, folder = [], os.replace, os.fsync, os.stat(tmp_path)

    def renamed(src, dst):
        events.append(Path(dst).name)
        replace(src, dst)

    def flushed(fd):
        if os.path.samestat(os.fstat(fd), folder):
            events.append("folder")
        fsync(fd)

    monkeypatch.setattr(os, "replace", renamed)
    monkeypatch.setattr(os, "fsync", flushed)
    save(1)
    assert events == [files[0].name, "folder", files[1].name, "folder"]


@pytest.mark.parametrize("error", [errno.EINVAL, errno.EACCES, errno.EIO])
def test_a_folder_that_cannot_be_flushed(error, tmp_path, monkeypatch):
    """A folder that cannot be opened to be flushed (one that may be written but not read, mode
    0333: EACCES) or that the file system refuses to flush (EINVAL) leaves the order to the
    system and the pair is written: saves into such a folder worked before pairs flushed their
    folder, and failed after. Any other error of the flush, which comes after the record's
    rename, is one line naming the record (its own write's flush: it named the data), saying
    that it is written but the data not (it said "cannot write" of the record in place), and
    leaves the new record beside the old data: refused on reading, until the pair is written
    again."""
    save, load, files, _ = _pair("order", tmp_path)
    save(0)
    old = [p.read_bytes() for p in files]
    fsync, open_ = os.fsync, os.open

    def refused(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(error, os.strerror(error))
        fsync(fd)

    def unreadable(path, flags, *args, **kwargs):  # as root, a real mode 0333 is still read
        if os.path.isdir(path):
            raise PermissionError(error, os.strerror(error), str(path))
        return open_(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, *(("open", unreadable) if error == errno.EACCES
                              else ("fsync", refused)))
    if error != errno.EIO:
        save(1)
        assert load().record["version"] == 1
    else:
        with pytest.raises(InputError) as caught:
            save(1)
        assert str(caught.value) == (
            f"{files[0]}: written, but the folder holding it could not be flushed to the disk "
            f"({os.strerror(error)}): a crash now may lose it; {files[1]} is not written, and "
            "the pair is refused until both are written again")
        monkeypatch.undo()
        assert files[0].read_bytes() != old[0] and files[1].read_bytes() == old[1]
        assert leftovers(tmp_path) == []
        with pytest.raises(ModelError, match=r"^\S+/order.json: records another order.npz "):
            load()
        save(1)
        assert load().record["version"] == 1


@pytest.mark.parametrize("kind", ["channel", "order"])
def test_a_pair_whose_datas_folder_cannot_be_flushed_says_it_is_written(kind, tmp_path,
                                                                        monkeypatch):
    """When only the second flush of the folder fails (EIO), the one after the data's rename,
    both files are in place: the error says that the data is written and may yet be lost by a
    crash (Unflushed), not that the record is and the data not, and the new pair loads."""
    save, load, files, _ = _pair(kind, tmp_path)
    save(0)
    old = [p.read_bytes() for p in files]
    fsync, folders = os.fsync, []

    def second_refused(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            folders.append(fd)
            if len(folders) == 2:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", second_refused)
    with pytest.raises(Unflushed) as caught:
        save(1)
    monkeypatch.undo()
    assert len(folders) == 2
    assert str(caught.value) == (f"{files[1]}: written, but the folder holding it could not be "
                                 f"flushed to the disk ({os.strerror(errno.EIO)}): a crash now "
                                 "may lose it")
    assert all(p.read_bytes() != before for p, before in zip(files, old))
    assert leftovers(tmp_path) == []
    load()


@pytest.mark.parametrize("kind", ["channel", "order"])
def test_a_pair_whose_data_cannot_be_flushed_stays_the_old_pair(kind, tmp_path, monkeypatch):
    """An error flushing the binary file to the disk (ENOSPC or EIO from its fsync, as NFS or
    delayed allocation give) is one line and leaves the old pair: the flush came after the
    record's rename, so one failed save left a pair that loaded until then refused."""
    save, load, files, _ = _pair(kind, tmp_path)
    save(0)
    old = [p.read_bytes() for p in files]
    fsync = os.fsync

    def full(fd):
        if any(os.path.samestat(os.fstat(fd), p.stat())
               for p in tmp_path.glob(f".{files[1].name}.*.part")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(InputError, match=rf"^\S+/{files[1].name}: cannot write: No space left"):
        save(1)
    monkeypatch.undo()
    assert [p.read_bytes() for p in files] == old and leftovers(tmp_path) == []
    load()


def test_a_model_folder_replaces_whole_or_not_at_all(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "model.json").write_text(PREVIOUS)
    with pytest.raises(KeyboardInterrupt):
        with model_folder(target, WRITTEN, "a model") as tmp:
            (tmp / "new.json").write_text("x")
            raise KeyboardInterrupt
    assert [p.name for p in target.iterdir()] == ["model.json"] and leftovers(tmp_path) == []
    with model_folder(target, WRITTEN, "a model") as tmp:
        (tmp / "new.json").write_text("x")
    assert [p.name for p in target.iterdir()] == ["new.json"] and leftovers(tmp_path) == []


def _flushes(monkeypatch):
    """The files and folders (as ``os.stat`` results) that ``os.fsync`` flushes from now on, in
    order, and those flushed when each ``os.replace`` renames (by its target's name)."""
    flushed, at_rename = [], {}
    fsync, replace = os.fsync, os.replace

    def recorded(fd):
        fsync(fd)
        flushed.append(os.fstat(fd))

    def renamed(src, dst):
        at_rename[Path(dst).name] = list(flushed)
        replace(src, dst)

    monkeypatch.setattr(os, "fsync", recorded)
    monkeypatch.setattr(os, "replace", renamed)
    return flushed, at_rename


def _index(stats, path):
    return next((i for i, s in enumerate(stats) if os.path.samestat(s, path.stat())), None)


@pytest.mark.parametrize("writer", ["nested", "tagger", "parser", "punctuation", "correction"])
def test_a_model_folder_is_flushed_to_the_disk_before_it_takes_its_place(writer, tmp_path,
                                                                         monkeypatch):
    """Every file a model folder holds, in its sub-folders too, is flushed to the disk (fsync)
    before the folder is renamed into place, each once, then each folder after its files: only
    the JSON files were (write_json's own temporary), so after a crash the renamed folder could
    hold a complete record beside truncated weights (a parser's weights.npz). A punctuation
    model's channel.fst was flushed twice (Channel.save's own temporary), and a correction
    model's parts were model folders of their own, each flushed by its own and again by the
    outer one."""
    target = tmp_path / "model"
    target.mkdir()
    first = {"tagger": "tagger.json", "correction": "correction.json"}.get(writer, "model.json")
    (target / first).write_text(PREVIOUS)
    flushed, at_rename = _flushes(monkeypatch)
    if writer == "punctuation":
        en = load_model("en")
        save_model(en, target, {}, np.ones(en.channel.phi.shape))
    elif writer == "correction":
        en = load_model("en")
        CorrectionModel(en, en, {}).save(target)
    elif writer != "nested":
        (Tagger if writer == "tagger" else Model).load(BUNDLED / "pt" / writer).save(target)
    else:
        with model_folder(target, ("model.json", "parser"), "a model") as tmp:
            (tmp / "parser" / "deeper").mkdir(parents=True)
            np.save(tmp / "parser" / "deeper" / "weights.npy", np.arange(3))
            (tmp / "parser" / "model.json").write_text("{}")
            (tmp / "model.json").write_text("{}")
    before = at_rename[target.name]
    written = [target, *sorted(target.rglob("*"))]
    assert len(written) == {"nested": 6, "punctuation": 7, "correction": 14}.get(writer, 3)
    assert len(before) == len(written)  # each once: the JSON file had its own temporary too
    assert len(flushed) == len(before) + 1 and os.path.samestat(flushed[-1], tmp_path.stat())
    for path in written:
        assert _index(before, path) is not None, path
        if path.is_dir():
            assert all(_index(before, inside) < _index(before, path)
                       for inside in path.iterdir()), path
    assert [p.name for p in tmp_path.iterdir()] == ["model"]


@pytest.mark.parametrize("what, error", [("weights", errno.ENOSPC), ("json", errno.ENOSPC),
                                         ("folder", errno.EIO), ("folder", errno.EINVAL),
                                         ("folder", errno.EACCES), ("list", errno.EACCES),
                                         ("list", errno.EIO)])
def test_a_model_folder_that_cannot_be_flushed(what, error, tmp_path, monkeypatch, capsys):
    """A file of a model folder that cannot be flushed to the disk (ENOSPC, EIO: NFS, delayed
    allocation), or a folder in it, is one line naming the folder (the JSON file's own
    temporary named a path inside the temporary folder) and leaves the previous folder in
    place, with nothing beside it. A folder that cannot be opened to be flushed (EACCES) or that
    the file system refuses to flush (EINVAL) is left to the system, as a pair's folder is. So
    is one that may not be listed ("list": os.walk's scandir fails first, with EACCES, and its
    files are not reached), but not one that cannot be listed for another reason (EIO: os.walk
    would skip it in silence)."""
    target = tmp_path / "tagger"
    Tagger.load(BUNDLED / "en" / "tagger").save(target)
    old = {p.name: p.read_bytes() for p in target.iterdir()}
    fsync, open_, scandir = os.fsync, os.open, os.scandir

    def refused(fd):
        found = os.fstat(fd)
        if stat.S_ISDIR(found.st_mode) if what == "folder" else \
                not stat.S_ISDIR(found.st_mode) and (found.st_size > 1000) == (what == "weights"):
            raise OSError(error, os.strerror(error))
        fsync(fd)

    def unreadable(path, flags, *args, **kwargs):  # as root, a real mode 0333 is still read
        # the temporary folder, not as rmtree opens it (dir_fd=) to remove a temporary
        if temporary_target(Path(path).name) == target.name and "dir_fd" not in kwargs:
            raise PermissionError(error, os.strerror(error), str(path))
        return open_(path, flags, *args, **kwargs)

    def unlisted(path="."):  # the temporary folder, not as rmtree lists one (by its fd)
        if isinstance(path, (str, os.PathLike)) and \
                temporary_target(Path(path).name) == target.name:
            raise OSError(error, os.strerror(error), str(path))  # EACCES: a PermissionError
        return scandir(path)

    monkeypatch.setattr(os, *(("scandir", unlisted) if what == "list" else
                              ("open", unreadable) if error == errno.EACCES
                              else ("fsync", refused)))
    code = main(["parser", "compact", str(BUNDLED / "en" / "tagger"), "--threshold", "0.01",
                 "-o", str(target)])
    monkeypatch.undo()
    err = capsys.readouterr().err
    if error in (errno.EINVAL, errno.EACCES):
        assert code == 0 and err == ""
        assert {p.name: p.read_bytes() for p in target.iterdir()} != old
    else:
        assert code == 2 and err.count("\n") == 1
        assert err.endswith(f" {target}: cannot write: {os.strerror(error)}\n")
        assert {p.name: p.read_bytes() for p in target.iterdir()} == old
    assert [p.name for p in tmp_path.iterdir()] == ["tagger"]


@pytest.mark.parametrize("command", [["train", "--direction", "rtl"], ["crf", "train", "--lang",
                                     "en"], ["parser", "train", "--dev", str(SAMPLE)]])
def test_a_folder_of_other_things_is_never_replaced(tmp_path, capsys, command):
    """Checked before training: -o naming e.g. a source folder would have deleted it."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text(PREVIOUS)
    with pytest.raises(InputError, match="holds no model"):
        folder_target(folder)
    assert main([*command, "--train", str(SAMPLE), "-o", str(folder)]) == 2
    assert "notes: a folder that holds no model" in capsys.readouterr().err
    assert [p.name for p in folder.iterdir()] == ["todo.txt"] and leftovers(tmp_path) == []
    assert main([*command, "--train", str(SAMPLE), "-o", "/proc/fstpunct-model"]) == 2
    assert "cannot write" in capsys.readouterr().err


@pytest.mark.parametrize("command, kind", [(["crf", "train", "--lang", "en"], "a CRF"),
                                           (["parser", "train", "--dev", str(SAMPLE), "--quiet"],
                                            "a parser")])
def test_a_trainer_refuses_a_model_folder_holding_what_it_does_not_write(tmp_path, capsys,
                                                                         command, kind):
    """parser train -o M, M a punctuation model's folder with its tagger/, replaced the folder
    whole with the parser (the model and its tagger deleted, exit 0), and so did crf train:
    like train and tagger train they refuse it before training, in one line."""
    model = tmp_path / "M"
    (model / "tagger").mkdir(parents=True)
    for name in ("model.json", "channel.fst", "tagger/tagger.json"):
        (model / name).write_text(PREVIOUS)
    assert main([*command, "--train", str(SAMPLE), "-o", str(model)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "M: holds channel.fst, " in err and \
        f"tagger, not part of {kind}: writing one replaces the folder whole" in err, err
    assert sorted(p.name for p in model.iterdir()) == ["channel.fst", "model.json", "tagger"]
    assert leftovers(tmp_path) == []


def test_a_model_folder_that_came_to_hold_other_things_is_kept_the_model_beside_it(tmp_path):
    """What a trainer writes inside the block (crf train: every c2's model) goes beside a folder
    that comes to hold anything else while it does, named by SavedAside."""
    target = tmp_path / "crf"
    with pytest.raises(SavedAside, match=r"crf: holds NOTES\.txt, not part of a CRF, so it is "
                                         r"left as it was; the model is saved in \S*/crf\.new$"
                       ) as caught:
        with model_folder(target, ("meta.json",), "a CRF") as tmp:
            (tmp / "meta.json").write_text("x")
            target.mkdir()
            (target / "NOTES.txt").write_text(PREVIOUS)
    assert caught.value.saved == tmp_path / "crf.new" and caught.value.kind == "a CRF"
    assert [p.name for p in target.iterdir()] == ["NOTES.txt"]
    assert [p.name for p in (tmp_path / "crf.new").iterdir()] == ["meta.json"]
    assert leftovers(tmp_path) == []


def _as_a_user(monkeypatch):
    """As root, whom the system lets write any folder, ``os.replace``, ``os.unlink`` and
    ``os.rmdir`` refuse what they refuse a user by the folders' modes (EACCES): an entry
    leaving or entering a folder its owner may not write, a folder moved into another (its
    ``..`` rewritten) that its owner may not write. As another user the system refuses it
    itself."""
    if os.geteuid() != 0:
        return
    replace, unlink, rmdir = os.replace, os.unlink, os.rmdir

    def writable(path):
        return bool(os.stat(path).st_mode & stat.S_IWUSR)

    def refused(path):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    def replaced(src, dst, **kwargs):
        src, dst = Path(src), Path(dst)
        if not writable(src.parent) or not writable(dst.parent) or \
                src.is_dir() and not src.is_symlink() and src.parent != dst.parent and \
                not writable(src):
            refused(src)
        return replace(src, dst, **kwargs)

    def removal(remove):
        def removed(path, *, dir_fd=None):
            parent = os.fstat(dir_fd) if dir_fd is not None else os.stat(Path(path).parent)
            if not parent.st_mode & stat.S_IWUSR:
                refused(path)
            return remove(path, dir_fd=dir_fd)
        return removed

    monkeypatch.setattr(os, "replace", replaced)
    monkeypatch.setattr(os, "unlink", removal(unlink))
    monkeypatch.setattr(os, "rmdir", removal(rmdir))


TRAINERS = [("train", ["--direction", "ltr", "--iterations", "0", "--jobs", "1"]),
            ("tagger train", ["--epochs", "1", "--quiet"])]


@pytest.mark.parametrize("command, options", TRAINERS)
@pytest.mark.parametrize("held", ["nothing", "a model"])
def test_a_read_only_model_folder_is_replaced_whole(command, options, held, tmp_path,
                                                    monkeypatch, capsys):
    """-o naming a folder of mode 0555 (empty, or a model's): saving moved the previous folder
    into a temporary, which the system refuses for a folder its owner may not write (its ``..``
    rewritten), found after training, leaving the whole model in a hidden .M.<hex>.part. The
    previous folder is now renamed within its parent, which its mode does not forbid: the new
    model takes its place, with its mode, and nothing is left beside it."""
    target = tmp_path / "M"
    target.mkdir()
    args = [*command.split(), *options, "--train", str(SAMPLE), "-o", str(target)]
    if held == "a model":
        assert main(args) == 0
        capsys.readouterr()
    target.chmod(0o555)
    _as_a_user(monkeypatch)
    try:
        code = main(args)
    finally:
        target.chmod(0o755)
    assert code == 0 and "error" not in capsys.readouterr().err
    assert (target / ("model.json" if command == "train" else "tagger.json")).is_file()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("command, options", TRAINERS)
def test_another_users_folder_in_a_sticky_folder_is_refused_before_training(
        command, options, tmp_path, monkeypatch, capsys):
    """In a folder with the sticky bit (/tmp) only the owner of a folder or of the parent may
    rename it: another user's folder there was refused after training (user28, item 2)."""
    parent = tmp_path / "shared"
    parent.mkdir()
    target = parent / "M"
    target.mkdir()
    parent.chmod(0o1777)
    uid = os.stat(target).st_uid
    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)  # neither the folder's nor the parent's
    assert main([*command.split(), *options, "--train", str(SAMPLE), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err == (f"fstpunct {command}: error: {target}: cannot write: another user's folder, "
                   "in a folder with the sticky bit\n")
    assert list(target.iterdir()) == [] and leftovers(parent) == []


def _failing_replace(monkeypatch, fails):
    """``os.replace`` raising EIO for each (source name, target name) pair ``fails`` says."""
    replace = os.replace

    def replaced(src, dst, **kwargs):
        if fails(Path(src), Path(dst)):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return replace(src, dst, **kwargs)
    monkeypatch.setattr(os, "replace", replaced)


def test_a_failed_save_puts_the_previous_model_back_and_leaves_nothing(tmp_path, monkeypatch):
    """The new model fails to take the place of a previous one of mode 0555: the previous one
    is put back, and the temporary, given that mode, is removed all the same."""
    target = tmp_path / "model"
    target.mkdir()
    (target / "model.json").write_text(PREVIOUS)
    target.chmod(0o555)
    _failing_replace(monkeypatch, lambda src, dst: src.suffix == ".part" and dst == target)
    try:
        with pytest.raises(InputError, match=r"/model: cannot write: Input/output error$"):
            with model_folder(target, WRITTEN, "a model") as tmp:
                (tmp / "new.json").write_text("x")
    finally:
        target.chmod(0o755)
    assert (target / "model.json").read_text() == PREVIOUS and leftovers(tmp_path) == []


def test_a_previous_model_that_cannot_be_put_back_is_kept_and_named(tmp_path, monkeypatch):
    """Neither the new model nor, after it, the previous one can take the place: the previous
    one is left where it was parked, named, not removed with the temporaries."""
    target = tmp_path / "model"
    target.mkdir()
    (target / "model.json").write_text(PREVIOUS)
    _failing_replace(monkeypatch, lambda src, dst: dst == target)
    with pytest.raises(InputError, match="the previous model could not be put back") as e:
        with model_folder(target, WRITTEN, "a model") as tmp:
            (tmp / "new.json").write_text("x")
    parked = Path(str(e.value).rsplit("it is in ", 1)[1])
    assert (parked / "model.json").read_text() == PREVIOUS
    assert leftovers(tmp_path) == [parked.name] and not target.exists()


def test_folder_target_moves_nothing(tmp_path, monkeypatch):
    """Checking a model folder renames nothing of the user's (a check that moved the folder
    aside and back could lose it if the move back failed: review 28, item 1.1)."""
    target = tmp_path / "model"
    target.mkdir()
    (target / "model.json").write_text(PREVIOUS)
    _failing_replace(monkeypatch, lambda src, dst: True)
    folder_target(target)
    assert (target / "model.json").read_text() == PREVIOUS and leftovers(tmp_path) == []


def test_open_input_names_and_refuses(tmp_path):
    with pytest.raises(InputError, match="is a folder"):
        open_input(tmp_path)
    with pytest.raises(InputError, match="missing.conllu: no such file"):
        open_input(tmp_path / "missing.conllu")
    f = tmp_path / "x.txt"
    f.write_bytes(b"\xef\xbb\xbfa\r\nb\xff\n")
    lines, name = open_input(f)
    assert name == str(f) and list(lines) == ["a\r\n", "b\udcff\n"]
    f.write_bytes("a\n".encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16"):
        list(open_input(f)[0])


@pytest.mark.parametrize("command", [["compile", "./nothere.rules", "-o", "out.fst"],
                                     ["rules", "./nothere.rules"],
                                     ["restore", "--lang", "en", "--text", "./nothere"],
                                     ["decode", "--model", "en", "./nothere.conllu"]])
def test_a_missing_file_is_named_as_given(tmp_path, monkeypatch, capsys, command):
    """``./nothere.rules`` is reported with its ``./``, as the user wrote it."""
    monkeypatch.chdir(tmp_path)
    assert main(command) == 2
    path = next(a for a in command[1:] if a.startswith("./"))
    assert capsys.readouterr().err.endswith(f" error: {path}: no such file\n")
    with pytest.raises(InputError, match=r"^\./nothere: no such file$"):
        open_input("./nothere")
    assert open_input("-")[1] == "<stdin>"


@pytest.mark.parametrize("command, says", [
    (["parser", "compact", str(BUNDLED / "en" / "tagger"), "--threshold", "0.01", "-o",
      "./file.txt"], "./file.txt: is a file; name a folder to write"),
    (["crf", "train", "--lang", "en", "--train", str(SAMPLE), "-o", "./notes/"],
     "./notes/: a folder that holds no model"),
])
def test_an_output_is_named_as_given(tmp_path, monkeypatch, capsys, command, says):
    """An output refused is named as the user wrote it, ``./folder/`` with its ``./`` and its
    ``/``, as an input is (test_a_missing_file_is_named_as_given): it was ``folder``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "file.txt").write_text(PREVIOUS)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text(PREVIOUS)
    assert main(command) == 2
    assert f" error: {says}" in capsys.readouterr().err
    with pytest.raises(InputError, match=r"^\./folder/: is a folder; name a file to write$"):
        with output("./folder/"):
            pass


@pytest.mark.parametrize("command", [["decode"], ["normalise"],
                                     ["restore", "--trivial", "en", "--quiet"]])
def test_output_may_name_the_input(tmp_path, command):
    expected, same = tmp_path / "expected.conllu", tmp_path / "same.conllu"
    same.write_bytes(SAMPLE.read_bytes())
    assert main([*command, str(SAMPLE), "-o", str(expected)]) == 0
    assert main([*command, str(same), "-o", str(same)]) == 0
    assert same.read_bytes() == expected.read_bytes() and leftovers(tmp_path) == []


def test_bad_input_halfway_leaves_the_target(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text(SAMPLE.read_text(encoding="utf-8") + "1\tx\n\n", encoding="utf-8")
    target = tmp_path / "out.conllu"
    target.write_text(PREVIOUS)
    assert main(["decode", "--model", "en", str(bad), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:" in err
    assert target.read_text() == PREVIOUS and leftovers(tmp_path) == []


def _default_signals() -> None:
    """In the child before it starts: SIGINT, SIGTERM and SIGHUP as a terminal gives them. A
    shell without job control starts background jobs (a suite run with '&') with SIGINT
    ignored, the child inherits that, and Python then installs no KeyboardInterrupt handler
    (and nohup ignores SIGHUP)."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130),
                                            (signal.SIGHUP, 129)])
def test_interrupt_leaves_the_target(tmp_path, signum, status):
    """The input comes through a pipe that stays open, so the command cannot finish (nor
    rename its output) before the signal lands: it is waiting for the rest of its input. A
    hangup (the terminal closed, an ssh session lost) ended the process at once, leaving its
    temporary file beside the target."""
    target = tmp_path / "out.conllu"
    target.write_text(PREVIOUS)
    proc = subprocess.Popen([sys.executable, "-m", "fstpunct.cli.main", "decode", "--model",
                             "en", "-", "-o", str(target)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_signals)
    try:
        proc.stdin.write(SAMPLE.read_bytes())  # some sentences, not the end of the input
        proc.stdin.flush()
        deadline = time.time() + 300
        while not leftovers(tmp_path) and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)  # wait until the temporary file is being written
        writing = bool(leftovers(tmp_path)) and proc.poll() is None
        proc.send_signal(signum if writing else signal.SIGKILL)
        returncode = proc.wait(timeout=300)  # stdin still open: only the signal ends it
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate()
    assert writing, f"no temporary file while decode was running: {err!r}"
    assert returncode == status, err
    assert target.read_text() == PREVIOUS and leftovers(tmp_path) == []


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_signal_ignored_stays_ignored(signum):
    """A hangup ignored when the command began (``nohup``) stays ignored while it runs: such a
    run is meant to outlive its terminal. Else it is caught for the run, and given back after.
    So is SIGTERM, as Ctrl-C is: it was caught even when ignored."""
    before = signal.signal(signum, signal.SIG_IGN)
    try:
        with end_on_signals():
            assert signal.getsignal(signum) is signal.SIG_IGN
        signal.signal(signum, signal.SIG_DFL)
        with end_on_signals():
            assert signal.getsignal(signum) not in (signal.SIG_DFL, signal.SIG_IGN)
        assert signal.getsignal(signum) is signal.SIG_DFL
    finally:
        signal.signal(signum, before)


def _children(pid: int) -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir()
            if p.name.isdigit() and _stat(int(p.name))[1:2] == [str(pid)]]


def _stat(pid: int) -> list[str]:
    """State, parent and CPU ticks (user, system) of process ``pid`` from /proc ([] if gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []
    return [fields[0], fields[1], fields[11], fields[12]]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_ctrl_c_of_a_terminal_leaves_no_worker_traceback(tmp_path):
    """Ctrl-C reaches the terminal's whole process group, the workers of ``--jobs 2`` too: a
    worker waiting for its next task used to print its KeyboardInterrupt's traceback. Here both
    wait: decode has sent them the chunks it read and waits for the rest of its input."""
    sentences = treebank("en", "dev").path.read_bytes().split(b"\n\n")
    proc = subprocess.Popen([sys.executable, "-m", "fstpunct.cli.main", "decode", "--model",
                             "en", "--jobs", "2", "-", "-o", str(tmp_path / "out.conllu")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_default_signals,
                            start_new_session=True)
    try:
        proc.stdin.write(b"\n\n".join(sentences[:1200]) + b"\n\n")  # two chunks of 500
        proc.stdin.flush()
        deadline, seen, idle = time.time() + 300, None, False
        while time.time() < deadline and proc.poll() is None and not idle:
            time.sleep(0.5)
            now = [_stat(child) for child in _children(proc.pid)]
            idle = len(now) == 2 and now == seen and all(s[0] == "S" for s in now)
            seen = now  # idle: both asleep and no CPU tick since the last look
        os.killpg(proc.pid, signal.SIGINT if idle else signal.SIGKILL)
        returncode = proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate()
    assert idle, f"no two idle workers while decode was running: {err!r}"
    assert returncode == 130 and b"Traceback" not in err, err.decode()
    assert leftovers(tmp_path) == []


def test_a_named_pipe_is_written_in_place_not_replaced(tmp_path):
    """A device or named pipe (``-o /dev/null``) is not a file to replace: a temporary renamed
    over it would leave a regular file where the device or pipe was."""
    expected = tmp_path / "expected.conllu"
    assert main(["decode", "--model", "en", str(SAMPLE), "-o", str(expected)]) == 0
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # so that the writer need not wait
    try:
        assert main(["decode", "--model", "en", str(SAMPLE), "-o", str(pipe)]) == 0
        received = os.read(reader, 1 << 16)  # the output is smaller than the pipe's buffer
    finally:
        os.close(reader)
    assert received == expected.read_bytes()
    assert stat.S_ISFIFO(pipe.stat().st_mode) and leftovers(tmp_path) == []


def test_two_writers_leave_one_complete_output(tmp_path):
    target = tmp_path / "out.conllu"
    a, b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    assert main(["decode", str(SAMPLE), "-o", str(a)]) == 0
    assert main(["decode", str(SAMPLE), "--posteriors", "3", "-o", str(b)]) == 0
    procs = [fstpunct("decode", SAMPLE, "-o", target),
             fstpunct("decode", SAMPLE, "--posteriors", "3", "-o", target)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    assert target.read_bytes() in (a.read_bytes(), b.read_bytes())


def test_full_disk_on_stdout_is_one_line():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "fstpunct.cli.main", "decode",
                               "--model", "en", str(SAMPLE)],
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2  # no file named: the error's own words (was "output: ...")
    assert proc.stderr == "fstpunct decode: error: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_full_disk_on_a_device_names_it(capsys):
    """A device given as -o is written in place; its failure names it, as a file's does (was
    "error: output: No space left on device")."""
    assert main(["decode", "--model", "en", str(SAMPLE), "-o", "/dev/full"]) == 2
    assert capsys.readouterr().err == ("fstpunct decode: error: /dev/full: cannot write: No "
                                       "space left on device\n")


def test_closed_pipe_is_quiet():
    with fstpunct("decode", treebank("en", "dev").path) as proc:  # closes stderr's pipe
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 0 and err == b""


@pytest.mark.parametrize("command", [["decode", "--model", "en"], ["restore", "--trivial", "en"],
                                     ["stats"]])
def test_unusable_paths_are_one_line(tmp_path, command, capsys):
    """(An -o folder is refused with the options, as argparse refuses: SystemExit 2.)"""
    args = [str(SAMPLE), "-o", str(tmp_path)] if command != ["stats"] else [str(tmp_path)]
    try:
        status = main([*command, *args])
    except SystemExit as stop:
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path) in err


def test_ctrl_c_while_the_command_loads_is_130_without_a_traceback(monkeypatch, capsys):
    from fstpunct.cli import main as main_module

    def interrupted(only=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(main_module, "build_parser", interrupted)
    assert main(["decode", str(SAMPLE)]) == 130
    assert capsys.readouterr().err == ""


def test_writing_is_true_while_an_output_is_unsettled(tmp_path):
    assert not writing()
    with output(tmp_path / "a.txt") as f:
        f.write("a")
        assert writing()
    assert not writing()
    with pytest.raises(RuntimeError), model_folder(tmp_path / "model", WRITTEN, "a model"):
        assert writing()
        raise RuntimeError
    assert not writing() and leftovers(tmp_path) == []
    unfinished = _write_lines(tmp_path / "b.txt")
    next(unfinished)
    assert writing()  # a generator left holding its output
    unfinished.close()
    assert not writing() and leftovers(tmp_path) == []


def _write_lines(path):
    with output(path) as f:
        while True:
            f.write("line\n")
            yield


# The console script with markers: 'teardown' is written only by the interpreter's teardown
# (which frees the object), 'atexit' by an atexit handler (and '# atexit' to stdout, buffered);
# before the command, "thread" starts a thread that ends only after the command has returned,
# "unfinished FILE" leaves a generator holding an output of FILE unfinished when it returns.
EXIT_PROBE = """
import atexit, os, sys, threading, time
import fstpunct.cli.main as cli
from fstpunct.files import output

class Teardown:
    def __del__(self):
        os.write(2, b"teardown\\n")

def late():
    returned.wait()
    time.sleep(0.2)
    os.write(2, b"thread\\n")

def writer(path):
    with output(path) as f:
        f.write("part")
        yield

def main(argv=None):
    global unfinished
    status = command(argv)
    cli.main = command  # no cycle through cli's module: teardown frees this one's objects
    if mode == "unfinished":
        unfinished = writer(args.pop(0))
        next(unfinished)
    returned.set()
    return status

probe = Teardown()
atexit.register(os.write, 2, b"atexit\\n")
atexit.register(sys.stdout.write, "# atexit\\n")
mode, *args = sys.argv[1:]
returned, command, cli.main = threading.Event(), cli.main, main
if mode == "thread":
    threading.Thread(target=late).start()
sys.argv[1:] = args[1:] if mode == "unfinished" else args
sys.exit(cli.console())
"""


def probe(mode, *args, stdout=subprocess.PIPE):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout buffered
    return subprocess.run([sys.executable, "-c", EXIT_PROBE, mode, *map(str, args)], env=env,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300)


def test_a_finished_command_exits_without_teardown_outputs_whole(tmp_path):
    expected = tmp_path / "expected.conllu"
    assert main(["decode", "--model", "en", str(SAMPLE), "-o", str(expected)]) == 0
    decode = ("decode", "--model", "en", SAMPLE)
    piped = probe("-", *decode)  # stdout a pipe: all of the output still buffered at the end
    with open(tmp_path / "stdout.conllu", "w") as f:  # stdout a file
        to_file = probe("-", *decode, stdout=f)
    written = probe("-", *decode, "-o", tmp_path / "out.conllu")
    for proc in (piped, to_file, written):
        assert proc.returncode == 0 and proc.stderr == "atexit\n"
    at_exit = b"# atexit\n"
    assert piped.stdout.encode() == expected.read_bytes() + at_exit
    assert (tmp_path / "stdout.conllu").read_bytes() == expected.read_bytes() + at_exit
    assert (tmp_path / "out.conllu").read_bytes() == expected.read_bytes()
    assert written.stdout.encode() == at_exit and leftovers(tmp_path) == []


def test_a_thread_still_running_gets_the_interpreters_exit():
    proc = probe("thread", "decode", "--model", "en", SAMPLE, "-o", os.devnull)
    assert proc.returncode == 0 and proc.stdout == "# atexit\n"
    assert proc.stderr.splitlines() == ["thread", "atexit", "teardown"]


def test_an_output_left_unfinished_gets_the_interpreters_exit(tmp_path):
    proc = probe("unfinished", tmp_path / "part.txt", "decode", "--model", "en", SAMPLE,
                 "-o", os.devnull)
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == ["atexit", "teardown"]
    assert list(tmp_path.iterdir()) == []  # teardown closed the generator: no temporary left


@pytest.mark.parametrize("args", [["decode", "missing.conllu"], ["decode", "--no-such-option"]])
def test_a_failed_command_gets_the_interpreters_exit(args):
    proc = probe("-", *args)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-2:] == ["atexit", "teardown"]


def test_an_npz_archive_without_an_array_read_is_one_model_error(tmp_path):
    """A missing array, asked for in the block, is the model's error naming the file and the
    array (numpy's KeyError, unquoted); the archive's arrays read as they are."""
    np.savez(tmp_path / "w.npz", other=np.arange(3))
    with read_npz(tmp_path / "w.npz", "a test model", tmp_path / "w") as npz:
        assert list(npz["other"]) == [0, 1, 2]
    with pytest.raises(ModelError, match=r"^\S+/w: not a test model \(w.npz: theta is not a "
                                         r"file in the archive\)$"):
        with read_npz(tmp_path / "w.npz", "a test model", tmp_path / "w") as npz:
            npz["theta"]


@pytest.mark.parametrize("bug", [lambda npz: {}["typo"], lambda npz: int("x"),
                                 lambda npz: npz["other"][0] + {}["typo"]],
                         ids=["KeyError", "ValueError", "after-a-read"])
def test_a_bug_in_the_block_of_an_npz_archive_is_not_a_model_error(bug, tmp_path):
    """What the caller's block raises itself passes as it is (it was the model's error naming
    the file, hiding the bug); the file is closed all the same."""
    np.savez(tmp_path / "w.npz", other=np.arange(3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises((KeyError, ValueError)) as raised:
            with read_npz(tmp_path / "w.npz", "a test model", tmp_path / "w") as npz:
                bug(npz)
        gc.collect()
    assert not isinstance(raised.value, ModelError), raised.value
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_an_npz_archive_with_a_damaged_directory_is_closed(tmp_path):
    """An archive whose end record is whole but whose central directory is damaged passes the
    zip check; numpy's refusal is the model's error, and the file is closed (numpy left the
    file it had opened to the collector: a ResourceWarning)."""
    np.savez(tmp_path / "w.npz", theta=np.arange(3))
    stored = (tmp_path / "w.npz").read_bytes()
    (tmp_path / "w.npz").write_bytes(stored.replace(b"PK\x01\x02", b"PK\x00\x00"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises(ModelError, match=r"^\S+/w: not a test model \(w.npz: Bad magic "
                                             r"number for central directory\)$"):
            with read_npz(tmp_path / "w.npz", "a test model", tmp_path / "w"):
                pass
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


@pytest.mark.parametrize("before", [b"#!stub\n", "an .npy"])
def test_bytes_before_an_npz_archive_are_not_an_archive(before, tmp_path):
    """An archive with bytes before it (which zipfile reads, its end record whole) is not an
    .npz: np.load read it as a pickle, refused with numpy's advice to allow pickles, or after
    an .npy as that array (a TypeError in read_npz)."""
    if before == "an .npy":
        np.save(tmp_path / "x.npy", np.arange(3))
        before = (tmp_path / "x.npy").read_bytes()
    np.savez(tmp_path / "x.npz", theta=np.arange(3))
    (tmp_path / "w.npz").write_bytes(before + (tmp_path / "x.npz").read_bytes())
    with pytest.raises(ModelError, match=r"^\S+/w: not a test model \(w.npz: not a NumPy .npz "
                                         r"archive, or a truncated one\)$"):
        with read_npz(tmp_path / "w.npz", "a test model", tmp_path / "w"):
            pass


@pytest.mark.parametrize("objects", [np.array([None], dtype=object),
                                     np.array([(1, None)], dtype=[("n", int), ("o", object)])],
                         ids=["objects", "a field of objects"])
def test_an_npz_array_of_python_objects_is_told_by_its_header(objects, tmp_path, monkeypatch):
    """An array of Python objects is known by its .npy header's dtype, whatever numpy's
    refusal says (it was known by "allow_pickle" in numpy's message: reworded, numpy's text
    passed as the reason); another failure keeps its own reason."""
    np.savez(tmp_path / "w.npz", theta=objects, other=np.arange(3))
    read_array = np.lib.format.read_array

    def reworded(*args, **kwargs):
        try:
            return read_array(*args, **kwargs)
        except ValueError as e:
            raise ValueError("object arrays are refused") from e
    monkeypatch.setattr(np.lib.format, "read_array", reworded)
    with read_npz(tmp_path / "w.npz", "a test model", tmp_path / "w") as npz:
        assert list(npz["other"]) == [0, 1, 2]
        with pytest.raises(ModelError, match=r"^\S+/w: not a test model \(w.npz: Python objects "
                                             r"\(a pickle\), not arrays of numbers\)$"):
            npz["theta"]
        with pytest.raises(ModelError, match=r"\(w.npz: gamma is not a file in the archive\)$"):
            npz["gamma"]


@pytest.mark.parametrize("what", ["objects", "a field of objects", "a pickle", "an archive"])
def test_an_npy_file_of_python_objects_or_another_file_says_so(what, tmp_path):
    """read_npy says why it refuses an array of Python objects (its header) and a file that
    is not an .npy (numpy read it as a pickle and advised allowing pickles), and reads an
    array of numbers."""
    path = tmp_path / "x.npy"
    np.save(path, np.arange(3))
    assert list(_read_npy(path)) == [0, 1, 2]
    why = "Python objects \\(a pickle\\), not arrays of numbers"
    if what == "objects":
        np.save(path, np.array([None], dtype=object))
    elif what == "a field of objects":
        np.save(path, np.array([(1, None)], dtype=[("n", int), ("o", object)]))
    else:
        why = "not a NumPy .npy file"
        if what == "a pickle":
            path.write_bytes(pickle.dumps(np.arange(3)))
        else:
            with path.open("wb") as f:
                np.savez(f, x=np.arange(3))
    with pytest.raises(ValueError, match=f"^{why}$"):
        _read_npy(path)


def _read_npy(path: Path):
    """read_npy of the file ``path``, opened."""
    with path.open("rb") as f:
        return read_npy(f)


def _chain(error: BaseException | None) -> list[tuple[type, str]]:
    """The exception ``error`` and those it was raised while handling, as types and messages."""
    chain = []
    while error is not None:
        chain.append((type(error), str(error)))
        error = error.__context__
    return chain


def test_an_npy_header_is_read_once(tmp_path):
    """read_npy reads an array of numbers' file once, its header with it (the header was read
    twice: checked for objects, then by numpy); a failure that is not an array of objects
    keeps numpy's reason."""
    read: list[int] = []

    class Counted(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            data = super().read(size)
            read.append(len(data))
            return data

    path = tmp_path / "x.npy"
    np.save(path, np.arange(3))
    assert list(read_npy(Counted(path.read_bytes()))) == [0, 1, 2]
    # the first bytes (is it an .npy?), then the file once
    assert sum(read) == len(np.lib.format.MAGIC_PREFIX) + path.stat().st_size
    path.write_bytes(path.read_bytes()[:-8])  # its last number cut off
    with pytest.raises(ValueError) as numpys:
        np.lib.format.read_array(io.BytesIO(path.read_bytes()), allow_pickle=False)
    assert "array data" in str(numpys.value)
    with pytest.raises(ValueError) as e:
        read_npy(Counted(path.read_bytes()))
    assert _chain(e.value) == _chain(numpys.value)


def _broken_header(array: bytes, how: str) -> bytes:
    """The ``.npy`` file ``array`` with its header broken ``how``."""
    if how == "cut off":
        return array[:20]
    if how == "not a dictionary":
        start, end = array.index(b"{"), array.index(b"}") + 1
        return array[:start] + b"[1, 2]".ljust(end - start) + array[end:]
    return array.replace(b"'<i8'", b"'<zz'")  # a dtype numpy does not know


@pytest.mark.parametrize("how", ["cut off", "not a dictionary", "an unknown dtype"])
def test_an_npy_file_with_a_broken_header_keeps_numpys_error(how):
    """A header numpy cannot read raises numpy's error as it came, not a second one raised
    while handling it (the header read again to look for Python objects)."""
    saved = io.BytesIO()
    np.save(saved, np.arange(3, dtype="<i8"))
    broken = _broken_header(saved.getvalue(), how)
    with pytest.raises(ValueError) as numpys:
        np.lib.format.read_array(io.BytesIO(broken), allow_pickle=False)
    with pytest.raises(ValueError) as e:
        read_npy(io.BytesIO(broken))
    assert _chain(e.value) == _chain(numpys.value)


class _FailsAfter4(io.BytesIO):
    """A file whose first 4 bytes read, and no read of a byte after them (an input/output
    error)."""

    def read(self, size: int | None = -1) -> bytes:
        end = len(self.getbuffer()) if size is None or size < 0 else self.tell() + size
        if end > 4:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return super().read(size)


def test_an_npz_archive_unreadable_after_its_first_bytes_says_why(tmp_path, monkeypatch):
    """A read error past the first 4 bytes, where the zip check reads (which takes it for
    "not an archive"), is the system's reason: it was "not a NumPy .npz archive"."""
    path = tmp_path / "w.npz"
    np.savez(path, theta=np.arange(3))
    stored, opened = path.read_bytes(), Path.open
    monkeypatch.setattr(Path, "open", lambda self, *args, **kwargs: (
        _FailsAfter4(stored) if self == path else opened(self, *args, **kwargs)))
    with pytest.raises(ModelError, match=r"^\S+/w: not a test model \(w.npz: Input/output "
                                         r"error\)$"):
        with read_npz(path, "a test model", tmp_path / "w"):
            pass


@pytest.mark.parametrize("how", ["unreadable", "input/output error"])
def test_an_npz_archive_that_cannot_be_read_says_why(how, tmp_path):
    """A file that cannot be read is the model's error with the system's reason (a zip check
    took it for a file that is not an archive)."""
    path = tmp_path / "w.npz"
    if how == "unreadable":
        np.savez(path, theta=np.arange(3))
        path.chmod(0)
        if os.access(path, os.R_OK):
            pytest.skip("this user reads a file of mode 000 (root)")
        why = "Permission denied"
    else:
        if not os.path.isfile("/proc/self/mem"):
            pytest.skip("no /proc/self/mem (whose first bytes cannot be read)")
        path.symlink_to("/proc/self/mem")
        why = "Input/output error"
    with pytest.raises(ModelError, match=rf"^\S+/w: not a test model \(w.npz: {why}\)$"):
        with read_npz(path, "a test model", tmp_path / "w"):
            pass


def test_train_never_deletes_what_a_user_put_beside_a_model(tmp_path, capsys):
    """A model folder holding the tagger/ and parser/ that --text needs (README: 'or those
    folders inside it'), or notes: train replaces the folder whole, so it is refused before
    training, everything kept; a folder of the model's files alone is replaced."""
    model = tmp_path / "mine"
    args = ["train", "--train", str(SAMPLE), "--direction", "rtl", "--iterations", "0",
            "--jobs", "1", "--lexical", "0", "-o", str(model)]
    assert main(args) == 0
    (model / "tagger").mkdir()
    (model / "tagger" / "tagger.json").write_text(PREVIOUS)
    (model / "NOTES.txt").write_text(PREVIOUS)
    before = sorted(p.name for p in model.iterdir())
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds NOTES.txt, tagger, not part of" in err
    assert sorted(p.name for p in model.iterdir()) == before and leftovers(tmp_path) == []
    (model / "tagger" / "tagger.json").unlink()
    (model / "tagger").rmdir()
    (model / "NOTES.txt").unlink()
    assert main(args) == 0


@pytest.mark.filterwarnings("ignore::fstpunct.FstpunctWarning")  # marks of omitted sentences
def test_what_a_user_puts_beside_a_model_while_it_trains_is_kept(tmp_path):
    """The folder is checked again when the model is saved: a note put into it while training
    ran (here when the data is read, after the check before training) was deleted with the
    old model, and then the run's model was lost (the save refused). Both are kept: the folder
    as it was, the model in a new folder beside it, named by the error (one line, exit 2)."""
    import fstpunct
    from fstpunct.errors import SavedAside
    model = tmp_path / "mine"
    fstpunct.train(model, SAMPLE, direction="rtl", iterations=0)
    before = {p.name: p.read_bytes() for p in model.iterdir()}
    notes = model / "NOTES.txt"

    def log(line: str) -> None:
        if line.startswith("training on"):
            notes.write_text(PREVIOUS)

    (tmp_path / "mine.new-2").mkdir()  # a name taken is skipped, not written into
    for aside in ("mine.new", "mine.new-3"):
        with pytest.raises(SavedAside, match=r"mine: holds NOTES\.txt, not part of a "
                           rf"punctuation model, .* saved in \S*/{re.escape(aside)}$") as caught:
            fstpunct.train(model, SAMPLE, direction="rtl", iterations=0, log=log)
        assert isinstance(caught.value, InputError) and caught.value.saved == tmp_path / aside
        assert caught.value.folder == model and caught.value.others == ["NOTES.txt"]
        assert notes.read_text() == PREVIOUS and \
            {p.name: p.read_bytes() for p in model.iterdir() if p != notes} == before
        saved = fstpunct.load(tmp_path / aside)  # the run's model, whole
        assert saved.record["record"]["sentences"] == \
            fstpunct.load(model).record["record"]["sentences"] > 0
        assert saved.perplexity(SAMPLE).value == fstpunct.load(model).perplexity(SAMPLE).value
        notes.unlink()  # else the check before training refuses the folder
    assert not any((tmp_path / "mine.new-2").iterdir())
    assert leftovers(tmp_path) == [] and leftovers(model) == []


@pytest.mark.filterwarnings("ignore::fstpunct.FstpunctWarning")  # marks of omitted sentences
def test_a_file_put_where_a_model_goes_while_it_trains_is_kept(tmp_path):
    """A file (not a folder) put at -o while training ran made the save refuse ('is a file;
    name a folder to write'), and the run's model was lost. It is kept as a folder put there
    is, the model written beside it, named by SavedAside."""
    import fstpunct
    model = tmp_path / "T"

    def log(line: str) -> None:
        if line.startswith("training on"):
            model.write_text(PREVIOUS)

    with pytest.raises(SavedAside, match=r"T: is not a folder, so it is left as it was; the "
                                         r"model is saved in \S*/T\.new$") as caught:
        fstpunct.train(model, SAMPLE, direction="rtl", iterations=0, log=log)
    assert caught.value.saved == tmp_path / "T.new" and caught.value.others == []
    assert model.read_text() == PREVIOUS and fstpunct.load(tmp_path / "T.new")
    assert leftovers(tmp_path) == []


def test_parser_train_keeps_the_previous_model_until_it_ends(tmp_path):
    """parser train saved each better epoch over -o as it came: cut short (SIGTERM), the folder
    held that run's epoch, the previous model gone (README: a previous target keeps its
    bytes). Each better epoch goes to NAME.partial, the model to -o at the end; cut short, the
    best epoch so far is left in NAME.partial and a line says so; a run that ends removes it."""
    from fstpunct.parser.train import train
    sents = list(read_one(str(SAMPLE)))
    out, partial = tmp_path / "pz", tmp_path / "pz.partial"
    train(sents, sents, "removed", 1, out, epochs=1, progress=False, log=lambda _: None)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    lines = []

    def log(line: str) -> None:
        lines.append(line)
        if line.startswith("epoch 2"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(sents, sents, "properties", 1, out, epochs=3, progress=False, log=log)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    kept = Model.load(partial)
    assert kept.mode == "properties" and kept.info["best_epoch"] == 1
    assert lines[-1] == f"training stopped: its best epoch so far, 1, is kept in {partial}"
    train(sents, sents, "properties", 1, out, epochs=2, progress=False, log=lambda _: None)
    assert Model.load(out).mode == "properties" and Model.load(out).info["finished"]
    assert [p.name for p in tmp_path.iterdir()] == ["pz"]


def test_something_put_into_the_partial_folder_is_kept_and_training_goes_on(tmp_path):
    """A file put into NAME.partial while parser train runs: the next better epoch was saved
    beside it and training stopped there, its last line naming the older epoch as kept in
    NAME.partial (review 28, item 1.4). Now the better epochs go beside it from then on, the
    run ends with its model at -o, the file is kept and the folder beside it removed."""
    from fstpunct.parser.train import train
    sents = list(read_one(str(SAMPLE)))
    out, partial = tmp_path / "pz", tmp_path / "pz.partial"
    lines = []

    def log(line: str) -> None:
        lines.append(line)
        if partial.is_dir() and not (partial / "NOTES.txt").exists():  # epoch 1 saved there
            (partial / "NOTES.txt").write_text(PREVIOUS)
            lines.append("(the file came)")

    train(sents, sents, "removed", 1, out, epochs=6, patience=6, progress=False, log=log)
    came = lines.index("(the file came)")
    assert any("(best)" in line for line in lines[came:])  # a better epoch after it came
    assert Model.load(out).info["finished"]
    assert (partial / "NOTES.txt").read_text() == PREVIOUS
    assert any(line.endswith("the better epochs go there from now on") for line in lines)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pz", "pz.partial"]


def test_a_temporary_that_a_killed_fstpunct_left_in_a_model_folder_is_replaced(tmp_path):
    """models --evaluate writes model.json through a temporary in the model's folder; after a
    kill -9 train refused the folder, naming a file the user never made. Only fstpunct's own
    temporary of a model file is replaced with the folder: another one is the user's."""
    import fstpunct
    model = tmp_path / "mine"
    fstpunct.train(model, SAMPLE, direction="rtl", iterations=0)
    left = model / ".model.json.0123456789abcdef.part"
    left.write_text(PREVIOUS)
    fstpunct.train(model, SAMPLE, direction="rtl", iterations=0)
    assert not left.exists() and (model / "model.json").is_file()
    for name in (".NOTES.txt.0123456789abcdef.part", ".model.json.draft.part"):
        (model / name).write_text(PREVIOUS)
        with pytest.raises(InputError, match=f"holds {re.escape(name)}, not part of"):
            fstpunct.train(model, SAMPLE, direction="rtl", iterations=0)
        (model / name).unlink()


def test_a_pipeline_warns_as_a_model_does_when_a_bundled_name_hides_a_folder(monkeypatch,
                                                                              tmp_path):
    """pipeline_folders reads names as for models: a bundled name wins over a local folder of
    that name with model_path's warning (it took the bundled one silently); ./en is the folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "en").mkdir()
    warning = r"^'en' is the bundled model, not the local folder en \(write \./en for the folder\)$"
    with pytest.warns(FstpunctWarning, match=warning):
        assert model_path("en") == BUNDLED / "en"
    with pytest.warns(FstpunctWarning, match=warning):
        assert pipeline_folders("en")[0] == BUNDLED / "en" / "tagger"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pipeline_folders("./en")[0] == Path("en", "tagger")
        assert model_path("en", warn=False) == BUNDLED / "en"  # a name the user did not type


def test_a_pipeline_warns_once_when_a_bundled_name_hides_a_folder(monkeypatch, tmp_path):
    """load_pipeline read the name twice (the folders, then the lower-case tagger's): under an
    "always" filter model_path's warning came twice; now once, the same folders read."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "en").mkdir()
    read: list[Path] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_pipeline("en", read=lambda kind, folder: read.append(folder))  # type: ignore
    assert [str(w.message) for w in caught] == \
        ["'en' is the bundled model, not the local folder en (write ./en for the folder)"]
    assert read == [BUNDLED / "en" / name for name in ("tagger", "parser", "tagger-lc")]


def test_every_reader_of_a_name_takes_either_separator_for_a_path(monkeypatch, tmp_path):
    """One rule (:func:`has_separator`) for every place that tells a path from a name: a
    pipeline's language or folder, a split's language, the API's string of data (a line of
    text?), as for models and the baseline (tests/test_restoration.py). The pipeline and the
    API read only os.sep: where it is not ``/`` (Windows's ``\\``, set here) ``en/`` was the
    bundled language's pipeline and ``my dir/x`` was taken for a sentence."""
    assert pipeline_folders("./en")[0] == Path("en", "tagger")  # not the bundled en's
    monkeypatch.setattr(os, "sep", "\\")
    assert has_separator("en/") and has_separator("en\\") and not has_separator("en")
    assert pipeline_folders("en/")[0] == Path("en", "tagger")
    assert pipeline_folders("en")[0] == BUNDLED / "en" / "tagger"
    for name, sentence in (("my dir/x", False), ("my dir\\x", False), ("We went home.", True)):
        with pytest.raises(InputError) as e:
            list(sentences(name))
        assert ("pass text=True" in str(e.value)) == sentence, name
    for spec in ("x/y:dev", "x\\y:dev"):  # not 'no standard splits for language x/y'
        with pytest.raises(InputError, match="is neither a file, a language"):
            resolve(spec, tmp_path)


def test_o_naming_a_symbolic_link_replaces_the_link_as_readme_says(tmp_path):
    """The rename that puts an output in place replaces a symbolic link at -o, not the file it
    points to, which keeps its bytes; README's table of inputs says so (user28 item 11: it did
    not)."""
    (tmp_path / "real").write_text("old\n")
    (tmp_path / "link").symlink_to("real")
    assert main(["decode", "--model", "en", "--quiet", "-o", str(tmp_path / "link"),
                 str(SAMPLE)]) == 0
    assert not (tmp_path / "link").is_symlink()
    assert (tmp_path / "link").read_text().startswith("# sent_id = sample-1\n")
    assert (tmp_path / "real").read_text() == "old\n"
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert "\n| `-o` naming a symbolic link (to a file, or to a folder for a model) | accepted: " \
        "the output replaces the link" in readme


@pytest.mark.parametrize("dots", [".", "./", ".."])
def test_a_model_folder_named_by_dots_is_refused_before_training(dots, tmp_path, monkeypatch,
                                                                  capsys):
    """-o . (an empty folder one is in) trained, then made its temporary inside the folder
    (named from the folder's name, which . lacks), found it there and saved the model to a new
    folder beside, with an error (review 28, section 4). Refused before training now."""
    here = tmp_path / "mine" / "sub"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    assert main(["train", "--direction", "ltr", "--iterations", "0", "--jobs", "1", "--train",
                 str(SAMPLE), "-o", dots]) == 2
    path = Path.cwd() if dots != ".." else Path.cwd().parent  # (as the system names it)
    assert capsys.readouterr().err == (
        f"fstpunct train: error: {dots}: a model replaces its folder whole; name the folder by "
        f"its path ({path}), not as . or ..\n")
    assert list(here.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
