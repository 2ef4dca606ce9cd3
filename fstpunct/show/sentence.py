"""What the pictures of a sentence show, computed once for the SVG tree and the HTML viewer.

A :class:`SentenceView` holds a sentence's words and depunctuated tree, the Viterbi T′ (each
node's underlying left and right punctemes), every slot's underlying string uᵢ with the fate of
each of its tokens on the most probable channel path that writes the surface xᵢ (kept,
absorbed or transposed), that path's edits, and optionally each word's K most probable
(l, r) pairs with their posteriors.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..apps.decode import Pair, chunk_inference, ranked_pairs
from ..fst.channel import EDITS, Channel
from ..model.punct import Inference, PunctModel
from ..ud.slots import ABBV, UNK, SlotSentence, opening, slot_members, underlying_slot
from ..ud.treebank import Sentence
from ..ud.width import written

__all__ = ["FATES", "Mark", "SentenceView", "SlotView", "Step", "is_rtl", "sentence_views",
           "slot_surface", "view_of"]

FATES = ("kept", "absorbed", "transposed", "backoff")
_SHOWN = {ABBV: ".", UNK: "⟨unk⟩"}  # model symbols as a reader sees them


def shown(token: str) -> str:
    """A model symbol as a reader sees it (``<abbv>`` as ``.``, ``<unk>`` as ``⟨unk⟩``)."""
    return _SHOWN.get(token, token)


def slot_surface(sent: Sentence, slots: SlotSentence, i: int) -> tuple[str, ...]:
    """Slot ``i``'s surface tokens as pictures print them: as the input wrote them
    (:func:`fstpunct.ud.width.written`), model symbols as a reader sees them (:func:`shown`)."""
    return tuple(shown(t) for t in written(sent, slots.slot_ids[i], slots.slots[i]))


@dataclass(frozen=True)
class Mark:
    """One underlying token of a slot: its text, the node whose puncteme holds it (1-based; 0
    for ∘), which side of that node's constituent (``l`` or ``r``) and its fate."""

    text: str
    node: int
    side: str
    fate: str


@dataclass(frozen=True)
class Step:
    """One channel edit of a slot's best path: the window ``a b``, the edit and its
    probability."""

    a: str
    b: str
    edit: str
    p: float


@dataclass(frozen=True)
class SlotView:
    """Slot i: the surface tokens xᵢ as written, the underlying uᵢ of the Viterbi T′ (empty and
    ``backoff`` when a backoff puncteme is part of it: its tokens are unknown), and the best edit
    path writing xᵢ from uᵢ with its probability; ``read``: xᵢ has a token the model read as its
    width twin (the path's steps write the model's forms, :mod:`fstpunct.ud.width`)."""

    surface: tuple[str, ...]
    underlying: tuple[Mark, ...]
    steps: tuple[Step, ...]
    prob: float
    backoff: bool = False
    read: bool = False


@dataclass(frozen=True)
class SentenceView:
    """Everything a drawing or the viewer shows of one sentence: words and tree, each word's
    Viterbi pair (and K best), each slot's surface, underlying marks and edit path."""

    sent_id: str
    text: str
    words: tuple[str, ...]
    upos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]  # each word's constituent as a slot span (i, k)
    pairs: tuple[Pair, ...]  # the Viterbi (l, r) of each word (None: the backoff)
    slots: tuple[SlotView, ...]
    log_prob: float
    ranked: tuple[tuple[tuple[Pair, float], ...], ...] = ()  # per word, K best pairs

    @property
    def n(self) -> int:
        return len(self.words)

    @property
    def rtl(self) -> bool:
        return is_rtl(self.words)


def is_rtl(words: Iterable[str]) -> bool:
    """Whether most letters of ``words`` belong to right-to-left scripts (Arabic, Hebrew, …)."""
    rtl = ltr = 0
    for word in words:
        for c in word:
            kind = unicodedata.bidirectional(c)
            rtl += kind in ("R", "AL")
            ltr += kind == "L"
    return rtl > ltr


def _fates(channel: Channel, u: Sequence[str], x: Sequence[str]
           ) -> tuple[list[str], tuple[Step, ...], float] | None:
    """The fate of each token of u on the best path writing x, its edits and probability."""
    path = channel.best_path(u, x)
    if path is None:
        return None
    fates = ["absorbed"] * len(u)
    order = path.positions
    for j, pos in enumerate(order):
        moved = (j and order[j - 1] > pos) or (j + 1 < len(order) and order[j + 1] < pos)
        fates[pos] = "transposed" if moved else "kept"
    steps = tuple(Step(shown(u[s.a]), shown(u[s.b]), EDITS[s.edit], s.p) for s in path.steps)
    return fates, steps, path.prob


def _text(sent: Sentence) -> str:
    for comment in sent.comments:
        key, _, value = comment.partition("=")
        if key.strip("# ").strip() == "text":
            return value.strip()
    return " ".join(written(sent, [w.id for w in sent.words], [w.form for w in sent.words]))


def view_of(model: PunctModel, sent: Sentence, slots: SlotSentence, inference: Inference,
            s: int, pairs: Sequence[Pair], k: int = 0) -> SentenceView:
    """Sentence ``s`` of ``inference``'s batch with its Viterbi ``pairs``; with ``k``, each
    word's K most probable pairs (an outside pass)."""
    surfaces = inference.batch.surfaces[s]
    views = []
    for i, members in enumerate(slot_members(slots)):
        x = slot_surface(sent, slots, i)
        read = written(sent, slots.slot_ids[i], slots.slots[i]) != slots.slots[i]
        if any(pairs[node] is None for node, _ in members):
            views.append(SlotView(x, (), (), 0.0, backoff=True, read=read))
            continue
        parts = [(node, pairs[node][side]) for node, side in members]  # type: ignore[index]
        u, origin = underlying_slot(i, slots.n, parts)
        sides = [*opening(i, ""), *("lr"[side] for node, side in members
                                     for _ in pairs[node][side])]  # type: ignore[index]
        found = _fates(model.channel, u, surfaces[i])
        if found is None:  # cannot happen for a Viterbi T′; shown rather than hidden
            views.append(SlotView(x, (), (), 0.0, backoff=True, read=read))
            continue
        fates, steps, prob = found
        marks = tuple(Mark(shown(t), o, side, fate)
                      for t, o, side, fate in zip(u, origin, sides, fates))
        views.append(SlotView(x, marks, steps, prob, read=read))
    ranked: tuple[tuple[tuple[Pair, float], ...], ...] = ()
    if k:  # the outside pass gives log p too
        nodes, log_prob = ranked_pairs(inference, s)
        ranked = tuple(tuple(node[:k]) for node in nodes)
    else:
        log_prob = inference.log_prob(s)
    return SentenceView(sent.sent_id or "", _text(sent), slots.words, slots.upos, slots.heads,
                        slots.deprels, tuple(slots.spans) if slots.n else (),
                        tuple(pairs), tuple(views), log_prob, ranked)


def sentence_views(model: PunctModel, sentences: Iterable[Sentence], k: int = 5,
                   chunk: int = 200) -> Iterator[SentenceView]:
    """A :class:`SentenceView` of every sentence (streamed in chunks of ``chunk``); ``k``: how
    many pairs per word (0: none, and no outside pass)."""
    for batch, prepared, inference in chunk_inference(model, sentences, chunk):
        for s, (sent, slots, pairs) in enumerate(zip(batch, prepared, inference.viterbi_all())):
            yield view_of(model, sent, slots, inference, s, pairs, k)
