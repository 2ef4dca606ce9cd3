"""Opening inputs and writing outputs so that no file is ever left half-written.

Every command reads its text inputs through :func:`open_input` and writes every file through
:func:`output`, :func:`atomic_path` or :func:`model_folder`: the output goes to a temporary file
(or folder) beside the target, is flushed to disk, and only a complete output is renamed over the
target. On an error, an exception, Ctrl-C, SIGTERM or a hangup (see :func:`end_on_signals`) the
temporary is removed and the target keeps its previous bytes. An input may therefore also be the
output (``-o`` naming the input): the input stays readable until the rename. A device or named pipe
(``-o /dev/null``) is written in place: it has no bytes to keep, and a rename would put a regular
file in its place. Two files that belong together are written as one model folder, or, beside other
files (a compiled channel and its JSON, an ordering model's two files), by :func:`write_pair`,
whose reader's :func:`check_pair` refuses halves of two writes.
"""
from __future__ import annotations

import codecs
import errno
import hashlib
import io
import json
import os
import re
import signal
import stat
import sys
import threading
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, BinaryIO

from .errors import (
    UNREADABLE,
    InputError,
    ModelError,
    SavedAside,
    Unflushed,
    loaded_numpy,
    not_a_model,
)

__all__ = ["CORRECTION_RECORD", "MODEL_FILES", "PAIR_DIGEST", "NpzArchive", "Terminated",
           "atomic_path", "check_input", "check_pair", "check_replaceable", "end_on_signals",
           "folder_target", "foreign", "has_separator", "input_name", "is_correction_model",
           "is_stdio", "model_folder", "model_target", "not_utf8", "open_input", "output",
           "partial_folder", "read_meta", "read_npy", "read_npz", "read_text",
           "remove_model_folder", "temporary_target", "to_json",
           "write_json", "write_pair", "writing"]

# A correction model's record: the file that makes a folder one (is_correction_model)
CORRECTION_RECORD = "correction.json"

# A folder holding one of these is a model folder fstpunct wrote (punctuation model or parser,
# tagger, CRF, correction model): the only kind of non-empty folder model_folder replaces.
MODEL_FILES = ("model.json", "tagger.json", "meta.json", CORRECTION_RECORD)

# A model's parts that are model folders of their own (a correction model's learner/ and
# corrector/): each part's name and the files its writer writes (foreign)
Parts = Mapping[str, Sequence[str]]
NO_PARTS: Parts = MappingProxyType({})

# UTF-16's byte-order marks as the UTF-8 decoder gives them (bytes that are not UTF-8 are
# lone surrogates)
_UTF16_BOMS = tuple(bom.decode("utf-8", "surrogateescape")
                    for bom in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))

_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # a byte that is not UTF-8, as open_input gives it

_PART = re.compile(r"\.(.+)\.[0-9a-f]{16}\.part\Z")  # the name of _temporary's .part

_JSON_NAMES = {dict: "a JSON object", list: "a JSON list", str: "a string", bool: "true or false"}
# what a file of another of fstpunct's formats (each module's FORMAT) holds, said when one is
# given for another that shares its file name (model.json, meta.json)
_FORMATS = {1: "a punctuation or ordering model's", "fstpunct-parser-1": "a parser's",
            "fstpunct-tagger-1": "a tagger's", "fstpunct-crf 1": "a CRF's",
            "fstpunct-correction 1": "a correction model's",
            "fstpunct-crf-corrector 1": "a CRF corrector's",
            "fstpunct-bilstm-corrector 1": "a BiLSTM-CRF corrector's"}

PAIR_DIGEST = "pair_sha256"  # a JSON record's SHA-256 of the file it describes (write_pair)

_DIRECTORY = getattr(os, "O_DIRECTORY", 0)  # os.open's flag for a folder, where it has one

_TEMPORARIES: set[Path] = set()  # the temporaries of outputs being written, not yet settled

_HANGUP = getattr(signal, "SIGHUP", None)  # a closed terminal's signal, where there is one

_held_back: int | None = None  # within _held(): the signal caught, raised after (0: none yet)


class Terminated(BaseException):
    """SIGTERM or a hangup (SIGHUP), ``signum``, arrived (raised by the handler
    :func:`end_on_signals` installs); like KeyboardInterrupt it is not an :class:`Exception`,
    so only cleanup code sees it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int) -> BaseException:
    """What :func:`end_on_signals`' handler raises for ``signum``."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _main_thread() -> bool:
    """Whether this is the main thread: the only one in which Python runs signal handlers and
    lets them be installed."""
    return threading.current_thread() is threading.main_thread()


@contextmanager
def _held() -> Iterator[None]:
    """Within the block (not nested), a signal :func:`end_on_signals` catches is held back and
    raised when the block ends, however it ends: what the block does is not cut in two. In
    another thread nothing is held: a handler, run in the main thread, cannot cut this one's
    block, and its signal is raised there at once."""
    global _held_back
    if not _main_thread():
        yield
        return
    _held_back = 0
    try:
        yield
    finally:
        caught, _held_back = _held_back, None
        if caught:
            raise _interrupt(caught)


