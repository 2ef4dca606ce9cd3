"""Arguments shared by several commands."""
from __future__ import annotations

import argparse

from .model_option import add_model_arguments


def add_io_arguments(parser: argparse.ArgumentParser) -> None:
    """IN.conllu (a file, stdin or a standard split), -o OUT.conllu and --ud-dir: the
    arguments of the commands that rewrite a corpus."""
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin), or one split of a UD folder: "
                             "'es:dev' (a standard split), 'en_ewt-test'")
    parser.add_argument("-o", "--output", metavar="OUT.conllu",
                        help="output file (default: stdout)")
    parser.add_argument("--ud-dir", help="UD release folder for a split name")


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """:func:`add_io_arguments`, --model and --lang: the arguments of the commands that
    rewrite a corpus with a punctuation model chosen for its language."""
    add_io_arguments(parser)
    add_model_arguments(parser)
