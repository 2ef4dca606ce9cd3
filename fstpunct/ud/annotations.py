"""The analysis fstpunct writes into CoNLL-U, and taking it out again when it goes stale.

``fstpunct decode`` writes MISC items :data:`MISC_KEYS` on words and the comments
:data:`COMMENTS` on sentences: they describe the sentence's punctuation and tree as they were.
A step that changes either (restoring punctuation, parsing, rephrasing, correcting) calls
:func:`forget` first (restoring and correcting through ``apps.restoration.strip.strip``), so
``decode | restore`` never carries an analysis of the old punctuation.
"""
from __future__ import annotations

import dataclasses
import os
import re

from .treebank import Line, Sentence

__all__ = ["COMMENTS", "MISC_KEYS", "forget", "set_misc"]

MISC_KEYS = ("PunctL", "PunctR", "PunctPost")
COMMENTS = ("underlying", "punct_logprob")
_STEM = os.path.commonprefix(MISC_KEYS)  # in every key: a MISC column without it has none
_COMMENT = re.compile(rf"#\s*(?:{'|'.join(COMMENTS)})\s*=")


def set_misc(misc: str, items: str = "") -> str:
    """``misc`` without any of :data:`MISC_KEYS`, then ``items`` (``Key=value`` joined by
    ``|``, or empty) added."""
    if misc == "_":  # the usual case
        return items or "_"
    if _STEM not in misc and "_" not in misc:  # no item to drop: kept as it is
        return f"{misc}|{items}" if items else misc or "_"
    kept = [m for m in misc.split("|") if m != "_" and m.split("=")[0] not in MISC_KEYS]
    return "|".join(kept + [items] if items else kept) or "_"


def forget(sent: Sentence) -> Sentence:
    """A copy of ``sent`` without the analysis :data:`MISC_KEYS` and :data:`COMMENTS`; every
    other comment and MISC item kept. ``sent`` itself is not changed (the copy shares its
    words and the lines without such an item)."""
    lines = []
    for line in sent.lines:
        misc = line.fields[9]
        if any(item.split("=")[0] in MISC_KEYS for item in misc.split("|")):
            line = Line(line.fields[:9] + [set_misc(misc)], line.lineno)
        lines.append(line)
    return dataclasses.replace(sent, comments=[c for c in sent.comments
                                               if not _COMMENT.match(c)], lines=lines)
