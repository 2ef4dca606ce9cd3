"""Arguments shared by several commands."""
from __future__ import annotations

import argparse


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """IN.conllu (a file, stdin or a standard split), -o OUT.conllu, --model and --ud-dir: the
    arguments of the commands that rewrite a corpus with a punctuation model."""
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin), or one split of a UD folder: "
                             "'es:dev' (a standard split), 'en_ewt-test'")
    parser.add_argument("-o", "--output", metavar="OUT.conllu",
                        help="output file (default: stdout)")
    parser.add_argument("--model", default="en", help="model folder or bundled name (default en)")
    parser.add_argument("--ud-dir", help="UD release folder for a split name")
