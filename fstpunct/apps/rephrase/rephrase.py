"""Rephrasing (paper §6.3): sentences re-ordered or shortened, their punctuation written again.

Every sentence is *self-permuted* (:mod:`.permute`: the families of its NOUN and VERB heads
re-ordered by the same language's ordering model) and/or has constituents *deleted* (by
relation, or every constituent whose underlying punctemes are brackets). Three ways to write the
result:

- **full**: the sentence's T′ — the Viterbi one (:mod:`fstpunct.apps.decode`), or with
  ``tree="sample"`` a draw from p(T′ | T, x) for each sample — is transformed (every word keeps
  its underlying (l, r); :mod:`.underlying` first pins the final point to the root and drops
  absorbed brackets without a partner) and each changed slot's surface is drawn through the
  channel (or, with ``best_surface``, is the channel's most probable output for it; with
  ``rewrite_all`` every slot is, not only the changed ones);
- **half**: the transformed T′'s underlying marks are printed as they are (no channel);
- **base**: the surface tree is transformed with its punctuation tokens as ordinary dependents
  (deletion drops a constituent's words and the punctuation tokens attached inside it).

Whichever way, a ``.`` written right after a word that ends in an abbreviation's dot is left
out (:func:`~fstpunct.ud.slots.absorbs`, every writer's rule: ``at 9 p.m.``, not ``p.m. .``).

Random streams (:func:`stream`): every draw for sentence i (its index in the input, counted
from 0) comes from a stream of its own, (seed, i, sample, purpose), so that a sentence's
rephrasings depend neither on its neighbours nor on how the input is chunked. Purposes: the word
order (:data:`ORDER`, 0; the same for all three methods, so they differ only in punctuation) and
the channel (:data:`CHANNEL`, 1) of each sample; the posterior T′ (:data:`TREE`, 2) and the
balanced T′ (:data:`TILT`, 3), all of a sentence's samples from one stream (sample 0). Every
stream is four 32-bit words (a seed below 2**32), so no two are the same: numpy's SeedSequence
pads a shorter entropy with zeros ((a, b) is (a, b, 0)) and splits a larger integer into
words, which would make a stream of another length collide with another's.
"""
from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ...errors import InputError, check_stream_seed, refuse_choice, refuse_count, refuse_unused
from ...model.punct import Inference, PunctModel
from ...ud.slots import SlotSentence, abbreviation_stem, absorbs, depunctuate, quote_symbols
from ...ud.tree import children
from ...ud.treebank import RELATIONS, Sentence, universal
from ..decode import chunk_inference, inference_of
from .assemble import OutToken, assemble, origin_name
from .order import OrderModel
from .permute import PERMUTED, linearize, permuted_order, surface_tree
from .underlying import (
    Aligner,
    Carried,
    Mark,
    Marks,
    carried_marks,
    partners,
    printed_partners,
    without_orphans,
    write_slots,
)
from .wellformed import unmatched

__all__ = ["CHANNEL", "METHODS", "ORDER", "Options", "TILT", "TREE", "TREES", "Underlying",
           "bracketed_words", "deleted_relations", "rephrase", "stream",
           "underlying", "written"]

METHODS = ("full", "half", "base")
TREES = ("viterbi", "sample")
ORDER, CHANNEL, TREE, TILT = 0, 1, 2, 3  # the purposes of a sentence's random streams


def stream(seed: int, index: int, purpose: int, *, sample: int = 0
           ) -> tuple[int, int, int, int]:
    """The random stream (numpy SeedSequence entropy) of sentence ``index``'s ``purpose`` in
    sample ``sample`` (module docstring): (seed, index, sample, purpose), four 32-bit words
    (the seed checked where it comes in: :func:`~fstpunct.errors.check_stream_seed`)."""
    return (seed, index, sample, purpose)


