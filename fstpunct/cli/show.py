"""``fstpunct show``: a CoNLL-U file and a model as one self-contained HTML page."""
from __future__ import annotations

import argparse
import sys

from ..progress import progress
from ..ud.release import read_one
from ..wording import counted
from .arguments import add_corpus_arguments, add_quiet_argument, at_least
from .model_option import chosen_model

HELP = ("Write one self-contained HTML page (no network needed) showing every sentence's "
        "underlying punctuation: words in order with their dependency arcs, each "
        "constituent's punctemes at its edges coloured by what the channel did to them "
        "(kept, absorbed, transposed), the surface below; a word's K most probable (l, r) "
        "pairs and a slot's best edit path on hover or click; search and pages; and a tab of "
        "what the channel learned against its grammar.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser, output="OUT.html")
    parser.add_argument("--pairs", type=int, default=5, metavar="K",
                        help="the K most probable (l, r) pairs shown per word (default 5)")
    parser.add_argument("--page-size", type=int, default=200, metavar="N",
                        help="sentences per page (default 200)")
    parser.add_argument("--grammar", help="the rule file to compare the channel with (default: "
                                          "the one the model was trained from)")
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    at_least(0, pairs=args.pairs)  # the library checks them too, after loading
    at_least(1, page_size=args.page_size)
    model, sentences = chosen_model(args, args.input, read_one(args.input, args.ud_dir))
    n = model.show(progress(sentences, "show", quiet=args.quiet), args.output, pairs=args.pairs,
                   page_size=args.page_size, grammar=args.grammar,
                   title=f"fstpunct: {args.input} · model {model.name}")
    print(f"fstpunct show: {counted(n, 'sentence')}", file=sys.stderr)
    return 0
