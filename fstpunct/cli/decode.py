"""``fstpunct decode``: reconstruct every sentence's underlying punctuation (Viterbi T′)."""
from __future__ import annotations

import argparse

from ..progress import progress
from ..ud.release import read_one
from ..ud.treebank import write_file
from .arguments import add_corpus_arguments
from .model_option import chosen_model

HELP = ("Annotate CoNLL-U with the most probable underlying punctuation: PunctL/PunctR in MISC "
        "for every word, '# underlying' and '# punct_logprob' for every sentence; everything "
        "else is copied unchanged.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--posteriors", type=int, default=0, metavar="K",
                        help="also list the K most probable (l, r) pairs per word (PunctPost)")


def run(args: argparse.Namespace) -> int:
    model, sentences = chosen_model(args, args.input, read_one(args.input, args.ud_dir))
    write_file(progress(model.decode(sentences, posteriors=args.posteriors), "decode"),
               args.output)
    return 0
