"""Correcting sentences: T_e′ under the learners' model, then restoration's decoders.

Every sentence keeps its words and tree; its punctuation is replaced by the minimum-Bayes-risk
choice under p(T_c′, x_c | T, T_e′) (the loss: token edit distance summed over slots), with
restoration's decoders: by default the exact ones of :mod:`fstpunct.apps.restoration.exact`
(``balanced`` or ``slot``, deterministic) and ``learner`` (below), or MBR over samples of
:class:`PriorSampler`
(``samples``; sentence k of a run draws from the random stream (seed, k)). Each token written
attaches to the word whose puncteme produced it (:meth:`~fstpunct.fst.channel.Channel.align`
on the channel's most probable path); ``# text`` is rebuilt.

The exact decoders follow the model's :class:`~.model.Decoding` (or the one given, its
``decoder`` included): the loss
adds ``edit_cost`` per token of edit distance between the chosen string and the learner's,
R′(y) = R(y) + c · ed(y, x_e) — computed as MBR under the slot's distribution mixed with mass
c / (1 + c) on the learner's string, which has the same minimiser — so an edit is made only
where it lowers the expected loss by more than c per token; and a slot whose learner string
has probability below ``support`` keeps it (the string, with its heads, is the slot's only
candidate; the balanced decoder balances the sentence's marks around it; the ``learner``
decoder only where the learner's own marks balance — a learner's sentence whose quote opens or
closes in another sentence, or a wrong-way quote, is not made to balance by dropping or adding
a mark, an edit that no edit cost would make); with a ``platt``
map (:mod:`.platt`), every other slot's learner string gets its re-estimated probability
first; with a ``gate`` (:mod:`.gate`), the edits it judges more likely wrong than right are
then undone.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ...batching import batches
from ...errors import InputError
from ...ud.annotations import forget
from ...ud.slots import SlotSentence, to_slots
from ...ud.treebank import Sentence
from ..restoration import Insertion, marks, mbr
from ..restoration import exact as exact_mbr
from ..restoration.generative import DECODERS, check_sampling
from ..restoration.pipeline import has_words
from ..restoration.sample import PriorSampler
from ..restoration.strip import insert, insertions_of, strip
from .gate import gated
from .model import DECODERS_CORRECT, CorrectionModel, Decoding, unexplained
from .platt import mapped

__all__ = ["DECODERS_CORRECT", "Prepared", "corrected", "corrections", "decided",
           "read_distributions", "reads_alike", "slot_distributions"]


def _keeping(slot: exact_mbr.SlotDistribution, own: Insertion, keep: float
             ) -> exact_mbr.SlotDistribution:
    """The slot's distribution mixed with a point mass ``keep`` on the learner's string."""
    y = marks(own)
    strings, heads = list(slot.strings), list(slot.heads)
    if y not in strings:
        strings.append(y)
        heads.append(tuple(h for _, h in own))
    probs = np.zeros(len(strings))
    probs[:len(slot.probs)] = (1.0 - keep) * slot.probs
    probs[strings.index(y)] += keep
    return exact_mbr.SlotDistribution(tuple(strings), tuple(heads), probs)


def slot_distributions(model: CorrectionModel, sentences: Sequence[Sentence], first: int = 0
                       ) -> list[list[exact_mbr.SlotDistribution]]:
    """Every sentence's exact slot distributions under the corrector, given its T_e′; for a
    model trained on drawn readings (record ``readings`` D), the equal mixture of the
    distributions given each of D draws of T_e′ (:meth:`~.model.CorrectionModel.readings_of`:
    sentence k draws from stream (S, first + k), S the record's ``readings_seed``, 0 if none,
    whatever the other sentences of the call)."""
    return read_distributions(model, model.readings_of([to_slots(s) for s in sentences], first))


def read_distributions(model: CorrectionModel, readings: list[list[SlotSentence]]
                       ) -> list[list[exact_mbr.SlotDistribution]]:
    """:func:`slot_distributions` from the sentences' readings of T_e′ (``model.readings_of``'s,
    or another model's of the same learner model and readings)."""
    return list(exact_mbr.ExactPrior(model.corrector).distributions(readings))


