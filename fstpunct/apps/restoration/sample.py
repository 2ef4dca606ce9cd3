"""Draws of (T′, x) for depunctuated trees from the model's prior (paper §6.1).

With no surface punctuation observed, the posterior over (T′, x) given T is the prior: every
node draws its pair (l, r) independently from p(l, r | w) — the Attach model mixed with the
backoff β · q(l) · q(r), exactly as :mod:`fstpunct.model.punct` defines it — the slots' underlying
strings uᵢ follow from T′ (DESIGN §3), and each xᵢ is drawn from the channel p(xᵢ | uᵢ).

All m samples of a sentence are drawn at once: a vector of choices per node, per slot the
distinct underlying strings among the samples (``np.unique``), and the channel's sliding window
run over all m underlying strings of a slot together. Surface strings are kept without ``∘``
and the :data:`HIDDEN` symbols (``<abbv>``, ``<unk>``: nothing a restorer could write), each
with the word its tokens attach to: the node whose puncteme produced the token in the first
sample that drew the string.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import check_stream_seed, refuse_count
from ...fst.channel import KEEP, SWAP, Channel
from ...model.attach import AttachData
from ...model.punct import PunctModel
from ...model.vocab import Puncteme
from ...ud.slots import BOUNDARY, SlotSentence, slot_members, underlying_slot
from . import HIDDEN

__all__ = ["HIDDEN", "Draws", "PriorSampler", "SlotDraws", "Visible"]


class Visible:
    """What a reader sees of a channel output: x without ∘ and the ``hidden`` symbols, and
    each remaining token's word."""

    def __init__(self, channel: Channel, hidden: frozenset[str] = HIDDEN) -> None:
        self.channel, self.hidden = channel, hidden | {BOUNDARY}
        self._aligned: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[int, ...]] = {}

    def __call__(self, x: tuple[str, ...], u: Sequence[str], origin: Sequence[int]
                 ) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """x without hidden symbols, and each remaining token's word: that of the token of u
        it comes from (the only one with its symbol, or else the one on the channel's most
        probable path, :meth:`Channel.align`, cached)."""
        if len(set(u)) == len(u):
            positions: tuple[int, ...] | None = tuple(u.index(t) for t in x)
        else:
            key = (tuple(u), x)
            positions = self._aligned.get(key)
            if positions is None:
                positions = self._aligned[key] = self.channel.align(u, x)
        kept = [k for t, k in zip(x, positions) if t not in self.hidden]
        return tuple(u[k] for k in kept), tuple(origin[k] for k in kept)


@dataclass(frozen=True)
class SlotDraws:
    """The surface strings drawn for one slot."""

    strings: tuple[tuple[str, ...], ...]   # distinct strings, in order of first appearance
    heads: tuple[tuple[int, ...], ...]     # per string, the word (1-based; 0 = none) of each token
    of_sample: np.ndarray                  # per sample, its string's index

    def frequencies(self) -> np.ndarray:
        """Empirical probability of each distinct string."""
        return np.bincount(self.of_sample, minlength=len(self.strings)) / len(self.of_sample)


@dataclass(frozen=True)
class Draws:
    """m samples of x for one sentence, slot by slot (sample s is column s of every slot)."""

    slots: tuple[SlotDraws, ...]

    @property
    def size(self) -> int:
        return len(self.slots[0].of_sample)

    @classmethod
    def pool(cls, parts: Sequence[Draws]) -> Draws:
        """The samples of several :class:`Draws` of the same words (drawn under different
        trees, say) as one: a slot's strings in order of first appearance, each with the heads
        it has in the first part that drew it."""
        slots = []
        for per_part in zip(*(d.slots for d in parts)):
            index: dict[tuple[str, ...], int] = {}
            heads: list[tuple[int, ...]] = []
            of_sample = []
            for slot in per_part:
                remap = np.empty(len(slot.strings), dtype=np.int64)
                for j, (y, h) in enumerate(zip(slot.strings, slot.heads)):
                    if y not in index:
                        index[y] = len(index)
                        heads.append(h)
                    remap[j] = index[y]
                of_sample.append(remap[slot.of_sample])
            slots.append(SlotDraws(tuple(index), tuple(heads), np.concatenate(of_sample)))
        return cls(tuple(slots))


