"""The right bundled model for an input: its language from the input's name or its metadata.

The language comes from, in this order: what the user says (``--lang``); the input's name — a
standard split (``zh:dev``, ``zh``) or a UD file or treebank name (``zh_gsd-ud-test.conllu``,
``zh-ud-dev.conllu``, ``zh_gsd-test``); the first sentence's metadata (``# lang = zh``,
``# language = zh``, ``# newdoc lang = zh``). The model is the bundled one named by that
language; when there is none, or no language can be told, English, with a note saying so.
Nothing here names a language: the bundled models are whatever folders ``fstpunct/models`` holds.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.store import bundled
from ..ud.release import Source
from ..ud.treebank import Sentence

if TYPE_CHECKING:
    import conllu

__all__ = ["DEFAULT", "Choice", "choose", "language_of"]

DEFAULT = "en"
_SPLIT = re.compile(r"([a-z]{2,3})(?::[a-z]+)?\Z")
# a UD file's or split's name; a large treebank's train file comes in parts
# (cs_pdt-ud-train-c.conllu, de_hdt-ud-train-a-1.conllu): short parts, only after -ud-, as
# big-train-2020.conllu or my-train-2.conllu tell no language
_UD_NAME = re.compile(r"([a-z]{2,3})(?:_[a-z0-9]+)?-(?:ud-(?:train|dev|test)(?:-[a-z0-9]{1,2})*"
                      r"|(?:train|dev|test))(?:\.conllu)?\Z")
_META = re.compile(r"#\s*(?:newdoc\s+)?lang(?:uage)?\s*=\s*([A-Za-z]{2,3})\b")


def language_of(source: str | os.PathLike[str] | Source | None = None,
                sentence: Sentence | conllu.TokenList | None = None) -> str | None:
    """The language code an input's name (``source``: a path, split name or
    :func:`~fstpunct.api.data.split`'s answer) or its first ``sentence``'s metadata (a
    ``conllu.TokenList``'s or an fstpunct sentence's) tells, or None."""
    if isinstance(source, Source):  # its file's name tells (es:dev is in es_gsd-ud-test)
        source = source.path
    if source is not None and not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"language_of: source must be a path or split name, not "
                        f"{type(source).__name__}")
    if source is not None and str(source) != "-":
        text = os.fspath(source)
        m = _SPLIT.match(text) if not Path(text).exists() else None
        m = m or _UD_NAME.match(Path(text).name)
        if m:
            return m.group(1)
    comments = sentence.comments if isinstance(sentence, Sentence) else [
        f"# {key} = {value}" for key, value in getattr(sentence, "metadata", {}).items()]
    for comment in comments:
        m = _META.match(comment)
        if m:
            return m.group(1).lower()
    return None


@dataclass(frozen=True)
class Choice:
    """A bundled model's name and, when it is not the input's own, a note saying why."""

    name: str
    note: str | None = None


def choose(lang: str | None) -> Choice:
    """The bundled model for language ``lang`` (None: not known)."""
    if lang is not None and lang in bundled():
        return Choice(lang)
    why = (f"no bundled model for language {lang!r}" if lang is not None else
           "cannot tell the input's language (no --lang, split or UD file name, or "
           "'# lang' metadata)")
    return Choice(DEFAULT, f"{why}; using the bundled {DEFAULT!r} model "
                           f"(bundled: {', '.join(bundled())}; or pass --model)")
