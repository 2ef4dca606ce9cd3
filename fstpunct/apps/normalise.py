"""Treebank punctuation normalisation (Tse & Curran 2010, carried from CCGbank to UD).

Tse & Curran give every comma of CCGbank one structure per syntactic role. Here the roles come
from the model: each punctuation token is re-attached (HEAD, and the matching DEPS entry) to the
word whose constituent's underlying puncteme wrote it, on the Viterbi T′ and its most probable
channel path (:meth:`~fstpunct.fst.channel.Channel.align`): a period moved inside closing quotes
hangs from the constituent whose puncteme it is, and of two marks merged into one (``, ,`` →
``,``) the survivor is the later one's, as the channel defines it.

A token whose new attachment would be non-projective (or make another arc so) hangs from the
nearest ancestor of the model's word where it is not, else keeps its head (both counted):
normalise never makes punctuation non-projective. Nothing else changes: every line, comment and
column is kept. Tokens keep their head, and are
counted, in a slot where the backoff wrote a puncteme (its tokens are not known), in a sentence
of punctuation only (no word to attach to) and in a sentence where punctuation has dependents
(re-attaching could close a cycle; DESIGN §2 leaves such sentences out of training too).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import astuple, dataclass

from ..errors import ModelError
from ..model.punct import Inference, PunctModel, SlotCache
from ..model.vocab import Puncteme
from ..parallel import Pool
from ..ud.slots import ABBV, SlotSentence, slot_members, underlying_slot
from ..ud.tree import lift_to_projective
from ..ud.treebank import Sentence
from ..wording import counted
from .decode import chunk_inference, inference_of, over_chunks

__all__ = ["Counts", "normalise", "slot_heads"]


@dataclass
class Counts:
    """What a normalisation did: punctuation tokens seen, re-attached, and kept (module
    docstring)."""

    sentences: int = 0
    tokens: int = 0
    moved: int = 0
    kept: int = 0
    projective: int = 0  # not on the model's word, to stay projective

    def __str__(self) -> str:
        share = 100.0 * self.moved / max(self.tokens, 1)
        return (f"{counted(self.sentences, 'sentence')}: {self.moved} of "
                f"{counted(self.tokens, 'punctuation token')} "
                f"re-attached ({share:.1f}%), {self.kept} kept their head (backoff, no word, or "
                f"punctuation with dependents), {self.projective} not on the model's word to "
                "stay projective (on an ancestor of it, or on their own head)")

    def add(self, other: Counts) -> None:
        """Add ``other``'s tallies to these."""
        for name, x in zip(self.__dataclass_fields__, astuple(other)):
            setattr(self, name, getattr(self, name) + x)


def slot_heads(model: PunctModel, slots: SlotSentence, surfaces: tuple[tuple[str, ...], ...],
               pairs: Sequence[tuple[Puncteme, Puncteme] | None]
               ) -> list[tuple[int, ...] | None]:
    """Per slot, the word (1-based) whose puncteme wrote each surface token (∘ left out), or
    None for a slot where the backoff wrote a puncteme. ``surfaces``: the slot strings in
    model symbols, ∘ opening slot 0; ``pairs``: the Viterbi (l, r) of every node."""
    out: list[tuple[int, ...] | None] = []
    for i, members in enumerate(slot_members(slots)):
        if any(pairs[node] is None for node, _ in members):
            out.append(None)
            continue
        u, origin = underlying_slot(i, slots.n, ((node, pairs[node][side])
                                                 for node, side in members))
        positions = model.channel.align(u, surfaces[i])
        if positions is None:
            raise ModelError(f"{slots.place}: the best T′ cannot write slot {i} "
                             f"({' '.join(surfaces[i])}): the model is inconsistent")
        heads = tuple(origin[k] for k in positions)
        out.append(heads[1:] if i == 0 else heads)
    return out


def normalise(model: PunctModel, sentences: Iterable[Sentence], counts: Counts | None = None,
              chunk: int = 500, pool: Pool | None = None) -> Iterator[Sentence]:
    """Re-attach the punctuation of every sentence (streamed in chunks of ``chunk``); tallies
    go to ``counts``. On a parallel ``pool``, chunks in parallel (the same output and
    tallies)."""
    counts = counts if counts is not None else Counts()
    if pool is not None and pool.parallel:
        for sent, tally in over_chunks(pool, model, sentences, _normalise_step, chunk,
                                       paired=False):
            counts.add(tally)
            yield sent
        return
    for batch, prepared, inference in chunk_inference(model, sentences, chunk, paired=False):
        for sent, *analysis in _analyses(batch, prepared, inference):
            _reattach(model, sent, *analysis, counts)
            yield sent


def _normalise_step(model: PunctModel, sentences: list[Sentence],
                    slots: SlotCache) -> list[tuple[Sentence, Counts]]:
    """A chunk re-attached, each sentence with its tallies."""
    out = []
    for sent, *analysis in _analyses(sentences, *inference_of(model, sentences, slots)):
        _reattach(model, sent, *analysis, tally := Counts())
        out.append((sent, tally))
    return out


def _analyses(sentences: list[Sentence], prepared: list[SlotSentence], inference: Inference
              ) -> Iterator[tuple[Sentence, SlotSentence, tuple[tuple[str, ...], ...],
                                  list[tuple[Puncteme, Puncteme] | None]]]:
    """Every sentence of a chunk with its slot view, surface strings and Viterbi pairs."""
    yield from zip(sentences, prepared, inference.batch.surfaces, inference.viterbi_all())


def _reattach(model: PunctModel, sent: Sentence, slots: SlotSentence,
              surfaces: tuple[tuple[str, ...], ...],
              pairs: Sequence[tuple[Puncteme, Puncteme] | None], counts: Counts) -> None:
    """Re-attach one sentence's punctuation (see the module docstring)."""
    counts.sentences += 1
    heads = slot_heads(model, slots, surfaces, pairs) if slots.trainable else \
        [None] * len(slots.slots)
    tree = [w.head for w in sent.words]
    for i, ids in enumerate(slots.slot_ids):
        for j, line_id in enumerate(ids):
            if slots.slots[i][j] == ABBV:  # the dot of an abbreviation: not a token
                continue
            counts.tokens += 1
            head = 0 if heads[i] is None else heads[i][j]
            if head == 0:
                counts.kept += 1
                continue
            target = old = tree[line_id - 1]
            if slots.word_ids[head - 1] != old:  # never made non-projective (module docstring)
                tree[line_id - 1] = slots.word_ids[head - 1]
                target = lift_to_projective(tree, line_id, old)
                counts.projective += target != slots.word_ids[head - 1]
            counts.moved += sent.set_head(line_id, target)