def decided(model: CorrectionModel, slots: Sequence[exact_mbr.SlotDistribution],
            own: Sequence[Insertion], decoding: Decoding) -> list[Insertion]:
    """One sentence's corrected punctuation from its slot distributions and the learner's
    punctuation ``own`` (module docstring), by ``decoding``'s decoder."""
    decoder = decoding.decoder
    weight = decoding.edit_cost / (1.0 + decoding.edit_cost)
    mixed = []
    for slot, o in zip(slots, own):
        if unexplained(slot, o, decoding.support):  # kept: the learner's string alone
            mixed.append(exact_mbr.SlotDistribution((marks(o),),
                                                    (tuple(h for _, h in o),), np.ones(1)))
        else:
            slot = mapped(slot, o, decoding.platt, decoding.support)
            mixed.append(_keeping(slot, o, weight) if weight else slot)
    choice = exact_mbr.slot_decoder(mixed)
    pairs = model.corrector.attach.symmetric
    if decoder != "slot" and not exact_mbr.balanced(mixed, choice, pairs) and (
            decoder == "balanced" or exact_mbr.balanced_strings([marks(o) for o in own], pairs)):
        choice = exact_mbr.balanced_decoder(mixed, pairs)
    out = exact_mbr.insertions(mixed, choice)
    return gated(slots, own, out, decoding.gate, pairs) if decoding.gate else out


@dataclass
class Prepared:
    """Learner sentences ready to be corrected under any number of decodings: without their
    punctuation (``stripped``), their punctuation as insertions (``own``) and their
    :func:`slot_distributions` under ``model``, computed once from the sentences' readings of
    T_e′ (one list per reading: ``model.readings_of``'s), which are kept as ``readings`` only
    when asked (``keep_readings``; else None)."""

    model: CorrectionModel
    stripped: list[Sentence]
    own: list[list[Insertion]]
    dists: list[list[exact_mbr.SlotDistribution]]
    readings: list[list[SlotSentence]] | None = None

    @classmethod
    def of(cls, model: CorrectionModel, sentences: Sequence[Sentence],
           keep_readings: bool = False) -> Prepared:
        """The sentences (all with words) prepared for ``model``."""
        return cls.sharing([model], sentences, keep_readings=keep_readings)[0]

    @classmethod
    def sharing(cls, models: Sequence[CorrectionModel], sentences: Sequence[Sentence],
                names: Sequence[str] | None = None, keep_readings: bool = False
                ) -> list[Prepared]:
        """The sentences (all with words) prepared for each of ``models`` (e.g. the bags of
        one cv fold, :mod:`.bagging`), stripped and read (T_e′) once, by the first model's
        learner model and readings; an InputError for no model, or for a model that reads
        otherwise (:func:`reads_alike`), naming it and the first by ``names`` (default:
        ``correction model K``)."""
        if not models:
            raise InputError("Prepared.sharing: no correction model to prepare for")
        names = names or [f"correction model {k}" for k in range(len(models))]
        for k, other in enumerate(models[1:], 1):
            if not reads_alike(models[0], other):
                raise InputError(f"{names[k]}: its learner model or readings of T_e' are not "
                                 f"{names[0]}'s (sharing reads them once, by {names[0]}'s)")
        stripped, own = [strip(s) for s in sentences], [insertions_of(s) for s in sentences]
        readings = models[0].readings_of([to_slots(s) for s in sentences])
        return [cls(m, stripped, own, read_distributions(m, readings),
                    readings if keep_readings else None) for m in models]

    @classmethod
    def over_trees(cls, model: CorrectionModel, sources: Sequence[Sequence[Sentence]]
                   ) -> Prepared:
        """The same sentences (all with words) on several trees (``sources``: one list per
        tree source, sentence k of each with the same tokens) prepared for ``model``: T_e′
        read on each tree (each of the model's readings on each), the slot distributions the
        equal mixture over all of them (:func:`read_distributions`); stripped and the
        learner's punctuation from the first source. An InputError for no source, for a
        source with another number of sentences than the first (naming the first sentence
        without a counterpart) and for a sentence whose tokens differ between sources (naming
        both)."""
        if not sources:
            raise InputError("Prepared.over_trees: no tree source")
        first = sources[0]
        for k, other in enumerate(sources[1:], 1):
            if len(other) != len(first):
                short, longer = sorted((first, other), key=len)
                raise InputError(f"{longer[len(short)].place}: tree source {k} has "
                                 f"{len(other)} sentences, the first {len(first)}")
            for a, b in zip(first, other):
                if [w.form for w in a.words] != [w.form for w in b.words]:
                    raise InputError(f"{b.place}: not the tokens of {a.place}")
        readings = [r for sents in sources for r in model.readings_of([to_slots(s)
                                                                      for s in sents])]
        return cls(model, [strip(s) for s in first], [insertions_of(s) for s in first],
                   read_distributions(model, readings))

    def corrected_with(self, decoding: Decoding) -> list[Sentence]:
        """The sentences corrected under ``decoding`` (:func:`decided`)."""
        return [insert(t, decided(self.model, d, o, decoding))
                for t, o, d in zip(self.stripped, self.own, self.dists)]


