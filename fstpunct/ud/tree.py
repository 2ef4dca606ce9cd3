"""Dependency-tree utilities over head arrays.

A tree over n words is a sequence ``heads`` of length n where ``heads[i-1]`` is the head of word
i (1-based) and 0 marks the root. All functions are pure.
"""
from __future__ import annotations

from collections.abc import Sequence

__all__ = ["attaches_projectively", "bottom_up", "children", "has_crossing_arcs", "is_projective",
           "lift_to_projective", "projectivize", "spans"]


def children(heads: Sequence[int]) -> list[list[int]]:
    """``children(h)[k]`` = the dependents of node k (0 = root), left to right."""
    out: list[list[int]] = [[] for _ in range(len(heads) + 1)]
    for d, h in enumerate(heads, 1):
        out[h].append(d)
    return out


def _descends(heads: Sequence[int], d: int, h: int) -> bool:
    """Whether word d lies in the subtree of word h (h = 0: always)."""
    while d != 0:
        if d == h:
            return True
        d = heads[d - 1]
    return h == 0


def _nonprojective_arcs(heads: Sequence[int]) -> list[int]:
    """Dependents whose arc to their head spans a word the head does not dominate."""
    bad = []
    for d, h in enumerate(heads, 1):
        if h == 0:
            continue
        lo, hi = min(d, h), max(d, h)
        if any(not _descends(heads, k, h) for k in range(lo + 1, hi)):
            bad.append(d)
    return bad


def is_projective(heads: Sequence[int]) -> bool:
    """Every subtree covers a contiguous span (what the inside algorithm needs)."""
    return not _nonprojective_arcs(heads)


def has_crossing_arcs(heads: Sequence[int]) -> bool:
    """Two word-to-word arcs cross (the root arc left out): the usual treebank statistic.

    Weaker than :func:`is_projective`: an arc may span the root word without crossing any arc.
    """
    arcs = sorted((min(d, h), max(d, h)) for d, h in enumerate(heads, 1) if h)
    return any(a < c < b < e for i, (a, b) in enumerate(arcs) for c, e in arcs[i + 1:])


def projectivize(heads: Sequence[int]) -> tuple[list[int], int]:
    """Lift non-projective arcs to the grandparent until the tree is projective.

    Each step lifts the shortest offending arc (ties: leftmost dependent), which is the usual
    choice for pseudo-projective lifting. Returns the new heads and the number of lifts.
    """
    heads = list(heads)
    if _contiguous(heads):  # the common case, checked in linear time
        return heads, 0
    lifts = 0
    while True:
        bad = _nonprojective_arcs(heads)
        if not bad:
            return heads, lifts
        d = min(bad, key=lambda x: (abs(x - heads[x - 1]), x))
        heads[d - 1] = heads[heads[d - 1] - 1]
        lifts += 1


def _extents(heads: Sequence[int]) -> tuple[list[int], list[int], list[int], bool]:
    """The first and last word and the size of every node's subtree (index = word), and whether
    every word is below the root (else there is a cycle, whose words keep their own span)."""
    n = len(heads)
    kids = children(heads)
    order, stack = [], list(kids[0])
    while stack:  # pre-order; reversed, every node comes after its descendants
        node = stack.pop()
        order.append(node)
        stack.extend(kids[node])
    lo, hi, size = list(range(n + 1)), list(range(n + 1)), [1] * (n + 1)
    for k in reversed(order):
        h = heads[k - 1]
        if h:
            if lo[k] < lo[h]:
                lo[h] = lo[k]
            if hi[k] > hi[h]:
                hi[h] = hi[k]
            size[h] += size[k]
    return lo, hi, size, len(order) == n


def _contiguous(heads: Sequence[int]) -> bool:
    """Whether every subtree covers a contiguous span (as :func:`is_projective`, in O(n))."""
    lo, hi, size, tree = _extents(heads)
    return tree and all(hi[k] - lo[k] + 1 == size[k] for k in range(1, len(heads) + 1))


def spans(heads: Sequence[int]) -> list[tuple[int, int]]:
    """``spans(h)[k-1] = (i, j)``: node k's subtree covers words i+1..j, i.e. slots i..j.

    Assumes a projective tree (every subtree is contiguous).
    """
    lo, hi, _, _ = _extents(heads)
    return [(lo[k] - 1, hi[k]) for k in range(1, len(heads) + 1)]


def bottom_up(heads: Sequence[int]) -> list[int]:
    """Nodes 1..n ordered so that every node comes after all of its descendants."""
    kids = children(heads)
    order: list[int] = []
    stack = [(r, False) for r in reversed(kids[0])]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(kids[node]))
    return order


def attaches_projectively(heads: Sequence[int], d: int) -> bool:
    """Whether leaf d hangs projectively and makes no other arc non-projective (the UD
    validator's punct-is-nonproj and punct-causes-nonproj): every word strictly between d and
    its head lies below the head, and every arc over d comes from an ancestor of d."""
    h = heads[d - 1]
    if h and any(not _descends(heads, k, h) for k in range(min(d, h) + 1, max(d, h))):
        return False
    above, w = set(), d
    while w:
        w = heads[w - 1]
        above.add(w)
    return all(x in above or not min(x, y) < d < max(x, y) for y, x in enumerate(heads, 1) if x)


def lift_to_projective(heads: list[int], d: int, fallback: int) -> int:
    """Attach leaf d (``heads[d-1]``, its preferred head) projectively: keep the preferred head
    if it is, else the nearest of its ancestors that is, else ``fallback``. Sets and returns
    the head chosen."""
    h = heads[d - 1]
    while h:
        heads[d - 1] = h
        if attaches_projectively(heads, d):
            return h
        h = heads[h - 1]
    heads[d - 1] = fallback
    return fallback
