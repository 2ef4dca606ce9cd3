"""The files a model's training record names, written and read in one place: its training
``data`` and ``dev`` files, ``NAME: PATH`` each, and under ``ranges`` the sentences
``[first, last]`` of each where one of them is part of its file. :func:`fstpunct.train`
writes them (:func:`named`, :func:`ranges`); the rules report reads them back
(:func:`recorded_sources`) for a language without standard splits."""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..errors import InputError
from .release import LANGUAGES, SPLITS, Source, split_source

__all__ = ["KEYS", "named", "ranges", "recorded_sources"]

KEYS = {"train": "data", "dev": "dev"}  # a split's files' key in the record


def named(sources: Iterable[Source]) -> list[str]:
    """``NAME: PATH`` of each source, as the record keeps its files."""
    return [f"{s.name}: {s.path}" for s in sources]


def ranges(data: Sequence[Source], dev: Sequence[Source]
           ) -> dict[str, list[list[int | None] | None]]:
    """The record's ``ranges``: for the training ``data`` and the ``dev`` files, where one of
    them is part of its file (a split, a Source's), each one's ``[first, last]`` or None (the
    whole file); empty where none is."""
    return {KEYS[split]: [_part(s) for s in files]
            for split, files in (("train", data), ("dev", dev)) if any(_part(s) for s in files)}


def _part(source: Source) -> list[int | None] | None:
    """``[first, last]`` of a source that is part of its file, as the record keeps it, else
    None."""
    return None if source.first is None and source.last is None else \
        [source.first, source.last]


def recorded_sources(record: object, split: str, ud_dir: str | os.PathLike[str] | None
                     ) -> list[Source]:
    """The files a training ``record`` names for ``split`` (its ``dev``, or its training
    ``data`` for ``train``; ``"NAME: PATH"`` each, with its sentences first..last where its
    ``ranges`` give them), or [] if it names none; InputError for a file that is no longer
    there."""
    key = KEYS.get(split, "")
    names = record.get(key) if isinstance(record, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) and ": " in n for n in names):
        return []
    parts = record.get("ranges")
    parts = parts.get(key) if isinstance(parts, dict) else None
    if not _ranges(parts, len(names)):
        parts = [None] * len(names)
    sources = [_source(*n.split(": ", 1), part, ud_dir) for n, part in zip(names, parts)]
    for source in sources:
        if not source.path.is_file():
            raise InputError(f"{source.path}: the model's {split} file ({source.name}, "
                             "recorded in its model.json) is not there; give a language's "
                             "standard split with lang= (--lang)")
    return sources


def _ranges(parts: object, n: int) -> bool:
    """Whether ``parts`` is a record's list of ``n`` sentence ranges: ``[first, last]`` (each a
    number or None) or None (the whole file) each."""
    return isinstance(parts, list) and len(parts) == n and all(
        part is None or (isinstance(part, list) and len(part) == 2 and all(
            k is None or (isinstance(k, int) and not isinstance(k, bool)) for k in part))
        for part in parts)


def _source(name: str, path: str, part: list[int | None] | None,
            ud_dir: str | os.PathLike[str] | None) -> Source:
    """A recorded file: a standard split by its name (``es train``: part of a file) unless its
    recorded ``part`` (first, last) is not that split's own (a Source of the user's that keeps
    the name), else the file itself, its sentences ``part`` where recorded."""
    lang, _, which = name.partition(" ")
    if lang in LANGUAGES and which in SPLITS:
        standard = split_source(lang, which, ud_dir)
        if part is None or tuple(part) == (standard.first, standard.last):
            return standard
    return Source(Path(path), name, *(part or (None, None)))
