"""Beam search over arc-standard configurations (beam 1 = greedy decoding).

Each step scores every transition of every configuration in the beam in one numpy gather
(``weights[rows].sum(axis=1)``), keeps the k best legal successors, and builds only those.
With a gold transition sequence, the search stops as soon as no item in the beam is on the gold
path: the point of an early update (Collins & Roark 2004; Zhang & Clark 2008).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..errors import refuse_count
from . import _greedy
from . import features as F
from .model import Input, Model, input_marks
from .punct import Prepared
from .storage import FINGERPRINT_SHIFT
from .transitions import State, heads_of, initial

__all__ = ["Item", "greedy", "search", "search_beam", "trail", "tree"]


class Item(NamedTuple):
    """A beam item: its total ``score``, ``state``, the item it came from, the transition
    (``action`` number) that led here, the feature ``rows`` of the previous state, and whether
    it lies on the gold path."""

    score: float
    state: State
    prev: Item | None
    action: int
    rows: np.ndarray | None
    gold: bool


def search(model: Model, inp: Input, k: int, weights: np.ndarray,
           gold: Sequence[int] | None = None) -> Item:
    """The best item after 2n steps; with ``gold`` (action numbers), the best item of the first
    step at which the gold path left the beam, if it did."""
    return search_beam(model, inp, k, weights, gold)[0]


def search_beam(model: Model, inp: Input, k: int, weights: np.ndarray,
                gold: Sequence[int] | None = None) -> list[Item]:
    """The beam (up to k items, best first) after 2n steps, or with ``gold`` at the first step
    where the gold path left it."""
    # None or a negative k would keep every item or all but -k (a beam that grows without
    # end), a fraction, NaN or inf fail in the slice: refused once a sentence, a cost lost in
    # the search's; None too (no default here)
    refuse_count(1, required=True, beam=k)
    beam = [Item(0.0, initial(inp.leaves[0], inp.n), None, -1, None, gold is not None)]
    transitions = model.transitions
    n_actions = len(transitions)
    for t in range(2 * inp.n):
        states = [it.state for it in beam]
        rows = model.features(states, inp)
        scores = weights[rows].sum(axis=1, dtype=weights.dtype).astype(np.float64)
        scores += np.array([model.mask(s, inp.marks) for s in states])
        scores += np.array([it.score for it in beam])[:, None]
        flat = scores.ravel()
        top = [int(np.argmax(flat))] if k == 1 else np.argsort(-flat, kind="stable")[:k]
        new = []
        for f in top:
            if flat[f] == -np.inf:
                break
            b, a = divmod(int(f), n_actions)
            it = beam[b]
            new.append(Item(float(flat[f]), transitions[a].apply(it.state, inp.leaves), it, a,
                            rows[b], it.gold and gold is not None and a == gold[t]))
        beam = new
        if gold is not None and not any(it.gold for it in beam):
            break
    return beam


def greedy(model: Model, prep: Prepared, weights: np.ndarray | None = None
           ) -> tuple[list[int], list[str]]:
    """``tree(model, search(model, model.input(prep), 1, weights))`` compiled
    (:mod:`._greedy`): the same heads and relations, its float32 sums and float64 scores the
    same bit for bit (``weights``: float32, more than one transition; by default the model's
    own, read sparse)."""
    shape = (len(model.keys) + 1, len(model.transitions))
    if weights is not None and weights.shape != shape:
        raise ValueError(f"weights of shape {weights.shape} do not fit the model")
    words, tags = model.ids(prep)
    heads, actions = _greedy.parse(
        words, tags, prep.props, input_marks(prep), model.columns, int(F.KEY_MULTIPLIER),
        int(F.KEY_SHIFT), F.MAX_DIST, *model.table,
        FINGERPRINT_SHIFT if model.fingerprints else 0, *model.sparse_weights(weights),
        model.mask_table(), model.kinds, model.label_ids)
    return heads, [model.transitions[a].label or "" for a in actions]


def trail(item: Item) -> list[Item]:
    """The items from the first transition to ``item``."""
    out = []
    while item.prev is not None:
        out.append(item)
        item = item.prev
    return out[::-1]


def tree(model: Model, item: Item) -> tuple[list[int], list[str]]:
    """Heads and relations built along the path to a final ``item``."""
    return heads_of([(it.prev.state, model.transitions[it.action]) for it in trail(item)
                     if it.prev is not None])
