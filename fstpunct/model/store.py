"""Model folders: what ``fstpunct train`` writes and every other command loads.

A model is a folder::

    channel.fst    the channel φ as an OpenFst machine with symbol tables (fstinfo/fstprint read it)
    channel.json   its direction and alphabet (see fstpunct.fst.channel)
    attach.json    vocabularies, symmetric pairs and the feature index
    attach.npz     the Attach weights θ (contexts × pair features)
    model.json     settings and the record of how the model was trained
    edits.npy      expected counts of every edit φ[a, b, e] on the training data (final E-step)

``model.json`` ties ``edits.npy`` to the channel it counts: ``edit_counts_of``, a digest of
``channel.fst`` and ``edits.npy`` as written together, is checked when the counts are read
(:func:`load_edit_counts`), so that a folder assembled from two runs is told. Folders written
before the record (the bundled ones among them) have no ``edit_counts_of`` and load unchecked.

A bundled folder may also hold the language's ordering model for rephrasing (``order.json``,
``order.npz``: :mod:`fstpunct.apps.rephrase.order`) and the tagger and parser that read plain
text (``tagger/``, ``tagger-lc/``, ``parser/``); loading the punctuation model ignores them.

``--model en`` names a model shipped inside the package (``fstpunct/models/en``, one folder per
language, named by its code); anything else is a path to a folder. A bundled name is never
shadowed silently: ``en`` is the bundled model even where a folder ``en`` exists (with a warning
naming it); ``./en`` (anything with a path separator) is the folder. Every bundled folder is read
as it is: adding a language is adding its folder, nothing here names one.

``model.json`` may also hold an ``evaluation`` (what ``fstpunct models --evaluate`` measures: the
test perplexity on the language's standard split, with the command that reproduces it).
"""
from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UNREADABLE, InputError, ModelError, warn_user
from ..files import has_separator, model_folder, read_meta, read_npy, write_json
from ..fst.channel import Channel, read_sidecar
from .attach import AttachModel
from .punct import PunctModel, Settings

__all__ = ["EDIT_COUNTS", "FILES", "FORMAT", "KIND", "bundled", "channel_marks", "found_model",
           "is_bundled", "load_edit_counts", "load_model", "model_path", "model_size",
           "read_record", "record_evaluation", "save_model", "write_model"]

FORMAT = 1
BUNDLED = Path(__file__).parents[1] / "models"
# the files of a model folder (module docstring)
EDIT_COUNTS = "edits.npy"
CHANNEL, SIDECAR, RECORD = "channel.fst", "channel.json", "model.json"
ATTACH = "attach"  # attach.json and attach.npz (AttachModel.save)
# what save_model writes: all a folder it replaces may hold
FILES = (f"{ATTACH}.json", f"{ATTACH}.npz", CHANNEL, SIDECAR, EDIT_COUNTS, RECORD)
KIND = "a punctuation model"  # what refusals of its folder and SavedAside call it
EDITS_OF = "edit_counts_of"  # model.json's digest of the channel and its edit counts


def bundled() -> list[str]:
    """The names of the bundled models (their languages), sorted."""
    return sorted(p.parent.name for p in BUNDLED.glob("*/model.json"))


def is_bundled(name: str | Path) -> bool:
    """Whether ``name`` names a bundled model: a bare name (no path separator:
    :func:`~fstpunct.files.has_separator`) of a folder in ``fstpunct/models``."""
    return isinstance(name, str) and not has_separator(name) and name not in {".", ".."} and \
        (BUNDLED / name / RECORD).is_file()


def model_path(name: str | Path, warn: bool = True) -> Path:
    """A bundled model's folder by name, else ``name`` as a path (see the module docstring:
    a bundled name wins over a local folder of that name, with a warning unless ``warn`` is
    false: where the name means a language, not a folder, as restore's --lang does)."""
    if is_bundled(name):
        if warn and Path(name).exists():
            warn_user(f"{name!r} is the bundled model, not the local folder {name} "
                      f"(write ./{name} for the folder)")
        return BUNDLED / str(name)
    return Path(name)


def found_model(name: str | Path) -> Path:
    """:func:`model_path`, refused (ModelError) unless it is a folder, naming ``name`` as
    given (``./en`` keeps its ``./``): a path (a ``Path``, a name with a separator) is no
    such folder or a file; a bare name is no bundled model and no folder here either."""
    folder = model_path(name)
    if folder.is_dir():
        return folder
    file = folder.exists()
    if isinstance(name, str) and not has_separator(name):
        why = (f"not a bundled model ({', '.join(bundled()) or 'none'}), and "
               f"{'a file here, not a folder' if file else 'no folder of that name here'}")
    else:
        why = "a file, not a folder" if file else "no such folder"
    raise ModelError(f"no model {os.fspath(name)!r}: {why}")


