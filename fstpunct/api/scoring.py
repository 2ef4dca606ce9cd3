"""Scoring restored punctuation against gold, as ``fstpunct score`` does, of CoNLL-U or of plain
text (a reference sentence a line, no trees needed)."""
from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ModelError, refuse_unused
from ..files import is_correction_model
from ..ud.text import GoldSplit
from .data import Data, sentences

if TYPE_CHECKING:
    from ..apps.restoration.metrics import RestorationScore

__all__ = ["score"]


def score(gold: Data, pred: Data, *, text: bool = False,
          lang: str | os.PathLike[str] | None = None) -> RestorationScore:
    """The punctuation of ``pred`` scored against ``gold``'s (``fstpunct score --gold GOLD
    PRED``): edit distance summed over slots, and precision, recall and F1 of commas, periods,
    quotes, brackets and all marks (:class:`~fstpunct.apps.restoration.metrics.RestorationScore`;
    ``.to_dict()``: the command's JSON). Either may be any kind of data of
    :mod:`fstpunct.api.data`; with ``text``, both are plain text, one sentence a line (a
    string of text, a text file as a :class:`pathlib.Path`, never a ``str``, or lines): gold's
    marks split off the words by the marks of ``lang``'s model (a bundled name or a model
    folder: ``"..."`` one mark; a possessive's apostrophe a word if its language is English),
    else at every punctuation character, as ``restore(text=True)`` reads them; the
    prediction split at gold's words, so that every other character of it is a mark, as the
    restorer wrote it (:class:`~fstpunct.ud.text.GoldSplit`). Both must have the same words
    once punctuation is removed, sentence by sentence: else a
    :class:`~fstpunct.errors.ConlluError` of one line naming the prediction's line and gold's
    (lower-case references for lower-cased predictions)."""
    from ..apps.restoration.metrics import score as scored
    from ..apps.text import tokeniser
    refuse_unused({"lang": lang is not None and not text},
                  "only with text (--text), whose marks it splits off the words")
    if not text:
        return scored(sentences(gold), sentences(pred))
    marks, language = _splitting(lang) if lang else ((), None)
    tokenise = tokeniser(language, marks)
    golds, guide = itertools.tee(sentences(gold, tokenise))
    return scored(golds, sentences(pred, GoldSplit(marks, guide, tokenise.possessive)))


def _splitting(lang: str | os.PathLike[str]) -> tuple[Sequence[str], str | None]:
    """The marks that ``lang``'s model (a bundled name or a model folder, as
    :func:`fstpunct.load` reads it) splits text by and its language (in English a possessive's
    apostrophe is a word, :func:`~fstpunct.apps.text.tokeniser`), its folder found once: its
    channel's symbols (:func:`~fstpunct.model.store.channel_marks`; no weights read) and its
    language (:func:`~fstpunct.apps.rules.folder_language`), else those of the model loaded (a
    correction model's learner, an older model)."""
    from ..apps.rules import folder_language
    from ..model.store import channel_marks, model_path
    folder = model_path(lang if isinstance(lang, str) else Path(lang))
    if not is_correction_model(folder):
        try:
            symbols = channel_marks(folder)[0]
        except ModelError:  # loading says in one line what is wrong
            symbols = None
        if symbols is not None:
            return symbols, folder_language(folder, os.fspath(lang))  # Model.language's
    from .model import load
    model = load(lang)
    return model.punct.vocab.tokens, model.language
