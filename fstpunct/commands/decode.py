"""``fstpunct decode``: reconstruct every sentence's underlying punctuation (Viterbi T′)."""
from __future__ import annotations

import argparse

from ..decode import annotate
from ..store import load_model
from ..treebank import write_file
from ..ud import read_one

HELP = ("Annotate CoNLL-U with the most probable underlying punctuation: PunctL/PunctR in MISC "
        "for every word, '# underlying' and '# punct_logprob' for every sentence; everything "
        "else is copied unchanged.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin), or one split of a UD folder: "
                             "'es:dev' (a standard split), 'en_ewt-test'")
    parser.add_argument("-o", "--output", metavar="OUT.conllu",
                        help="output file (default: stdout)")
    parser.add_argument("--model", default="en", help="model folder or bundled name (default en)")
    parser.add_argument("--posteriors", type=int, default=0, metavar="K",
                        help="also list the K most probable (l, r) pairs per word (PunctPost)")
    parser.add_argument("--ud-dir", help="UD release folder for a split name")


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    sentences = annotate(model, read_one(args.input, args.ud_dir), args.posteriors)
    write_file(sentences, args.output)
    return 0
