"""``fstpunct decode``: reconstruct every sentence's underlying punctuation (Viterbi T′)."""
from __future__ import annotations

import argparse

from ..progress import progress
from ..ud.release import read_one
from ..ud.treebank import write_file
from .arguments import add_corpus_arguments
from .model_option import chosen_model
from .pool_option import add_pool_arguments, chosen_pool

HELP = ("Annotate CoNLL-U with the most probable underlying punctuation: PunctL/PunctR in MISC "
        "for every word, '# underlying' and '# punct_logprob' for every sentence; everything "
        "else is copied unchanged.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--posteriors", type=int, default=0, metavar="K",
                        help="also list the K most probable (l, r) pairs per word (PunctPost)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="decode chunks of 500 sentences in this many local processes "
                             "(default 1)")
    add_pool_arguments(parser)


def run(args: argparse.Namespace) -> int:
    model, sentences = chosen_model(args, args.input, read_one(args.input, args.ud_dir))
    with chosen_pool(args) as pool:
        write_file(progress(model.decode(sentences, posteriors=args.posteriors, pool=pool),
                            "decode"), args.output)
    return 0
