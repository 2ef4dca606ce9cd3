"""Reconstructing underlying punctuation: annotate CoNLL-U sentences with the Viterbi T′.

Nothing of the input is removed or reordered. Each syntactic word that is not punctuation gets
MISC items ``PunctL=`` and ``PunctR=`` (its underlying left and right punctemes; ``ε`` when
empty, tokens joined by ``␣``) and, with posteriors, ``PunctPost=`` (the K most probable pairs,
``l‖r:probability`` joined by ``¦``). Each sentence gets ``# underlying = [∘ …]`` (T′ as a
bracketed string) and ``# punct_logprob = log p(x | T)``. A node where the backoff beats every
pair of W_d shows the puncteme ``<backoff>``.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache, partial
from typing import TypeVar

import numpy as np

from ..model.punct import Inference, Posteriors, PunctModel, SlotCache
from ..model.vocab import Puncteme
from ..parallel import Pool, share_value, shared
from ..ud.annotations import MISC_KEYS, set_misc
from ..ud.slots import BOUNDARY, SlotSentence, to_slots
from ..ud.tree import children
from ..ud.treebank import Sentence, batches

__all__ = ["MISC_KEYS", "annotate", "bracketed", "chunk_inference", "inference_of", "over_chunks",
           "misc_value", "ranked_pairs", "scored"]

T = TypeVar("T")

_ESCAPES = {"%": "%25", "|": "%7C", "=": "%3D", "␣": "%E2%90%A3", "‖": "%E2%80%96", "¦": "%C2%A6",
            " ": "%20"}
Pair = tuple[Puncteme, Puncteme] | None
_BACKOFF = ("<backoff>",)  # the backoff's tokens in T′


@lru_cache(maxsize=4096)
def misc_value(p: Puncteme | None) -> str:
    """A puncteme as a MISC value (cached: a corpus has few distinct punctemes)."""
    if p is None:
        return "<backoff>"
    return "␣".join("".join(_ESCAPES.get(c, c) for c in t) for t in p) or "ε"


def bracketed(sent: SlotSentence, pairs: Sequence[Pair]) -> str:
    """T′ as a bracketed string, e.g. ``[∘ [“ Dale ”] means [“ [river] valley ”] .]``."""
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


def chunk_inference(model: PunctModel, sentences: Iterable[Sentence], chunk: int = 500,
                    paired: bool = True
                    ) -> Iterator[tuple[list[Sentence], list[SlotSentence], Inference]]:
    """Sentences streamed in chunks of ``chunk``, each chunk with its slot view and its
    :class:`Inference` (slot lattices shared by all chunks, each holding the puncteme matrices
    its candidates need; ``paired``: built for both the sum and the max, as decoding needs,
    else only as asked)."""
    cache = SlotCache(model, paired=paired, subset=True)
    for batch in batches(sentences, chunk):
        yield batch, *inference_of(model, batch, cache)


def inference_of(model: PunctModel, sentences: list[Sentence], slots: SlotCache,
                 tilt: float = 0.0) -> tuple[list[SlotSentence], Inference]:
    """The slot view of ``sentences`` and their :class:`Inference` over ``slots`` (``tilt``:
    the pairs of W_d with unmatched symmetric marks weighted exp(−tilt), as in training's
    posterior regularisation; ``math.inf`` excludes them)."""
    prepared = [to_slots(s) for s in sentences]
    return prepared, Inference(model, model.prepare(prepared), tilt, slots=slots)


_MODEL = "apps-model"  # the model shared with a pool's workers
_CACHES: dict[tuple[int, bool], SlotCache] = {}  # a worker's slot lattices, per model


def over_chunks(pool: Pool, model: PunctModel, sentences: Iterable[Sentence],
                step: Callable[[PunctModel, list[Sentence], SlotCache], list[T]],
                chunk: int = 500, paired: bool = True) -> Iterator[T]:
    """``step(model, sentences, slots)`` over chunks of ``chunk`` sentences on ``pool`` (the
    model shared with its workers once, each worker's slot lattices kept from chunk to chunk,
    ``paired`` as :func:`chunk_inference`); the results in order. ``step`` must be picklable
    (a module-level function, or a partial of one) for a cluster."""
    share_value(pool, _MODEL, model)
    yield from itertools.chain.from_iterable(
        pool.imap(partial(_chunk_task, step, paired), batches(sentences, chunk)))


def _chunk_task(step: Callable[[PunctModel, list[Sentence], SlotCache], list[T]], paired: bool,
                sentences: list[Sentence]) -> list[T]:
    model = shared(_MODEL)
    key = (id(model), paired)
    if key not in _CACHES:
        _CACHES.clear()  # a new model: the old one's lattices are of no use
        _CACHES[key] = SlotCache(model, paired=paired, subset=True)
    return step(model, sentences, _CACHES[key])


def annotate(model: PunctModel, sentences: Iterable[Sentence], posteriors: int = 0,
             chunk: int = 500, pool: Pool | None = None) -> Iterator[Sentence]:
    """Annotate sentences (streamed in chunks of ``chunk``) with the Viterbi T′; on a parallel
    ``pool``, chunks in parallel (the same output)."""
    if pool is not None and pool.parallel:
        yield from over_chunks(pool, model, sentences, partial(_annotate_step, posteriors), chunk)
        return
    for batch, prepared, inference in chunk_inference(model, sentences, chunk):
        yield from _annotate_chunk(model, batch, prepared, inference, posteriors)


def scored(model: PunctModel, sentences: Iterable[Sentence], chunk: int = 500,
           pool: Pool | None = None) -> Iterator[tuple[float, int]]:
    """(log p(x | T), slots) of every sentence, in order; on a parallel ``pool``, chunks in
    parallel (the same values)."""
    if pool is not None and pool.parallel:
        yield from over_chunks(pool, model, sentences, _scored_step, chunk, paired=False)
        return
    for _, prepared, inference in chunk_inference(model, sentences, chunk, paired=False):
        yield from _scores(prepared, inference)


def _scored_step(model: PunctModel, sentences: list[Sentence],
                 slots: SlotCache) -> list[tuple[float, int]]:
    return list(_scores(*inference_of(model, sentences, slots)))


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


def _annotate_chunk(model: PunctModel, sentences: list[Sentence],
                    prepared: list[SlotSentence], inference: Inference,
                    posteriors: int) -> Iterator[Sentence]:
    viterbi = inference.viterbi_all()
    log_probs = None if posteriors else inference.log_probs()
    # the outside pass needs the inside pass anyway: log p comes with it
    outside = inference.posteriors_all() if posteriors else []
    for k, (sent, slots) in enumerate(zip(sentences, prepared)):
        best = viterbi[k]
        ranked: list[list[tuple[Pair, float]]] = []  # with posteriors: per node
        if log_probs is not None:
            log_p = float(log_probs[k])
        else:
            ranked, log_p = ranked_pairs(inference, k, outside[k])
        lines = {ln.id: ln for ln in sent.lines}
        for w, word_id in enumerate(slots.word_ids):
            l, r = best[w] if best[w] is not None else (None, None)
            items = {"PunctL": misc_value(l), "PunctR": misc_value(r)}
            if posteriors:
                items["PunctPost"] = "¦".join(
                    f"{misc_value(p[0] if p else None)}‖{misc_value(p[1] if p else None)}:{q:.3f}"
                    for p, q in ranked[w][:posteriors])
            line = lines[str(word_id)]
            line.fields[9] = set_misc(line.fields[9], items)
        sent.set_comment("underlying", bracketed(slots, best))
        sent.set_comment("punct_logprob", f"{log_p:.4f}")
        yield sent

