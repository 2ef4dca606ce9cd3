"""``fstpunct normalise``: re-attach punctuation to the constituents whose punctemes wrote it."""
from __future__ import annotations

import argparse
import sys

from ..apps.normalise import Counts
from ..progress import progress
from ..ud.release import read_one
from ..ud.treebank import write_file
from .arguments import add_corpus_arguments, add_quiet_argument
from .model_option import chosen_model
from .pool_option import add_pool_arguments, check_pool_options, chosen_pool

HELP = ("Treebank punctuation normalisation (after Tse & Curran 2010): give every punctuation "
        "token the HEAD (and DEPS entry) of the word whose underlying puncteme wrote it, on "
        "the model's most probable analysis; everything else is copied unchanged, but a UPOS "
        "'_', which the model's tagger fills in first. A summary goes to stderr.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="normalise chunks of 500 sentences in this many local processes "
                             "(default 1)")
    add_pool_arguments(parser)
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    check_pool_options(args)  # before the note on the input's language
    model, sentences = chosen_model(args, args.input, read_one(args.input, args.ud_dir))
    counts = Counts()
    with chosen_pool(args) as pool:
        write_file(progress(model.normalise(sentences, counts=counts, pool=pool), "normalise",
                            quiet=args.quiet),
                   args.output)
    print(f"fstpunct normalise: {counts}", file=sys.stderr)
    return 0