@dataclass(frozen=True)
class Options:
    """What to do to every sentence, and how to write it."""

    method: str = "full"
    seed: int = 0
    samples: int = 1                      # rephrasings per sentence
    permute: bool = True                  # self-permutation (else the order is kept)
    # relations deleted: given as names or one "a,b" string, held as a frozenset of names
    delete: frozenset[str] | str | Iterable[str] = frozenset()
    delete_parens: bool = False           # delete constituents with bracket punctemes
    permuted: frozenset[str] = field(default=PERMUTED)  # UPOS of the re-ordered heads
    best_surface: bool = False            # full: the channel's most probable x, not a draw
    tree: str = "viterbi"                 # T′: "viterbi", or "sample" (one posterior draw each)
    rewrite_all: bool = False             # full: also slots whose marks are unchanged
    balance: bool = True                  # deletion: balanced T′, pairs printed whole

    def __post_init__(self) -> None:
        refuse_choice("method", self.method, METHODS)
        refuse_count(1, samples=self.samples)
        check_stream_seed(self.seed)
        refuse_choice("tree", self.tree, TREES)
        # a str ("acl:relcl") kept as it is would be tested as a substring ("acl" in it)
        object.__setattr__(self, "delete", deleted_relations(self.delete))
        other = self.method != "full"
        refuse_unused({"best_surface": self.best_surface and other,
                       "rewrite_all": self.rewrite_all and other},
                      f"only with method full, not {self.method}")
        # base uses the model's T′ too when it deletes bracketed constituents
        refuse_unused({"tree": self.tree != "viterbi" and not self.needs_model},
                      "only with method full or half, or base with delete_parens "
                      "(--delete-parens): the model's T′")
        refuse_unused({"balance=False (--no-balance)": not self.balance and
                       not (self.deleting and self.needs_model)},
                      "only when deleting (--delete, --delete-parens) with the model's T′: "
                      "method full or half, or base with delete_parens (--delete-parens)")

    @property
    def deleting(self) -> bool:
        """Whether constituents are deleted."""
        return bool(self.delete) or self.delete_parens

    @property
    def needs_model(self) -> bool:
        """Whether the punctuation model (Viterbi T′) is needed."""
        return self.method != "base" or self.delete_parens


def deleted_relations(delete: str | Iterable[str]) -> frozenset[str]:
    """The relations whose constituents are deleted: names, or one string of them joined by
    commas (``"appos,parataxis"``); a name that is not a UD relation (a universal one, with or
    without a subtype such as ``acl:relcl``) is an InputError."""
    names = delete.split(",") if isinstance(delete, str) else delete
    relations = frozenset(r.strip() for r in names if r.strip())
    unknown = sorted(r for r in relations if universal(r) not in RELATIONS)
    if unknown:
        raise InputError(f"not a UD relation to delete: {', '.join(unknown)} (relations are "
                         "UD's universal ones, e.g. appos, parataxis, with or without a "
                         "subtype such as acl:relcl)")
    return relations


def bracketed_words(slots: SlotSentence, marks: Sequence[Marks]) -> list[int]:
    """Input IDs of the words whose l holds an opening bracket and r a closing one (Unicode
    categories Ps and Pe)."""
    def has(side: Sequence[Mark], category: str) -> bool:
        return any(unicodedata.category((m.form or m.symbol)[:1] or " ") == category
                   for m in side)
    return [slots.word_ids[k] for k, (l, r) in enumerate(marks) if has(l, "Ps") and has(r, "Pe")]


def _deleted(sent: Sentence, options: Options, bracketed: Sequence[int]) -> set[int]:
    """Input IDs of every token (punctuation included) inside a deleted constituent, by the
    input's own heads (never the root)."""
    roots = {w.id for w in sent.words if w.head and not w.is_punct
             and (w.deprel in options.delete or universal(w.deprel) in options.delete)}
    roots |= {w for w in bracketed if sent.words[w - 1].head}
    kids = children([w.head for w in sent.words])
    out: set[int] = set()
    stack = list(roots)
    while stack:
        m = stack.pop()
        if m not in out:
            out.add(m)
            stack.extend(kids[m])
    return out


def _kept_head(head: int, heads: Mapping[int, int], kept: set[int]) -> int:
    """The nearest ancestor that is kept (input IDs; ``heads`` by input ID), or 0."""
    while head and head not in kept:
        head = heads[head]
    return head


def _base(sent: Sentence, order: list[int]) -> list[OutToken]:
    kept = set(order)
    heads = {w.id: w.head for w in sent.words}
    quotes = quote_symbols(sent.words)
    out = []
    for wid in order:
        w = sent.words[wid - 1]
        line = next(ln for ln in sent.lines if ln.id == str(wid))
        out.append(OutToken(tuple(line.fields), wid, _kept_head(w.head, heads, kept),
                            quotes.get(wid, w.form)))
    return out


