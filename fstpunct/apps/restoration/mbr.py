"""Minimum-Bayes-risk choice of the restored punctuation from prior samples (paper §6.1).

The loss is the token edit distance summed over slots, so the expected loss of a candidate x
under the samples' empirical distribution p̂ is Σᵢ Rᵢ(xᵢ), with the slot risk
Rᵢ(y) = Σ_y′ p̂ᵢ(y′) · ed(y, y′) over the distinct strings y′ drawn for slot i.

* :func:`sentence_mbr` is the paper's decoder: x̂ is the best of the m sampled x (O(m) once the
  slot risks are known, rather than the paper's O(m²)).
* :func:`slot_mbr` picks the best string of every slot on its own. Because the loss is additive
  this is the exact minimiser of the estimated risk over every combination of sampled slot
  strings, a superset of the m sampled x; its risk is never higher than :func:`sentence_mbr`'s.
"""
from __future__ import annotations

import numpy as np

from .._restore import edit_distances
from . import Insertion
from .sample import Draws, SlotDraws

__all__ = ["insertions", "sentence_mbr", "slot_mbr", "slot_risks"]


def slot_risks(slot: SlotDraws) -> np.ndarray:
    """Rᵢ(y) for every distinct string y of the slot."""
    return edit_distances(slot.strings) @ slot.frequencies()


def sentence_mbr(draws: Draws) -> list[int]:
    """Per slot, the string index of the sample with the least expected loss."""
    risk = sum(slot_risks(slot)[slot.of_sample] for slot in draws.slots)
    best = int(np.argmin(risk))
    return [int(slot.of_sample[best]) for slot in draws.slots]


def slot_mbr(draws: Draws) -> list[int]:
    """Per slot, the string index with the least expected loss of that slot."""
    return [int(np.argmin(slot_risks(slot))) for slot in draws.slots]


def insertions(draws: Draws, choice: list[int]) -> list[Insertion]:
    """The chosen strings as (token, head word) per slot."""
    return [tuple(zip(slot.strings[j], slot.heads[j])) for slot, j in zip(draws.slots, choice)]
