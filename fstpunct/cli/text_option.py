"""``--text``, ``--lowercase-input``, ``--format`` and ``--tagger``: plain text in and out, and the
tagger and parser that give text (and CoNLL-U without UPOS or trees) what it lacks."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable

from ..api import Model
from ..api.data import FORMATS
from ..errors import InputError
from ..files import check_input, open_input, output
from ..ud.release import names_file, read_one, resolve_one
from ..ud.text import LastSeen, TextReader, Tokeniser, read_text, text_lines
from ..ud.treebank import Sentence, write_conllu
from .model_option import chosen_model
from .note import noted

__all__ = ["add_text_arguments", "model_and_input", "model_and_text", "read_input", "text_reader",
           "write_each", "write_output"]

TEXT_HELP = ("the input is plain text, one sentence a line, words separated by white space "
             "(Chinese too); punctuation is split off the words. A blank line starts a "
             "paragraph ('# newpar'; kept in --format text). Without --text, CoNLL-U whose "
             "UPOS or HEAD is '_' is tagged and parsed the same way")


def add_text_arguments(parser: argparse.ArgumentParser, text_help: str,
                       text_output: str = "one sentence a line") -> None:
    """The options of text input and output (``text_help``: what --text does for this
    command; ``text_output``: what it writes a line of with --format text); --parser and
    --beam are the command's own."""
    parser.add_argument("--text", action="store_true", help=f"{text_help}: {TEXT_HELP}")
    case = parser.add_mutually_exclusive_group()
    case.add_argument("--lowercase-input", action="store_const", const=True,
                      dest="lowercase_input",
                      help="the input is lower-cased (speech-recognition output): tag and "
                           "parse with the lower-case tagger (tagger-lc/, and parser-lc/ if "
                           "the model has one), whose features do not see case (default: "
                           "the lower-case tagger for sentences without capital letters; "
                           "library: lowercase=True)")
    case.add_argument("--cased-input", action="store_const", const=False,
                      dest="lowercase_input",
                      help="the input is cased: the cased tagger for every sentence "
                           "(library: lowercase=False)")
    parser.add_argument("--format", choices=FORMATS, default="conllu",
                        help=f"output CoNLL-U (default) or text: {text_output}, blank "
                             "lines where --text input had them")
    parser.add_argument("--tagger", metavar="DIR",
                        help="UPOS tagger for words whose UPOS is '_' (default: the model's "
                             "bundled tagger/ or tagger-lc/)")


def read_input(args: argparse.Namespace, tokenise: Tokeniser | None = None) -> LastSeen:
    """The sentences of ``args.input``, as :func:`write_output` takes them back: text with
    --text (split by ``tokenise``, by default at any punctuation character), else CoNLL-U,
    where sentences may lack trees."""
    return LastSeen(text_reader(args, tokenise) if args.text else
                    read_one(args.input, args.ud_dir, tree=None))


def text_reader(args: argparse.Namespace, tokenise: Tokeniser | None = None) -> TextReader:
    """The text reader of ``args.input`` (split by ``tokenise``, by default at any punctuation
    character); a UD split's name is refused."""
    _refuse_split(args)
    return read_text(*open_input(args.input), tokenise)


def model_and_input(args: argparse.Namespace) -> tuple[Model, LastSeen]:
    """The punctuation model of :func:`~.model_option.chosen_model` and the input's sentences,
    as :func:`write_output` takes them back (text split by the marks the model knows)."""
    if args.text:
        model, reader = model_and_text(args)
        return model, LastSeen(noted(args, reader))
    model, sentences = chosen_model(args, args.input, read_one(args.input, args.ud_dir,
                                                                tree=None))
    return model, LastSeen(sentences)


def model_and_text(args: argparse.Namespace) -> tuple[Model, TextReader]:
    """With --text: the punctuation model of :func:`~.model_option.chosen_model` and the text
    reader of ``args.input``, split by the marks the model knows (the model's note is not yet
    attached: :func:`~.note.noted`)."""
    _refuse_split(args)
    check_input(args.input)  # a missing file: one line, not after the model's note
    model, _ = chosen_model(args, args.input, iter(()))  # (the file is not open if it fails)
    return model, read_text(*open_input(args.input), model.tokeniser())


def _refuse_split(args: argparse.Namespace) -> None:
    """Refuse a text file ``args.input`` that is a UD split's name (CoNLL-U: without --text),
    not called a missing file."""
    if not names_file(args.input):
        try:
            resolve_one(args.input, args.ud_dir)
        except InputError:
            pass  # no split either: opening the file says why it cannot be read
        else:
            raise InputError(f"{args.input}: a UD split is CoNLL-U, not plain text: leave out "
                             "--text")


def write_output(args: argparse.Namespace, sentences: Iterable[Sentence], source: LastSeen,
                 line: Callable[[Sentence], str] | None = None) -> None:
    """``sentences``, the answers of a step that read ``source`` (:func:`read_input`,
    :func:`model_and_input`), to ``args.output`` (whole or not at all) in ``args.format``;
    text lines are ``line(sentence)`` (default: the words with their spacing), with --text
    input's blank lines, those after the last sentence from ``source``."""
    with output(args.output) as f:
        if args.format == "text":
            f.writelines(text_lines(sentences, args.text, *([line] if line else []),
                                    source=source))
        else:
            write_conllu(sentences, f)


def write_each(answers: Iterable[str]) -> None:
    """``answers`` to stdout, each flushed as soon as it is given (``--line-buffered``)."""
    for answer in answers:
        sys.stdout.write(answer)
        sys.stdout.flush()
