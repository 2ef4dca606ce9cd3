"""Self-permutation of a CoNLL-U tree: families, and a new word order drawn from an ordering model.

The tree is the *surface* tree, punctuation tokens included as dependents (what the Base method
permutes; the paper's baseline, Wang & Eisner 2016). It is made projective by lifting
(:func:`~fstpunct.ud.tree.projectivize`), so every subtree is a contiguous block: the order of a
head's items (itself and its dependents' blocks) fixes the order of the whole sentence. Only the
families of heads whose UPOS is in ``permuted`` (NOUN and VERB: the paper's self-permutation) are
re-ordered; the others keep their order. Dropping subtrees (deletion) happens in the same walk.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

import numpy as np

from ...ud.tree import children, projectivize
from ...ud.treebank import Sentence
from .order import HEAD, Family, Item, OrderModel

__all__ = ["PERMUTED", "families", "linearize", "permuted_order", "surface_tree"]

PERMUTED = frozenset({"NOUN", "VERB"})


def surface_tree(sent: Sentence) -> list[list[int]]:
    """Children of every word (index 0 = root) in the projectivized surface tree."""
    heads, _ = projectivize([w.head for w in sent.words])
    return children(heads)


def _family(sent: Sentence, kids: list[list[int]], h: int) -> tuple[Family, list[int]]:
    """The family of word h (items in observed order) and the word behind each item."""
    members = sorted([h, *kids[h]])
    word = sent.words
    items = tuple(Item(HEAD, word[h - 1].upos) if m == h else
                  Item(word[m - 1].deprel, word[m - 1].upos) for m in members)
    return Family(word[h - 1].upos, items), members


def families(sent: Sentence) -> Iterator[Family]:
    """The family of every word with dependents, as observed (training data for the model)."""
    kids = surface_tree(sent)
    for h in range(1, len(sent.words) + 1):
        if kids[h]:
            yield _family(sent, kids, h)[0]


def linearize(kids: list[list[int]], order_of: Callable[[int, list[int]], list[int]],
              dropped: Collection[int] = ()) -> list[int]:
    """The words (1-based) left to right when every head h orders its items (h and its
    children, given in their observed order) as ``order_of(h, items)`` says; the subtrees of
    ``dropped`` words are left out."""
    out: list[int] = []
    stack = [iter(order_of(0, [*kids[0]]))]  # the root's dependents: the sentence's roots
    expanded = {0}
    while stack:
        m = next(stack[-1], None)
        if m is None:
            stack.pop()
        elif m in dropped:
            continue
        elif m in expanded or not kids[m]:
            out.append(m)
        else:
            expanded.add(m)
            stack.append(iter(order_of(m, sorted([m, *kids[m]]))))
    return out


def permuted_order(sent: Sentence, model: OrderModel, rng: np.random.Generator,
                   permuted: frozenset[str] = PERMUTED, dropped: Collection[int] = ()
                   ) -> list[int]:
    """A self-permutation of ``sent``: its words (1-based IDs) in a new order, the families of
    ``permuted`` heads drawn from ``model`` (heads in increasing ID order, so a seed gives the
    same order whatever else is asked), the subtrees of ``dropped`` words left out."""
    kids = surface_tree(sent)
    drawn: dict[int, list[int]] = {}
    for h in range(1, len(sent.words) + 1):
        if kids[h] and sent.words[h - 1].upos in permuted:
            family, members = _family(sent, kids, h)
            drawn[h] = [members[j] for j in model.sample(family, rng)]

    def order_of(h: int, items: list[int]) -> list[int]:
        return drawn.get(h, items)

    return linearize(kids, order_of, dropped)

