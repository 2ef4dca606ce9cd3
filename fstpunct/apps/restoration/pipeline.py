"""Restoring a stream of sentences: strip, parse (optionally), restore, insert
(:func:`~.strip.insert`, which absorbs a full stop after an abbreviation's dot)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from ...batching import batches
from ...errors import warn_user
from ...parallel import Pool, share_value, shared
from ...parser import Model as ParserModel
from ...parser import parse
from ...ud.annotations import forget
from ...ud.treebank import Sentence
from . import Restorer
from .strip import insert, strip

__all__ = ["has_words", "restored"]


def has_words(sent: Sentence) -> bool:
    """Whether anything is left of ``sent`` once its punctuation is removed."""
    return any(not w.is_punct for w in sent.words)


def restored(sentences: Iterable[Sentence], method: Restorer,
             parsers: Sequence[ParserModel] = (), beam: int | None = None,
             warn: Callable[[str], None] = warn_user, chunk: int = 256,
             pool: Pool | None = None) -> Iterator[Sentence]:
    """Every sentence stripped, parsed if parsers are given (``beam``: default each parser's
    training beam), and restored by ``method``. With several parsers the output keeps the first
    one's tree and ``method`` also gets the others' (see :class:`Restorer`). A method with a
    ``restore_many(sentences, alternatives)`` gets ``chunk`` sentences at a time. On a parallel
    ``pool``, chunks of ``chunk`` sentences in parallel (the same output and warnings, in
    order; a method with ``starting_at(k)`` is told how many sentences came before its chunk).

    A sentence that is all punctuation has no words to restore around: its marks are kept as
    they are, with a warning naming it. Every sentence loses the analysis ``fstpunct decode``
    wrote (:func:`~fstpunct.ud.annotations.forget`, by :func:`strip` for those with words),
    that one too, so decode | restore gives what restore alone gives."""
    if pool is not None and pool.parallel:
        share_value(pool, _SHARED, (method, tuple(parsers), beam))
        for done, messages in pool.imap(_restore_task, _numbered(batches(sentences, chunk))):
            for message in messages:
                warn(message)
            yield from done
        return
    many = getattr(method, "restore_many", None)
    for batch in batches(sentences, chunk if many else 1):
        yield from _restore_batch(batch, method, parsers, beam, warn)


_SHARED = "restoration"  # (method, parsers, beam), shared with a pool's workers


def _numbered(chunks: Iterable[list[Sentence]]) -> Iterator[tuple[int, list[Sentence]]]:
    """Every chunk with the number of sentences with words before it."""
    first = 0
    for batch in chunks:
        yield first, batch
        first += sum(map(has_words, batch))


def _restore_task(numbered: tuple[int, list[Sentence]]) -> tuple[list[Sentence], list[str]]:
    """(In a worker.) A chunk restored, and its warnings."""
    first, batch = numbered
    method, parsers, beam = shared(_SHARED)
    starting_at = getattr(method, "starting_at", None)
    messages: list[str] = []
    done = list(_restore_batch(batch, starting_at(first) if starting_at else method, parsers,
                               beam, messages.append))
    return done, messages


def _restore_batch(batch: list[Sentence], method: Restorer, parsers: Sequence[ParserModel],
                   beam: int | None, warn: Callable[[str], None]) -> Iterator[Sentence]:
    """One batch of sentences restored (all at once by a method with ``restore_many``)."""
    many = getattr(method, "restore_many", None)
    todo = []
    for sent in batch:
        if not has_words(sent):
            warn(f"{sent.place}: only punctuation, its marks kept")
            continue
        bare = strip(sent)
        todo.append([parse(p, bare, beam) for p in parsers] or [bare])
    done = many([t[0] for t in todo], [t[1:] for t in todo]) if many else \
        [method.restore(t[0], t[1:]) for t in todo]
    results = iter(zip(todo, done))
    for sent in batch:
        if has_words(sent):
            trees, insertions = next(results)
            yield insert(trees[0], insertions)
        else:
            yield forget(sent)
