"""``fstpunct correct``: correct the punctuation of learner English (paper §6.2)."""
from __future__ import annotations

import argparse

from ..api import load
from ..apps.correction.correct import DECODERS_CORRECT
from ..apps.restoration.generative import DECODERS
from ..errors import check_stream_seed, refuse_missing
from ..progress import progress
from ..ud.release import read_one
from ..ud.treebank import write_file
from .arguments import (
    add_io_arguments,
    add_quiet_argument,
    add_width_argument,
    at_least,
    positive,
    within,
)

HELP = ("Correct punctuation with a correction model (scripts/correction.py train): given each "
        "sentence's tree (or the tree --parser gives the punctuated sentence), the learner's "
        "underlying punctuation is decoded and the corrector's minimum-Bayes-risk punctuation "
        "written in its place (heads from the channel's alignment, '# text' rebuilt); words "
        "and tree are kept.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_io_arguments(parser)
    parser.add_argument("--model", required=True, metavar="DIR", help="correction model folder")
    parser.add_argument("--parser", metavar="DIR",
                        help="parse the punctuated input with this parser (a 'tokens'-mode "
                             "parser trained on learner English) instead of keeping its tree")
    parser.add_argument("--beam", type=positive, metavar="K",
                        help="parser beam (default: the parser's)")
    parser.add_argument("--decoder", choices=DECODERS_CORRECT,
                        help="exact MBR decoder (balanced: paired marks balanced; learner: "
                             "balanced where the learner's own marks balance; default: the "
                             "model's for the trees' source, else balanced)")
    parser.add_argument("--samples", type=int, metavar="N",
                        help="MBR over this many samples instead of the exact decoder")
    parser.add_argument("--mbr", choices=sorted(DECODERS),
                        help="with --samples: 'sentence' (the best sampled x; default) or "
                             "'slot'")
    parser.add_argument("--seed", type=int, metavar="S",
                        help="with --samples: random seed, 0 to 2**32 - 1 (default 0)")
    parser.add_argument("--edit-cost", type=float, metavar="C",
                        help="MBR loss: C more per token edited away from the learner's string "
                             "(exact decoders; default: the model's for the trees' source, "
                             "chosen on dev)")
    parser.add_argument("--support", type=float, metavar="P",
                        help="keep a learner string whose probability under the corrector is "
                             "below P (exact decoders; default: the model's for the trees' "
                             "source, chosen on dev)")
    add_width_argument(parser)
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    at_least(1, samples=args.samples)  # the library checks them too, after loading
    at_least(0, edit_cost=args.edit_cost)
    check_stream_seed(args.seed, "--seed")  # at least 0, one 32-bit word of the streams
    within(0, 1, support=args.support)  # the library's Decoding: a probability
    refuse_missing({"--parser": args.parser})
    model = load(args.model)
    out = model.correct(read_one(args.input, args.ud_dir), decoder=args.decoder,
                        samples=args.samples, mbr=args.mbr, seed=args.seed, parser=args.parser,
                        beam=args.beam, edit_cost=args.edit_cost,
                        support=args.support, width=args.width)
    write_file(progress(out, "correct", quiet=args.quiet), args.output)
    return 0
