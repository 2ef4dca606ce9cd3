"""``fstpunct parse``: parse CoNLL-U with a trained parser model."""
from __future__ import annotations

import argparse
import sys

from ..parser import Model, parse, read_unparsed

HELP = ("Parse CoNLL-U (HEAD may be '_'): every line and column is kept except HEAD and "
        "DEPREL; punctuation left out by the model is attached to a neighbour.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin)")
    parser.add_argument("--model", required=True, metavar="DIR", help="model folder")
    parser.add_argument("--beam", type=int, help="beam width (default: the model's)")
    parser.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")


def run(args: argparse.Namespace) -> int:
    model = Model.load(args.model)
    beam = args.beam or int(model.info.get("beam", 1))
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        for sent in read_unparsed(args.input):
            out.write(parse(model, sent, beam).text())
    finally:
        if args.output:
            out.close()
    return 0