def model_size(name: str | Path) -> int:
    """Bytes on disk of the files directly in a model's folder (not its subfolders)."""
    return sum(p.stat().st_size for p in model_path(name).iterdir() if p.is_file())


def save_model(model: PunctModel, folder: str | Path, record: dict[str, Any],
               edit_counts: np.ndarray | None = None) -> Path:
    """Write the model folder whole: built beside ``folder``, then put in its place. A folder
    that holds anything else (put there while a long run trained) is left as it was: the model
    is written whole to a new folder beside it, then :class:`~fstpunct.errors.SavedAside` is
    raised (:func:`~fstpunct.files.model_folder`; the files: :func:`write_model`)."""
    folder = Path(folder)
    with model_folder(folder, FILES, KIND) as tmp:
        write_model(model, tmp, record, edit_counts)
    return folder


def write_model(model: PunctModel, folder: Path, record: dict[str, Any],
                edit_counts: np.ndarray | None = None) -> None:
    """Write the model's files (:data:`FILES`; ``edits.npy`` only with ``edit_counts``) into
    ``folder``, an empty folder inside a :func:`~fstpunct.files.model_folder` being filled (its
    temporary folder, or a part of a larger model: a correction model's ``learner/``), which
    is flushed and put in place whole: no file has a temporary or a flush of its own."""
    if edit_counts is not None:  # its bytes kept for the digest (not read back)
        buffer = io.BytesIO()
        np.save(buffer, edit_counts)
        edits = buffer.getvalue()
        (folder / EDIT_COUNTS).write_bytes(edits)
    channel = model.channel.to_bytes()  # its bytes kept for the digest too
    (folder / CHANNEL).write_bytes(channel)
    side = {"direction": model.channel.direction, "symbols": list(model.channel.symbols)}
    write_json(folder / SIDECAR, side, atomic=False)
    model.attach.save(folder / ATTACH, model.theta)
    meta = {"format": FORMAT, "settings": model.settings.to_dict(), "record": record}
    if edit_counts is not None:
        meta[EDITS_OF] = _edits_digest(channel, edits)
    write_json(folder / RECORD, meta, atomic=False)


def read_record(name: str | Path, required: Mapping[str, type] | None = None
                ) -> dict[str, Any]:
    """A model's ``model.json`` (format, settings, training record, evaluation), by folder or
    bundled name; ModelError if it is missing, of another format or without the ``required``
    fields of their types."""
    return _record(model_path(name), name, required)


def _record(folder: Path, name: str | Path, required: Mapping[str, type] | None
            ) -> dict[str, Any]:
    """:func:`read_record` of the model ``name`` found at ``folder``: a folder is named as
    given (./m), a bundled model by its path."""
    return read_meta(folder / RECORD, FORMAT, "a fstpunct model", required,
                     name if Path(name) == folder else None)


def record_evaluation(name: str | Path, evaluation: dict[str, Any]) -> None:
    """Store ``evaluation`` in a model's ``model.json`` (written whole, then renamed)."""
    folder = model_path(name)
    meta = read_record(folder)
    meta["evaluation"] = evaluation
    write_json(folder / RECORD, meta)


def load_model(name: str | Path, folder: Path | None = None) -> PunctModel:
    """Load a model folder (or a bundled model by name). Its files are checked in this order,
    the first missing or damaged one refused (:class:`~fstpunct.errors.ModelError`):
    model.json, attach.json and attach.npz, channel.json (read once, for the direction
    channel.fst is read in), channel.fst (read once too, for channel.json's record of it and
    to be parsed), then whether they are of one model. ``folder``: where the caller found
    ``name`` (:func:`found_model`), not looked up (nor warned of) again."""
    folder = found_model(name) if folder is None else folder
    meta = _record(folder, name, {"settings": dict})
    unknown = sorted(set(meta["settings"]) - {f.name for f in fields(Settings)})
    if unknown:
        raise ModelError(f"{folder}: model.json has settings this fstpunct does not know: "
                         f"{', '.join(unknown)} (a newer version's model?)")
    attach, theta = AttachModel.load(folder / ATTACH)
    try:  # once: hashed for channel.json's record (if it has one), then parsed
        data: bytes | None = (folder / CHANNEL).read_bytes()
    except OSError:  # Channel.load says why, after channel.json's checks
        data = None
    listed, direction = channel_marks(folder, data)  # once: its direction and symbols
    channel = Channel.load(folder / CHANNEL, direction, data)
    for name, symbols in ((f"{ATTACH}.json", attach.vocab.tokens),
                          (SIDECAR, channel.symbols if listed is None else listed)):
        if tuple(symbols) != channel.symbols:  # a file copied from another model's folder
            raise ModelError(f"{folder}: {name} and channel.fst are of different models "
                             f"({_differ(symbols, channel.symbols)})")
    try:  # models saved before the token cost or lexical contexts existed were trained without
        settings = Settings(**{"token_cost": 0.0, "lexical": 0, **meta["settings"]})
    except InputError as e:  # the model's fault, not a value the user gave
        raise ModelError(f"{folder / RECORD}: settings: {e}") from None
    return PunctModel(attach, theta, channel, settings)


