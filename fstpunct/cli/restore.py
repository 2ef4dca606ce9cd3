"""``fstpunct restore``: strip a sentence's punctuation and restore it (paper §6.1)."""
from __future__ import annotations

import argparse
import sys

from tqdm import tqdm

from ..apps.restoration import Restorer
from ..apps.restoration.crf import CrfModel
from ..apps.restoration.generative import DECODERS, ModelRestorer
from ..apps.restoration.pipeline import restored
from ..apps.restoration.trivial import Trivial
from ..errors import InputError
from ..model.store import load_model
from ..parser import Model as ParserModel
from ..ud.release import LANGUAGES, read_one
from ..ud.treebank import write_file

HELP = ("Restore punctuation: remove any punctuation from the input, take its tree as given "
        "(or parse it with --parser) and insert the punctuation a method predicts, as tokens "
        "with UPOS PUNCT and relation punct; '# text' is rebuilt.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin), or a standard split: 'es:dev', "
                             "'en_ewt-test'")
    parser.add_argument("-o", "--output", metavar="OUT.conllu",
                        help="output file (default: stdout)")
    method = parser.add_mutually_exclusive_group()
    method.add_argument("--model", default="en",
                        help="punctuation model folder or bundled name (default en): MBR over "
                             "samples of (T′, x)")
    method.add_argument("--crf", metavar="DIR", help="use a CRF tagger (fstpunct crf train)")
    method.add_argument("--trivial", metavar="LANG", choices=LANGUAGES,
                        help="the trivial baseline: LANG's full stop at the end, nothing else")
    parser.add_argument("--parser", metavar="DIR", action="append", default=[],
                        help="parse the depunctuated words with this parser model first "
                             "(a 'removed'-mode parser) instead of keeping the input's tree; "
                             "repeat it for an ensemble: the output has the first parser's "
                             "tree, and --model's samples are split evenly among every "
                             "parser's tree")
    parser.add_argument("--beam", type=int, help="parser beam (default: each parser's)")
    parser.add_argument("--samples", type=int, default=1000,
                        help="samples of (T′, x) per sentence (default 1000)")
    parser.add_argument("--mbr", choices=sorted(DECODERS), default="sentence",
                        help="'sentence': the best sampled x (the paper); 'slot': the best "
                             "string of every slot separately (default sentence)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--ud-dir", help="UD release folder for a split name")


def restorer(args: argparse.Namespace) -> Restorer:
    """The method the options name."""
    if args.trivial:
        return Trivial.for_language(args.trivial, args.ud_dir)
    if args.crf:
        return CrfModel.load(args.crf)
    if args.samples < 1:
        raise InputError("--samples must be at least 1")
    return ModelRestorer(load_model(args.model), args.samples, args.mbr, args.seed)


def run(args: argparse.Namespace) -> int:
    method = restorer(args)
    parsers = [ParserModel.load(p) for p in args.parser]
    if len(parsers) > args.samples:
        raise InputError("--samples must be at least the number of parsers")
    sentences = tqdm(read_one(args.input, args.ud_dir), desc="restore", unit=" sentences",
                     disable=args.quiet or None, file=sys.stderr)
    out = restored(sentences, method, parsers, args.beam)
    write_file(out, args.output)
    return 0
