"""``--model`` and ``--lang``: the punctuation model a command uses, by default the bundled model
of the input's language (:mod:`fstpunct.api.choice`)."""
from __future__ import annotations

import argparse
import itertools
from collections.abc import Iterator

from ..api import Model, choose, language_of, load
from ..errors import InputError, refuse_unused
from ..model.store import bundled, is_bundled
from ..ud.treebank import Sentence
from .note import noted

__all__ = ["add_model_arguments", "chosen_model"]

MODEL_HELP = ("model folder or bundled name (default: the bundled model of the input's "
              "language, from --lang, a split or UD file name, or '# lang' metadata; else en). "
              "A bare name is always the bundled model: write ./NAME for a local folder")


def add_model_arguments(parser: argparse.ArgumentParser | argparse._ActionsContainer,
                        lang: bool = True) -> None:
    """``--model`` (and ``--lang``, unless the command has its own)."""
    parser.add_argument("--model", help=MODEL_HELP)
    if lang:
        parser.add_argument("--lang", metavar="CODE",
                            help="the input's language: picks its bundled model, which it "
                                 "must have (fstpunct models lists them; not with --model)")


def chosen_model(args: argparse.Namespace, source: str | None, sentences: Iterator[Sentence],
                 own_lang: bool = False) -> tuple[Model, Iterator[Sentence]]:
    """The model ``--model`` names, else the bundled model of the input's language (reading
    its first sentence for metadata), and the sentences, none lost. When it falls back to
    English, a note on stderr (:func:`~.note.noted`): once the command's work pulls the first
    sentence, or at the end of a run that never did, never before a refusal (a refused option
    or file is one line). ``--lang`` with ``--model`` is refused, as it would be ignored,
    unless it is the command's ``own_lang`` (perplexity's: the language of its split). A
    ``--lang`` without a bundled model is refused too (``EN``, ``fr_gsd``, ``nl``: English with
    a note would be the wrong language's model); a language the input tells gets the note."""
    _check_lang(args, own_lang)
    if args.model:
        return load(args.model), sentences
    lang = getattr(args, "lang", None)
    first = next(sentences, None)
    sentences = itertools.chain([first] if first is not None else [], sentences)
    choice = choose(lang or language_of(source, first))
    if choice.note:
        args.note = f"{args.prog}: note: {choice.note}"
    return load(choice.name), noted(args, sentences)


def _check_lang(args: argparse.Namespace, own_lang: bool = False) -> None:
    """The refusals of ``--lang`` that :func:`chosen_model` makes before it reads anything:
    with --model, unless it is the command's ``own_lang``; without, a language with no bundled
    model, the empty one included."""
    lang = getattr(args, "lang", None)
    refuse_unused({"--lang": bool(args.model and lang is not None and not own_lang)},
                  "picks the bundled model of a language; not with --model, which names the "
                  "model")
    if not args.model and lang is not None and not is_bundled(lang):
        raise InputError(f"--lang {lang!r}: no bundled model of that language (bundled: "
                         f"{', '.join(bundled())}; or pass --model DIR, a model of your own)")
