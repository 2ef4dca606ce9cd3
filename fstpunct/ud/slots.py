"""From a UD sentence to the model's view: a depunctuated projective tree plus slot strings.

Follows DESIGN §2: punctuation (UPOS ``PUNCT`` or relation ``punct``) is removed from the tree and
collected, in order, into the slot between the surrounding words; straight quotes become
directional; a word ending in ``.`` (``etc.``) loses the dot, and an abbreviation-dot token
:data:`ABBV` opens the following slot; the tree is made projective by lifting. ``∘`` is *not*
stored in the slots: the model prepends :data:`BOUNDARY` to slot 0 itself.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TypeVar

from ..errors import ConlluError, InputError
from ._slots import slot_parts
from .tree import projectivize, spans
from .treebank import Sentence, Word

__all__ = ["ABBV", "BOUNDARY", "CLOSE_XPOS", "CURLY", "OPEN_XPOS", "STRAIGHT_QUOTES", "UNK",
           "SlotSentence", "abbreviation_stem", "absorbs", "depunctuate", "on_tree", "opening",
           "punct_tokens", "quote_symbols", "raw_slots", "slot_members", "surface_slots",
           "to_slots", "to_slots_reference", "underlying_slot"]

BOUNDARY = "∘"
ABBV = "<abbv>"
UNK = "<unk>"
OPEN_XPOS, CLOSE_XPOS = "``", "''"  # a straight quote's XPOS that says it opens, closes
_DIRECTIONAL = {'"': ("“", "”"), "'": ("‘", "’")}
STRAIGHT_QUOTES = frozenset(_DIRECTIONAL)  # the forms :func:`quote_symbols` gives a direction
CURLY = {curly: straight for straight, pair in _DIRECTIONAL.items() for curly in pair}
"""Curly quotes → their straight forms."""
T = TypeVar("T")


def opening(slot: int, stand_in: T) -> tuple[T, ...]:
    """What comes before the tokens of slot ``slot`` in the model's view: ∘ in slot 0 (the
    model prepends :data:`BOUNDARY` to it), nothing in any other; ``stand_in``: ∘ itself, or
    what stands for it where something else is listed (a token id, a place)."""
    return (stand_in,) if slot == 0 else ()


@dataclass(frozen=True)
class SlotSentence:
    """A sentence as the punctuation model sees it.

    ``heads``/``deprels``/``upos``/``words`` describe the n non-punctuation words (heads index
    them 1-based, 0 = root; the tree is projective). ``slots`` has n+1 entries: slot i holds the
    surface punctuation tokens between word i and word i+1. ``word_ids`` and ``slot_ids`` give
    the CoNLL-U IDs behind each word and each slot token (an :data:`ABBV` token carries the ID of
    the word it was split from), so output can be mapped back to the input lines. ``contexts``
    (empty, or one tuple per word) are extra Attach context features of each word's node, set by
    an application (punctuation correction: the learner's own punctemes at the node).
    """

    words: tuple[str, ...]
    upos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    slots: tuple[tuple[str, ...], ...]
    word_ids: tuple[int, ...]
    slot_ids: tuple[tuple[int, ...], ...]
    lifted: int = 0
    punct_with_dependents: int = 0
    sent_id: str | None = None
    path: str = "<stdin>"
    lineno: int = 0
    contexts: tuple[tuple[str, ...], ...] = ()
    index: int = 0  # the sentence's 1-based number in its file (names it without a sent_id)

    @property
    def n(self) -> int:
        return len(self.words)

    @property
    def place(self) -> str:
        """Where the sentence is, for messages, as :attr:`Sentence.place` names it:
        ``FILE:LINE (sent_id ID)``, or ``FILE:LINE (sentence FILE#N)`` without a sent_id."""
        return ConlluError("", self.path, self.lineno, self.sent_id, self.index).where

    @cached_property
    def spans(self) -> list[tuple[int, int]]:
        """The slot span (i, k) of every word's subtree (:func:`~fstpunct.ud.tree.spans`)."""
        return spans(self.heads)

    @cached_property
    def members(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """:func:`slot_members` of the sentence, computed once."""
        return tuple(tuple(m) for m in slot_members(self))

    @property
    def trainable(self) -> bool:
        """False when a punctuation token had dependents (DESIGN §2: omit from training)."""
        return self.punct_with_dependents == 0


def quote_symbols(words: Sequence[Word]) -> dict[int, str]:
    """Directional forms for the straight quotes among ``words`` (punctuation only), by word ID.

    XPOS ``\u0060\u0060`` / ``''`` decide where present (English); otherwise quotes of one kind
    that share a head are paired left to right, the left one opening; an unpaired quote opens
    if it stands before its head and closes after it.
    """
    out: dict[int, str] = {}
    groups: dict[tuple[str, int], list[Word]] = {}
    for w in words:
        if w.form not in _DIRECTIONAL or not w.is_punct:
            continue
        opening, closing = _DIRECTIONAL[w.form]
        if w.xpos == OPEN_XPOS:
            out[w.id] = opening
        elif w.xpos == CLOSE_XPOS:
            out[w.id] = closing
        else:
            groups.setdefault((w.form, w.head), []).append(w)
    for (form, head), group in groups.items():
        opening, closing = _DIRECTIONAL[form]
        for k, w in enumerate(group):
            if k % 2 == 0 and k + 1 < len(group):
                out[w.id] = opening
            elif k % 2 == 1:
                out[w.id] = closing
            else:
                out[w.id] = opening if head == 0 or w.id < head else closing
    return out


def abbreviation_stem(form: str) -> str | None:
    """``etc.`` -> ``etc``; None if the form does not end in an abbreviation's dot, a dot after
    other characters: the words :func:`to_slots` splits into a word and :data:`ABBV` (the
    compiled one restates it), whose dot absorbs a full stop written after it (:func:`absorbs`)."""
    if len(form) > 1 and form.endswith(".") and form.rstrip("."):
        return form[:-1]
    return None


def absorbs(after_dot: bool, marks: Sequence[str]) -> bool:
    """Whether the first of ``marks``, written right after a word, is absorbed by it: a full stop
    after a word that ends in an abbreviation's dot (``after_dot``: :func:`abbreviation_stem` of
    the word is not None; in the slot view, the slot holds :data:`ABBV`). Nunberg's absorption
    (the grammar's ``<abbv> .`` → ``<abbv>``): a sentence ends ``at 9 p.m.``, not ``p.m..``. The
    one rule every writer of punctuation obeys (:func:`~fstpunct.apps.restoration.strip.insert`,
    rephrasing's writer of every method, and the noisy corrector's scoring of what it would
    write)."""
    return after_dot and bool(marks) and marks[0] == "."


def raw_slots(sent: Sentence) -> list[tuple[str, ...]]:
    """Punctuation forms exactly as written, grouped into the n+1 slots between words."""
    slots: list[list[str]] = [[]]
    for w in sent.words:
        if w.is_punct:
            slots[-1].append(w.form)
        else:
            slots.append([])
    return [tuple(s) for s in slots]


def depunctuate(sent: Sentence) -> tuple[list[Word], list[int], int]:
    """Non-punctuation words, their heads re-indexed over them, and how many punctuation
    tokens had dependents (those dependents move to the punctuation token's nearest
    non-punctuation ancestor; extra roots this creates attach to the first root)."""
    punct = {w.id: w.is_punct for w in sent.words}
    head_of = {w.id: w.head for w in sent.words}
    kept = [w for w in sent.words if not punct[w.id]]
    index = {w.id: k for k, w in enumerate(kept, 1)}
    content_heads = {w.head for w in kept}  # heads of non-punctuation words
    with_deps = sum(1 for w in sent.words if punct[w.id] and w.id in content_heads)
    heads = []
    for w in kept:
        h = w.head
        while h and punct[h]:
            h = head_of[h]
        heads.append(index[h] if h else 0)
    roots = [k for k, h in enumerate(heads, 1) if h == 0]
    for k in roots[1:]:
        heads[k - 1] = roots[0]
    return kept, heads, with_deps


def surface_slots(sent: Sentence) -> tuple[list[str], list[list[str]], list[list[int]]]:
    """The word forms (abbreviations' dots off), the slot strings (directional quotes,
    :data:`ABBV` for an abbreviation's dot) and the word IDs of their tokens, as
    :func:`to_slots` has them (without the tree's work)."""
    quotes = quote_symbols(sent.words)
    forms: list[str] = []
    slots: list[list[str]] = [[]]
    slot_ids: list[list[int]] = [[]]
    for w in sent.words:
        if w.is_punct:
            slots[-1].append(quotes.get(w.id, w.form))
            slot_ids[-1].append(w.id)
            continue
        stem = abbreviation_stem(w.form)
        forms.append(w.form if stem is None else stem)
        slots.append([] if stem is None else [ABBV])
        slot_ids.append([] if stem is None else [w.id])
    return forms, slots, slot_ids


def punct_tokens(sent: Sentence) -> list[str]:
    """The tokens of ``sent``'s punctuation words in order (straight quotes directional), as
    :func:`surface_slots`'s slot strings hold them without the :data:`ABBV` tokens (none of
    the other words' work: the model-language check reads only these)."""
    quotes = quote_symbols(sent.words)
    return [t for t in (quotes.get(w.id, w.form) for w in sent.words if w.is_punct)
            if t != ABBV]


def to_slots(sent: Sentence) -> SlotSentence:
    """Prepare one sentence for the model (DESIGN §2), compiled (:mod:`._slots`): the same
    view as :func:`to_slots_reference`, its spans included."""
    parts = slot_parts(sent.words, ABBV, quote_symbols, projectivize)
    if parts is None:  # not a sentence as the reader gives it: the reference
        return to_slots_reference(sent)
    forms, upos, heads, deprels, slots, word_ids, slot_ids, lifted, with_deps, node_spans = parts
    out = SlotSentence(words=forms, upos=upos, heads=heads, deprels=deprels, slots=slots,
                       word_ids=word_ids, slot_ids=slot_ids, lifted=lifted,
                       punct_with_dependents=with_deps, sent_id=sent.sent_id, path=sent.path,
                       lineno=sent.lineno, index=sent.index)
    vars(out)["spans"] = node_spans  # the cached property, known already
    return out


def on_tree(sent: SlotSentence, tree: SlotSentence) -> SlotSentence:
    """``sent`` (e.g. a corrected sentence) with the words' tags and tree of ``tree``, another
    reading of the same words (e.g. a parser's of the learner sentence): its UPOS, heads,
    relations and count of lifted arcs (the spans follow the new heads); ``sent``'s
    punctuation, ids, place and count of punctuation tokens with dependents are kept, so
    whether it is :attr:`~SlotSentence.trainable` still follows ``sent``'s own tree. Other
    words: an :class:`InputError` naming both sentences."""
    if sent.words != tree.words:
        raise InputError(f"{sent.place}: other words than the tree given it ({tree.place})")
    return replace(sent, upos=tree.upos, heads=tree.heads, deprels=tree.deprels,
                   lifted=tree.lifted)


def to_slots_reference(sent: Sentence) -> SlotSentence:
    """:func:`to_slots` step by step in Python (the tests' oracle)."""
    kept, heads, with_deps = depunctuate(sent)
    heads, lifted = projectivize(heads)
    forms, slots, slot_ids = surface_slots(sent)
    return SlotSentence(
        words=tuple(forms),
        upos=tuple(w.upos for w in kept),
        heads=tuple(heads),
        deprels=tuple(w.deprel for w in kept),
        slots=tuple(tuple(s) for s in slots),
        word_ids=tuple(w.id for w in kept),
        slot_ids=tuple(tuple(s) for s in slot_ids),
        lifted=lifted,
        punct_with_dependents=with_deps,
        sent_id=sent.sent_id,
        path=sent.path,
        lineno=sent.lineno,
        index=sent.index,
    )


def slot_members(sent: SlotSentence) -> list[list[tuple[int, int]]]:
    """Per slot, the (node, side) whose punctemes make up uᵢ, in order: right punctemes of the
    constituents ending there (innermost first), then left punctemes of those starting there
    (outermost first); side 0 = left, 1 = right. Nodes are 0-based."""
    if sent.n == 0:  # the pseudo node: u₀ = ∘ l r
        return [[(0, 0), (0, 1)]]
    node_spans = sent.spans
    members: list[list[tuple[int, int]]] = [[] for _ in range(sent.n + 1)]
    by_size = sorted(range(sent.n), key=lambda k: node_spans[k][1] - node_spans[k][0])
    for k in by_size:
        members[node_spans[k][1]].append((k, 1))
    for k in reversed(by_size):
        members[node_spans[k][0]].append((k, 0))
    return members


def underlying_slot(i: int, n: int, parts: Iterable[tuple[int, Sequence[str]]]
                    ) -> tuple[list[str], list[int]]:
    """uᵢ from ``parts``, the (node, puncteme) of each member in :func:`slot_members` order
    (∘ opens slot 0), and the word (1-based) each of its tokens comes from: 0 for ∘ and for
    the pseudo node of a sentence without words (n = 0)."""
    u, origin = ([BOUNDARY], [0]) if i == 0 else ([], [])  # not opening(): a sampler's hot path
    for node, puncteme in parts:
        u.extend(puncteme)
        origin.extend([node + 1 if n else 0] * len(puncteme))
    return u, origin
