"""Removing the punctuation of a CoNLL-U sentence, and writing restored punctuation back in.

:func:`strip` deletes every punctuation word (UPOS ``PUNCT`` or relation ``punct``) and renumbers
the rest: word IDs, HEAD (through :func:`~fstpunct.ud.slots.depunctuate`), multiword-token ranges,
empty nodes and DEPS. A kept token is written ``SpaceAfter=No`` only when nothing in the text
separated it from the next kept token (``home, etc.`` → ``home etc``; ``well-known`` →
``wellknown``). :func:`insert` is the inverse: it adds restored tokens as ``PUNCT``/``punct``
word lines. Its spacing is English-like and simple: in a gap written with a space, no space goes
before a mark of :data:`~fstpunct.ud.spacing.NO_SPACE_BEFORE` nor after one of
:data:`~fstpunct.ud.spacing.NO_SPACE_AFTER`, one space goes everywhere else; a gap written
without a space (Chinese text) stays without. Both rebuild ``# text`` from the forms (when the
sentence has one) and keep every other comment, line and column, but for the analysis
``fstpunct decode`` wrote of the punctuation :func:`strip` removes
(:func:`~fstpunct.ud.annotations.forget`): restoring and correcting never carry it.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...ud.annotations import forget
from ...ud.slots import abbreviation_stem, absorbs, depunctuate, to_slots
from ...ud.spacing import NO_SPACE_AFTER, NO_SPACE_BEFORE
from ...ud.text import surface
from ...ud.tree import lift_to_projective
from ...ud.treebank import (
    NO_SPACE,
    Line,
    Sentence,
    has_tree,
    rebuild,
    space_after,
    with_space_after,
)
from . import HIDDEN, Insertion

__all__ = ["insert", "insertions_of", "strip"]


@dataclass(frozen=True)
class _Token:
    """A surface token: the line holding its FORM and MISC, and the word IDs it covers."""

    line: int
    first: int
    last: int


def _tokens(lines: Sequence[Line]) -> list[_Token]:
    out: list[_Token] = []
    end = 0
    for k, ln in enumerate(lines):
        if "-" in ln.id:
            first, end = map(int, ln.id.split("-"))
            out.append(_Token(k, first, end))
        elif ln.is_word and int(ln.id) > end:
            out.append(_Token(k, int(ln.id), int(ln.id)))
    return out


def _finish(sent: Sentence, lines: list[Line]) -> Sentence:
    """The new sentence, validated, with ``# text`` rebuilt if ``sent`` has one; without a tree
    if ``sent`` has none (every HEAD ``_``)."""
    if not has_tree(sent):
        lines = [Line(ln.fields[:6] + ["_"] + ln.fields[7:], ln.lineno) if ln.is_word else ln
                 for ln in lines]
    out = rebuild(sent, list(sent.comments), lines, tree=None)
    if any(re.match(r"#\s*text\s*=", c) for c in out.comments):
        out.set_comment("text", surface(lines))
    return out


def _deps(ln: Line, words: Mapping[int, int], empty: Mapping[str, str], own: str) -> str:
    """The DEPS of ``ln`` with every head renumbered (``own`` = the line's new ID); arcs that
    become loops or duplicates are dropped."""
    deps = ln.fields[8]
    if deps == "_":
        return deps
    arcs: dict[tuple[tuple[int, ...], str], str] = {}
    for item in deps.split("|"):  # the reader checked the syntax and that every head exists
        head, _, rel = item.partition(":")
        new = empty[head] if "." in head else str(words[int(head)])
        if new != own:
            arcs.setdefault((tuple(map(int, new.split("."))), rel), f"{new}:{rel}")
    return "|".join(arcs[k] for k in sorted(arcs)) or "_"


def _kept_ids(sent: Sentence) -> dict[int, int]:
    """New IDs of the non-punctuation words (a ConlluError if there are none)."""
    new = {w.id: k for k, w in enumerate((w for w in sent.words if not w.is_punct), 1)}
    if not new:
        raise sent.error("the sentence is all punctuation: no word is left once it is removed")
    return new


def _nearest_kept(sent: Sentence, new: Mapping[int, int]) -> dict[int, int]:
    """Every word ID (and 0) → the new ID of itself or its nearest kept ancestor (0 = none)."""
    by_id = {w.id: w for w in sent.words}
    out = {0: 0}
    for w in sent.words:
        h = w.id
        while h and by_id[h].is_punct:
            h = by_id[h].head
        out[w.id] = new.get(h, 0)
    return out


def _empty_ids(lines: Sequence[Line], new: Mapping[int, int]) -> dict[str, str]:
    """Empty-node IDs renumbered: after the last kept word before them, counted from 1."""
    out: dict[str, str] = {}
    base, sub = 0, 0
    for ln in lines:
        if ln.is_word and int(ln.id) in new:
            base, sub = new[int(ln.id)], 0
        elif "." in ln.id:
            sub += 1
            out[ln.id] = f"{base}.{sub}"
    return out


def _renumber(sent: Sentence, ln: Line, new: Mapping[int, int], heads: Mapping[int, int],
              deps: Mapping[int, int], empty: Mapping[str, str]) -> Line | None:
    """A copy of a token line of ``sent`` with its IDs, HEAD (``heads``: old word ID → new
    head) and DEPS (``deps``: old word ID → new ID) renumbered; None for a word that is not in
    ``new`` and a multiword token left with fewer than two words."""
    f = list(ln.fields)
    if "-" in f[0]:
        first, end = map(int, f[0].split("-"))
        ids = [new[i] for i in range(first, end + 1) if i in new]
        if len(ids) < 2:
            return None
        f[0] = f"{ids[0]}-{ids[-1]}"
    elif "." in f[0] or int(f[0]) in new:
        if "." in f[0]:
            f[0] = empty[f[0]]
        else:
            f[0], f[6] = str(new[int(f[0])]), str(heads[int(f[0])])
        f[8] = _deps(ln, deps, empty, f[0])
    else:
        return None
    return Line(f, ln.lineno)


def _kept_spacing(sent: Sentence, new: Mapping[int, int]) -> dict[int, bool]:
    """For the line of each kept token (a word left alone carries its multiword token's
    spacing): whether any space separated it from the next kept token."""
    line_of = {int(ln.id): k for k, ln in enumerate(sent.lines) if ln.is_word}
    space: dict[int, bool] = {}
    last = None
    for t in _tokens(sent.lines):
        kept = [i for i in range(t.first, t.last + 1) if i in new]
        own = space_after(sent.lines[t.line].fields[9])
        if kept:
            last = t.line if len(kept) > 1 else line_of[kept[0]]
            space[last] = own
        elif last is not None:
            space[last] = space[last] or own
    return space


def strip(sent: Sentence) -> Sentence:
    """``sent`` without its punctuation, nor decode's analysis of it (see the module docstring);
    unpunctuated input comes out unchanged but for that analysis, and one without a tree (every
    HEAD ``_``) stays without. A sentence that is all punctuation raises
    :class:`~fstpunct.errors.ConlluError`."""
    sent = forget(sent)
    if not any(w.is_punct for w in sent.words):
        return rebuild(sent, list(sent.comments), [Line(list(ln.fields), ln.lineno)
                                                   for ln in sent.lines], tree=None)
    new = _kept_ids(sent)
    heads = depunctuate(sent)[1]
    head_of = {old: heads[k - 1] for old, k in new.items()}
    up = _nearest_kept(sent, new)
    empty = _empty_ids(sent.lines, new)
    space = _kept_spacing(sent, new)
    lines = []
    for k, ln in enumerate(sent.lines):
        out = _renumber(sent, ln, new, head_of, up, empty)
        if out is not None:
            if k in space:
                out.fields[9] = with_space_after(out.fields[9], space[k])
            lines.append(out)
    return _finish(sent, lines)


def insertions_of(sent: Sentence) -> list[Insertion]:
    """The insertions that give ``sent``'s punctuation back to ``strip(sent)``: the slot tokens
    of :func:`~fstpunct.ud.slots.to_slots` (directional quotes, ``<abbv>`` left out), each attached
    to its nearest non-punctuation ancestor, or to the root word if it has none."""
    new = _kept_ids(sent)
    up = _nearest_kept(sent, new)
    root = depunctuate(sent)[1].index(0) + 1
    ss = to_slots(sent)
    return [tuple((tok, up[i] or root) for tok, i in zip(slot, ids, strict=True)
                  if tok not in HIDDEN)
            for slot, ids in zip(ss.slots, ss.slot_ids, strict=True)]


@dataclass(frozen=True)
class _New:
    """An inserted punctuation token: its form, head (word index) and MISC."""

    form: str
    head: int
    misc: str

    def line(self, word_id: int, new: Mapping[int, int], lineno: int, enhanced: bool) -> Line:
        """Its word line; with ``enhanced`` (the sentence has enhanced dependencies) DEPS
        repeats the basic arc, so the enhanced graph stays connected."""
        head = str(new[self.head])
        return Line([str(word_id), self.form, self.form, "PUNCT", "_", "_", head, "punct",
                     f"{head}:punct" if enhanced else "_", self.misc], lineno)


def _gaps(stripped: Sentence, insertions: Sequence[Insertion], tokens: Sequence[_Token]
          ) -> dict[int, list[tuple[str, int]]]:
    """Checked insertions by slot, without :data:`HIDDEN` tokens; a slot inside a multiword
    token is moved to the slot after it."""
    n = len(stripped.words)
    if len(insertions) != n + 1:
        raise stripped.error(f"{len(insertions)} slots of insertions for {n} words; "
                             f"expected {n + 1}")
    end_of = {i: t.last for t in tokens for i in range(t.first, t.last + 1)}
    gaps: dict[int, list[tuple[str, int]]] = {}
    for i, slot in enumerate(insertions):
        for tok, head in slot:
            if not 1 <= head <= n:
                raise stripped.error(f"slot {i}: head {head} of {tok!r} is not a word 1..{n}")
            if tok not in HIDDEN:
                gaps.setdefault(end_of.get(i, i), []).append((tok, head))
    return gaps


def _gap_miscs(tokens: Sequence[str], space: bool) -> list[str]:
    """MISC of each inserted token of a gap (see the module docstring)."""
    out = []
    for j, tok in enumerate(tokens):
        after = space and tok not in NO_SPACE_AFTER
        if j + 1 < len(tokens):
            after = after and tokens[j + 1] not in NO_SPACE_BEFORE
        out.append("_" if after else NO_SPACE)
    return out


def insert(stripped: Sentence, insertions: Sequence[Insertion]) -> Sentence:
    """``stripped`` (no punctuation) with the tokens of ``insertions`` (one per slot) as new
    ``PUNCT`` word lines; ``<abbv>`` and ``<unk>`` are left out. A slot inside a multiword token
    cannot hold a word line: its tokens go to the slot after the multiword token.

    A ``.`` inserted right after a token that ends in an abbreviation's dot is always left out
    (:func:`~fstpunct.ud.slots.absorbs`: ``at 9 p.m.``, not ``p.m..``), the words as given.
    Restoration, correction and the scripts all write punctuation into a sentence through
    this function, so every surface they write obeys the rule (rephrasing, which moves words,
    applies the same rule to its own tokens).
    """
    if any(w.is_punct for w in stripped.words):
        raise stripped.error("insert needs a sentence without punctuation (strip it first)")
    tokens = _tokens(stripped.lines)
    carrier = {t.last: t.line for t in tokens}
    misc = [ln.fields[9] for ln in stripped.lines]
    new_tokens: dict[int, list[_New]] = {}
    for i, items in _gaps(stripped, insertions, tokens).items():
        forms = [tok for tok, _ in items]
        after_dot = bool(i) and abbreviation_stem(stripped.lines[carrier[i]].fields[1]) is not None
        if absorbs(after_dot, forms):
            items, forms = items[1:], forms[1:]
            if not items:
                continue
        space = i == 0 or space_after(misc[carrier[i]])
        if i and space and forms[0] in NO_SPACE_BEFORE:
            misc[carrier[i]] = with_space_after(misc[carrier[i]], False)
        new_tokens[i] = [_New(tok, head, m) for (tok, head), m
                         in zip(items, _gap_miscs(forms, space), strict=True)]
    starts = {t.line: t.first for t in tokens}
    plan: list[int | _New] = []  # line indices of ``stripped`` and new tokens, in output order
    for k in range(len(stripped.lines)):
        plan.extend(new_tokens.get(starts[k] - 1, ()) if k in starts else ())
        plan.append(k)
    plan.extend(new_tokens.get(len(stripped.words), ()))
    ids = list(itertools.accumulate(int(isinstance(x, _New) or stripped.lines[x].is_word)
                                    for x in plan))  # the word ID each step of the plan reaches
    new = {0: 0} | {int(stripped.lines[x].id): k for x, k in zip(plan, ids, strict=True)
                    if not isinstance(x, _New) and stripped.lines[x].is_word}
    head_of = {w.id: new[w.head] for w in stripped.words}
    empty = _empty_ids(stripped.lines, new)
    enhanced = any(ln.fields[8] != "_" for ln in stripped.lines)
    lines, inserted = [], []
    for x, k in zip(plan, ids, strict=True):
        if isinstance(x, _New):
            inserted.append(len(lines))
            lines.append(x.line(k, new, stripped.lineno, enhanced))
            continue
        out = _renumber(stripped, stripped.lines[x], new, head_of, new, empty)
        if out is not None:
            out.fields[9] = misc[x]
            lines.append(out)
    _projective(lines, inserted, enhanced)
    return _finish(stripped, lines)


def _projective(lines: list[Line], inserted: Sequence[int], enhanced: bool) -> None:
    """Lift each inserted token whose head would make it non-projective (or make another arc
    so) to the nearest ancestor of its head where it is not (:func:`lift_to_projective`)."""
    heads = [int(ln.fields[6]) for ln in lines if ln.is_word]
    for k in inserted:
        fields = lines[k].fields
        d, preferred = int(fields[0]), int(fields[6])
        head = lift_to_projective(heads, d, preferred)
        if head != preferred:
            fields[6] = str(head)
            fields[8] = f"{head}:punct" if enhanced else "_"