def _rewritten(sent: Sentence, slots: SlotSentence, carried: Carried, order: list[int],
               model: PunctModel, surface: str, rng: np.random.Generator, align: Aligner,
               keep_input: bool = True, balance: bool = False) -> list[OutToken]:
    """Full and half: the words of ``order`` with punctuation written from their marks (a
    slot with unchanged marks keeps the input's surface when ``keep_input``; with
    ``balance``, a shortened sentence prints both marks of a pair, :func:`printed_partners`)."""
    words, dep_heads, _ = depunctuate(sent)
    id_head = {w.id: words[h - 1].id if h else 0 for w, h in zip(words, dep_heads)}
    node_of = {wid: k for k, wid in enumerate(slots.word_ids)}
    placed = [wid for wid in order if wid in node_of]
    kept = set(placed)
    out_heads = {wid: _kept_head(id_head[wid], id_head, kept) for wid in placed}
    position = {wid: k for k, wid in enumerate(placed, 1)}
    heads = [position[out_heads[wid]] if out_heads[wid] else 0 for wid in placed]
    marks, settled = carried.marks, frozenset()
    if len(placed) < slots.n:  # deletion: pairs (in T′ or as printed) go together
        kept_nodes = {node_of[w] for w in placed}
        symmetric = model.attach.symmetric
        marks = without_orphans(marks, kept_nodes, [*partners(slots, marks, symmetric),
                                                    *partners(slots, marks, symmetric, True)])
        if balance:
            marks, settled = printed_partners(slots, marks, kept_nodes, symmetric)
    written = write_slots(model.channel, heads, [marks[node_of[w]] for w in placed], surface,
                          rng, align, carried.observed if keep_input else None, settled)
    lines = {ln.id: ln for ln in sent.lines}
    out: list[OutToken] = []
    for i, slot in enumerate(written):
        for tok in slot:
            attach = placed[tok.word]
            mark = tok.mark
            if mark.line is not None:
                fields = list(mark.line.fields)
                fields[7] = "punct"
            else:
                fields = ["_", mark.form or "", mark.form or "", "PUNCT", "_", "_", "_",
                          "punct", "_", "_"]
            out.append(OutToken(tuple(fields), None, attach, mark.symbol))
        if i < len(placed):
            wid = placed[i]
            out.append(OutToken(tuple(lines[str(wid)].fields), wid, out_heads[wid],
                                sent.words[wid - 1].form))
    return out


@dataclass(frozen=True)
class Underlying:
    """A sentence with what the writer needs of it: its slot view and the marks carried by its
    words in each T′ (:func:`~.underlying.carried_marks`; made without a model, one empty
    :class:`Carried`)."""

    sentence: Sentence
    slots: SlotSentence | None
    carried: tuple[Carried, ...]


def underlying(sentences: Iterable[Sentence], model: PunctModel | None, tree: str = "viterbi",
               seed: int = 0, samples: int = 1, chunk: int = 500, balanced: bool = False
               ) -> Iterator[Underlying]:
    """The first stage of :func:`rephrase`: every sentence's T′ as carried marks — the Viterbi
    one, or with ``tree="sample"`` ``samples`` posterior draws (from the sentence's own random
    stream, :data:`TREE`; ``chunk`` sentences prepared at a time). With ``balanced``, a sentence
    whose surface has a bracket or quote without a partner (:func:`~.wellformed.unmatched`)
    takes its T′ among those whose pairs of W_d all have matched symmetric marks (the
    unmatched pairs excluded: training's posterior-regularisation tilt taken to ∞; the
    backoff stays possible; draws from the stream :data:`TILT`): the orphan is then a mark
    whose partner the channel absorbed, not an unmatched pair. Without a model, only the
    sentences. Compute it once to write a sentence in several ways (:func:`written`)."""
    refuse_choice("tree", tree, TREES)
    check_stream_seed(seed)
    if model is None:
        yield from (Underlying(sent, None, (Carried([], {}),)) for sent in sentences)
        return
    align = Aligner(model.channel)
    start = 0  # the input index of the chunk's first sentence
    for batch, prepared, inference in chunk_inference(model, sentences, chunk, paired=False,
                                                      libm=True):
        trees = _drawn(inference, tree, samples, [stream(seed, start + j, TREE)
                                                  for j in range(len(batch))])
        odd = [j for j, sent in enumerate(batch)
               if unmatched([w.form for w in sent.words if w.is_punct])] if balanced else []
        if odd:
            _, tilted = inference_of(model, [batch[j] for j in odd], inference.slots, math.inf,
                                       libm=True)
            for j, drawn in zip(odd, _drawn(tilted, tree, samples,
                                            [stream(seed, start + j, TILT) for j in odd])):
                trees[j] = drawn
        for sent, slots, drawn in zip(batch, prepared, trees):
            yield Underlying(sent, slots, tuple(carried_marks(model, sent, slots, pairs, align)
                                                for pairs in drawn))
        start += len(batch)


def _drawn(inference: Inference, tree: str, samples: int,
           streams: Sequence[Sequence[int]]) -> list[list]:
    """Per sentence of ``inference``, its T′s: [the Viterbi one], or ``samples`` posterior
    draws, sentence k's from the random stream ``streams[k]``."""
    if tree == "sample":
        return inference.sample_each(samples, streams=streams)
    return [[best] for best in inference.viterbi_all()]


