"""Punctuation restoration (paper §6.1): strip punctuation, propose it again, score the result.

A restorer reads a sentence (only its non-punctuation words and their tree are used) and returns
one :data:`Insertion` per slot: n+1 tuples of ``(token, head)`` pairs, slot i lying between word i
and word i+1 (slot 0 before the first word); ``head`` is the 1-based index of the depunctuated word
the token attaches to. :func:`~fstpunct.apps.restoration.strip.insert` writes them into CoNLL-U.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ...ud.slots import ABBV, UNK
from ...ud.treebank import Sentence

__all__ = ["HIDDEN", "Insertion", "Restorer", "marks"]

Insertion = tuple[tuple[str, int], ...]
HIDDEN = frozenset({ABBV, UNK})  # model symbols a restorer never writes


def marks(ins: Insertion) -> tuple[str, ...]:
    """The marks an insertion writes, without their heads."""
    return tuple(t for t, _ in ins)


class Restorer(Protocol):
    """Anything that proposes the punctuation of every slot of a sentence."""

    def restore(self, sent: Sentence, alternatives: Sequence[Sentence] = ()) -> list[Insertion]:
        """n+1 insertions for the n non-punctuation words of ``sent``. ``alternatives`` are
        other trees of the same words (from other parsers, say): a method that reads the tree
        may average over all of them; its insertions attach to ``sent``'s words."""
        ...