def reads_alike(one: CorrectionModel, other: CorrectionModel) -> bool:
    """Whether ``other`` reads T_e′ as ``one`` does: the same drawn readings (count and
    stream) and the same learner model — the same object, or one of equal θ, channel,
    vocabularies, contexts and settings (a model loaded twice)."""
    a, b = one.learner, other.learner
    return one.readings == other.readings and one.readings_seed == other.readings_seed and (
        a is b or (a.settings == b.settings and np.array_equal(a.theta, b.theta)
                   and (a.channel.symbols, a.channel.direction)
                   == (b.channel.symbols, b.channel.direction)
                   and np.array_equal(a.channel.phi, b.channel.phi)
                   and (a.attach.symmetric, a.attach.contexts)
                   == (b.attach.symmetric, b.attach.contexts)
                   and a.vocab.to_dict() == b.vocab.to_dict()))


def corrections(model: CorrectionModel, sentences: Sequence[Sentence],
                samples: int | None = None, mbr_decoder: str = "sentence", seed: int = 0,
                first: int = 0, decoding: Decoding | None = None) -> list[list[Insertion]]:
    """The corrected punctuation of every sentence (all with words) as insertions into the
    stripped sentence: exact, with ``decoding`` (default: the model's; its decoder included;
    sentence k's drawn readings, if the model has them, from stream (S, first + k), S its
    ``readings_seed``); with
    ``samples``, sentence k draws from stream (seed, first + k) and MBR is plain."""
    if samples is None:
        decoding = decoding or model.decoding
        return [decided(model, slots, insertions_of(sent), decoding)
                for sent, slots in zip(sentences, slot_distributions(model, sentences, first))]
    _exact_only(model, samples)
    learner, = model.readings_of([to_slots(s) for s in sentences])
    decode = DECODERS[mbr_decoder]
    return [mbr.insertions(d, decode(d)) for d in
            PriorSampler(model.corrector, samples, seed).draws(learner, first)]


def _exact_only(model: CorrectionModel, samples: int | None) -> None:
    """Refuse ``samples`` for a model trained on drawn readings: it decodes exactly only."""
    if samples is not None and model.readings:
        raise InputError("a correction model trained on drawn readings decodes exactly only "
                         "(no samples)")


def corrected(sentences: Iterable[Sentence], model: CorrectionModel, decoder: str | None = None,
              samples: int | None = None, mbr_decoder: str | None = None,
              seed: int | None = None, batch: int = 100, edit_cost: float | None = None,
              support: float | None = None, parsed: bool = False) -> Iterator[Sentence]:
    """Every sentence with its punctuation corrected (module docstring); a sentence that is
    all punctuation keeps its marks as they are, less decode's analysis
    (:func:`~fstpunct.ud.annotations.forget`, as :func:`strip` drops it). ``decoder``,
    ``edit_cost``, ``support``: the exact decoders' (default: the model's decoding for the
    trees' source, a parser's if ``parsed``: :meth:`~.model.CorrectionModel.decoding_for`);
    ``mbr_decoder`` (default ``sentence``) and ``seed`` (default 0): with ``samples`` only. The
    options are checked now (an InputError), before any sentence is read."""
    mbr_decoder, seed = check_sampling(
        samples, {"decoder": decoder, "edit_cost": edit_cost, "support": support},
        mbr_decoder, seed)
    _exact_only(model, samples)
    stored = model.decoding_for(parsed)
    decoding = replace(stored, edit_cost=stored.edit_cost if edit_cost is None else edit_cost,
                       support=stored.support if support is None else support,
                       decoder=stored.decoder if decoder is None else decoder)  # an unknown
    # decoder (or "") is refused by Decoding
    return _corrected(sentences, model, samples, mbr_decoder, seed, batch, decoding)


def _corrected(sentences: Iterable[Sentence], model: CorrectionModel, samples: int | None,
               mbr_decoder: str, seed: int, batch: int, decoding: Decoding
               ) -> Iterator[Sentence]:
    """:func:`corrected`, its options checked."""
    first = 0
    for group in batches(sentences, batch):
        words = [s for s in group if has_words(s)]
        out = iter(corrections(model, words, samples, mbr_decoder, seed, first, decoding))
        first += len(words)
        for sent in group:
            yield insert(strip(sent), next(out)) if has_words(sent) else forget(sent)