class PriorSampler:
    """Samples (T′, x) from p(T′ | T) · p(x | T′) for batches of depunctuated sentences."""

    def __init__(self, model: PunctModel, samples: int = 1000, seed: int = 0,
                 hidden: frozenset[str] = HIDDEN, stream: int | None = None) -> None:
        refuse_count(1, samples=samples)
        check_stream_seed(seed)  # one word: (seed, first + k, stream) must not run into another
        self.model, self.samples, self.seed = model, samples, seed
        self._stream = () if stream is None else (stream,)
        self._visible = Visible(model.channel, hidden)
        channel, settings = model.channel, model.settings
        self._sigma = [t for t in channel.symbols if t != BOUNDARY]
        self._continuation, self._backoff = settings.continuation, settings.backoff
        self._pairs = np.asarray(model.vocab.pairs, dtype=np.int64).reshape(-1, 2)
        self._index = {t: k for k, t in enumerate(channel.symbols)}

    def draws(self, sentences: Sequence[SlotSentence], first: int = 0) -> Iterator[Draws]:
        """:class:`Draws` for every sentence; sentence k of the batch uses the random stream
        (seed, first + k[, stream]), so results do not depend on how a corpus is batched."""
        data = AttachData.build(self.model.attach, sentences)
        probs = self.model.attach_probabilities(data)
        for k, sent in enumerate(sentences):
            rng = np.random.default_rng([self.seed, first + k, *self._stream])
            nodes = range(data.sentence_offsets[k], data.sentence_offsets[k + 1])
            punctemes = list(self.model.vocab.punctemes)
            lefts, rights = [], []
            for node in nodes:
                lo, hi = data.node_offsets[node], data.node_offsets[node + 1]
                l, r = self._draw_pairs(rng, data.pairs[lo:hi], probs[lo:hi], punctemes)
                lefts.append(l)
                rights.append(r)
            yield self._surface(rng, sent, np.array(lefts).T, np.array(rights).T, punctemes)

    def _draw_pairs(self, rng: np.random.Generator, pairs: np.ndarray, probs: np.ndarray,
                    punctemes: list[Puncteme]) -> tuple[np.ndarray, np.ndarray]:
        """Left and right puncteme ids of m draws of one node's pair; backoff draws append
        their punctemes to ``punctemes``."""
        cdf = np.cumsum(probs)
        picks = np.minimum(np.searchsorted(cdf, rng.random(self.samples) * cdf[-1], side="right"),
                           len(pairs) - 1)
        ids = self._pairs[pairs[picks]]
        for s in np.flatnonzero(rng.random(self.samples) < self._backoff):
            for side in (0, 1):
                ids[s, side] = len(punctemes)
                punctemes.append(self._geometric(rng))
        return ids[:, 0], ids[:, 1]

    def _geometric(self, rng: np.random.Generator) -> Puncteme:
        """A draw from q: length k with probability (1 − s) sᵏ, tokens uniform over Σ."""
        length = rng.geometric(1.0 - self._continuation) - 1
        return tuple(self._sigma[j] for j in rng.integers(len(self._sigma), size=length))

    def _surface(self, rng: np.random.Generator, sent: SlotSentence, lefts: np.ndarray,
                 rights: np.ndarray, punctemes: list[Puncteme]) -> Draws:
        symbols = self.model.channel.symbols
        slots = []
        for i, members in enumerate(slot_members(sent)):
            ids = np.array([(rights if side else lefts)[:, node] for node, side in members],
                           dtype=np.int64).reshape(len(members), self.samples).T
            rows, inverse = _unique_rows(ids)
            us, origins = zip(*(underlying_slot(i, sent.n, ((node, punctemes[pid]) for
                                                            (node, _), pid in zip(members, row)))
                                for row in rows))
            out = self._channel_draws(rng, _padded([[self._index[t] for t in u] for u in us]),
                                      inverse)
            outputs, of_output = _unique_rows(out)
            strings: dict[tuple[str, ...], int] = {}
            heads: list[tuple[int, ...]] = []
            index = np.empty(len(outputs), dtype=np.int64)
            for j, (x, s) in enumerate(zip(outputs, _first_of(of_output, len(outputs)))):
                row = inverse[s]
                y, y_heads = self._visible(tuple(symbols[t] for t in x if t >= 0), us[row],
                                           origins[row])
                if y not in strings:
                    strings[y] = len(strings)
                    heads.append(y_heads)
                index[j] = strings[y]
            slots.append(SlotDraws(tuple(strings), tuple(heads), index[of_output]))
        return Draws(tuple(slots))

    def _channel_draws(self, rng: np.random.Generator, us: np.ndarray,
                       of_sample: np.ndarray) -> np.ndarray:
        """One draw of x ~ p(· | u) per sample, all samples at once.

        ``us`` holds the distinct underlying strings as channel ids (padded with −1) and
        ``of_sample`` each sample's row in it. Returns each sample's output ids in natural
        order, padded with −1 (rows equal exactly when the outputs are equal)."""
        scan = us[of_sample]
        lengths = (scan >= 0).sum(axis=1)
        if self.model.channel.direction == "rtl":  # scan right to left
            scan = _reverse_prefixes(scan, lengths)
        m, width = scan.shape
        out = np.full((m, max(width, 1)), -1, dtype=np.int64)
        filled = np.zeros(m, dtype=np.int64)
        pending = scan[:, 0].copy() if width else np.full(m, -1)
        ltr = self.model.channel.direction == "ltr"
        for t in range(1, width):
            live = np.flatnonzero(lengths > t)
            new, old = scan[live, t], pending[live]
            a, b = (old, new) if ltr else (new, old)
            cdf = np.cumsum(self.model.channel.phi[a, b], axis=1)
            edit = (rng.random(len(live)) * cdf[:, -1] >= cdf[:, :-1].T).sum(axis=0)
            emitted = np.where(edit == KEEP, old, np.where(edit == SWAP, new, -1))
            pending[live] = np.choose(edit, [new, b, a, old])  # KEEP, LEFT, RIGHT, SWAP
            said = live[emitted >= 0]
            out[said, filled[said]] = emitted[emitted >= 0]
            filled[said] += 1
        said = np.flatnonzero(lengths > 0)
        out[said, filled[said]] = pending[said]
        filled[said] += 1
        return out if ltr else _reverse_prefixes(out, filled)


