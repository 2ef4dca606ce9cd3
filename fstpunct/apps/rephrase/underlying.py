"""A sentence's T′ as marks carried by words, and surface punctuation written from it again.

:func:`carried_marks` turns a sentence's T′ (Viterbi or a posterior draw: one (l, r) puncteme
pair per word) into
:class:`Mark` s: each underlying token with the original token it was written as, found by
aligning every slot's underlying string to its surface string (:meth:`Channel.align`: the
token's position in uᵢ on the channel's most probable path). A mark that surfaced keeps its
form (a straight ``"``, a rare mark the model calls ``<unk>``) and its CoNLL-U line; one the
channel absorbed has only its symbol. Where the backoff beat every pair of W_d the Viterbi
pair is unknown: such a word's l (then r) is re-maximised locally, all else fixed, over ε and
the contiguous pieces of its slot's surface string, by q(p) · p(xᵢ | uᵢ) (approximate).
Two marks T′ may hold that could only surface wrongly once the tree changes are then removed,
each only where the input's surface stays explained: a point of a clause that ends the
sentence beside the root's (:func:`pinned_final_point`), and an absorbed bracket or quote
without a partner (:func:`without_phantom_orphans`).

:func:`write_slots` writes a reordered (or pruned) sentence again: the marks of the words
that remain, moved with their words, give each new slot's uᵢ (DESIGN §3); *full* draws xᵢ
from the channel (:meth:`Channel.sample`; or takes its most probable xᵢ) and keeps, for each
surface token, the mark it comes from (:meth:`Channel.align`); *half* writes uᵢ as it is. A
slot left exactly as it was (the same marks in the same order) keeps the input's surface there:
it is already a draw of xᵢ given that uᵢ, the one the writer made.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ...fst.channel import Channel
from ...model.punct import PunctModel
from ...model.vocab import Puncteme
from ...ud.slots import ABBV, BOUNDARY, UNK, SlotSentence, opening, underlying_slot
from ...ud.tree import projectivize
from ...ud.treebank import Line, Sentence
from .wellformed import is_terminal

__all__ = ["Aligner", "Carried", "Mark", "Marks", "Written", "carried_marks", "partners",
           "pinned_final_point", "printed_partners", "without_orphans", "without_phantom_orphans",
           "write_slots"]

Pair = tuple[Puncteme, Puncteme] | None


@dataclass(frozen=True)
class Mark:
    """An underlying punctuation token: its model symbol, and the token line it was written
    as in the input when it surfaced (None when the channel absorbed it)."""

    symbol: str
    line: Line | None = None
    origin: tuple[int, int, int] = (-1, 0, 0)  # (word, side, index) in the input's T′
    glyph: str | None = None  # what an absorbed mark prints instead of its symbol

    @property
    def form(self) -> str | None:
        """What to print: the input form, else the glyph or the symbol (None: nothing
        printable)."""
        if self.line is not None:
            return self.line.fields[1]
        if self.glyph is not None:
            return self.glyph
        return None if self.symbol in (ABBV, UNK, BOUNDARY) else self.symbol


Marks = tuple[tuple[Mark, ...], tuple[Mark, ...]]  # a word's (l, r)
Place = tuple[int, int, int]  # (word, side, index in its puncteme); ∘ is (−1, 0, 0)


@dataclass(frozen=True)
class Carried:
    """Every word's marks, and the input's slots: for the marks (by :attr:`Mark.origin`) of
    each input slot's uᵢ, the positions in uᵢ of the surface tokens written there."""

    marks: list[Marks]
    observed: dict[tuple[Place, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Written:
    """A surface punctuation token written by :func:`write_slots`: the mark and its word."""

    mark: Mark
    word: int   # 0-based position among the words written


class Aligner:
    """:meth:`Channel.align`, and the most probable surface of an underlying string, with
    caches (few distinct slot strings)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self._cache: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[int, ...] | None] = {}
        self._best: dict[tuple[str, ...], tuple[str, ...]] = {}

    def best(self, u: Sequence[str]) -> tuple[str, ...]:
        """argmax_x p(x | u) (by enumeration, :meth:`Channel.distribution`; ties: first)."""
        key = tuple(u)
        if key not in self._best:
            dist = self.channel.distribution(u)
            self._best[key] = max(dist, key=dist.__getitem__)
        return self._best[key]

    def __call__(self, u: Sequence[str], x: Sequence[str]) -> tuple[int, ...] | None:
        key = (tuple(u), tuple(x))
        if key not in self._cache:
            self._cache[key] = self.channel.align(u, x)
        return self._cache[key]


def _surface(model: PunctModel, slots: SlotSentence, i: int) -> tuple[str, ...]:
    """xᵢ in model symbols (∘ opening slot 0)."""
    return opening(i, BOUNDARY) + model.vocab.map_slot(slots.slots[i])


def _slot_u(slots: SlotSentence, members: Sequence[tuple[int, int]], i: int,
            pairs: list[list[Puncteme]]) -> tuple[list[str], list[tuple[int, int, int]]]:
    """uᵢ and, for each token, its (node, side, index in the puncteme); ∘ gets (−1, 0, 0)."""
    u, _ = underlying_slot(i, slots.n, ((node, pairs[node][side]) for node, side in members))
    where = list(opening(i, (-1, 0, 0)))
    for node, side in members:
        where.extend((node, side, k) for k in range(len(pairs[node][side])))
    return u, where


def _resolve_backoff(model: PunctModel, slots: SlotSentence, best: Sequence[Pair],
                     members: Sequence[Sequence[tuple[int, int]]], align: Aligner
                     ) -> list[list[Puncteme]]:
    """Every word's [l, r]; where the backoff won, each side re-maximised over ε and the
    pieces of its slot's surface string (other unknown sides counted as ε meanwhile)."""
    pairs = [list(p) if p is not None else [(), ()] for p in best]
    unknown = [k for k, p in enumerate(best) if p is None]
    if not unknown:
        return pairs
    spans = slots.spans
    s = model.settings.continuation / max(len(model.channel.symbols) - 1, 1)
    for node in unknown:
        for side in (0, 1):
            i = spans[node][side]
            x = _surface(model, slots, i)
            tokens = [t for t in x if t != BOUNDARY]
            candidates = {()} | {tuple(tokens[a:b]) for a in range(len(tokens))
                                 for b in range(a + 1, len(tokens) + 1)}
            scored = []
            for cand in sorted(candidates):
                pairs[node][side] = cand
                u, _ = _slot_u(slots, members[i], i, pairs)
                p = model.channel.prob(u, x) * s ** len(cand) if align(u, x) is not None else 0.0
                scored.append((p, -len(cand), cand))
            pairs[node][side] = max(scored)[2]
    return pairs


def carried_marks(model: PunctModel, sent: Sentence, slots: SlotSentence, best: Sequence[Pair],
                  align: Aligner | None = None) -> Carried:
    """Each word's (l, r) marks from its Viterbi pair ``best`` (see the module docstring)."""
    align = align or Aligner(model.channel)
    if slots.n == 0:
        return Carried([], {})
    members = slots.members
    pairs = _resolve_backoff(model, slots, best, members, align)
    lines = {ln.id: ln for ln in sent.lines}
    found: dict[Place, Line] = {}
    observed: dict[tuple[Place, ...], tuple[int, ...]] = {}
    for i in range(slots.n + 1):
        u, where = _slot_u(slots, members[i], i, pairs)
        x = _surface(model, slots, i)
        positions = align(u, x)
        if positions is None:
            continue
        observed[tuple(where)] = positions
        ids = opening(i, 0) + slots.slot_ids[i]  # the line of each surface token
        for k, pos in enumerate(positions):
            if where[pos][0] >= 0 and x[k] != ABBV:
                found[where[pos]] = lines[str(ids[k])]
    marks = [tuple(tuple(Mark(t, found.get((node, side, k)), (node, side, k))
                         for k, t in enumerate(pairs[node][side])) for side in (0, 1))
             for node in range(slots.n)]
    carried = pinned_final_point(model, slots, Carried(marks, observed), align)  # type: ignore
    return without_phantom_orphans(model, slots, carried, align)


def pinned_final_point(model: PunctModel, slots: SlotSentence, carried: Carried,
                       align: Aligner) -> Carried:
    """``carried`` with the sentence's final point (``. ? ! ... 。 ।`` …:
    :func:`~.wellformed.is_terminal` of what a mark prints, so also a rare point the model
    calls ``<unk>``) on the root only: the points of the last slot's uᵢ that other constituents
    carry are dropped, and the root's r, if it has none, ends with the last of them (the one
    that surfaced, if one did; an absorbed point of the root's takes the surfaced one's token
    line). T′ often gives a clause that ends the sentence a point of its own beside the root's
    (the channel absorbs the doubled point); moved or kept, that clause would print it
    mid-sentence or keep it where the root's point was deleted. Applied only when the new uᵢ
    still explains the input's surface there (:func:`_revised`)."""
    n, marks = slots.n, list(carried.marks)
    root = slots.heads.index(0)
    last = slots.members[n]
    points = [(node, m) for node, side in last for m in marks[node][side]
              if is_terminal(m.form or "")]
    if all(node == root for node, _ in points):
        return carried
    for node, side in last:
        if node != root:
            marks[node] = _with_side(marks[node], side,
                                     tuple(m for m in marks[node][side]
                                           if not is_terminal(m.form or "")))
    l, r = marks[root]
    surfaced = ([m for _, m in points if m.line is not None] or [m for _, m in points])[-1]
    own = [k for k, m in enumerate(r) if is_terminal(m.form or "")]
    if not own:
        r = (*r, replace(surfaced, origin=(root, 1, len(r))))
    elif r[own[-1]].line is None and r[own[-1]].symbol == surfaced.symbol:
        k = own[-1]  # the root's point takes the input's token line
        r = (*r[:k], replace(surfaced, origin=r[k].origin), *r[k + 1:])
    marks[root] = (l, r)
    return _revised(model, slots, carried, marks, {n}, align)


def without_phantom_orphans(model: PunctModel, slots: SlotSentence, carried: Carried,
                            align: Aligner) -> Carried:
    """``carried`` without the symmetric marks (brackets, quotes) that have no partner in T′
    (:func:`partners`) and that the channel absorbed in the input: wherever they went, they
    could only surface as orphans (T′ may give a phrase a second closing mark, absorbed after
    the first, and pair the opening mark with the first). Applied only when the new uᵢ still
    explain the input's surface (:func:`_revised`)."""
    symmetric = model.attach.symmetric
    marks = list(carried.marks)
    paired = {place for pair in partners(slots, marks, symmetric) for place in pair}
    either = {mark for pair in symmetric for mark in pair}
    gone = {(node, side, k) for node, ms in enumerate(marks) for side in (0, 1)
            for k, m in enumerate(ms[side])
            if m.symbol in either and m.line is None and (node, side, k) not in paired}
    if not gone:
        return carried
    for node, side, _ in gone:
        marks[node] = _with_side(marks[node], side,
                                 tuple(m for k, m in enumerate(marks[node][side])
                                       if (node, side, k) not in gone))
    return _revised(model, slots, carried, marks,
                    {slots.spans[node][side] for node, side, _ in gone}, align)


def _revised(model: PunctModel, slots: SlotSentence, carried: Carried, marks: list[Marks],
             changed: set[int], align: Aligner) -> Carried:
    """``marks`` in place of ``carried``'s if in every ``changed`` slot the new uᵢ can still be
    written as the input's xᵢ there (:meth:`Channel.align`; the slot then keeps that surface,
    as an unchanged one does), else ``carried`` as it is."""
    members = slots.members
    pairs = [[tuple(m.symbol for m in side) for side in ms] for ms in marks]
    observed = dict(carried.observed)
    for i in sorted(changed):
        u, where = _slot_u(slots, members[i], i, pairs)  # type: ignore[arg-type]
        positions = align(u, _surface(model, slots, i))
        if positions is None:
            return carried
        observed[tuple(marks[node][side][k].origin if node >= 0 else (node, side, k)
                       for node, side, k in where)] = positions
    return Carried(marks, observed)


def _with_side(marks: Marks, side: int, new: tuple[Mark, ...]) -> Marks:
    return (new, marks[1]) if side == 0 else (marks[0], new)


def partners(slots: SlotSentence, marks: Sequence[Marks], symmetric: Sequence[tuple[str, str]],
             surface: bool = False) -> list[tuple[Place, Place]]:
    """The symmetric marks of T′ paired as brackets are, over the underlying string left to
    right: each closing mark with the nearest open mark of its kind. With ``surface``, only
    the marks that surfaced in the input, over the input's token order (the pairs a reader
    sees; a mark the model calls ``<unk>`` by its form). A mark is named by (word, side,
    index in its puncteme), words 0-based."""
    if surface:
        found = sorted((int(m.line.id), (node, side, k), m.form if m.symbol == UNK else m.symbol)
                       for node, ms in enumerate(marks) for side in (0, 1)
                       for k, m in enumerate(ms[side])
                       if m.line is not None and m.line.id.isdigit())
        return _paired(((place, symbol) for _, place, symbol in found), symmetric)
    return _paired((((node, side, k), mark.symbol)
                    for members in (slots.members if slots.n else ())
                    for node, side in members for k, mark in enumerate(marks[node][side])),
                   symmetric)


def _paired(items: Iterable[tuple[Place, str | None]], symmetric: Sequence[tuple[str, str]]
            ) -> list[tuple[Place, Place]]:
    """Marks (place, symbol) in order, paired as brackets: each closing one with the nearest
    open one of its kind."""
    closing = {b: a for a, b in symmetric}
    opening = set(closing.values())
    open_marks: dict[str, list[Place]] = {}
    out = []
    for where, symbol in items:
        if symbol in closing and open_marks.get(closing[symbol]):
            out.append((open_marks[closing[symbol]].pop(), where))
        elif symbol in opening:
            open_marks.setdefault(symbol, []).append(where)  # type: ignore[arg-type]
    return out


def without_orphans(marks: Sequence[Marks], kept: set[int],
                    pairs: Sequence[tuple[tuple[int, int, int], tuple[int, int, int]]]
                    ) -> list[Marks]:
    """``marks`` without the symmetric marks whose partner (:func:`partners`; ``pairs`` may
    pair a mark twice, in T′ and as printed) belongs to a word that is not ``kept``, nor the
    partners of those, and so on: a bracket or quote goes with its partner, so deleting one
    half of a pair split across constituents leaves no orphan."""
    gone = {mine for a, b in pairs for mine, other in ((a, b), (b, a))
            if mine[0] in kept and other[0] not in kept}
    while True:
        more = {mine for a, b in pairs for mine, other in ((a, b), (b, a))
                if other in gone and mine not in gone and mine[0] in kept}
        if not more:
            break
        gone |= more
    return [tuple(tuple(m for k, m in enumerate(ms[side]) if (node, side, k) not in gone)
                  for side in (0, 1)) for node, ms in enumerate(marks)]  # type: ignore[misc]


def printed_partners(slots: SlotSentence, marks: Sequence[Marks], kept: set[int],
                     symmetric: Sequence[tuple[str, str]]) -> tuple[list[Marks], frozenset[Place]]:
    """Balance in a shortened sentence (the words ``kept``): a bracket or quote that the input
    printed without a printed partner among the kept words (an orphan as a reader sees it:
    :func:`partners` with ``surface``) and whose partner in T′ the channel absorbed gets that
    partner printed: returns the marks, the partner written like the printed mark where the
    input wrote that other than as its symbol (a straight ``"`` for both ends), and the
    origins of both marks of each such pair, whose slots :func:`write_slots` never samples."""
    marks = list(marks)
    visible = [ms if node in kept else ((), ()) for node, ms in enumerate(marks)]
    either = {m for pair in symmetric for m in pair}
    paired = {place for pair in partners(slots, visible, symmetric, True) for place in pair}

    def at(place: Place) -> Mark:
        return marks[place[0]][place[1]][place[2]]

    shown = {}  # origin of an absorbed mark to print -> its printed partner
    for a, b in partners(slots, visible, symmetric):
        for gone, printed in ((a, b), (b, a)):
            if (at(gone).line is None and at(printed).line is not None
                    and at(printed).symbol in either and printed not in paired):
                shown[at(gone).origin] = at(printed)
    for node, ms in enumerate(marks if shown else ()):
        marks[node] = tuple(tuple(  # type: ignore[assignment]
            replace(m, glyph=shown[m.origin].form
                    if shown[m.origin].form != shown[m.origin].symbol else None)
            if m.origin in shown else m for m in side) for side in ms)
    return marks, frozenset(shown) | {m.origin for m in shown.values()}


def write_slots(channel: Channel, heads: Sequence[int], marks: Sequence[Marks], surface: str,
                rng: np.random.Generator, align: Aligner | None = None,
                observed: Mapping[tuple[Place, ...], tuple[int, ...]] | None = None,
                settled: frozenset[Place] = frozenset()) -> list[list[Written]]:
    """The surface punctuation of every slot (0..n) of the words ``marks`` (in their new
    order; ``heads`` 1-based over them) — ``surface`` = ``sample``: drawn through the channel,
    ``best``: the channel's most probable output, ``underlying``: the marks as they are —
    without ∘ and marks with nothing to print. A slot whose marks are exactly those of an
    input slot (``observed``, :class:`Carried`) keeps the surface the input has there. A slot
    holding marks of ``settled`` (by origin: :func:`printed_partners`) is never sampled: it
    keeps the input's surface only when, besides, the input printed all those marks there,
    else it takes the channel's most probable output."""
    align = align or Aligner(channel)
    n = len(marks)
    view = SlotSentence(words=("",) * n, upos=("",) * n, heads=tuple(projectivize(heads)[0]),
                        deprels=("",) * n, slots=((),) * (n + 1), word_ids=tuple(range(1, n + 1)),
                        slot_ids=((),) * (n + 1))
    pairs = [[tuple(m.symbol for m in side) for side in ms] for ms in marks]
    out: list[list[Written]] = []
    for i, members in enumerate(view.members if n else ((),)):
        u, where = _slot_u(view, members, i, pairs)  # type: ignore[arg-type]
        key = tuple(marks[node][side][k].origin if node >= 0 else (node, side, k)
                    for node, side, k in where)
        settle = [marks[node][side][k] for node, side, k in where
                  if node >= 0 and marks[node][side][k].origin in settled]
        if (surface != "underlying" and observed and key in observed
                and all(m.line is not None for m in settle)):
            kept = observed[key]
        elif surface != "underlying" and len(u) > 1:
            x = channel.sample(u, rng) if surface == "sample" and not settle else align.best(u)
            kept = align(u, x) or ()
        else:
            kept = tuple(range(len(u)))
        slot = []
        for pos in kept:
            node, side, k = where[pos]
            if node >= 0 and marks[node][side][k].form is not None:
                slot.append(Written(marks[node][side][k], node))
        out.append(slot)
    return out
