"""``fstpunct parse``: parse CoNLL-U with a trained parser model."""
from __future__ import annotations

import argparse

from ..api.parsing import parse
from ..errors import refuse_unused
from ..parser import read_unparsed
from ..progress import progress
from ..ud.release import names_file, read_one
from ..ud.treebank import write_file
from .arguments import (
    add_quiet_argument,
    add_ud_dir_argument,
    at_least,
    output_file,
    positive,
)

HELP = ("Parse CoNLL-U (HEAD may be '_'): every line and column is kept except HEAD and "
        "DEPREL; punctuation left out by the model is attached to a neighbour. With "
        "--punct-model, the tree is chosen among the beam's by parser score + weight · "
        "log p(punctuation | tree) (punctuation as a constraint on parsing, Jones 1994).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin; HEAD may be '_'), or one split of a "
                             "UD folder: 'en:dev', 'en_ewt-test' (its trees are replaced)")
    parser.add_argument("--model", required=True, metavar="DIR",
                        help="parser model folder (fstpunct parser train)")
    parser.add_argument("--beam", type=positive, metavar="K",
                        help="beam width (default: the model's)")
    parser.add_argument("-o", "--output", metavar="OUT", type=output_file,
                        help="output file (default: stdout)")
    parser.add_argument("--punct-model", metavar="M",
                        help="punctuation model (folder or bundled name; a correction "
                             "model's folder: its learner model) that re-ranks the k best "
                             "trees of --model, then a 'removed'-mode parser whose beam (--beam "
                             "or its own) must be at least 2")
    parser.add_argument("--punct-weight", type=float, metavar="W",
                        help="with --punct-model: weight of log p(punctuation | tree) against "
                             "the parser score (default 32, chosen on en dev: RESULTS.md)")
    add_ud_dir_argument(parser)
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    at_least(0, punct_weight=args.punct_weight)  # the library checks it too
    refuse_unused({"--punct-weight": args.punct_weight is not None and not args.punct_model},
                  "only with --punct-model (the model it weighs)")
    sentences = progress(read_unparsed(args.input) if names_file(args.input)
                         else read_one(args.input, args.ud_dir), "parse", quiet=args.quiet)
    if args.punct_model:  # the punctuation model's imports only when it is used
        from ..api import load  # a correction model: its learner model, as decode reads it
        weight = {} if args.punct_weight is None else {"punct_weight": args.punct_weight}
        trees = load(args.punct_model).parse(sentences, args.model, beam=args.beam, **weight)
    else:
        trees = parse(sentences, args.model, beam=args.beam)
    write_file(trees, args.output)
    return 0
