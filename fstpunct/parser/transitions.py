"""Labelled arc-standard transitions (Nivre 2008, in the stack-based form of Huang & Sagae 2010).

A configuration is a stack σ of subtree roots, with the artificial root 0 at the bottom, and a
buffer β of the tokens not yet read (β is a position ``j``: tokens j+1..n remain)::

    SHIFT         (σ, i|β)       ⇒ (σ|i, β)
    LEFT-ARC(l)   (σ|s1|s0, β)   ⇒ (σ|s0, β)   and s0 →l s1   if s1 ≠ 0 and l ≠ root
    RIGHT-ARC(l)  (σ|s1|s0, β)   ⇒ (σ|s1, β)   and s1 →l s0   if s1 ≠ 0 and l ≠ root,
                                                               or s1 = 0, β = [] and l = root

Parsing starts at ([0], [1..n]) and ends at ([0], []) after exactly 2n transitions, with a
projective tree that has a single root. Configurations are immutable and share their stacks: a
stack is a linked list ``(node, rest)`` of :data:`Node` tuples, padded below the root with
three empty nodes so that s0, s1 and s2 always exist.

A :data:`Node` is a subtree root with everything the features read from it: its word and tag
ids, its two leftmost and two rightmost dependents (word, tag, label ids), its left and right
valency, its left and right label sets (bit masks), and its punctuation property.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .punct import EMPTY, Prop, combine

__all__ = ["Node", "State", "Transition", "Shift", "Arc", "LeftArc", "RightArc", "leaf", "initial",
           "ROOT_LABEL", "NODE_ATOMS", "heads_of"]

ROOT_LABEL = "root"

# Node fields.
I, W, P = 0, 1, 2
L1, L2, R1, R2 = 3, 6, 9, 12  # each: word, tag, label
VL, VR, SL, SR, PC, PROP = 15, 16, 17, 18, 19, 20
NODE_ATOMS = ("w", "p", "l1w", "l1p", "l1l", "l2w", "l2p", "l2l", "r1w", "r1p", "r1l",
              "r2w", "r2p", "r2l", "vl", "vr", "sl", "sr", "pc")  # node[1:20]
Node = tuple  # (index, *atoms, Prop)


def leaf(index: int, word: int, tag: int, prop: Prop) -> Node:
    """A token with no dependents yet. ``pc`` is the property code + 1 (0 = no node)."""
    return (index, word, tag) + (0,) * 16 + (prop.code + 1, prop)


_NONE: Node = (-1,) + (0,) * 19 + (EMPTY,)
_BOTTOM = (_NONE, (_NONE, (_NONE, None)))


class State(NamedTuple):
    """A configuration: ``stack`` (linked list of nodes), its ``depth`` (root included) and
    the buffer position ``j`` (tokens 1..j have been shifted) of a sentence of ``n`` tokens."""

    stack: tuple
    depth: int
    j: int
    n: int

    @property
    def s0(self) -> Node:
        return self.stack[0]

    @property
    def s1(self) -> Node:
        return self.stack[1][0]

    @property
    def s2(self) -> Node:
        return self.stack[1][1][0]

    @property
    def terminal(self) -> bool:
        return self.depth == 1 and self.j == self.n


def initial(root: Node, n: int) -> State:
    """The first configuration: the root alone on the stack, all ``n`` tokens in the buffer."""
    return State((root, _BOTTOM), 1, 0, n)


def _attach(head: Node, dep: Node, label: int, left: bool) -> Node:
    """``head`` after ``dep`` becomes its outermost left (or right) dependent."""
    h = list(head)
    first, second, vcount, lset = (L1, L2, VL, SL) if left else (R1, R2, VR, SR)
    h[second:second + 3] = head[first:first + 3]
    h[first:first + 3] = (dep[W], dep[P], label)
    h[vcount] += 1
    h[lset] |= 1 << (label % 62)
    prop = combine(head[PROP], dep[PROP], left)
    h[PC], h[PROP] = prop.code + 1, prop
    return tuple(h)


class Transition:
    """One transition: ``is_legal(state)`` and ``apply(state, leaves)``; ``leaves[i]`` is the
    :func:`leaf` node of token i. ``label`` is a relation name (``None`` for SHIFT) and
    ``label_id`` its feature id."""

    label: str | None = None
    label_id = 0

    def is_legal(self, state: State) -> bool:
        raise NotImplementedError

    def apply(self, state: State, leaves: Sequence[Node]) -> State:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__ + (f"({self.label})" if self.label else "")

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.label == getattr(other, "label", None)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.label))


class Shift(Transition):
    """Move the buffer's first token onto the stack."""

    def is_legal(self, state: State) -> bool:
        return state.j < state.n

    def apply(self, state: State, leaves: Sequence[Node]) -> State:
        j = state.j + 1
        return State((leaves[j], state.stack), state.depth + 1, j, state.n)


class Arc(Transition):
    """An arc between s0 and s1, labelled ``label``. Legal with two nodes on the stack besides
    the root for any label but the root's; with one, only as the last transition: a right arc
    labelled the root's relation once the buffer is empty."""

    left: bool

    def __init__(self, label: str, label_id: int = 0) -> None:
        self.label, self.label_id = label, label_id

    def is_legal(self, state: State) -> bool:
        if state.depth < 2:
            return False
        if state.depth > 2:
            return self.label != ROOT_LABEL
        return not self.left and self.label == ROOT_LABEL and state.j == state.n

    def joined(self, state: State) -> tuple[int, int]:
        """The tokens (1-based, 0 = root) this arc joins in ``state``: its head and its
        dependent (a left arc's s0 and s1, a right arc's s1 and s0)."""
        s0, s1 = state.s0[I], state.s1[I]
        return (s0, s1) if self.left else (s1, s0)

    def apply(self, state: State, leaves: Sequence[Node]) -> State:
        s0, (s1, rest) = state.stack
        node = _attach(s0, s1, self.label_id, True) if self.left else \
            _attach(s1, s0, self.label_id, False)
        return State((node, rest), state.depth - 1, state.j, state.n)


class LeftArc(Arc):
    """s1 becomes a dependent of s0 (never the root's arc)."""

    left = True


class RightArc(Arc):
    """s0 becomes a dependent of s1 (the root's arc: the last transition)."""

    left = False


def heads_of(state_trail: Sequence[tuple[State, Transition]]) -> tuple[list[int], list[str]]:
    """Heads (1-based, 0 = root) and relations of the tree built by a sequence of
    ``(state before, transition)`` pairs."""
    n = state_trail[0][0].n if state_trail else 0
    heads, rels = [0] * n, [""] * n
    for state, t in state_trail:
        if isinstance(t, Arc):
            head, dep = t.joined(state)
            heads[dep - 1], rels[dep - 1] = head, t.label or ""
    return heads, rels