@contextmanager
def end_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and a hangup (SIGHUP: the terminal closed) raise
    :class:`Terminated` in this process and Ctrl-C (SIGINT) KeyboardInterrupt, each unless it
    was ignored (or had a handler of the caller's) when the block began (``nohup`` ignores a
    hangup, a shell without job control Ctrl-C in its background jobs), so ``finally`` blocks
    remove temporary files (a hangup's default ended the process at once, leaving them); the
    worker processes it forks exit at once on any of them instead, quietly (a terminal sends
    Ctrl-C to the whole process group, and an idle worker's KeyboardInterrupt printed its
    traceback). Only the first signal is raised: those after it (Ctrl-C twice, the two hangups
    of a closed terminal) are ignored, so that cleanup runs to its end (``kill -9`` still ends
    a cleanup that hangs). In another thread than the main one (``signal.signal`` raises
    ValueError there) nothing is caught: the main thread's handlers stay as they are."""
    owner, stopping = os.getpid(), False

    def handler(signum: int, frame: object) -> None:
        global _held_back
        nonlocal stopping
        if os.getpid() != owner:
            os._exit(128 + signum)
        if stopping:  # the process is on its way out: its cleanup is not cut short
            return
        stopping = True
        if _held_back is not None:
            _held_back = signum
        else:
            raise _interrupt(signum)

    caught = [signum for signum, default in (
        (signal.SIGTERM, signal.SIG_DFL), (signal.SIGINT, signal.default_int_handler),
        (_HANGUP, signal.SIG_DFL)) if signum is not None and signal.getsignal(signum) is default
        and _main_thread()]
    previous = {signum: signal.signal(signum, handler) for signum in caught}
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)


def has_separator(name: str) -> bool:
    """Whether ``name`` holds a path separator (``/``, or the system's): the one rule by which
    a name given for a model, a language, a split or a pipeline is a path, ``./en``, and not a
    bundled model's, a language's or a split's name, nor a line of text."""
    return any(sep in name for sep in {"/", os.sep})


def is_stdio(path: str | Path | None) -> bool:
    """Whether ``path`` means standard input or output (``None`` or ``-``)."""
    return path is None or str(path) == "-"


def open_input(path: str | Path | None) -> tuple[Iterator[str], str]:
    """The lines of a text file (``None`` or ``-``: stdin), each with its line end, and the
    name to report. The file is opened now (a missing file or a folder is an InputError now)
    and read as it is iterated; closing the iterator closes the file.

    Bytes that are not UTF-8 come through as lone surrogates (``surrogateescape``) so the
    reader can name the line and sentence; a UTF-8 byte-order mark is dropped; UTF-16 is an
    InputError."""
    name = input_name(path)
    if is_stdio(path):
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a text stream put in place of stdin
            return iter(sys.stdin), name
        return _decoded(buffer, name, close=False), name
    return _decoded(_opened(path, name), name, close=True), name  # type: ignore[arg-type]


def input_name(path: str | Path | None) -> str:
    """The name :func:`open_input` reports for ``path``: ``<stdin>`` or the path as given
    (``./notes.txt`` keeps its ``./``)."""
    return "<stdin>" if is_stdio(path) else os.fspath(path)  # type: ignore[arg-type]


def check_input(path: str | Path | None) -> None:
    """Refuse now, as :func:`open_input` would, a text file that cannot be opened (the file is
    closed at once: nothing is left open if what comes before reading it fails)."""
    if not is_stdio(path):
        _opened(path, input_name(path)).close()  # type: ignore[arg-type]


