"""Arguments shared by several commands."""
from __future__ import annotations

import argparse

from .model_option import add_model_arguments


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """IN.conllu (a file, stdin or a standard split), -o OUT.conllu, --model, --lang and
    --ud-dir: the arguments of the commands that rewrite a corpus with a punctuation model."""
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin), or one split of a UD folder: "
                             "'es:dev' (a standard split), 'en_ewt-test'")
    parser.add_argument("-o", "--output", metavar="OUT.conllu",
                        help="output file (default: stdout)")
    add_model_arguments(parser)
    parser.add_argument("--ud-dir", help="UD release folder for a split name")
