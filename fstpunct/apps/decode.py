"""Reconstructing underlying punctuation: annotate CoNLL-U sentences with the Viterbi T′.

Nothing of the input is removed or reordered. Each syntactic word that is not punctuation gets
MISC items ``PunctL=`` and ``PunctR=`` (its underlying left and right punctemes; ``ε`` when
empty, tokens joined by ``␣``) and, with posteriors, ``PunctPost=`` (the K most probable pairs,
``l‖r:probability`` joined by ``¦``). Each sentence gets ``# underlying = [∘ …]`` (T′ as a
bracketed string) and ``# punct_logprob = log p(x | T)``. A node where the backoff beats every
pair of W_d shows the puncteme ``<backoff>``. In MISC values, the characters these forms use
(and ``%``, ``|``, ``=``, space) are percent-escaped in a token, and a token spelled ``ε`` or
``<backoff>`` is escaped whole (``%CE%B5``, ``%3Cbackoff%3E``), so every puncteme reads back as
it was.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache, partial
from typing import TypeVar
from urllib.parse import unquote

import numpy as np

from ..batching import batches
from ..fst.lattice import LatticeBuilder
from ..model.punct import Inference, Posteriors, PunctModel, SlotCache
from ..model.vocab import Puncteme
from ..parallel import Pool, share_value, shared
from ..ud.annotations import MISC_KEYS, set_misc
from ..ud.slots import BOUNDARY, SlotSentence, to_slots
from ..ud.tree import children
from ..ud.treebank import Line, Sentence
from ._annotate import bracketed_tokens

__all__ = ["MISC_KEYS", "Mark", "Ranked", "annotate", "bracketed", "bracketed_reference",
           "chunk_inference", "inference_of", "over_chunks", "misc_value", "posteriors_value",
           "ranked_pairs", "read_misc_value", "read_posteriors_value", "scored"]

T = TypeVar("T")
Mark = Callable[[str], None]
"""A stage hook: called with a stage's name as the stage ends (``bench/decode_profile.py`` times
the stages of a decode with it)."""


def _unmarked(stage: str) -> None:
    """The default stage hook: nothing."""

_ESCAPES = {"%": "%25", "|": "%7C", "=": "%3D", "␣": "%E2%90%A3", "‖": "%E2%80%96", "¦": "%C2%A6",
            " ": "%20"}
_RESERVED = {"ε": "%CE%B5", "<backoff>": "%3Cbackoff%3E"}  # tokens spelled as a value's words
Pair = tuple[Puncteme, Puncteme] | None
RankedPair = tuple[Puncteme | None, Puncteme | None, float]
Ranked = list[RankedPair]
"""A word's (left, right, probability), most probable first (``PunctPost``; None: the
backoff)."""
_BACKOFF = ("<backoff>",)  # the backoff's tokens in T′


@lru_cache(maxsize=4096)
def misc_value(p: Puncteme | None) -> str:
    """A puncteme as a MISC value (cached: a corpus has few distinct punctemes)."""
    if p is None:
        return "<backoff>"
    return "␣".join(_RESERVED.get(t) or "".join(_ESCAPES.get(c, c) for c in t) for t in p) or "ε"


def read_misc_value(text: str) -> Puncteme | None:
    """The puncteme of a MISC value (the inverse of :func:`misc_value`)."""
    if text == "<backoff>":
        return None
    return () if text == "ε" else tuple(unquote(t) for t in text.split("␣"))


def posteriors_value(pairs: Iterable[RankedPair]) -> str:
    """``PunctPost``'s value: each (left, right, probability), ``l‖r:p`` (3 decimals), joined
    by ``¦`` (the backoff's sides: None)."""
    return "¦".join(f"{misc_value(left)}‖{misc_value(right)}:{p:.3f}" for left, right, p in pairs)


def read_posteriors_value(value: str) -> Ranked:
    """The (left, right, probability) of a ``PunctPost`` value (the inverse of
    :func:`posteriors_value`); a ValueError if it is not in that form."""
    read = []
    for item in value.split("¦"):
        pair, p = item.rsplit(":", 1)
        left, right = pair.split("‖")
        read.append((read_misc_value(left), read_misc_value(right), float(p)))
    return read


def bracketed(sent: SlotSentence, pairs: Sequence[Pair]) -> str:
    """T′ as a bracketed string, e.g. ``[∘ [“ Dale ”] means [“ [river] valley ”] .]``
    (compiled: :func:`bracketed_reference` step by step in Python)."""
    if sent.n == 0:
        return bracketed_reference(sent, pairs)
    out = bracketed_tokens(sent.words, sent.heads, list(pairs), _BACKOFF)
    return "[" + BOUNDARY + " " + " ".join(out)[1:]


def bracketed_reference(sent: SlotSentence, pairs: Sequence[Pair]) -> str:
    """:func:`bracketed` by a walk over the tree in Python (the tests' oracle)."""
    def text(p: Puncteme | None) -> Puncteme:
        return _BACKOFF if p is None else p

    if sent.n == 0:
        l, r = pairs[0] or (None, None)
        return "[" + " ".join([BOUNDARY, *text(l), *text(r)]) + "]"
    kids = children(sent.heads)
    out: list[str] = []  # the tokens; each constituent's brackets stick to its first and last

    first: dict[int, int] = {}  # where each constituent's tokens begin in ``out``
    todo = [("open", kids[0][0])]  # a stack, not recursion: trees may be deep
    while todo:
        step, w = todo.pop()
        pair = pairs[w - 1]
        l, r = pair if pair is not None else (None, None)
        if step == "open":  # l, the left children, the word, the right children, r
            first[w] = len(out)
            out.extend(text(l))
            todo.append(("close", w))
            todo.extend(("open", c) for c in reversed(kids[w]) if c > w)
            todo.append(("word", w))
            todo.extend(("open", c) for c in reversed(kids[w]) if c < w)
        elif step == "word":
            out.append(sent.words[w - 1])
        else:
            out.extend(text(r))
            out[first[w]] = "[" + out[first[w]]
            out[-1] += "]"
    return "[" + BOUNDARY + " " + " ".join(out)[1:]


CHAINED_USES = 8
"""Decoding without posteriors applies the puncteme matrices of a slot string that at most this
many node sides of a chunk meet as token chains, never built (``SlotCache``'s ``chains``;
results/speed-history.md, "Decode's slot stage: session 2026-11-29 01:04–04:04")."""


def _slot_cache(model: PunctModel, paired: bool, chains: int = 0) -> SlotCache:
    """The slot lattices of a run over chunks: each holding the puncteme matrices its
    candidates need; ``paired``: built for both the sum and the max, as decoding needs, else
    only as asked; ``chains``: as :class:`SlotCache`'s (with them, blockwise sum closures; only
    the inside pass and Viterbi read the slots: last bits may differ). Each string's
    topology is weighted once, so none is kept beside its lattices (about 23 MB over en_ewt
    test), nor the dense closures beside the stacks (no edit counts are taken)."""
    return SlotCache(model, LatticeBuilder(model.channel, cache=False), paired=paired,
                     subset=True, closures=False, chains=chains)


def chunk_inference(model: PunctModel, sentences: Iterable[Sentence], chunk: int = 500,
                    paired: bool = True, mark: Mark = _unmarked, chains: int = 0,
                    libm: bool = False
                    ) -> Iterator[tuple[list[Sentence], list[SlotSentence], Inference]]:
    """Sentences streamed in chunks of ``chunk``, each chunk with its slot view and its
    :class:`Inference` (slot lattices shared by all chunks; ``paired``: for both the sum and
    the max, as decoding needs, else only as asked; ``mark``: :func:`inference_of`;
    ``chains``: as :class:`SlotCache`'s, for callers that run only the inside pass and
    Viterbi; ``libm``: as :func:`inference_of`)."""
    cache = _slot_cache(model, paired, chains)
    for batch in batches(sentences, chunk):
        yield batch, *inference_of(model, batch, cache, mark=mark, libm=libm)


def inference_of(model: PunctModel, sentences: list[Sentence], slots: SlotCache,
                 tilt: float = 0.0, mark: Mark = _unmarked, libm: bool = False
                 ) -> tuple[list[SlotSentence], Inference]:
    """The slot view of ``sentences`` and their :class:`Inference` over ``slots`` (``tilt``:
    the pairs of W_d with unmatched symmetric marks weighted exp(−tilt), as in training's
    posterior regularisation; ``math.inf`` excludes them; ``libm``: the Attach softmax through
    libm's exponential, else the M-step's: :func:`~fstpunct.model.attach.probabilities`);
    ``mark`` is called after each stage: ``to_slots``, ``featurise``, ``Attach probabilities``.

    Decode's analysis is without ``libm``, one computation wherever it is shown: decode
    (:func:`annotate`), normalise, ``show``, ``draw tree`` and ``bench/joint_traversal.py``.
    Libm's is kept by :func:`scored` (perplexity, ``Model.log_prob``), rephrase, and the paths
    that make their own :class:`Inference` or probabilities (its default): training's E-step,
    restoration, correction, constraint's rescoring, ``rules``, ``draw lattice``."""
    prepared = [to_slots(s) for s in sentences]
    mark("to_slots")
    batch = model.prepare(prepared)
    mark("featurise")
    inference = Inference(model, batch, tilt, slots=slots, libm=libm)
    mark("Attach probabilities")
    return prepared, inference


_MODEL = "apps-model"  # the model shared with a pool's workers
_CACHES: dict[tuple[int, bool, int], SlotCache] = {}  # a worker's slot lattices, per model


def over_chunks(pool: Pool, model: PunctModel, sentences: Iterable[Sentence],
                step: Callable[[PunctModel, list[Sentence], SlotCache], list[T]],
                chunk: int = 500, paired: bool = True, chains: int = 0) -> Iterator[T]:
    """``step(model, sentences, slots)`` over chunks of ``chunk`` sentences on ``pool`` (the
    model shared with its workers once, each worker's slot lattices kept from chunk to chunk,
    ``paired`` and ``chains`` as :func:`chunk_inference`); the results in order. ``step`` must
    be picklable (a module-level function, or a partial of one) for a cluster."""
    share_value(pool, _MODEL, model)
    yield from itertools.chain.from_iterable(
        pool.imap(partial(_chunk_task, step, paired, chains), batches(sentences, chunk)))


def _chunk_task(step: Callable[[PunctModel, list[Sentence], SlotCache], list[T]], paired: bool,
                chains: int, sentences: list[Sentence]) -> list[T]:
    model = shared(_MODEL)
    key = (id(model), paired, chains)
    if key not in _CACHES:
        _CACHES.clear()  # a new model: the old one's lattices are of no use
        _CACHES[key] = _slot_cache(model, paired, chains)
    return step(model, sentences, _CACHES[key])


def annotate(model: PunctModel, sentences: Iterable[Sentence], posteriors: int = 0,
             chunk: int = 500, pool: Pool | None = None,
             mark: Mark = _unmarked) -> Iterator[Sentence]:
    """Annotate sentences (streamed in chunks of ``chunk``) with the Viterbi T′; on a parallel
    ``pool``, chunks in parallel (the same output). Serially, ``mark`` is called after each
    stage of a chunk: those of :func:`inference_of`, then ``Viterbi and inside pass`` (one
    compiled traversal; with ``posteriors``, ``Viterbi`` and ``outside pass``) and ``MISC items,
    bracketed T'``. The Attach softmax goes through the M-step's exponential (``libm=False``:
    :func:`~fstpunct.model.attach.probabilities`; 2.5 % of a decode's instructions less), so
    ``# punct_logprob`` may differ from :func:`scored`'s log p (libm's) in its last bits."""
    chains = 0 if posteriors else CHAINED_USES  # posteriors: the outside pass reads stacks
    if pool is not None and pool.parallel:
        yield from over_chunks(pool, model, sentences, partial(_annotate_step, posteriors), chunk,
                               chains=chains)
        return
    for batch, prepared, inference in chunk_inference(model, sentences, chunk, mark=mark,
                                                      chains=chains):
        yield from _annotate_chunk(model, batch, prepared, inference, posteriors, mark)
        del batch, prepared, inference  # not alive while the next chunk is built


def scored(model: PunctModel, sentences: Iterable[Sentence], chunk: int = 500,
           pool: Pool | None = None) -> Iterator[tuple[float, int]]:
    """(log p(x | T), slots) of every sentence, in order; on a parallel ``pool``, chunks in
    parallel (the same values)."""
    if pool is not None and pool.parallel:
        yield from over_chunks(pool, model, sentences, _scored_step, chunk, paired=False)
        return
    for batch, prepared, inference in chunk_inference(model, sentences, chunk, paired=False,
                                                      libm=True):
        yield from _scores(prepared, inference)
        del batch, prepared, inference  # not alive while the next chunk is built


def _scored_step(model: PunctModel, sentences: list[Sentence],
                 slots: SlotCache) -> list[tuple[float, int]]:
    return list(_scores(*inference_of(model, sentences, slots, libm=True)))


def _scores(prepared: list[SlotSentence], inference: Inference) -> Iterator[tuple[float, int]]:
    for slots, lp in zip(prepared, inference.log_probs().tolist()):
        yield lp, slots.n + 1


def _annotate_step(posteriors: int, model: PunctModel, sentences: list[Sentence],
                   slots: SlotCache) -> list[Sentence]:
    prepared, inference = inference_of(model, sentences, slots)
    return list(_annotate_chunk(model, sentences, prepared, inference, posteriors))


def ranked_pairs(inference: Inference, s: int, e: Posteriors | None = None
                 ) -> tuple[list[list[tuple[Pair, float]]], float]:
    """Every node's pairs of sentence ``s`` with their posteriors, most probable first (the
    backoff as None), and log p(x | T); ``e``: its posteriors, where already known."""
    vocab, pairs_of_row = inference.model.vocab, inference.batch.data.pairs
    e = inference.posteriors(s) if e is None else e
    ranked: list[list[tuple[Pair, float]]] = [[] for _ in inference.batch.nodes(s)]
    node_of = np.searchsorted(inference.batch.data.node_offsets, e.rows, side="right") - 1
    first = inference.batch.nodes(s).start
    for row, node, p in zip(e.rows, node_of, e.posterior):
        ranked[node - first].append((vocab.pair_strings(pairs_of_row[row]), float(p)))
    for node_ranked in ranked:
        backoff = 1.0 - sum(p for _, p in node_ranked)
        node_ranked.append((None, backoff))
        node_ranked.sort(key=lambda item: -item[1])
    return ranked, e.log_z


def _word_lines(sent: Sentence) -> list[Line]:
    """The lines of ``sent``'s syntactic words, in order (word i's is ``[i - 1]``)."""
    if len(sent.lines) == len(sent.words):  # no multiword-token ranges, no empty nodes
        return sent.lines
    return [line for line in sent.lines if line.is_word]


def _annotate_chunk(model: PunctModel, sentences: list[Sentence],
                    prepared: list[SlotSentence], inference: Inference,
                    posteriors: int, mark: Mark = _unmarked) -> Iterator[Sentence]:
    outside: list[Posteriors] = []
    log_ps: list[float] = []
    if posteriors:  # the outside pass needs the inside pass anyway: log p comes with it
        viterbi = inference.viterbi_all()
        mark("Viterbi")
        outside = inference.posteriors_all()
        mark("outside pass")
    else:
        viterbi, log_z = inference.viterbi_and_log_probs()
        log_ps = log_z.tolist()
        mark("Viterbi and inside pass")
    items: dict[Pair, str] = {}  # PunctL and PunctR of each pair, made once
    for k, (sent, slots) in enumerate(zip(sentences, prepared)):
        best = viterbi[k]
        ranked: list[list[tuple[Pair, float]]] = []  # with posteriors: per node
        if posteriors:
            ranked, log_p = ranked_pairs(inference, k, outside[k])
        else:
            log_p = log_ps[k]
        lines = _word_lines(sent)
        for w, word_id in enumerate(slots.word_ids):
            pair = best[w]
            text = items.get(pair)
            if text is None:
                l, r = pair if pair is not None else (None, None)
                text = items[pair] = f"PunctL={misc_value(l)}|PunctR={misc_value(r)}"
            if posteriors:
                text += "|PunctPost=" + posteriors_value(
                    (*(p or (None, None)), q) for p, q in ranked[w][:posteriors])
            fields = lines[word_id - 1].fields
            misc = fields[9]
            fields[9] = text if misc == "_" else set_misc(misc, text)  # "_": set_misc's text
        sent.set_comment("underlying", bracketed(slots, best))
        sent.set_comment("punct_logprob", f"{log_p:.4f}")
        yield sent
    mark("MISC items, bracketed T'")

