"""Feature templates and their vectorised hashing.

A configuration is first reduced to a row of small integers, its *atoms* (:func:`atoms`): for
each of s0, s1, s2 the 19 node atoms of :data:`~fstpunct.parser.transitions.NODE_ATOMS` (word,
tag, two leftmost / rightmost dependents' word, tag and label, valencies, label sets,
punctuation property), for each of b0..b3 its word, tag and property, and three distances. A
template is a conjunction of up to four atoms; :func:`keys` hashes every template of every row
to a 64-bit key in one numpy pass (template number included), so features are never built as
strings. :meth:`~fstpunct.parser.model.Model.rows` maps keys to weight rows.

:data:`BASE` follows Zhang & Nivre (2011) as far as arc-standard allows (no head features: s0
and s1 have no head yet), with their S0 ↦ s1 and N0 ↦ s0: words, tags, pairs and triples,
distance, valency, first- and second-order dependents, label sets. :data:`PUNCT` is Table 3 of
Ma, Zhang & Zhu (2014), used in the ``properties`` and ``typed`` modes (``pc`` = punctuation
property); the ``paired`` mode uses its top three lines, :data:`PUNCT_PAIRED`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..dp._sparse import template_keys
from .punct import PROPERTY_MODES
from .transitions import NODE_ATOMS, State

__all__ = ["ATOMS", "BASE", "PUNCT_PAIRED", "PUNCT", "templates", "compile_templates", "atoms",
           "keys", "buffer_atoms", "MAX_DIST", "KEY_MULTIPLIER", "KEY_SHIFT"]

_BUFFER = ("b0", "b1", "b2", "b3")
_BUFFER_ATOMS = ("w", "p", "pc")
ATOMS: tuple[str, ...] = (
    tuple(f"{s}{a}" for s in ("s0", "s1", "s2") for a in NODE_ATOMS)
    + tuple(f"{b}{a}" for b in _BUFFER for a in _BUFFER_ATOMS)
    + ("d01", "d02", "d0b", "none"))
MAX_DIST = 10


def _expand(spec: str) -> list[str]:
    """Templates ``a+b+c``, whitespace-separated. A group ``{x,y}`` stands for each of its
    alternatives in turn, and the same group written twice in a template takes the same
    alternative: ``{s0,s1}w+{s0,s1}p`` = ``s0w+s0p s1w+s1p``, ``{s0,s1}{l1,r1}w`` = 4 templates."""
    out: list[str] = []
    todo = spec.split()
    while todo:
        t = todo.pop(0)
        if "{" not in t:
            out.append(t)
            continue
        group = t[t.index("{"):t.index("}") + 1]
        todo[:0] = [t.replace(group, x) for x in group[1:-1].split(",")]
    return out


BASE = _expand("""
    {s0,s1,b0,b1,b2}w {s0,s1,b0,b1,b2}p {s0,s1,b0,b1,b2}w+{s0,s1,b0,b1,b2}p
    s2p s2w+s2p
    s1w+s1p+s0w+s0p s1w+s1p+s0w s1w+s0w+s0p s1w+s1p+s0p s1p+s0w+s0p s1w+s0w s1p+s0p
    s0p+b0p s0w+b0w s0w+b0p s0p+b0w
    s0p+b0p+b1p s1p+s0p+b0p s2p+s1p+s0p b0p+b1p+b2p s1w+s0p+b0p s1p+s0w+b0p
    s1p+s1l1p+s0p s1p+s1r1p+s0p s1p+s0p+s0l1p s1p+s0p+s0r1p s1p+s0p+s0l1p+s0r1p
    {s1,s0}w+d01 {s1,s0}p+d01 s1w+s0w+d01 s1p+s0p+d01
    s1w+s1vr s1p+s1vr s1w+s1vl s1p+s1vl s0w+s0vl s0p+s0vl s0w+s0vr s0p+s0vr
    {s1,s0}{l1,r1,l2,r2}w {s1,s0}{l1,r1,l2,r2}p {s1,s0}{l1,r1,l2,r2}l
    s1p+s1l1p+s1l2p s1p+s1r1p+s1r2p s0p+s0l1p+s0l2p s0p+s0r1p+s0r2p
    s1w+s1sr s1p+s1sr s1w+s1sl s1p+s1sl s0w+s0sl s0p+s0sl s0w+s0sr s0p+s0sr
    s1p+s1l1l+s1r1l s0p+s0l1l+s0r1l s1p+s0p+s1r1l+s0l1l
