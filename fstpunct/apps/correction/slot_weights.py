"""Weights for a parser's training arcs at the slots a correction punctuates: the arcs that
make the tree at those slots, as :class:`~.slot_trees.Trees` judges it there.

A slot's tree is made by the constituents at it and by the heads and relations of the words
either side of it (:func:`~.slot_trees.making`).
In a transition parser the arc that attaches a word to its head also closes the word's subtree,
so the gold arcs of those constituents' roots and of the two neighbours are the gold decisions
that make the slot's constituents, and the neighbours' heads and relations. Only those gold
steps' updates are weighted (:func:`fstpunct.parser.train.train`'s ``arc_weights``: a wrong
prediction's update takes the gold step's weight); wrong decisions elsewhere keep weight 1: a
weighted word attached where gold shifts, an arc onto one where gold attaches another word, and
other words' arcs that wrongly attach into a constituent and so change its span.
"""
from __future__ import annotations

from collections.abc import Iterable

from ...ud.slots import SlotSentence, to_slots
from ...ud.treebank import Sentence
from ..restoration.metrics import slot_strings
from .slot_trees import making

__all__ = ["corrected_slots", "slot_arc_weights"]


def corrected_slots(learner: Sentence, corrected: Sentence, ss: SlotSentence | None = None
                    ) -> list[int]:
    """The inner slots (1 … n − 1: between words i and i + 1) of ``learner`` that its
    correction ``corrected`` (the same words) punctuates or edits: a mark in the corrected
    string, or the learner's string changed (a mark deleted). Slot 0, before the first word,
    is not among them (a mark there, such as an opening quote, is not weighted), although
    :mod:`~.slot_trees`' inner slots, all but the final one, are 0 … n − 1. ``ss``:
    ``to_slots(learner)``, if already worked out."""
    ss = to_slots(learner) if ss is None else ss
    ours, theirs = slot_strings(ss), slot_strings(to_slots(corrected))
    if len(ours) != len(theirs):
        raise ValueError(f"{corrected.place}: other words than the learner's {learner.place}")
    return [i for i in range(1, len(ours) - 1) if theirs[i] or theirs[i] != ours[i]]


def slot_arc_weights(sent: Sentence, slots: Iterable[int], k: int,
                     ss: SlotSentence | None = None) -> dict[int, int]:
    """``{CoNLL-U word id: k}`` for the words whose arc to their head makes ``sent``'s tree at
    any of the inner ``slots`` (1 … n − 1, :func:`corrected_slots`'): the roots of the
    constituents at the slot and the words either side of it (:func:`~.slot_trees.making`).
    Punctuation tokens get none. ``ss``: ``to_slots(sent)``, if already worked out."""
    ss = to_slots(sent) if ss is None else ss
    nodes = {node for i in slots for node in making(ss, i)}
    return {ss.word_ids[node]: k for node in nodes}
