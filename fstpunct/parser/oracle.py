"""Static oracle for the arc-standard system: the transition sequence that builds a gold tree.

LEFT-ARC as soon as s1's gold head is s0; RIGHT-ARC as soon as s0's gold head is s1 and s0 has
all its dependents; otherwise SHIFT. This reproduces exactly the projective trees with one root;
for any other tree :func:`oracle` raises :class:`OracleError`.
"""
from __future__ import annotations

from collections.abc import Sequence

from .transitions import ROOT_LABEL, LeftArc, RightArc, Shift, Transition

__all__ = ["OracleError", "oracle"]


class OracleError(ValueError):
    """The gold tree cannot be built by arc-standard transitions."""


def _check(heads: Sequence[int]) -> None:
    n = len(heads)
    roots = [d for d, h in enumerate(heads, 1) if h == 0]
    if len(roots) != 1:
        raise OracleError(f"the tree must have exactly one root, found {len(roots)}")
    for d, h in enumerate(heads, 1):
        if not 0 <= h <= n or h == d:
            raise OracleError(f"token {d} has an invalid head {h}")
    for d, h in enumerate(heads, 1):  # arcs (a, b) and (c, e) cross iff a < c < b < e
        a, b = sorted((d, h))
        for d2, h2 in enumerate(heads, 1):
            c, e = sorted((d2, h2))
            if a < c < b < e:
                raise OracleError(f"the tree is not projective: arc {h}->{d} crosses "
                                  f"arc {h2}->{d2}")


def oracle(heads: Sequence[int], deprels: Sequence[str]) -> list[Transition]:
    """The arc-standard transitions that build the tree ``heads`` (1-based, 0 = root) with
    relations ``deprels``; the root's relation is always ``root``."""
    _check(heads)
    n = len(heads)
    missing = [0] * (n + 1)  # dependents not yet attached
    for h in heads:
        missing[h] += 1
    stack, j, out = [0], 0, []
    while j < n or len(stack) > 1:
        if len(stack) > 2 and heads[stack[-2] - 1] == stack[-1]:
            dep = stack.pop(-2)
            out.append(LeftArc(deprels[dep - 1]))
        elif len(stack) > 1 and heads[stack[-1] - 1] == stack[-2] and missing[stack[-1]] == 0 \
                and (stack[-2] or j == n):
            dep = stack.pop()
            out.append(RightArc(ROOT_LABEL if stack[-1] == 0 else deprels[dep - 1]))
        else:
            j += 1
            stack.append(j)
            out.append(Shift())
            continue
        missing[heads[dep - 1]] -= 1
    return out
