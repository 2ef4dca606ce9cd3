"""Vocabularies of the punctuation model (DESIGN §2): tokens, punctemes V and allowed pairs W_d.

* **Tokens.** A punctuation type seen at least ``min_count`` times in the training slots keeps its
  symbol; rarer and unseen ones become :data:`~fstpunct.ud.slots.UNK`. :data:`BOUNDARY`,
  :data:`ABBV` and :data:`UNK` are always in the vocabulary.
* **V.** Every mapped surface slot string seen in training (``∘`` is never part of a slot);
  index 0 is ε.
* **Pairs.** One global table of distinct (l, r) puncteme pairs (index 0 = (ε, ε)); W_d, the
  pairs allowed for relation d (the node's full deprel), is an index array into it: every
  (xᵢ, xₖ) seen flanking a constituent of relation d (node spanning slots i..k) plus (ε, ε).
  A sentence without words has one pseudo node of relation :data:`EMPTY` whose pair is (x₀, ε).
* **Backoff** (:meth:`Vocab.relation_key`): a deprel unseen in training uses the union of the
  sets of all relations with the same base (``nmod:xyz`` → ``nmod:*`` = W_nmod ∪ W_nmod:poss ∪ …);
  a relation whose base is unseen too allows only (ε, ε) (key :data:`NONE`). Punctuation tokens
  unseen in training map to UNK. Surface strings outside V are not covered here: whether they get
  probability depends on the channel composing them from punctemes of V.

Everything is ordered deterministically (sorted), independent of the order of the sentences.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..ud.slots import ABBV, BOUNDARY, UNK, SlotSentence
from ..ud.tree import spans
from ..ud.treebank import universal

__all__ = ["EMPTY", "NONE", "Puncteme", "Vocab", "flanks", "unmatched"]

EMPTY = "<empty>"
NONE = "<none>"
Puncteme = tuple[str, ...]


def _frozen(ix: Iterable[int]) -> np.ndarray:
    out = np.asarray(sorted(set(ix)), dtype=np.int64)
    out.flags.writeable = False
    return out


_EPSILON = _frozen([0])  # W = {(ε, ε)}


def flanks(sent: SlotSentence, slots: Sequence[Puncteme]) -> list[tuple[str, Puncteme, Puncteme]]:
    """(relation, left flank, right flank) of every node in order 1..n, given the sentence's
    slot strings; a sentence without words has one pseudo node (:data:`EMPTY`, x₀, ε)."""
    if sent.n == 0:
        return [(EMPTY, slots[0], ())]
    return [(d, slots[i], slots[k]) for d, (i, k) in zip(sent.deprels, spans(sent.heads))]


def unmatched(l: Puncteme, r: Puncteme, pairs: Iterable[tuple[str, str]]) -> bool:
    """Whether the symmetric marks of l and r fail to mirror each other (DESIGN §4).

    Only marks that belong to one of the symmetric ``pairs`` (opening, closing) count. l may hold
    only opening marks and r only closing ones, and reading l's marks from the inside out must
    give the partners of r's marks in order: ``(, “ | ” ,)`` and ``(( “ | ” ))`` are matched,
    ``(( | ,)``, ``(| ))`` and ``() | ))`` are not.
    """
    return _unmatched(l, r, dict(pairs))


def _unmatched(l: Puncteme, r: Puncteme, closing_of: dict[str, str],
               marks: tuple[set[str], set[str]] | None = None) -> bool:
    """:func:`unmatched` with the pairs as a dict (opening → closing) and, if known, the sets
    of opening and closing marks (made once for a whole table)."""
    opening, closing = marks or (set(closing_of), set(closing_of.values()))
    left = [t for t in l if t in opening or t in closing]
    right = [t for t in r if t in opening or t in closing]
    if any(t not in opening for t in left) or any(t not in closing for t in right):
        return True
    return [closing_of[t] for t in reversed(left)] != right


class Vocab:
    """Token vocabulary, punctemes V (index 0 = ε), global pair table and W_d per relation."""

    def __init__(self, tokens: Iterable[str], punctemes: Iterable[Puncteme],
                 pairs: Iterable[tuple[int, int]], relations: dict[str, Iterable[int]],
                 min_count: int = 5) -> None:
        self.min_count = min_count
        self.tokens: tuple[str, ...] = tuple(tokens)
        self.punctemes: tuple[Puncteme, ...] = tuple(tuple(p) for p in punctemes)
        self.pairs: tuple[tuple[int, int], ...] = tuple((int(a), int(b)) for a, b in pairs)
        self.relations = {d: _frozen(ix) for d, ix in sorted(relations.items())}
        self._token_set = frozenset(self.tokens)
        self.puncteme_index = {p: k for k, p in enumerate(self.punctemes)}
        self.pair_index = {p: k for k, p in enumerate(self.pairs)}
        families: dict[str, set[int]] = {}
        for d, ix in self.relations.items():
            families.setdefault(_family(d), set()).update(ix.tolist())
        self._families = {f: _frozen(ix) for f, ix in families.items()}

    @classmethod
    def build(cls, sentences: Sequence[SlotSentence], min_count: int = 5) -> Vocab:
        """Estimate the vocabularies from training sentences (all of them are used)."""
        counts = Counter(t for s in sentences for slot in s.slots for t in slot)
        kept = {t for t, c in counts.items() if c >= min_count} | {BOUNDARY, ABBV, UNK}
        tokens = sorted(kept)
        mapped = [[tuple(t if t in kept else UNK for t in slot) for slot in s.slots]
                  for s in sentences]
        seen: dict[str, set[tuple[Puncteme, Puncteme]]] = {}
        for s, slots in zip(sentences, mapped):
            for d, l, r in flanks(s, slots):
                seen.setdefault(d, {((), ())}).add((l, r))
        punctemes = sorted({()} | {p for slots in mapped for p in slots})
        index = {p: k for k, p in enumerate(punctemes)}
        pair_set = sorted({(0, 0)} | {(index[l], index[r]) for ps in seen.values() for l, r in ps})
        pair_index = {p: k for k, p in enumerate(pair_set)}
        relations = {d: [pair_index[index[l], index[r]] for l, r in ps] for d, ps in seen.items()}
        return cls(tokens, punctemes, pair_set, relations, min_count)

    def map_slot(self, tokens: Iterable[str]) -> Puncteme:
        """Model symbols for a slot's surface tokens (rare or unseen types become UNK)."""
        return tuple(t if t in self._token_set else UNK for t in tokens)

    def relation_key(self, deprel: str) -> str:
        """The key of the pair set a node of relation ``deprel`` uses (see module docstring)."""
        if deprel in self.relations:
            return deprel
        family = _family(deprel)
        return family if family in self._families else NONE

    def candidates(self, key: str) -> np.ndarray:
        """W for a deprel (with backoff) or a key from :meth:`relation_key`: sorted indices
        into ``pairs``."""
        if key in self.relations:
            return self.relations[key]
        return self._families.get(key, self._families.get(_family(key), _EPSILON))

    def pair_strings(self, p: int) -> tuple[Puncteme, Puncteme]:
        """The (l, r) punctemes of pair ``p``."""
        a, b = self.pairs[p]
        return self.punctemes[a], self.punctemes[b]

    def observed(self, sent: SlotSentence) -> list[int]:
        """Index of the surface pair flanking each node (order as :func:`flanks`), -1 if the
        pair is not in the table."""
        slots = [self.map_slot(s) for s in sent.slots]
        out = []
        for _, l, r in flanks(sent, slots):
            a, b = self.puncteme_index.get(l), self.puncteme_index.get(r)
            out.append(-1 if a is None or b is None else self.pair_index.get((a, b), -1))
        return out

    def unmatched_mask(self, symmetric: Iterable[tuple[str, str]]) -> np.ndarray:
        """:func:`unmatched` for every pair of the table (bool array)."""
        closing_of = dict(symmetric)
        marks = set(closing_of), set(closing_of.values())
        return np.array([_unmatched(*self.pair_strings(p), closing_of, marks)
                         for p in range(len(self.pairs))], dtype=bool)

    def to_dict(self) -> dict[str, Any]:
        return {"min_count": self.min_count, "tokens": list(self.tokens),
                "punctemes": [list(p) for p in self.punctemes],
                "pairs": [list(p) for p in self.pairs],
                "relations": {d: ix.tolist() for d, ix in self.relations.items()}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Vocab:
        return cls(data["tokens"], data["punctemes"], data["pairs"], data["relations"],
                   data["min_count"])


def _family(deprel: str) -> str:
    """Backoff key shared by all relations with the same base: ``nmod:poss`` → ``nmod:*``."""
    return universal(deprel) + ":*"
