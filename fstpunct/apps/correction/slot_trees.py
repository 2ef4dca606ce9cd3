"""Where a corrector's edits differ between two trees of the same learner sentence (its gold
tree and a parser's): per inner slot, the edit on each tree, the parser's error around the
slot and the learner model's reading of the input (T_e′) there.

The punctuation of slot i (between words i and i + 1, 1-based; slot 0 before the first word)
is made by the constituents whose edge is there (:func:`~fstpunct.ud.slots.slot_members`: the
subtrees that end or begin at the slot), so the parsed tree at the slot is judged by them and by
the words on either side of it. Its kind (:data:`TREE_KINDS`) is the first that holds: the
two trees' words differ (a token read as punctuation on one only); the constituents at the
slot differ (as a set of (node, side)); a neighbour's head is wrong; a neighbour's relation
is wrong; a constituent at the slot has other tree features (:func:`~fstpunct.model.features
.node_contexts` without the sentence's extra contexts: its relation, its parent's relation
and UPOS, its children's relations, the UPOS beside its edges — so also its other edge);
else ``right``. T_e′ at the slot is the learner contexts (:func:`~.model.learner_contexts`)
of the constituents there; with the tree features, all the corrector reads of them (its
model is unlexicalised), so where both are the same the slot's distribution is too.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from ...model.features import node_contexts
from ...ud.slots import SlotSentence
from ..restoration.metrics import slot_strings

__all__ = ["COUNTS", "OUTCOMES", "SLOT_CLASSES", "TREE_KINDS", "SlotRow", "Trees", "beside",
           "by_kind", "constituents", "inner_slots", "making", "outcome", "slot_class",
           "slot_rows"]

TREE_KINDS = ("right", "features differ", "relation wrong", "head wrong", "edges differ",
              "words differ")
OUTCOMES = ("right", "wrong", "none")  # an edit that writes the gold string, another, none
SLOT_CLASSES = ("gold edit", "marks kept", "no marks")


def beside(ss: SlotSentence, i: int) -> list[int]:
    """The words (0-based) either side of slot ``i`` of ``ss``."""
    return [k for k in (i - 1, i) if 0 <= k < ss.n]


def constituents(ss: SlotSentence, i: int) -> set[int]:
    """The roots (0-based nodes) of the constituents at slot ``i`` of ``ss``
    (:func:`~fstpunct.ud.slots.slot_members`: their subtree ends or begins there)."""
    return {k for k, _ in ss.members[i]}


def making(ss: SlotSentence, i: int) -> set[int]:
    """The nodes that make ``ss``'s tree at slot ``i`` (module docstring): the
    :func:`constituents` at it and the words :func:`beside` it."""
    return constituents(ss, i) | set(beside(ss, i))


def slot_class(learner: tuple[str, ...], gold: tuple[str, ...]) -> str:
    """A slot's class (:data:`SLOT_CLASSES`) from the learner's string there and the gold
    correction's: the gold correction edits it, or keeps the learner's marks, or there are
    none."""
    return SLOT_CLASSES[0 if learner != gold else 1 if learner else 2]


class Trees:
    """A learner sentence on its gold tree and on a parser's (:class:`SlotSentence`, each
    with its reading of T_e′ as contexts, or none)."""

    def __init__(self, gold: SlotSentence, parsed: SlotSentence) -> None:
        self.gold, self.parsed = gold, parsed
        self.alike = gold.words == parsed.words

    @cached_property
    def _features(self) -> tuple[list[list[str]], list[list[str]]]:
        """Every node's tree features on each tree (no extra contexts)."""
        return (node_contexts(replace(self.gold, contexts=())),
                node_contexts(replace(self.parsed, contexts=())))

    @cached_property
    def learner(self) -> list[tuple[str, ...]]:
        """The learner's slot strings (on the gold tree; ``<abbv>`` left out)."""
        return slot_strings(self.gold)

    @cached_property
    def head_errors(self) -> int:
        """The words whose head the parser got wrong (all of them if the words differ)."""
        if not self.alike:
            return self.gold.n
        return sum(a != b for a, b in zip(self.gold.heads, self.parsed.heads))

    def nodes(self, i: int) -> set[int]:
        """The nodes (0-based) of the constituents at slot ``i`` on either tree."""
        return constituents(self.gold, i) | constituents(self.parsed, i)

    def heads_beside_right(self, i: int) -> bool:
        """Whether the parser got the heads of the words either side of slot ``i`` right
        (False where the words differ)."""
        return self._beside_right(i, "heads")

    def relations_beside_right(self, i: int) -> bool:
        """Whether the parser got the relations of the words either side of slot ``i`` right
        (False where the words differ)."""
        return self._beside_right(i, "deprels")

    def _beside_right(self, i: int, field: str) -> bool:
        gold, parsed = getattr(self.gold, field), getattr(self.parsed, field)
        return self.alike and all(gold[k] == parsed[k] for k in beside(self.gold, i))

    def kind(self, i: int) -> str:
        """The parsed tree's kind at slot ``i`` (module docstring)."""
        if not self.alike:
            return "words differ"
        if set(self.gold.members[i]) != set(self.parsed.members[i]):
            return "edges differ"
        if not self.heads_beside_right(i):
            return "head wrong"
        if not self.relations_beside_right(i):
            return "relation wrong"
        ours, theirs = self._features
        if any(ours[k] != theirs[k] for k in self.nodes(i)):
            return "features differ"
        return "right"

    def templates_differing(self, i: int) -> list[str]:
        """The feature templates (``d``, ``pd``, ``c``, ...) whose features differ between the
        trees at a constituent of slot ``i`` (none where the words differ)."""
        if not self.alike:
            return []
        ours, theirs = self._features
        return sorted({f.split("=")[0] for k in self.nodes(i)
                       for f in set(ours[k]) ^ set(theirs[k])})

    @cached_property
    def inner_kinds(self) -> list[str]:
        """:meth:`kind` at every inner slot (all but the final one), worked out once."""
        return [self.kind(i) for i in range(len(self.gold.slots) - 1)]

    def reading_same(self, i: int) -> bool:
        """Whether T_e′ of the constituents at slot ``i`` is the same on both trees (False
        where the words differ)."""
        return self.alike and all(self.gold.contexts[k] == self.parsed.contexts[k]
                                  for k in self.nodes(i))

    def reading_same_elsewhere(self, i: int) -> bool:
        """Whether T_e′ of every other node is the same on both trees (False where the words
        differ)."""
        if not self.alike:
            return False
        near = self.nodes(i)
        return all(self.gold.contexts[k] == self.parsed.contexts[k]
                   for k in range(self.gold.n) if k not in near)