""")

# Ma, Zhang & Zhu (2014), Table 3: its top three lines, used alone for paired marks (§4) ...
PUNCT_PAIRED = _expand("""
    {b0,b1,b2,b3,s0,s1,s2}pc
    {b0,b1,b2,s0,s1}pc+{b0,b1,b2,s0,s1}w {b0,b1,b2,s0,s1}pc+{b0,b1,b2,s0,s1}p
    s0pc+{b0,b1,b2,s1,s2}pc s0pc+{b0,b1,b2,s1,s2}p s0pc+{b0,b1,b2,s1,s2}w
""")
# ... and all of it (its fourth line's repeated pair (σ2, σ0) read as (σ2, σ1)).
PUNCT = PUNCT_PAIRED + _expand("""
    s2pc+s0p s1pc+s0p s2pc+s1p s2pc+s2p+s0p s1pc+s1p+s0p s2pc+s2p+s1p
    d02+s2pc+s2p+s0p d01+s1pc+s1p+s0p d0b+s0pc+s0p+b0p
""")


def templates(mode: str) -> list[str]:
    """Template names for a punctuation mode (the property templates only with properties)."""
    if mode not in PROPERTY_MODES:
        return BASE
    return BASE + (PUNCT_PAIRED if mode == "paired" else PUNCT)


def compile_templates(names: Sequence[str]) -> np.ndarray:
    """``(T, 4)`` atom columns per template, padded with the constant ``none`` atom."""
    col = {a: k for k, a in enumerate(ATOMS)}
    rows = []
    for name in names:
        parts = name.split("+")
        if len(parts) > 4 or any(p not in col for p in parts):
            raise ValueError(f"bad feature template {name!r}")
        rows.append([col[p] for p in parts] + [col["none"]] * (4 - len(parts)))
    return np.array(rows, dtype=np.intp)


def buffer_atoms(words: Sequence[int], tags: Sequence[int], codes: Sequence[int]
                 ) -> list[tuple[int, ...]]:
    """``out[j]`` = atoms of b0..b3 when tokens 1..j have been shifted."""
    n = len(words)
    cells = [(words[i], tags[i], codes[i]) for i in range(n)] + [(0, 0, 0)] * 4
    return [cells[j] + cells[j + 1] + cells[j + 2] + cells[j + 3] for j in range(n + 1)]


def atoms(state: State, buf: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """The atom row of a configuration (columns as :data:`ATOMS`)."""
    s0, (s1, (s2, _)) = state.stack
    i0, i1, i2 = s0[0], s1[0], s2[0]
    d01 = min(i0 - i1, MAX_DIST) if i1 >= 0 else 0
    d02 = min(i0 - i2, MAX_DIST) if i2 >= 0 else 0
    d0b = min(state.j + 1 - i0, MAX_DIST) if state.j < state.n else 0
    return s0[1:20] + s1[1:20] + s2[1:20] + buf[state.j] + (d01, d02, d0b, 0)


KEY_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # of the template hash (:func:`keys`)
KEY_SHIFT = np.uint64(29)


def keys(rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """64-bit keys ``(B, T)`` of the templates ``columns`` (from :func:`compile_templates`)
    over atom rows ``(B, len(ATOMS))``: h = (t + 1)·M, then per atom a, h = (h ^ a)·M and
    h ^= h >> 29, in wrapping uint64 arithmetic (compiled: one state at a time, as greedy
    parsing asks, numpy's per-call costs dominated)."""
    return template_keys(np.ascontiguousarray(rows, dtype=np.int64),
                         np.ascontiguousarray(columns, dtype=np.intp), int(KEY_MULTIPLIER),
                         int(KEY_SHIFT))
