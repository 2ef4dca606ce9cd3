"""The ways the parser treats punctuation, and putting punctuation back in the output.

* ``tokens``: punctuation is parsed like any word (and left out of word scores).
* ``removed``: punctuation is deleted before training and parsing.
* ``paired`` (the middle column of Ma, Zhang & Zhu's Table 4): only paired marks become
  properties (flags, as below), and a run of punctuation holding one is deleted whole; any other
  punctuation is parsed like a word, as in ``tokens``.
* ``properties`` (Ma, Zhang & Zhu 2014, §3): punctuation is deleted and kept as a *property* of
  a neighbouring word. Opening paired marks (BPUNC) become flags on the word to their right,
  closing ones (EPUNC) flags on the word to their left; any other mark becomes a plain
  punctuation property of the word to its left, unless that word already takes a closing mark
  from the same gap (paired marks carry the boundary; the plain mark is dropped). When an arc is
  built the head's property is updated from its new outermost dependent (see :func:`combine`);
  an opening and a closing flag of the same kind that meet on one head switch each other off,
  and when the last flags are off the head becomes PAIRED.
* ``typed``: as ``properties``, but the plain punctuation property says which kind of mark it
  is (comma; sentence end; colon or semicolon; dash; other) where the paper has one kind.

A token is punctuation here exactly when it is to the punctuation model
(:attr:`fstpunct.ud.treebank.Word.is_punct`: UPOS ``PUNCT`` or relation ``punct``; in input
to parse, the relation column is read only for that, and text has none). The parser keeps it so:
a parsed token that is not punctuation never gets the relation ``punct``, and one that is
punctuation by its relation alone gets only ``punct`` (see :attr:`Prepared.marks` and
:meth:`fstpunct.parser.model.Model.mask`), so parsing never turns a word into punctuation nor
the reverse. Straight quotes take their direction from :func:`fstpunct.ud.slots.quote_symbols`,
without the input's heads.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..errors import InputError
from ..ud.slots import STRAIGHT_QUOTES, quote_symbols
from ..ud.tree import projectivize, spans
from ..ud.treebank import Sentence

__all__ = ["MODES", "PROPERTY_MODES", "PROPS_VERSION", "OPENING", "CLOSING", "Prop", "EMPTY",
           "make_prop", "combine", "mark_kind", "initial_props", "Prepared", "prepare", "reattach",
           "WORD", "MARK", "REL_MARK"]

MODES = ("tokens", "removed", "paired", "properties", "typed")
PROPS_VERSION = 2  # the initial properties of new models (see :func:`initial_props`)
PROPERTY_MODES = ("paired", "properties", "typed")

# Paired marks by kind (1-based kind numbers; 0 is reserved for "no mark").
_PAIRS = ("()", "[]", "{}", "“”", "‘’", "«»", "‹›", "「」", "『』", "《》", "〈〉", "（）", "【】")
OPENING = {p[0]: k for k, p in enumerate(_PAIRS, 1)}
CLOSING = {p[1]: k for k, p in enumerate(_PAIRS, 1)}
_PLAIN_KINDS = (",", ".?!…", ":;", "-–—")  # typed mode: comma, end, colon, dash; else other


# What a parsed token is (:attr:`Prepared.marks`), which decides the relations it may get.
WORD = 0  # not punctuation: any relation but punct
MARK = 1  # UPOS PUNCT: any relation (it stays punctuation whatever its relation)
REL_MARK = 2  # punctuation by its relation alone (e.g. SYM): punct, or root


class Prop(NamedTuple):
    """A word's (or subtree's) punctuation property.

    ``opens``: kinds of unmatched opening marks at the left edge, outermost first;
    ``closes``: kinds of unmatched closing marks at the right edge, innermost first;
    ``punct``: a non-paired mark at the right edge (0 none, 1 a mark, 2+ a kind of mark in the
    ``typed`` mode); ``paired``: the subtree is enclosed by marks that all matched; ``code``: an
    integer that names the property in features (the same in both modes for 0 and 1).
    """

    opens: tuple[int, ...]
    closes: tuple[int, ...]
    punct: int
    paired: bool
    code: int


def make_prop(opens: tuple[int, ...], closes: tuple[int, ...], punct: int,
              paired: bool) -> Prop:
    """A property with its feature code (the three innermost flags of each side count)."""
    def enc(kinds: tuple[int, ...]) -> int:
        v = 0
        for k in kinds[-3:]:
            v = v * 16 + k
        return v
    code = ((enc(opens) * 4096 + enc(closes)) * 2 + (punct > 0)) * 2 + paired
    code += (punct if punct > 1 else 0) << 26
    return Prop(opens, closes, punct, paired, code)


EMPTY = make_prop((), (), 0, False)


def combine(head: Prop, dep: Prop, dep_is_left: bool) -> Prop:
    """The head's property after ``dep`` becomes its outermost left (or right) dependent.

    The edge on the dependent's side now belongs to the dependent: a left dependent gives its
    opening flags, a right dependent its closing flags and its plain-punctuation property (the
    latter ignored while the head has opening flags: boundaries come first). Then innermost
    opening and closing flags of one kind switch each other off; when that empties both, the
    head becomes PAIRED.
    """
    if dep_is_left:
        opens, closes, punct = dep.opens, head.closes, head.punct
    else:
        opens, closes, punct = head.opens, dep.closes, 0 if head.opens else dep.punct
    matched = False
    while opens and closes and opens[-1] == closes[0]:
        opens, closes, matched = opens[:-1], closes[1:], True
    paired = head.paired or (matched and not opens and not closes)
    return make_prop(opens, closes, punct, paired)


def _gaps(forms: Sequence[str], punct: Sequence[bool]) -> list[list[str]]:
    """Punctuation forms in the n+1 gaps around the n non-punctuation tokens."""
    gaps: list[list[str]] = [[]]
    for form, p in zip(forms, punct):
        if p:
            gaps[-1].append(form)
        else:
            gaps.append([])
    return gaps


def _paired_runs(forms: Sequence[str], punct: Sequence[bool]) -> list[bool]:
    """Which tokens belong to a run of adjacent punctuation tokens holding a paired mark."""
    out = [False] * len(forms)
    start = 0
    for k in range(len(forms) + 1):
        if k < len(forms) and punct[k]:
            continue
        if any(f in OPENING or f in CLOSING for f in forms[start:k]):
            out[start:k] = [True] * (k - start)
        start = k + 1
    return out


def mark_kind(mark: str) -> int:
    """The kind of a non-paired mark in the ``typed`` mode (2 and up)."""
    return next((k for k, marks in enumerate(_PLAIN_KINDS, 2) if mark in marks),
                len(_PLAIN_KINDS) + 2)


def initial_props(gaps: Sequence[Sequence[str]], typed: bool = False,
                  version: int = PROPS_VERSION) -> list[Prop]:
    """Each word's property before parsing, from the punctuation in the gaps around it
    (``gaps[i]`` lies between word i and word i+1, 1-based; gap 0 precedes word 1). The plain
    punctuation property is 1, or with ``typed`` the kind of the gap's last plain mark.

    Version 2 (§3.1–3.3 read strictly): an opening and a closing flag of one kind that land on
    the same word (a one-word span in brackets or quotes) meet there at once, switch each other
    off and make the word PAIRED; a word that keeps an opening flag takes no plain property
    (boundaries have the highest priority). Version 1, models trained before: flags are only
    matched when an arc is built, and plain marks are kept beside opening flags."""
    n = len(gaps) - 1
    opens: list[list[int]] = [[] for _ in range(n + 2)]
    closes: list[list[int]] = [[] for _ in range(n + 2)]
    plain = [0] * (n + 2)
    for i, gap in enumerate(gaps):
        gap_closes = [CLOSING[m] for m in gap if m in CLOSING]
        opens[i + 1] += [OPENING[m] for m in gap if m in OPENING]
        closes[i] += gap_closes
        marks = [m for m in gap if m not in OPENING and m not in CLOSING]
        if marks and not gap_closes:
            plain[i] = mark_kind(marks[-1]) if typed else 1
    out = []
    for i in range(1, n + 1):
        o, c, paired = tuple(opens[i]), tuple(closes[i]), False
        if version >= 2:
            matched = False
            while o and c and o[-1] == c[0]:
                o, c, matched = o[:-1], c[1:], True
            paired = matched and not o and not c
            if o:
                plain[i] = 0
        out.append(make_prop(o, c, plain[i], paired))
    return out


@dataclass(frozen=True)
class Prepared:
    """A sentence as the parser sees it: the tokens it parses (1-based in ``heads``).

    ``ids``: CoNLL-U word IDs of the parsed tokens; ``props``: initial properties (all
    :data:`EMPTY` outside :data:`PROPERTY_MODES`); ``heads``/``deprels``: the gold tree over the
    parsed tokens made projective (training only, else ``None``); ``marks``: :data:`WORD`,
    :data:`MARK` or :data:`REL_MARK` for each parsed token (empty: all words).
    """

    forms: tuple[str, ...]
    upos: tuple[str, ...]
    ids: tuple[int, ...]
    props: tuple[Prop, ...]
    heads: tuple[int, ...] | None
    deprels: tuple[str, ...] | None
    marks: tuple[int, ...] = ()

    @property
    def n(self) -> int:
        return len(self.forms)


def _gold_tree(sent: Sentence, keep: Sequence[int]) -> tuple[list[int], list[str]]:
    """Gold heads over the kept words (dependents of dropped tokens climb to the nearest kept
    ancestor; extra roots attach to the first root), made projective by lifting."""
    by_id = {w.id: w for w in sent.words}
    index = {wid: k for k, wid in enumerate(keep, 1)}
    heads: list[int] = []
    for wid in keep:
        h = by_id[wid].head
        while h and h not in index:
            h = by_id[h].head
        heads.append(index[h] if h else 0)
    roots = [k for k, h in enumerate(heads, 1) if h == 0]
    for k in roots[1:]:
        heads[k - 1] = roots[0]
    deprels = ["root" if h == 0 else by_id[wid].deprel for wid, h in zip(keep, heads)]
    deprels = [d if d != "root" or h == 0 else "dep" for d, h in zip(deprels, heads)]
    return projectivize(heads)[0], deprels


def _quotes(sent: Sentence) -> dict[int, str]:
    """Directions of straight quotes (:func:`fstpunct.ud.slots.quote_symbols`) found without the
    heads of the input, which are the answer when a treebank is parsed (the same in training,
    so that the parser learns what it will see)."""
    return quote_symbols([dataclasses.replace(w, head=0) for w in sent.words
                          if w.form in STRAIGHT_QUOTES])  # it reads no other word


def prepare(sent: Sentence, mode: str, gold: bool, version: int = PROPS_VERSION) -> Prepared:
    """The parser's view of ``sent`` in punctuation ``mode``; with ``gold`` also its tree.
    ``version``: of the initial properties (:func:`initial_props`)."""
    if mode not in MODES:
        raise InputError(f"unknown punctuation mode {mode!r}; known: {', '.join(MODES)}")
    words = sent.words
    quotes = _quotes(sent)
    forms = [quotes.get(w.id, w.form) for w in words]
    punct = [w.is_punct for w in words]
    if mode == "tokens" or all(punct):  # a sentence of punctuation only is parsed as tokens
        keep = list(range(len(words)))
        props = [EMPTY] * len(words)
    elif mode == "paired":
        dropped = _paired_runs(forms, punct)
        keep = [k for k, d in enumerate(dropped) if not d]
        gaps = [[m for m in gap if m in OPENING or m in CLOSING] for gap in _gaps(forms, dropped)]
        props = initial_props(gaps, version=version)
    else:
        keep = [k for k, p in enumerate(punct) if not p]
        props = initial_props(_gaps(forms, punct), mode == "typed", version) \
            if mode in PROPERTY_MODES else [EMPTY] * len(keep)
    ids = [words[k].id for k in keep]
    heads: list[int] | None = None
    deprels: list[str] | None = None
    if gold:
        heads, deprels = _gold_tree(sent, ids)
    marks = tuple(WORD if not punct[k] else MARK if words[k].upos == "PUNCT" else REL_MARK
                  for k in keep)
    return Prepared(tuple(forms[k] for k in keep), tuple(words[k].upos for k in keep),
                    tuple(ids), tuple(props), None if heads is None else tuple(heads),
                    None if deprels is None else tuple(deprels), marks)


def reattach(sent: Sentence, prep: Prepared, heads: Sequence[int],
             deprels: Sequence[str]) -> dict[int, tuple[int, str]]:
    """CoNLL-U ``{word id: (head id, deprel)}`` for every word of ``sent``, from the projective
    parse of ``prep`` and, for tokens left out of it, an attachment to a neighbour.

    The tokens of one gap between parsed words L and R are split in two: those before the
    gap's first opening mark attach to one node X, the rest to one node Y. X is L or an
    ancestor of L whose subtree ends at L, Y is R or an ancestor of R whose subtree starts at R,
    so no arc crosses another (one of the two always exists). By default X and Y are the
    highest such nodes; a gap without paired marks goes wholly to the higher of the two (left
    on a tie); an opening and a closing mark that enclose exactly one subtree attach (with
    their gap part) to its root.
    """
    out = {wid: (prep.ids[h - 1] if h else 0, rel)
           for wid, h, rel in zip(prep.ids, heads, deprels)}
    if len(out) == len(sent.words):
        return out
    n = len(heads)
    span = spans(heads)  # node k covers parsed tokens span[k-1][0]+1 .. span[k-1][1]
    depth = [0] * (n + 1)
    for k in range(1, n + 1):
        h, d = heads[k - 1], 1
        while h:
            h, d = heads[h - 1], d + 1
        depth[k] = d

    def chain(word: int, left: bool) -> list[int]:
        """Nodes from ``word`` upwards whose subtree ends (left) / starts (right) at it."""
        nodes, node = [], word
        while 0 < node <= n and (span[node - 1][1] == word if left
                                 else span[node - 1][0] == word - 1):
            nodes.append(node)
            node = heads[node - 1]
        return nodes

    position = {wid: k for k, wid in enumerate(prep.ids, 1)}
    quotes = _quotes(sent)
    gaps: dict[int, list[tuple[int, str]]] = {}  # parsed tokens before -> (word id, form)
    before = 0
    for w in sent.words:
        if w.id in position:
            before = position[w.id]
        else:
            gaps.setdefault(before, []).append((w.id, quotes.get(w.id, w.form)))
    split: dict[int, int] = {}
    target: dict[tuple[int, bool], int] = {}  # (gap, right part) -> node
    rights: dict[int, list[int]] = {}
    pending: list[tuple[int, int]] = []  # opening marks: (kind, gap)
    for g, marks in sorted(gaps.items()):
        forms = [f for _, f in marks]
        left, rights[g] = chain(g, True), chain(g + 1, False)
        split[g] = next((k for k, f in enumerate(forms) if f in OPENING), len(forms))
        if not any(f in OPENING or f in CLOSING for f in forms) and left and rights[g]:
            split[g] = len(forms) if depth[left[-1]] <= depth[rights[g][-1]] else 0
        if not left:
            split[g] = 0
        elif not rights[g]:
            split[g] = len(forms)
        target[g, False] = left[-1] if left else 0
        target[g, True] = rights[g][-1] if rights[g] else 0
        for k, f in enumerate(forms):
            if f in OPENING and k >= split[g]:
                pending.append((OPENING[f], g))
            elif f in CLOSING and k < split[g]:
                match = [p for p in pending if p[0] == CLOSING[f]]
                if match:
                    pending.remove(match[-1])
                    g0 = match[-1][1]
                    enclosing = [z for z in rights[g0] if span[z - 1][1] == g]
                    if enclosing:
                        target[g0, True] = target[g, False] = enclosing[0]
    for g, marks in gaps.items():
        for k, (wid, _) in enumerate(marks):
            out[wid] = (prep.ids[target[g, k >= split[g]] - 1], "punct")
    return out