def _opened(path: str | Path, name: str) -> BinaryIO:
    """``path`` opened for reading bytes; an InputError saying why it cannot be, naming it
    ``name`` (:func:`input_name`)."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{name}: is a folder, not a file")
    try:
        return p.open("rb")
    except FileNotFoundError as e:
        raise InputError(f"{name}: no such file") from e
    except OSError as e:
        raise InputError(f"{name}: cannot read: {e.strerror or e}") from e


def not_utf8(char: str) -> str:
    """What to say of a byte that is not UTF-8, given as :func:`open_input` gives it (a lone
    surrogate)."""
    return f"not UTF-8 (byte 0x{ord(char) - 0xDC00:02X}); fstpunct reads UTF-8 text"


def read_text(path: str | Path) -> str:
    """A whole text file, read as :func:`open_input` reads it (the same errors, in the same
    words; a byte-order mark dropped), a byte that is not UTF-8 an InputError naming its
    line."""
    lines, name = open_input(path)
    text = "".join(lines)
    bad = _NOT_UTF8.search(text)
    if bad:
        raise InputError(f"{name}:{text.count(chr(10), 0, bad.start()) + 1}: "
                         f"{not_utf8(bad.group())}")
    return text


def _decoded(stream: BinaryIO, name: str, close: bool) -> Iterator[str]:
    """The lines of ``stream`` as :func:`open_input` gives them: split at LF only (as bytes
    are), decoded in blocks by the io module."""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="surrogateescape", newline="\n")
    try:
        first = text.readline()
        if first.startswith(_UTF16_BOMS):
            raise InputError(f"{name}:1: UTF-16 text; fstpunct reads UTF-8 (convert it, "
                             "e.g. iconv -f UTF-16 -t UTF-8)")
        if first:
            yield first
            yield from text
    except OSError as e:
        raise InputError(f"{name}: cannot read: {e.strerror or e}") from e
    finally:
        if close:
            text.close()
        elif not stream.closed:  # (the interpreter's exit may close stdin first)
            text.detach()  # stdin's buffer stays open


def _check_target(target: Path, name: str) -> None:
    """Refuse a folder as the file ``target`` to write (``name``: as the user wrote it)."""
    if target.is_dir():
        raise InputError(f"{name}: is a folder; name a file to write")


def _special(target: Path) -> bool:
    """Whether ``target`` exists and is neither a regular file nor a folder: a device such as
    ``/dev/null`` or a named pipe, which is written in place (a temporary renamed over it would
    replace the device or pipe by a regular file)."""
    try:
        mode = target.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextmanager
def _temporary(target: Path, suffix: str, make: Callable[[Path], None],
               remove: Callable[[Path], None]) -> Iterator[Path]:
    """A new temporary beside ``target`` (made by ``make``), removed by ``remove`` if the
    ``with`` block fails in any way. Its name is chosen before it is made, so whatever stops
    the process — an error, Ctrl-C, SIGTERM or a hangup, even while ``make`` runs — the
    ``except`` that removes it knows the name (blocking signals cannot promise that: a signal
    delivered to another thread still interrupts the main one); a removal a signal interrupts
    is finished before it goes on (:func:`_finished`)."""
    tmp = target.parent / f".{target.name}.{os.urandom(8).hex()}{suffix}"  # read by _PART
    _TEMPORARIES.add(tmp)
    try:
        make(tmp)
        yield tmp
    except BaseException:
        _finished(remove, tmp)
        raise
    finally:
        _TEMPORARIES.discard(tmp)


def _finished(remove: Callable[[Path], None], path: Path) -> None:
    """``remove(path)``, which must do nothing to what is removed already; interrupted (Ctrl-C,
    SIGTERM, a hangup: the first signal, as :func:`end_on_signals` raises only that one), run
    again to its end before the interrupt goes on, so that no part of a temporary or of a
    previous model is left beside the target."""
    try:
        remove(path)
    except BaseException:
        remove(path)
        raise


def temporary_target(name: str) -> str | None:
    """The name of the target whose temporary (of :func:`output`, :func:`atomic_path` or
    :func:`model_folder`) is named ``name``, or None: ``model.json`` for
    ``.model.json.0123456789abcdef.part``, which a process killed while writing leaves."""
    m = _PART.match(name)
    return m.group(1) if m else None


def writing() -> bool:
    """Whether an output of this process is being written: a temporary of :func:`output`,
    :func:`atomic_path` or :func:`model_folder` is neither renamed into place nor removed yet
    (e.g. a generator holding one was left unfinished)."""
    return bool(_TEMPORARIES)


def _make_file(path: Path) -> None:
    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


@contextmanager
def atomic_path(path: str | Path,
                before_rename: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """A fresh temporary path beside ``path`` for the caller (or a tool it runs) to write;
    renamed over ``path`` when the ``with`` block completes, removed if it does not. A device
    or named pipe is given as it is. ``before_rename``, if given, is called with the written
    temporary once its mode is set and its bytes are flushed to the disk, just before the
    rename (:func:`write_pair`'s record). The folder is then flushed to the disk, where the
    system allows (:func:`_sync_folder`; opened before ``before_rename``): a crash after
    the ``with`` block finds the new file. A failure of that last flush (EIO), with the file in
    place, is :class:`Unflushed`, not "cannot write"."""
    target, name = Path(path), os.fspath(path)  # name: as given, ./out keeps its ./
    _check_target(target, name)
    if _special(target):
        try:
            yield target
            if before_rename is not None:
                before_rename(target)
        except BrokenPipeError:  # a named pipe's reader gone: as stdout's, no error
            raise
        except OSError as e:  # /dev/full
            raise _cannot_write(name, e) from e
        return
    try:
        with _temporary(target, ".part", _make_file,
                        lambda p: p.unlink(missing_ok=True)) as tmp:
            yield tmp
            _keep_mode(target, tmp, 0o666)
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            with _open_folder(target.parent) as folder:
                if before_rename is not None:
                    before_rename(tmp)
                os.replace(tmp, target)
                try:
                    _sync_folder(folder)  # the rename too: a crash now keeps it
                except OSError as e:  # (not caught below: Unflushed is no OSError)
                    raise Unflushed(name, e) from e
    except OSError as e:
        raise _cannot_write(name, e) from e


def _cannot_write(name: str, error: OSError) -> InputError:
    """The error of an output ``name`` (as the user wrote it) that could not be written."""
    return InputError(f"{name}: cannot write: {error.strerror or error}")


def _keep_mode(target: Path, tmp: Path, new: int) -> None:
    """Give the new file or folder the old one's permissions, or ``new`` less the umask for a
    new one (mkstemp and mkdtemp make it private)."""
    try:
        mode = target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = new & ~umask
    os.chmod(tmp, mode)


@contextmanager
def output(path: str | Path | None, binary: bool = False) -> Iterator[IO]:
    """A stream to write: stdout for ``None`` or ``-``, else a temporary file renamed over
    ``path`` only when the ``with`` block completes (see the module docstring). Text is
    UTF-8 and written as given (no newline translation)."""
    if is_stdio(path):
        yield sys.stdout.buffer if binary else sys.stdout
        return
    with atomic_path(path) as tmp:  # type: ignore[arg-type]
        with (open(tmp, "wb") if binary else open(tmp, "w", encoding="utf-8", newline="")) as f:
            yield f


def to_json(value: object, **options: Any) -> str:
    """``json.dumps(value, **options)`` as every JSON file or line fstpunct writes is written,
    with the one rule for numpy's values: its numbers and arrays as Python's (``tolist``; a
    count or a setting given as numpy's number passes the checks and reaches a record), any
    other value JSON cannot write a TypeError, as json.dumps raises it."""
    return json.dumps(value, default=_plain, **options)


def write_json(path: str | Path, value: object, atomic: bool = True) -> None:
    """``value`` written to ``path`` as every JSON file of fstpunct is: :func:`to_json` with
    one space of indent, non-ASCII as written, a final newline, UTF-8; whole or not at all
    (:func:`atomic_path`; a value JSON cannot write leaves no file). ``atomic=False`` for a
    file of a :func:`model_folder` being filled, which is flushed and put in place whole: the
    file is written in place, without a temporary or a flush of its own."""
    text = to_json(value, ensure_ascii=False, indent=1) + "\n"
    if not atomic:
        Path(path).write_text(text, encoding="utf-8")
        return
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_pair(data: str | Path, make: Callable[[], bytes], record: str | Path,
               meta: Mapping[str, Any]) -> None:
    """A file ``data`` of the bytes ``make`` returns (called within the write: its OSError is the
    write's), and the JSON file ``record`` that describes it: ``meta`` with :data:`PAIR_DIGEST`, the
    SHA-256 of those bytes (hashed as written, not read back). Everything that can fail for ``data``
    (its writing, mode and flush to the disk) and the writing of ``record`` and the opening of their
    folders come first: an error, Ctrl-C or SIGTERM until then leaves both targets as they were.
    Then ``record`` is renamed into place, its folder flushed to the disk where the system allows
    (:func:`atomic_path`: a power loss cannot then keep the second rename and lose the first), and
    ``data`` renamed last, its folder flushed. An error in those two last steps (the folder's flush,
    ``data``'s rename), or a crash between the two renames, leaves the new record beside the old
    data, which :func:`check_pair` refuses on reading: a pair appears whole, or as the old pair, or
    refused, never mixed silently. If the record's folder cannot then be flushed, the InputError
    says that the record is written (:class:`Unflushed`'s words) and ``data`` not; if ``data``'s
    cannot, it is :class:`Unflushed`."""
    def record_first(tmp: Path) -> None:  # renamed, then its folder flushed (atomic_path)
        try:
            write_json(record, {**meta, PAIR_DIGEST: digest})
        except Unflushed as e:  # the pair is not whole: not "written"
            raise InputError(f"{e}; {data} is not written, and the pair is refused until both "
                             "are written again") from e

    with atomic_path(data, record_first) as tmp:
        content = make()
        digest = hashlib.sha256(content).hexdigest()  # for record_first, called after
        tmp.write_bytes(content)


@contextmanager
def _open_folder(folder: Path) -> Iterator[int | None]:
    """``folder`` opened for :func:`_sync_folder`, or None where it cannot be opened so: on
    Windows, or a folder that may be written but not read (mode 0333: EACCES), whose saves
    worked before saves flushed their folder and so are not refused for it."""
    try:
        fd = None if os.name == "nt" else os.open(folder, os.O_RDONLY | _DIRECTORY)
    except PermissionError:
        fd = None
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def _sync_folder(fd: int | None) -> None:
    """Flush the entries (a rename into it) of a folder :func:`_open_folder` opened to the
    disk: ``fsync`` of the folder, as POSIX systems allow. Where a folder cannot be opened
    (None) or flushed so (a file system may refuse, EINVAL), the order of its renames is left
    to the system."""
    if fd is None:
        return
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno != errno.EINVAL:
            raise


def check_pair(meta: Mapping[str, Any], record: str | Path, data: str | Path,
               content: bytes | None = None) -> None:
    """A :class:`ModelError` unless ``meta``, read from ``record``, describes the file
    ``data`` beside it: its :data:`PAIR_DIGEST` is the SHA-256 of ``data``'s bytes
    (``content`` where the caller has read them, else read here; :func:`write_pair`). A record
    without one (written before pairs recorded it) is not checked, nor a ``data`` that cannot
    be read (its reader says why)."""
    recorded = meta.get(PAIR_DIGEST)
    if recorded is None:
        return
    try:
        digest = hashlib.sha256(Path(data).read_bytes() if content is None
                                else content).hexdigest()
    except OSError:
        return
    if recorded != digest:
        raise ModelError(f"{record}: records another {Path(data).name} than the one beside it "
                         "(a damaged file, or a write cut short between the two?); write both "
                         "again")


def _plain(value: object) -> object:
    """A numpy number or array as Python's (:func:`to_json`'s ``default``)."""
    np = loaded_numpy()
    if np is not None and isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def is_correction_model(folder: str | Path) -> bool:
    """Whether ``folder`` holds a correction model (its :data:`CORRECTION_RECORD`), which is
    loaded as one, not as a punctuation model."""
    return (Path(folder) / CORRECTION_RECORD).is_file()


def folder_target(path: str | Path) -> None:
    """Check, before long work, that :func:`model_folder` may write the folder ``path``: not a
    file, not a non-empty folder without any of :data:`MODEL_FILES` (a folder of other things is
    never replaced), a temporary folder can be made beside it (tried) and a folder there may be
    renamed (:func:`_check_movable`); else :class:`~fstpunct.errors.InputError`. Nothing of
    the user's is moved to check it."""
    target, name = Path(path), os.fspath(path)  # name: as given, ./model keeps its ./
    _refuse_dots(target, name)
    if target.exists() and not target.is_dir():
        raise InputError(f"{name}: is a file; name a folder to write")
    if target.is_dir() and any(target.iterdir()) and \
            not any((target / file).is_file() for file in MODEL_FILES):
        raise InputError(f"{name}: a folder that holds no model ({', '.join(MODEL_FILES)}) "
                         "and is not empty; name a new folder, or a model folder to replace")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _temporary(target, ".part", _make_folder, _remove_folder) as tmp:
            _remove_folder(tmp)
        if target.is_dir():
            _check_movable(target)
    except OSError as e:
        raise _cannot_write(name, e) from e


def _refuse_dots(target: Path, name: str) -> None:
    """InputError for a model folder named ``.`` or ``..`` (a path ending so): a model
    replaces its folder whole, and the folder a shell is in cannot be swapped under it (its
    temporary, named from the folder's name, would be made inside it)."""
    if target.name in {"", ".."}:
        raise InputError(f"{name}: a model replaces its folder whole; name the folder by its "
                         f"path ({os.path.abspath(target)}), not as . or ..")


def _check_movable(folder: Path) -> None:
    """PermissionError unless this process may rename ``folder`` within its parent, as
    :func:`_put` parks a previous model (a folder of any mode may be renamed so: its ``..``
    is not rewritten): the parent's write permission is the temporary's (tried), and what is
    left is a sticky parent, where only the owner of the folder or of the parent (or root)
    may; a mount point is never renamed (EBUSY)."""
    if os.path.ismount(folder):
        raise OSError(errno.EBUSY, "a mount point, which cannot be replaced")
    parent = os.stat(folder.parent)
    if parent.st_mode & stat.S_ISVTX and \
            os.geteuid() not in (0, parent.st_uid, os.stat(folder).st_uid):
        raise PermissionError(errno.EPERM, "another user's folder, in a folder with the sticky "
                                           "bit")


@contextmanager
def model_folder(path: str | Path, files: Sequence[str], kind: str,
                 parts: Parts = NO_PARTS) -> Iterator[Path]:
    """A fresh temporary folder beside ``path`` (a :func:`folder_target`) to fill with a model of
    ``kind`` (``"a tagger"``), whose writer writes ``files``: when the ``with`` block completes
    it takes the place of ``path`` (a previous model folder there is removed once the new one
    is in place), else it is removed and ``path`` is untouched. If, when the block completes,
    ``path`` holds anything else (:func:`foreign`, inside its ``parts`` too; put there while a
    long run trained) or is not a folder, ``path`` is left as it was, the model takes the
    place of a new folder beside it (``NAME.new``, else ``NAME.new-2``, …) instead, and
    :class:`~fstpunct.errors.SavedAside` is raised, naming what ``path`` holds and, as its
    ``saved``, where the model is. Every file of the temporary folder, and every folder in it,
    is flushed to the disk before it takes a place (:func:`_sync_tree`), and the folder that
    holds it after (its rename, where the system allows: :func:`_sync_folder`): a crash after
    the ``with`` block finds the new folder and its files whole, so the files inside need no
    temporary of their own (:func:`write_json`'s ``atomic=False``). A failure of that last
    flush (EIO), when the model is in place, is :class:`Unflushed` (or said at the end of
    :class:`SavedAside`'s notice, which it then is), not "cannot write"."""
    folder = Path(path)
    if _in_the_way(folder, files, parts) is None:
        folder_target(path)
    else:  # the model will go beside it
        _refuse_dots(folder, os.fspath(path))
    others: list[str] | None = None
    place, unflushed = folder, None
    try:
        with _temporary(folder, ".part", _make_folder, _remove_folder) as tmp:
            yield tmp
            _sync_tree(tmp)
            others = _in_the_way(folder, files, parts)
            if others is not None:
                place = _aside(folder)
            unflushed = _put(tmp, place)
    except OSError as e:  # (path as the user wrote it: ./model keeps its ./)
        raise _cannot_write(os.fspath(path if others is None else place), e) from e
    if others is not None:
        raise SavedAside(path, others, place, kind, unflushed)
    if unflushed is not None:
        raise Unflushed(os.fspath(path), unflushed)


def check_replaceable(folder: str | Path, files: Sequence[str], what: str,
                      parts: Parts = NO_PARTS) -> None:
    """InputError if ``folder`` holds anything but ``files``, what the writer of ``what``
    writes, inside its ``parts`` too (:func:`foreign`; beside a model: the ``tagger/`` and
    ``parser/`` that text needs, an ordering model, notes): saving replaces the folder whole,
    and they would go with it. Checked before training; what is put into the folder while it
    trains makes :func:`model_folder` write the model beside the folder. A temporary of one of
    its files that a killed fstpunct left (:func:`temporary_target`) goes with it."""
    others = foreign(Path(folder), files, parts)
    if others:
        raise InputError(f"{folder}: holds {', '.join(others)}, not part of {what}: writing "
                         "one replaces the folder whole and would delete them; move them out, "
                         "or name another folder")


def model_target(path: str | Path, files: Sequence[str], what: str, parts: Parts = NO_PARTS
                 ) -> Path:
    """``path`` checked before training a model of ``what`` whose writer writes ``files``
    (and ``parts``): :func:`folder_target` and :func:`check_replaceable`."""
    folder_target(path)
    check_replaceable(path, files, what, parts)
    return Path(path)


def foreign(folder: Path, files: Sequence[str], parts: Parts = NO_PARTS) -> list[str]:
    """The names, sorted, of the entries of ``folder`` that replacing it with a model of
    ``files`` would delete (:func:`check_replaceable`), with those of each of its ``parts``
    (a file of ``files`` that is a model folder of its own: its name and the files its writer
    writes) as ``PART/NAME``."""
    inside = [f"{part}/{name}" for part, own in parts.items()
              for name in _strangers(folder / part, own)]
    return sorted(_strangers(folder, files) + inside)


def _in_the_way(folder: Path, files: Sequence[str], parts: Parts) -> list[str] | None:
    """None if a model of ``files`` (and ``parts``) may take the place of ``folder`` (nothing
    there, or a folder of nothing else); else what keeps it out, left as it is: the names
    :func:`foreign` gives, or none for what is not a folder (a file, a named pipe, a link to
    either)."""
    if os.path.lexists(folder) and not folder.is_dir():
        return []
    return foreign(folder, files, parts) or None


def _strangers(folder: Path, files: Sequence[str]) -> list[str]:
    """The names of the entries of ``folder`` (none if it is no folder) that are neither one
    of ``files`` nor the temporary name of one."""
    if not folder.is_dir():
        return []
    return [p.name for p in folder.iterdir()
            if p.name not in files and temporary_target(p.name) not in files]


def _aside(folder: Path) -> Path:
    """The first of ``NAME.new``, ``NAME.new-2``, … beside ``folder`` (:func:`_beside`) that
    does not exist."""
    path, n = _beside(folder, ".new"), 1
    while os.path.lexists(path):
        n += 1
        path = _beside(folder, f".new-{n}")
    return path


def _beside(folder: Path, suffix: str) -> Path:
    """``NAME{suffix}`` beside ``folder`` (NAME: its name; for ``.`` or ``..``, its absolute
    path's)."""
    base = folder if folder.name not in {"", ".."} else Path(os.path.abspath(folder))
    return base.with_name(f"{base.name}{suffix}")


def partial_folder(path: str | Path) -> Path:
    """``NAME.partial`` beside the model folder ``path``: where a trainer saving as it goes
    (``parser train`` with dev sentences) keeps its best model so far, a model folder of its
    own, so that ``path`` keeps its previous model until the run ends."""
    return _beside(Path(path), ".partial")


def remove_model_folder(folder: Path, files: Sequence[str]) -> None:
    """``folder`` removed if it is a folder holding a model of ``files`` alone
    (:func:`foreign`; a :func:`partial_folder` that has served), else left as it is."""
    if folder.is_dir() and not folder.is_symlink() and not foreign(folder, files):
        _finished(_remove_folder, folder)


def _sync_tree(folder: Path) -> None:
    """Flush every file in ``folder`` and its sub-folders to the disk, then each folder (its
    entries), the deepest first, as :func:`atomic_path` flushes its file and its folder: a
    folder that cannot be opened (or listed) or flushed so is left to the system
    (:func:`_open_folder`, :func:`_sync_folder`)."""
    for root, _, names in os.walk(folder, topdown=False, onerror=_unless_unreadable):
        for name in names:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        with _open_folder(Path(root)) as opened:
            _sync_folder(opened)


def _unless_unreadable(error: OSError) -> None:
    """``error`` raised, unless it says a folder may not be read (PermissionError), whose
    files :func:`_sync_tree` leaves to the system as :func:`_open_folder` leaves a folder."""
    if not isinstance(error, PermissionError):
        raise error


def _put(tmp: Path, target: Path) -> OSError | None:
    """The finished temporary folder ``tmp`` in the place of ``target``, then the folder
    holding it (opened first: :func:`_open_folder`) flushed to the disk, so that a crash keeps
    the rename, and only then a previous model folder there removed. A signal during the two
    renames (the previous folder moved aside, the new one put in its place) is held back until
    both are done (:func:`_held`): the target holds one of the two. The error of that flush,
    if it fails, is returned (the model is in place, its rename perhaps not yet on the disk),
    not raised; the previous folder is removed all the same."""
    with _open_folder(target.parent) as parent:
        _keep_mode(target, tmp, 0o777)
        old: Path | None = None
        try:
            with _held():  # (a signal from here is raised when both renames are done)
                old = _parked(target)
                try:
                    os.replace(tmp, target)
                except BaseException:
                    parked, old = old, None  # put back, or kept and named: not removed
                    if parked is not None:
                        _put_back(parked, target)
                    raise
            try:
                _sync_folder(parent)
            except OSError as e:
                return e
            return None
        finally:  # the new model is in place
            if old is not None:
                _finished(_remove_folder, old)


def _parked(target: Path) -> Path | None:
    """A previous ``target`` renamed to a hidden name beside it (``.NAME.HEX.old``), where it
    waits to be removed once the new one is in place: a rename within one folder, which a
    folder of any mode allows (moving it into another folder would rewrite its ``..``, which
    needs write permission on it). None if there is none (or it went meanwhile)."""
    old = target.parent / f".{target.name}.{os.urandom(8).hex()}.old"
    try:
        os.replace(target, old)
    except FileNotFoundError:
        return None
    return old


def _put_back(old: Path, target: Path) -> None:
    """The previous model :func:`_parked` at ``old`` put back at ``target``, the new one having
    failed to take its place; if that fails too, an InputError says where it is (it is not
    removed)."""
    try:
        os.replace(old, target)
    except OSError as e:
        raise InputError(f"{target}: the previous model could not be put back "
                         f"({e.strerror or e}); it is in {old}") from e


def _make_folder(path: Path) -> None:
    path.mkdir(mode=0o700)


def _remove_folder(path: Path) -> None:
    """``path`` and all it holds removed, as far as the system allows (nothing if it is
    gone); a folder in it that may not be written (a model's mode 0555, :func:`_keep_mode`)
    is made writable first (:func:`_writable`)."""
    import shutil  # here: only folder outputs need it
    shutil.rmtree(path, ignore_errors=True)
    if path.is_dir() and not path.is_symlink():  # something in it was refused
        _writable(path)
        shutil.rmtree(path, ignore_errors=True)


def _writable(folder: Path) -> None:
    """``folder`` and every folder in it (not through links) readable, writable and searchable
    by their owner, as far as the system allows: a folder to remove."""
    stack = [folder]
    while stack:
        here = stack.pop()
        try:
            os.chmod(here, stat.S_IMODE(os.lstat(here).st_mode) | stat.S_IRWXU)
            with os.scandir(here) as entries:
                stack.extend(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue


def read_meta(path: Path, fmt: str | int | None, what: str,
              fields: Mapping[str, type] | None = None, name: str | Path | None = None
              ) -> dict[str, Any]:
    """The JSON object of a model's description file ``path`` (``model.json``, ``meta.json``,
    …), checked to be of format ``fmt`` (None: a file without one) and to hold each of
    ``fields`` with a value of its type; else a :class:`ModelError` saying that the model
    (``name``, by default ``path``'s folder; the folder as the user wrote it, ``./m``; or a
    file stem in it, ``folder/attach``) is not ``what`` (``"a CRF corrector"``) and why
    (:func:`~.errors.not_a_model`, judged by the folder)."""
    name = path.parent if name is None else name
    folder = Path(name) == path.parent  # (./m is m)
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise not_a_model(name if folder else path.parent, what, e, None if folder else name,
                          path.name) from e
    if not isinstance(meta, dict):
        raise ModelError(f"{name}: not {what} ({path.name} is not a JSON object)")
    found = meta.get("format")
    if fmt is not None and (type(found) is not type(fmt) or found != fmt):  # not true nor 1.0
        whose = f" is {_FORMATS[found]}" if type(found) in (int, str) and found in _FORMATS \
            else ""
        raise ModelError(f"{name}: not {what} ({path.name}{whose}: format {found!r}, expected "
                         f"{fmt!r})")
    for key, kind in (fields or {}).items():
        if not isinstance(meta.get(key), kind):
            raise ModelError(f"{name}: not {what} ({path.name}: {key!r} missing or not "
                             f"{_JSON_NAMES.get(kind, kind.__name__)})")
    return meta


class NpzArchive(Mapping[str, Any]):
    """The arrays of an open ``.npz`` archive (:func:`read_npz`), read when looked up. A failure
    of the archive itself — a missing array, a damaged member, an array of Python objects — is
    the model's :class:`ModelError` naming the file (a missing array too: not a KeyError)."""

    def __init__(self, npz: Any, error: Callable[[Exception], ModelError]) -> None:
        self._npz = npz
        self.error = error  # the model's error for a cause: a loader's check of the arrays

    def __getitem__(self, name: str) -> Any:
        try:
            return self._npz[name]
        except UNREADABLE as e:  # numpy's refusal of objects in its words: ours instead
            why = ValueError(_OBJECTS) if _holds_objects(self._npz, name) else e
            raise self.error(why) from e

    def __contains__(self, name: object) -> bool:
        return name in self._npz.files

    def __iter__(self) -> Iterator[str]:
        return iter(self._npz.files)

    def __len__(self) -> int:
        return len(self._npz.files)

    def numbers(self, name: str, ndim: int | None = None) -> Any:
        """Array ``name``, checked to hold numbers (in ``ndim`` dimensions), else the error."""
        array = self[name]
        if array.dtype.kind not in "biuf" or ndim not in (None, array.ndim):
            kind = "numbers" if ndim is None else f"{ndim}-d numbers"
            raise self.error(ValueError(f"{name} is not {kind} but {array.ndim}-d "
                                        f"{array.dtype}"))
        return array


_OBJECTS = "Python objects (a pickle), not arrays of numbers"
_ZIP_END = 1 << 17  # more than zipfile.is_zipfile reads: the end record, its comment (under
# 64 KiB) and the zip64 records before it
_ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # np.load's test: a member, an empty archive


def _holds_objects(npz: Any, name: str) -> bool:
    """Whether the header of array ``name`` of the open archive ``npz`` (a NumPy ``NpzFile``)
    declares Python objects (its dtype's ``hasobject``), False if it cannot be read."""
    member = name if name in npz.zip.namelist() else f"{name}.npy"  # as NpzFile finds it
    try:
        f = npz.zip.open(member)
    except UNREADABLE:  # no such member, or its entry cannot be read
        return False
    with f:
        return _declares_objects(f)


def _declares_objects(f: IO[bytes]) -> bool:
    """Whether the ``.npy`` header at the start of the stream ``f`` declares Python objects,
    False if it cannot be read (numpy's error on reading the array is then the reason)."""
    from numpy.lib import format as npy
    try:
        version = npy.read_magic(f)  # 3.0: 2.0's layout with UTF-8 field names
        read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        return bool(read(f)[2].hasobject)
    except UNREADABLE:
        return False


def read_npy(f: BinaryIO) -> Any:
    """The array of the NumPy ``.npy`` file open at its start in the seekable binary stream
    ``f`` (``io.BytesIO`` of bytes read already, or an open file), read without pickles;
    numpy's error (:data:`~.errors.UNREADABLE`) if it cannot be, but never its advice to allow
    pickles: a ValueError "not a NumPy .npy file" for another file (a pickle, text, an
    ``.npz``), and "Python objects (a pickle), not arrays of numbers" for an array of them (its
    header's dtype)."""
    from numpy.lib import format as npy
    start = f.tell()
    if f.read(len(npy.MAGIC_PREFIX)) != npy.MAGIC_PREFIX:
        raise ValueError("not a NumPy .npy file")
    f.seek(start)
    try:
        return npy.read_array(f, allow_pickle=False)
    except UNREADABLE as e:  # numpy's refusal of objects in its words: ours instead
        f.seek(start)
        if _declares_objects(f):  # the header read again on a failure only
            raise ValueError(_OBJECTS) from e
        raise


def _check_zip(f: BinaryIO, start: bytes) -> None:
    """A ValueError unless the open file ``f``, whose first bytes are ``start``, is a zip
    archive from its first byte: ``np.load`` reads a file that does not start as one (bytes
    before an archive, an ``.npy`` before one) as an ``.npy`` or a pickle. A read error where
    :func:`zipfile.is_zipfile` reads, which it takes for "no", is raised as it is (the file's
    tail read again: at least what is_zipfile reads)."""
    if start.startswith(_ZIP_STARTS):
        if zipfile.is_zipfile(f):
            return
        f.seek(max(0, f.seek(0, os.SEEK_END) - _ZIP_END))
        f.read()
    raise ValueError("not a NumPy .npz archive, or a truncated one")


@contextmanager
def read_npz(path: Path, what: str, model: str | Path | None = None,
             content: bytes | None = None) -> Iterator[NpzArchive]:
    """A model's NumPy ``.npz`` archive ``path``, open (``allow_pickle=False``) for the ``with``
    block to read its arrays (:class:`NpzArchive`). Whatever fails to open it or read an array
    — no such file or one that cannot be read (its own reason), not a zip archive from its
    first byte (text, an ``.npy``, bytes before an archive, a truncated file), a damaged
    directory or member, an array of Python objects, a missing array — is one
    :class:`ModelError` saying that the model (``model``, by default ``path``'s folder) is not
    ``what`` and why, naming the file (:func:`~.errors.not_a_model`): ``m/attach: not an
    attach model (attach.npz: not a NumPy .npz archive, or a truncated one)``, never numpy's
    advice to allow pickles. What else the block raises passes as it is. The file is closed on
    every path. ``content``: the file's bytes where the caller has read them (to hash them
    too: :func:`check_pair`), read from memory instead of opening ``path``."""
    import numpy as np  # here: reading text needs no numpy

    def failed(e: Exception) -> ModelError:
        why: Exception = e
        if isinstance(e, KeyError):  # numpy's "x is not a file in the archive", unquoted
            why = ValueError(e.args[0])
        return not_a_model(path.parent, what, why, model, path.name)

    try:
        f: BinaryIO = path.open("rb") if content is None else io.BytesIO(content)
    except OSError as e:
        raise failed(e) from e
    with f:
        try:
            start = f.read(4)  # a read error says its own reason here (not is_zipfile's "no")
            _check_zip(f, start)
            f.seek(0)
            npz = np.load(f, allow_pickle=False)
        except UNREADABLE as e:
            raise failed(e) from e
        with npz:
            yield NpzArchive(npz, failed)