def inner_slots(trees: Trees, gold: Sequence[tuple[str, ...]]) -> list[tuple[str, str]]:
    """The (slot class, tree kind) of every inner slot of a learner sentence (``trees``): its
    :func:`slot_class` from the learner's string (:attr:`Trees.learner`) and the gold one
    (``gold``), and :attr:`Trees.inner_kinds`."""
    return list(zip((slot_class(x, y) for x, y in zip(trees.learner, gold)),
                    trees.inner_kinds))


def outcome(learner: tuple[str, ...], gold: tuple[str, ...], written: tuple[str, ...]) -> str:
    """``none`` if ``written`` keeps the learner's string, else ``right`` if it is the gold
    string, else ``wrong``."""
    return "none" if written == learner else "right" if written == gold else "wrong"


@dataclass(frozen=True)
class SlotRow:
    """One inner slot of a pair where the gold correction or the corrector on either tree
    edits: the slot, whether the gold correction edits it, the edit's :func:`outcome` on the
    gold tree and on the parsed one, the parsed tree's kind there (:meth:`Trees.kind`),
    whether the parser got the heads and the relations of the words either side right
    (whatever the kind: :meth:`Trees.heads_beside_right`, :meth:`Trees.relations_beside_right`),
    whether T_e′ is the same on both trees at the slot's constituents and at every other
    node, the sentence's words whose head the parser got wrong and the feature templates that
    differ at the slot's constituents (:meth:`Trees.templates_differing`)."""

    slot: int
    gold_edit: bool
    on_gold: str
    on_parsed: str
    tree: str
    heads_beside_right: bool
    relations_beside_right: bool
    reading_same: bool
    reading_same_elsewhere: bool
    head_errors: int
    templates: tuple[str, ...]


def slot_rows(trees: Trees, gold: Sequence[tuple[str, ...]],
              written_gold: Sequence[tuple[str, ...]],
              written_parsed: Sequence[tuple[str, ...]]) -> list[SlotRow]:
    """The :class:`SlotRow` of every inner slot (not the final one) of a learner sentence
    (``trees``) where the gold strings ``gold``, the corrector's on the gold tree
    (``written_gold``) or on the parsed tree (``written_parsed``) differ from the learner's
    (:attr:`Trees.learner`); the tree's kind there is :attr:`Trees.inner_kinds`, worked out
    once for these rows and :func:`inner_slots`."""
    learner = trees.learner
    return [SlotRow(i, gold[i] != learner[i], outcome(learner[i], gold[i], written_gold[i]),
                    outcome(learner[i], gold[i], written_parsed[i]), trees.inner_kinds[i],
                    trees.heads_beside_right(i), trees.relations_beside_right(i),
                    trees.reading_same(i), trees.reading_same_elsewhere(i), trees.head_errors,
                    tuple(trees.templates_differing(i)))
            for i in range(len(learner) - 1)
            if not learner[i] == gold[i] == written_gold[i] == written_parsed[i]]


COUNTS = ("gold edits", "right on gold", "lost on parsed", "right on parsed only",
          "wrong on gold", "wrong on parsed only")


def by_kind(rows: Sequence[SlotRow]) -> dict[str, dict[str, int]]:
    """By the parsed tree's kind at the slot (:data:`TREE_KINDS`), the rows' counts
    (:data:`COUNTS`): gold edits, edits right on the gold tree, those of them not right on the
    parsed tree, edits right on the parsed tree only, wrong edits on the gold tree and wrong
    edits on the parsed tree only (where the gold tree's edit is right or none)."""
    out = {kind: dict.fromkeys(COUNTS, 0) for kind in TREE_KINDS}
    for r in rows:
        counts = out[r.tree]
        counts["gold edits"] += r.gold_edit
        counts["right on gold"] += r.on_gold == "right"
        counts["lost on parsed"] += r.on_gold == "right" != r.on_parsed
        counts["right on parsed only"] += r.on_parsed == "right" != r.on_gold
        counts["wrong on gold"] += r.on_gold == "wrong"
        counts["wrong on parsed only"] += r.on_parsed == "wrong" != r.on_gold
    return out