def _unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a matrix of ints ≥ −1 and each row's index among them (rows packed
    into one integer when they fit, which is much faster than ``np.unique(axis=0)``)."""
    base = int(a.max(initial=0)) + 2
    if a.shape[1] * math.log2(base) < 62:
        keys = (a + 1) @ (base ** np.arange(a.shape[1], dtype=np.int64))
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return a[first], inverse.reshape(-1)
    rows, inverse = np.unique(a, axis=0, return_inverse=True)
    return rows, inverse.reshape(-1)


def _padded(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """Rows of ints as a matrix padded with −1."""
    out = np.full((len(rows), max(map(len, rows), default=0)), -1, dtype=np.int64)
    for k, row in enumerate(rows):
        out[k, :len(row)] = row
    return out


def _reverse_prefixes(a: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each row's first ``lengths`` entries reversed (the padding stays at the end)."""
    cols = np.arange(a.shape[1])
    src = np.where(cols < lengths[:, None], lengths[:, None] - 1 - cols, cols)
    return np.take_along_axis(a, src, axis=1)


def _first_of(labels: np.ndarray, n: int) -> np.ndarray:
    """For each label 0..n−1, the first position holding it."""
    first = np.full(n, len(labels))
    np.minimum.at(first, labels, np.arange(len(labels)))
    return first
