"""Text in: sentences without UPOS or trees get them from a tagger and parser before a step.

:func:`analysed` is the step to put before restoration or decoding: each sentence that lacks
UPOS (``_``) or a tree (HEAD ``_``) is given them by a :class:`~fstpunct.parser.pipeline.Pipeline`,
loaded only when the first such sentence comes (input with trees never loads one).
:func:`restored_text` restores after it; :func:`tokeniser` splits a language's text by a
punctuation model's marks; :func:`underlying` is what ``decode --format text`` writes for a
sentence.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from ..errors import ConlluError, refuse_unused
from ..ud.treebank import Sentence, has_tree
from ..ud.width import Widths
from ._annotate import untagged as _untagged

if TYPE_CHECKING:  # the parser brings scipy: decode of parsed CoNLL-U does not import it
    from ..parallel import Pool
    from ..parser import Model as ParserModel
    from ..parser.pipeline import Pipeline
    from ..ud.text import Tokeniser
    from .restoration import Restorer

__all__ = ["analysed", "needs_analysis", "needs_pipeline", "refuse_hidden_posteriors",
           "refuse_untagged", "restored_text", "tokeniser", "underlying", "untagged",
           "untagged_error", "untagged_reference"]


def untagged(sent: Sentence) -> bool:
    """Whether ``sent`` lacks UPOS on some word; compiled (:func:`untagged_reference`'s
    answer: decode asks it of every sentence)."""
    return _untagged(sent.words)


def untagged_reference(sent: Sentence) -> bool:
    """:func:`untagged` in Python (the tests' oracle)."""
    return any(w.upos == "_" for w in sent.words)


def untagged_error(sent: Sentence, why: str) -> ConlluError:
    """The error for :func:`untagged` ``sent``, at its first word whose UPOS is ``_``: ``why``
    the command does not tag it."""
    word = next(w for w in sent.words if w.upos == "_")
    return sent.error(f"UPOS is '_' (word {word.id}, {word.form!r}): {why}", word.lineno)


def refuse_untagged(sents: Iterable[Sentence], why: str) -> Iterator[Sentence]:
    """``sents``, the first :func:`untagged` one refused (:func:`untagged_error`, ``why``): for
    readers of gold-tagged sentences, which have no tagger (correction, training, a parser
    alone)."""
    for sent in sents:
        if untagged(sent):
            raise untagged_error(sent, why)
        yield sent


def needs_analysis(sent: Sentence) -> bool:
    """Whether ``sent`` lacks UPOS on some word or has no tree."""
    return untagged(sent) or not has_tree(sent)


def needs_pipeline(sent: Sentence, parse: bool = True) -> bool:
    """Whether :func:`analysed` gives ``sent`` to its pipeline: it :func:`needs_analysis`, or,
    without ``parse`` (a later step parses), it is :func:`untagged`."""
    return needs_analysis(sent) if parse else untagged(sent)


def analysed(sentences: Iterable[Sentence], pipeline: Callable[[], Pipeline],
             parse: bool = True) -> Iterator[Sentence]:
    """``sentences``, each that :func:`needs_analysis` tagged and parsed by ``pipeline()``
    (called once, at the first such sentence); without ``parse``, tagged only (a later step
    parses): those that :func:`needs_pipeline`."""
    loaded: Pipeline | None = None
    for sent in sentences:
        if needs_pipeline(sent, parse):
            loaded = loaded or pipeline()
            sent = loaded.analyse(sent) if parse else loaded.tagged(sent)
        yield sent


def tokeniser(language: str | None, marks: Iterable[str] = ()) -> Tokeniser:
    """Splits white-space tokens of ``language``'s text by ``marks`` (a punctuation model's
    token vocabulary; none: at every punctuation character), a possessive's apostrophe a word
    in English (``"en"``) only, as UD English writes it (:class:`~fstpunct.ud.text.Tokeniser`'s
    ``possessive``); else it is a mark."""
    from ..ud.text import Tokeniser  # here: CoNLL-U input does not need it
    return Tokeniser(marks, possessive=language == "en")


def underlying(sent: Sentence) -> str:
    """The ``# underlying`` T′ that decode wrote for ``sent`` (it writes one for every
    sentence)."""
    value = sent.comment("underlying")
    assert value is not None, "decode writes # underlying for every sentence"
    return value


def refuse_hidden_posteriors(posteriors: int | None, format: str) -> None:
    """An :class:`~fstpunct.errors.InputError` for decode's ``posteriors`` (0 or None: not
    given) with output ``format`` ``text``: its lines (:func:`underlying`) have no place for
    them."""
    refuse_unused({"posteriors": bool(posteriors) and format == "text"},
                  "PunctPost is written in CoNLL-U only, not in format text (--format text: "
                  "each sentence's T′ as a line)")


def restored_text(sentences: Iterable[Sentence], method: Restorer, parsers: Sequence[ParserModel],
                  beam: int | None, pipeline: Callable[[], Pipeline], text: bool = False,
                  pool: Pool | None = None, width: str | None = None) -> Iterator[Sentence]:
    """Restoration (:func:`~fstpunct.apps.restoration.pipeline.restored`) after
    :func:`analysed`. Every sentence is parsed once: by the restoration if it has ``parsers``
    (the analysis then only tags), else by the analysis; text (no sentence has a tree) with one
    parser by the analysis, whose pipeline should then use it. The analysis runs here, the
    restoration on ``pool`` if one is given. With ``width`` (one of
    :data:`~fstpunct.ud.width.WIDTHS`), a run of :class:`~fstpunct.ud.width.Widths` for a
    ``method`` with ``tokens``, the marks it writes (Trivial, CrfModel): the restored marks
    written in the input's width (``input``) or the one given; None: as ``method`` writes them
    (a Model's restore runs its own)."""
    from .restoration.pipeline import restored

    def run(sents: Iterable[Sentence]) -> Iterator[Sentence]:
        later = [] if text and len(parsers) == 1 else parsers
        return restored(analysed(sents, pipeline, parse=not later), method, later, beam,
                        pool=pool)
    if width is None:
        return run(sentences)
    return Widths(method.tokens, width).apply(run, sentences)  # type: ignore[attr-defined]
