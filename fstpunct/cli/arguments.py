"""Arguments shared by several commands."""
from __future__ import annotations

import argparse

from .model_option import add_model_arguments

UD_DIR_HELP = ("UD release folder where split names are looked up (default: $FSTPUNCT_UD_DIR, "
               "else $UD_DIR, else ./ud or ../shared/ud)")


def add_ud_dir_argument(parser: argparse.ArgumentParser) -> None:
    """--ud-dir: the UD release folder of split names (:func:`fstpunct.ud.release.ud_root`)."""
    parser.add_argument("--ud-dir", metavar="DIR", help=UD_DIR_HELP)


def positive(text: str) -> int:
    """An option's value that must be a whole number of at least 1 (argparse ``type``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return value


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """--quiet: no progress on stderr (:func:`fstpunct.progress.progress`)."""
    parser.add_argument("--quiet", action="store_true", help="no progress report on stderr")


def add_io_arguments(parser: argparse.ArgumentParser, output: str = "OUT.conllu") -> None:
    """IN.conllu (a file, stdin or a standard split), -o ``output`` and --ud-dir: the
    arguments of the commands that rewrite a corpus."""
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin), or one split of a UD folder: "
                             "'es:dev' (a standard split), 'en_ewt-test'")
    parser.add_argument("-o", "--output", metavar=output, help="output file (default: stdout)")
    add_ud_dir_argument(parser)


def add_corpus_arguments(parser: argparse.ArgumentParser, output: str = "OUT.conllu") -> None:
    """:func:`add_io_arguments`, --model and --lang: the arguments of the commands that
    rewrite a corpus with a punctuation model chosen for its language."""
    add_io_arguments(parser, output)
    add_model_arguments(parser)