def written(items: Iterable[Underlying], model: PunctModel | None,
            order_model: OrderModel | None, options: Options = Options()
            ) -> Iterator[Sentence]:
    """The second stage of :func:`rephrase`: every sentence of ``items`` (:func:`underlying`,
    made with ``options``' tree, seed and samples, and with ``model`` where the method needs
    one) rephrased ``options.samples`` times."""
    if options.permute and order_model is None:
        raise InputError("permuting needs an ordering model")
    if options.needs_model and model is None:
        raise InputError(f"method {options.method} needs a punctuation model")
    align = Aligner(model.channel) if model is not None else None
    for index, item in enumerate(items):
        if options.needs_model and item.slots is None:
            raise InputError(f"method {options.method} needs the sentences' T′ "
                             "(underlying(..., model))")
        bracketed = (bracketed_words(item.slots, item.carried[0].marks)
                     if options.delete_parens and item.slots else [])
        dropped = _deleted(item.sentence, options, bracketed)
        for s in range(options.samples):
            yield _one(item.sentence, item.slots, item.carried[s % len(item.carried)], dropped,
                       model, order_model, options, index, s, align)


def rephrase(sentences: Iterable[Sentence], model: PunctModel | None,
             order_model: OrderModel | None, options: Options = Options(),
             chunk: int = 500) -> Iterator[Sentence]:
    """Rephrase every sentence ``options.samples`` times (see the module docstring):
    :func:`underlying`, then :func:`written`."""
    yield from written(underlying(sentences, model if options.needs_model else None,
                                  options.tree, options.seed, options.samples, chunk,
                                  options.balance and options.deleting),
                       model, order_model, options)


def _absorbed(sent: Sentence, tokens: Sequence[OutToken]) -> list[OutToken]:
    """``tokens`` (of any method) without a ``.`` written right after a word that ends in an
    abbreviation's dot (:func:`~fstpunct.ud.slots.absorbs`, the rule every writer of
    punctuation obeys: ``at 9 p.m.``, not ``p.m. .``; the word's form, as the slot view reads
    it); a token attached to a dropped one takes its head."""
    def word(tok: OutToken) -> bool:
        return tok.old_id is not None and not sent.words[tok.old_id - 1].is_punct
    out: list[OutToken] = []
    gone: dict[int, int] = {}  # input ID of a dropped token -> its head
    for k, tok in enumerate(tokens):
        if not word(tok) and absorbs(k > 0 and word(tokens[k - 1])
                                     and abbreviation_stem(tokens[k - 1].fields[1]) is not None,
                                     (tok.fields[1],)):
            if tok.old_id is not None:
                gone[tok.old_id] = tok.head
            continue
        out.append(tok)
    if not gone:
        return out

    def kept(head: int) -> int:
        while head in gone:
            head = gone[head]
        return head
    return [replace(tok, head=kept(tok.head)) for tok in out]


def _one(sent: Sentence, slots: SlotSentence | None, carried: Carried, dropped: set[int],
         model: PunctModel | None, order_model: OrderModel | None, options: Options,
         index: int, sample: int, align: Aligner | None) -> Sentence:
    rng = np.random.default_rng(stream(options.seed, index, ORDER, sample=sample))
    if options.permute:
        order = permuted_order(sent, order_model, rng, options.permuted, dropped)  # type: ignore
    else:
        order = linearize(surface_tree(sent), lambda h, items: items, dropped)
    if options.method == "base" or slots is None or slots.n == 0:
        tokens = _base(sent, order)
    else:
        surface = ("underlying" if options.method == "half" else
                   "best" if options.best_surface else "sample")
        channel_rng = np.random.default_rng(stream(options.seed, index, CHANNEL, sample=sample))
        tokens = _rewritten(sent, slots, carried, order, model, surface, channel_rng, align,
                            not options.rewrite_all, options.balance)
    tokens = _absorbed(sent, tokens)
    origin = origin_name(sent)
    suffix = "" if options.samples == 1 else f"-{sample + 1}"
    sent_id = f"{sent.sent_id or f's{index + 1}'}-rephrased{suffix}"
    what = [f"method={options.method}", f"seed={options.seed}", f"sample={sample + 1}",
            f"permute={'yes' if options.permute else 'no'}"]
    if options.delete:
        what.append(f"delete={','.join(sorted(options.delete))}")
    if options.delete_parens:
        what.append("delete_parens=yes")
    if options.best_surface:  # each of these only where it applies (Options refuses others)
        what.append("surface=best")
    if options.needs_model:  # the T′ the model gave, however it was chosen
        what.append(f"tree={options.tree}")
    if options.rewrite_all:
        what.append("rewrite=all")
    if options.deleting and options.needs_model:
        what.append(f"balance={'yes' if options.balance else 'no'}")
    return assemble(sent, tokens, [f"# sent_id = {sent_id}", f"# rephrased_from = {origin}",
                                   f"# rephrase = {' '.join(what)}"])