def channel_marks(folder: Path, content: bytes | None = None
                  ) -> tuple[list[str] | None, str]:
    """The marks (the channel's symbols) that the model folder's channel.json lists, None if
    it lists none (an older model's), and its direction: what :func:`load_model` checks
    against channel.fst and the vocabulary, read without the weights. A ModelError when
    channel.json cannot be read, holds no direction or records another channel.fst
    (:func:`~fstpunct.fst.channel.read_sidecar`), or lists symbols that are not a list of
    strings. ``content``: channel.fst's bytes where the caller has read them."""
    side, direction = read_sidecar(folder / CHANNEL, content)
    if "symbols" not in side:
        return None, direction
    listed = side["symbols"]
    if not isinstance(listed, list) or not all(isinstance(s, str) for s in listed):
        raise ModelError(f"{folder / SIDECAR}: 'symbols' must be a list of strings")
    return listed, direction


def _differ(these: Sequence[str], channel: Sequence[str]) -> str:
    """How a file's punctuation symbols differ from the channel's, briefly."""
    only = " ".join([s for s in these if s not in channel][:5])
    lacks = " ".join([s for s in channel if s not in these][:5])
    if not only and not lacks:
        return "the same symbols in another order"
    return "; ".join(part for part in (only and f"{only} not in the channel",
                                       lacks and f"the channel's {lacks} not in it") if part)


def load_edit_counts(name: str | Path, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """The expected edit counts a model was trained with (``edits.npy``): finite, ≥ 0, per
    (a, b, edit), of ``shape`` when given (its channel's φ's). ModelError when the file is
    missing, unreadable or not such an array, or when ``model.json`` records (``edit_counts_of``)
    the counts of another channel.fst or edits.npy than the folder holds (module docstring; a
    folder without the record is not checked), records no SHA-256 or its channel.fst cannot be
    read."""
    folder = model_path(name)  # once: a bundled name's lookup may warn
    path = folder / EDIT_COUNTS
    try:
        data = path.read_bytes()  # once: for the array and for its digest
        counts = read_npy(io.BytesIO(data))
    except UNREADABLE as e:
        raise ModelError(f"{path}: no readable expected edit counts in this model ({e})") from e
    wrong_shape = counts.ndim != 3 or (shape is not None and counts.shape != shape)
    if counts.dtype.kind != "f" or wrong_shape or not np.all(np.isfinite(counts)) \
            or np.any(counts < 0):
        want = f"of shape {shape}" if shape is not None else "of 3 axes"
        raise ModelError(f"{path}: not the model's expected edit counts (want finite counts ≥ 0 "
                         f"{want}; found {counts.dtype} of shape {counts.shape})")
    recorded = read_record(folder).get(EDITS_OF)
    if recorded is None:
        return counts
    if not isinstance(recorded, str) or not re.fullmatch("[0-9a-f]{64}", recorded):
        raise ModelError(f"{folder / RECORD}: {EDITS_OF} must be 64 lower-case hex digits (a "
                         f"SHA-256), not {recorded!r}: a damaged model.json")
    try:
        channel = (folder / CHANNEL).read_bytes()
    except OSError as e:  # load_edit_counts runs without load_model: channel.fst unchecked
        raise ModelError(f"{e.filename or folder}: cannot read: {e.strerror or e}") from e
    if recorded != _edits_digest(channel, data):
        raise ModelError(f"{folder}: edits.npy and channel.fst are not the pair model.json "
                         "records (a folder assembled from two runs?); copy a model's files "
                         "together")
    return counts


def _edits_digest(channel: bytes, edits: bytes) -> str:
    """The SHA-256 of the SHA-256s of ``channel`` and ``edits``, the bytes of a folder's
    channel.fst and edits.npy: what ``edit_counts_of`` records (module docstring)."""
    both = b"".join(hashlib.sha256(data).digest() for data in (channel, edits))
    return hashlib.sha256(both).hexdigest()
